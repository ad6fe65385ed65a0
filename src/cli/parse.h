/*
 * parse.h: what parse.c offers its callers: every conversion from a
 * string; NULL or a reason.  DURATION, which parse.c reads too, is
 * text/duration.h's: included here for the options' callers.
 */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attempt/match.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "policy/backoff.h"
#include "text/duration.h"

const char	*parse_attempts(const char *s, long long *out);
const char	*parse_delays(const char *s, struct schedule *sched, char *why,
		    size_t len);
const char	*parse_factor(const char *s, double *out);
const char	*parse_jitter(const char *s, struct jitter *j);
const char	*parse_output_rule(const char *re, int form,
		    struct match_rules *c, bool seen[MATCH_KINDS]);
const char	*parse_seed(const char *s, uint64_t *out);
const char	*parse_status(const char *s, int *out);
const char	*parse_signal(const char *s, int *out);
const char	*parse_log_format(const char *s, enum log_format *out);

#endif /* PARSE_H */
