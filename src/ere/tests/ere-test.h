/*
 * ere-test.h: what ere-lines.c offers ere-test.c: the long-line cases.
 */
#ifndef ERE_TEST_H
#define ERE_TEST_H

#include <stdbool.h>
#include <stddef.h>

int		 run_lines(bool verbose, size_t *count);

#endif /* ERE_TEST_H */
