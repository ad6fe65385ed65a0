/*
 * rediscmd.h: what rediscmd.c offers its callers: AUTH, SELECT and EVAL
 * on a connection of redisconn.c's.  Only where hiredis is built in.
 */
#ifndef REDISCMD_H
#define REDISCMD_H

#ifdef HAVE_HIREDIS
#include <stdbool.h>
#include <stddef.h>

#include "redisconn.h"

#define REDIS_ARGS	8
#define REDIS_OUT	4	/* the most integers a reply has */
struct redis_call {
	const char	*script;	/* the Lua text */
	const char	*key;
	const char	*args[REDIS_ARGS];
	int		 nargs;
	long long	 out[REDIS_OUT];	/* the integers of the reply */
	int		 nout;
	char		 why[256];	/* what went wrong */
};
bool		 redis_select(struct redis *r, int db, char *why, size_t len);
bool		 redis_auth(struct redis *r, const char *user,
		    const char *password, char *why, size_t len);
bool		 redis_eval(struct redis *r, struct redis_call *call,
		    long mark);
#endif /* HAVE_HIREDIS */

#endif /* REDISCMD_H */
