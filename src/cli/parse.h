/*
 * parse.h: what parse.c offers its callers: every conversion from a
 * string; NULL or a reason.
 */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guard/budget.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "policy/backoff.h"

const char	*parse_duration(const char *s, nsec_t *out, bool allow_inf);
const char	*parse_attempts(const char *s, long long *out);
const char	*parse_delays(const char *s, struct schedule *sched, char *why,
		    size_t len);
const char	*parse_factor(const char *s, double *out);
const char	*parse_jitter(const char *s, struct jitter *j);
const char	*parse_seed(const char *s, uint64_t *out);
const char	*parse_signal(const char *s, int *out);
const char	*parse_log_format(const char *s, enum log_format *out);
const char	*parse_budget(const char *s, struct guard_spec *g);
const char	*parse_breaker(const char *s, struct guard_spec *g);

/* Room for any URL guard_target() writes: a host, a socket's path, a
 * user, a database and a name, each bounded by the parser. */
#define GUARD_TARGET_MAX	1024
/* A --budget or --breaker store as the URL the parser reads, for
 * messages and --dry-run; "" for a local state file. */
int		 guard_target(char *buf, size_t len, const struct guard_spec *g);

#endif /* PARSE_H */
