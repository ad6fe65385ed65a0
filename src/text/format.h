/*
 * format.h: what format.c offers its callers: values as text, for the log,
 * the dry run and the parser.
 */
#ifndef FORMAT_H
#define FORMAT_H

#include <stddef.h>

#include "os/defs.h"

int		 format_seconds(char *buf, size_t len, nsec_t ns);
int		 format_fixed(char *buf, size_t len, nsec_t ns, int digits);
int		 format_utc(char *buf, size_t len, nsec_t wall);
int		 format_local(char *buf, size_t len, nsec_t wall);
int		 format_ms(char *buf, size_t len, nsec_t ns);
int		 format_short(char *buf, size_t len, nsec_t ns);
int		 format_span(char *buf, size_t len, nsec_t ns);

#endif /* FORMAT_H */
