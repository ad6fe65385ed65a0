/*
 * statefile.h: what statefile.c offers its callers: the local store, one
 * small file per NAME in a directory of the user's own, read and written
 * under an exclusive lock; and struct guard, one guard on its store, which
 * guard.c fills in and the stores use.
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/signals.h"
#include "budget.h"

/* One guard on its store: the local file, or Redis (redisstore.c). */
#define PATH_MAX_GUARD	4096	/* a state file's path, or a Redis URL */

struct redis;
struct guard {
	const struct guard_spec *spec;
	const char	*what;		/* "retry budget" or "circuit breaker" */
	bool		 on;		/* given, and its store answers */
	int		 fd;		/* the local state file, or -1 */
	bool		 flocked;	/* locked with flock(2), not OFD */
	bool		 corrupt;	/* the record read was not valid */
	const struct sigstate *ss;	/* whose stop signals end a wait */
	struct redis	*redis;		/* or the Redis connection */
	char		 where[PATH_MAX_GUARD];	/* the file or the URL */
};

#define LOCK_WAIT_MS	1000	/* the longest wait for a state file's lock */
bool		 statefile_open(struct guard *g, char *why, size_t len);
ssize_t		 statefile_begin(struct guard *g, char *buf, size_t len);
int		 statefile_commit(struct guard *g, const char *buf, size_t len);

#endif /* STATEFILE_H */
