/*
 * duration.h: what duration.c offers its callers: DURATION, as text, to
 * nanoseconds; NULL or a reason.
 */
#ifndef DURATION_H
#define DURATION_H

#include <stdbool.h>

#include "os/defs.h"

const char	*parse_duration(const char *s, nsec_t *out, bool allow_inf);

#endif /* DURATION_H */
