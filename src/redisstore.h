/*
 * redisstore.h: what redisstore.c offers its callers: the Redis store,
 * through hiredis when it is built in.
 */
#ifndef REDISSTORE_H
#define REDISSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include "defs.h"
#include "signals.h"
#include "tls.h"

#define REDIS_ARGS	8
struct redis_call {
	const char	*script;	/* the Lua text */
	const char	*sha1;		/* and its SHA-1, for EVALSHA */
	const char	*key;
	const char	*args[REDIS_ARGS];
	int		 nargs;
	long long	 out[3];	/* the integers of the reply */
	int		 nout;
	char		 why[256];	/* what went wrong */
};
bool		 redis_built_in(void);
struct redis	*redis_open(const char *host, int port,
		    const struct tls_files *files, const struct sigstate *ss,
		    char *why, size_t len);
struct redis	*redis_open_unix(const char *path, const struct sigstate *ss,
		    char *why, size_t len);
bool		 redis_select(struct redis *r, int db, char *why, size_t len);
bool		 redis_auth(struct redis *r, const char *user,
		    const char *password, char *why, size_t len);
bool		 redis_eval(struct redis *r, struct redis_call *call);

#endif /* REDISSTORE_H */
