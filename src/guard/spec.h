/*
 * spec.h: what spec.c offers its callers: the SPEC of --budget and
 * --breaker as struct guard_spec, read from the command line and written
 * back as a URL.
 */
#ifndef SPEC_H
#define SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"

/*
 * --budget and --breaker: a name, the Redis server that keeps the state
 * (host empty: a local file) and the parameters of the rule.
 */
#define GUARD_NAME_MAX	64
#define GUARD_HOST_MAX	255
struct guard_spec {
	char		name[GUARD_NAME_MAX + 1];	/* empty: not given */
	char		host[GUARD_HOST_MAX + 1];	/* empty: local */
	char		user[GUARD_NAME_MAX + 1];	/* Redis ACL user, or "" */
	int		port;		/* 0: host is a Unix socket's path */
	bool		tls;		/* rediss://: through TLS */
	int		db;		/* the Redis database to SELECT */
	long long	tokens;		/* budget: the bucket's size */
	long long	ratio;		/* budget: milli-tokens per success */
	nsec_t		refill;		/* budget: a token back every; 0: never */
	long long	failures;	/* breaker: give-ups in a row to open */
	nsec_t		cooldown;	/* breaker: the first wait when open */
};

const char	*parse_budget(const char *s, struct guard_spec *g);
const char	*parse_breaker(const char *s, struct guard_spec *g);

/* Room for any URL guard_target() writes: a host, a socket's path, a
 * user, a database and a name, each bounded by the parser. */
#define GUARD_TARGET_MAX	1024
/* A --budget or --breaker store as the URL the parser reads, for
 * messages and --dry-run; "" for a local state file. */
int		 guard_target(char *buf, size_t len, const struct guard_spec *g);

#endif /* SPEC_H */
