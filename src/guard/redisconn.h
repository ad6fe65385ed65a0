/*
 * redisconn.h: what redisconn.c offers the other files of the Redis
 * store (rediscmd.c, redisstore.c): a connection to a server, the
 * allowance of time its waits share, and its bytes in and out.  Only
 * where hiredis is built in.
 */
#ifndef REDISCONN_H
#define REDISCONN_H

#ifdef HAVE_HIREDIS
#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include <hiredis.h>

#include "os/defs.h"
#include "os/signals.h"
#include "store.h"
#include "tls.h"

/*
 * What a store may wait.  REDIS_TIMEOUT_MS bounds reaching the server
 * (resolving its name, the connect): a host that refuses, is unreachable
 * or never answers gives up that soon.  A server that accepted the
 * connection is waited on for REDIS_CEILING_MS at most: everything
 * before its first answer (connect, TLS, AUTH, SELECT and the first
 * exchange) shares one ceiling, and each exchange after it has its own.
 * No wait passes the run's deadline, and a stop signal after the
 * caller's mark ends any of them at once.
 */
#define REDIS_TIMEOUT_MS	500
#define REDIS_CEILING_MS	STORE_CEILING_MS

/* The longest host name a node is known by (RFC 1035's 253, and more). */
#define REDIS_HOST_MAX		256

struct redis {
	redisContext	*c;
	char		 host[REDIS_HOST_MAX];	/* the node's, or "" */
	const struct sigstate *ss;
	nsec_t		 deadline;	/* of the wait under way */
	nsec_t		 ceiling;	/* of the step, the run's if sooner */
	const nsec_t	*limit;		/* the run's deadline, 0: none */
	const nsec_t	*opening;	/* the guards' before attempt 1 */
	bool		 cut;		/* the step's ceiling is the run's */
	bool		 silent;	/* the wait ends at the silence's end */
	bool		 accepted;	/* the connection is made: no silence */
	long		 mark;		/* a stop after this ends its waits */
	nsec_t		 began;		/* when the step under way began */
	nsec_t		 spent;		/* waited before the first answer */
	bool		 answered;	/* the first exchange is over */
	const char	*user;		/* for AUTH on every node, or NULL */
	const char	*password;
	struct tls	*tls;		/* rediss://: its context, or NULL */
	bool		 tls_up;	/* with a session on the socket */
};

/* A server on TCP (rediss:// if files is not NULL), or a socket's path. */
struct redis_node {
	const char		*host;
	int			 port;
	const struct tls_files	*files;	/* the CAs, certificate and key */
	const nsec_t		*limit;	/* the run's deadline, 0: none */
	const nsec_t		*opening; /* no wait before attempt 1 passes
					   it; 0: none */
};
struct redis	*redis_open(const struct redis_node *node,
		    const struct sigstate *ss, long mark, char *why,
		    size_t len);
struct redis	*redis_open_unix(const struct redis_node *node,
		    const struct sigstate *ss, long mark, char *why,
		    size_t len);
void		 redis_close(struct redis *r);
bool		 redis_reconnect(struct redis *r, const char *host, int port,
		    char *why, size_t len);
void		 redis_step_begin(struct redis *r, long mark);
void		 redis_step_end(struct redis *r);
nsec_t		 redis_progress(struct redis *r);
int		 redis_wait_ready(struct redis *r, short events, char *why,
		    size_t len);
ssize_t		 redis_io_read(struct redis *r, void *buf, size_t n,
		    short *events, char *why, size_t len);
bool		 redis_send_all(struct redis *r, const char *buf, size_t n,
		    char *why, size_t len);
#endif /* HAVE_HIREDIS */

#endif /* REDISCONN_H */
