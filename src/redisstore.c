/*
 * redisstore.c: the Redis store of --budget and --breaker, for a fleet
 * whose hosts share nothing local.  It connects to the server and runs a
 * Lua script there by its SHA-1 (EVALSHA), loading it with SCRIPT LOAD
 * the first time the server answers NOSCRIPT; the script, which the
 * caller passes in, does the whole read-modify-write atomically on the
 * server's clock.  This file knows nothing of the rules.
 *
 * hiredis is linked statically where it is built in (the Makefile finds
 * it with pkg-config): a run that names no redis:// store loads no more
 * shared libraries than before.  Without it, redis_built_in() says so
 * and the caller refuses the redis:// form.  Every connect and command
 * gives up after REDIS_TIMEOUT_MS: the caller then goes on without the
 * budget or breaker rather than keep the command waiting on Redis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifdef HAVE_HIREDIS
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>

#include <hiredis.h>

#define REDIS_TIMEOUT_MS	500

struct redis {
	redisContext	*c;
};

bool
redis_built_in(void)
{
	return true;
}

static struct redis *
open_failed(redisContext *c, const char *msg, char *why, size_t len)
{
	snprintf(why, len, "%s", msg);
	if (c != NULL)
		redisFree(c);
	return NULL;
}

/* A connection with both timeouts set, or NULL with why filled in. */
struct redis *
redis_open(const char *host, int port, char *why, size_t len)
{
	struct timeval tv;
	struct redis *r;
	redisContext *c;

	tv.tv_sec = 0;
	tv.tv_usec = (suseconds_t)REDIS_TIMEOUT_MS * 1000;

	if ((c = redisConnectWithTimeout(host, port, tv)) == NULL)
		return open_failed(c, strerror(ENOMEM), why, len);
	if (c->err != 0)
		return open_failed(c, c->errstr, why, len);
	if (redisSetTimeout(c, tv) != REDIS_OK)
		return open_failed(c, "cannot set a timeout", why, len);
	/* The command must not inherit the socket. */
	if ((c->fd = fd_above_stdio(c->fd)) == -1 ||
	    fcntl(c->fd, F_SETFD, FD_CLOEXEC) == -1)
		return open_failed(c, strerror(errno), why, len);
	if ((r = malloc(sizeof(*r))) == NULL)
		return open_failed(c, strerror(ENOMEM), why, len);
	r->c = c;
	return r;
}

static redisReply *
evalsha(struct redis *r, const struct redis_call *call)
{
	const char *argv[4 + REDIS_ARGS];
	int i, n = 0;

	argv[n++] = "EVALSHA";
	argv[n++] = call->sha1;
	argv[n++] = "1";
	argv[n++] = call->key;
	for (i = 0; i < call->nargs && i < REDIS_ARGS; i++)
		argv[n++] = call->args[i];
	return redisCommandArgv(r->c, n, argv, NULL);
}

/*
 * Why a command got no reply.  hiredis reports a timeout as the errno of
 * the read that timed out, "Resource temporarily unavailable": say what
 * happened instead.
 */
static void
no_reply(const struct redis *r, char *why, size_t len)
{
	if (r->c->err == REDIS_ERR_IO && (errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		snprintf(why, len, "no answer within %d ms", REDIS_TIMEOUT_MS);
	else
		snprintf(why, len, "%s", r->c->errstr);
}

static bool
is_noscript(const redisReply *reply)
{
	return reply != NULL && reply->type == REDIS_REPLY_ERROR &&
	    strncmp(reply->str, "NOSCRIPT", 8) == 0;
}

/* The reply's integers into call->out; false with call->why if none. */
static bool
take_reply(const struct redis *r, const redisReply *reply,
    struct redis_call *call)
{
	size_t i;

	if (reply == NULL) {
		no_reply(r, call->why, sizeof(call->why));
		return false;
	}
	if (reply->type == REDIS_REPLY_ERROR) {
		snprintf(call->why, sizeof(call->why), "%s", reply->str);
		return false;
	}
	if (reply->type != REDIS_REPLY_ARRAY || reply->elements == 0) {
		snprintf(call->why, sizeof(call->why), "unexpected reply");
		return false;
	}
	call->nout = 0;
	for (i = 0; i < reply->elements && i < 3; i++) {
		if (reply->element[i]->type != REDIS_REPLY_INTEGER) {
			snprintf(call->why, sizeof(call->why),
			    "unexpected reply");
			return false;
		}
		call->out[call->nout++] = reply->element[i]->integer;
	}
	return true;
}

/* SCRIPT LOAD, after a NOSCRIPT: false with call->why if it failed. */
static bool
load_script(struct redis *r, struct redis_call *call)
{
	redisReply *load;
	bool ok;

	if ((load = redisCommand(r->c, "SCRIPT LOAD %s", call->script)) ==
	    NULL) {
		no_reply(r, call->why, sizeof(call->why));
		return false;
	}
	if (!(ok = load->type == REDIS_REPLY_STRING))
		snprintf(call->why, sizeof(call->why), "SCRIPT LOAD: %s",
		    load->type == REDIS_REPLY_ERROR ? load->str :
		    "unexpected reply");
	freeReplyObject(load);
	return ok;
}

/* Runs call's script on its key: true with call->out, or call->why. */
bool
redis_eval(struct redis *r, struct redis_call *call)
{
	redisReply *reply;
	bool ok;

	if ((reply = evalsha(r, call)) != NULL && is_noscript(reply)) {
		freeReplyObject(reply);
		if (!load_script(r, call))
			return false;
		reply = evalsha(r, call);
	}
	ok = take_reply(r, reply, call);
	if (reply != NULL)
		freeReplyObject(reply);
	return ok;
}

#else	/* !HAVE_HIREDIS */

bool
redis_built_in(void)
{
	return false;
}

struct redis *
redis_open(const char *host, int port, char *why, size_t len)
{
	(void)host;
	(void)port;
	snprintf(why, len, "built without Redis support");
	return NULL;
}

bool
redis_eval(struct redis *r, struct redis_call *call)
{
	(void)r;
	snprintf(call->why, sizeof(call->why), "built without Redis support");
	return false;
}

#endif	/* HAVE_HIREDIS */
