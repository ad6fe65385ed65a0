/*
 * redisstore.h: what redisstore.c offers its callers: the Redis store,
 * through hiredis when it is built in.
 */
#ifndef REDISSTORE_H
#define REDISSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/signals.h"
#include "tls.h"

#define REDIS_ARGS	8
struct redis_call {
	const char	*script;	/* the Lua text */
	const char	*key;
	const char	*args[REDIS_ARGS];
	int		 nargs;
	long long	 out[3];	/* the integers of the reply */
	int		 nout;
	char		 why[256];	/* what went wrong */
};
/*
 * What a store may wait, in all, for everything before its first answer
 * (connect, AUTH, SELECT and the first exchange), and for each exchange
 * after it: a stop signal after the caller's mark ends any of these
 * waits at once.
 */
#define REDIS_TIMEOUT_MS	500
bool		 redis_built_in(void);
/* A server on TCP: rediss:// if files is not NULL. */
struct redis_node {
	const char		*host;
	int			 port;
	const struct tls_files	*files;	/* the CAs, certificate and key */
};
struct redis	*redis_open(const struct redis_node *node,
		    const struct sigstate *ss, long mark, char *why,
		    size_t len);
struct redis	*redis_open_unix(const char *path, const struct sigstate *ss,
		    long mark, char *why, size_t len);
bool		 redis_select(struct redis *r, int db, char *why, size_t len);
bool		 redis_auth(struct redis *r, const char *user,
		    const char *password, char *why, size_t len);
bool		 redis_eval(struct redis *r, struct redis_call *call,
		    long mark);

#endif /* REDISSTORE_H */
