/*
 * rediscmd.c: the exchange of the Redis store: a command out and its
 * reply in, in RESP, on redisconn.c's connection: AUTH, SELECT, and EVAL
 * with a Lua script, sent whole, and its key, following a cluster's
 * redirections (MOVED and ASK).  EVAL rather than EVALSHA: its 3 KiB
 * cost less to send than a SHA-1 costs to compute, and a server that
 * lost its scripts needs no second round trip (README.md, "Fleet":
 * measured).  This file knows nothing of the rules, nor of the script.
 *
 * hiredis formats the commands and parses the replies.  A reply is at
 * most REPLY_MAX bytes and announces no array or string longer than
 * REPLY_ITEMS: the script's answers are a few integers, so a peer that
 * claims more is not the server retry expects, and the caller goes on
 * without the budget or breaker.
 *
 * Only where hiredis is built in (HAVE_HIREDIS), as redisconn.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rediscmd.h"

#ifdef HAVE_HIREDIS
#include <errno.h>

#include <hiredis.h>

#include "os/defs.h"
#include "redisconn.h"

#define REPLY_MAX		4096	/* bytes of one reply */
#define REPLY_ITEMS		64	/* elements of an array, bytes of a string */
#define REDIRECTS_MAX		4	/* MOVED or ASK, for one update */

/*
 * Whether the reply so far announces no more than REPLY_ITEMS elements
 * or bytes on any line: checked before hiredis sees the bytes, so that
 * "*1000000000" never becomes an allocation.
 */
static bool
sizes_ok(const char *buf, size_t n)
{
	size_t i;
	long v;

	for (i = 0; i < n; i++) {
		if (i > 0 && buf[i - 1] != '\n')
			continue;
		if (buf[i] != '*' && buf[i] != '$')
			continue;
		v = 0;
		while (++i < n && buf[i] >= '0' && buf[i] <= '9')
			if ((v = v * 10 + (buf[i] - '0')) > REPLY_ITEMS)
				return false;
	}
	return true;
}

/* Reads one reply before the deadline: it, or NULL with why. */
static redisReply *
read_reply(struct redis *r, char *why, size_t len)
{
	char buf[REPLY_MAX];
	size_t n = 0, fed = 0;
	redisReader *rd;
	void *reply = NULL;
	ssize_t got;
	short events;

	if ((rd = redisReaderCreate()) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	while (reply == NULL) {
		if (n == sizeof(buf) || !sizes_ok(buf, n)) {
			snprintf(why, len, "reply larger than %d bytes",
			    REPLY_MAX);
			break;
		}
		if (n > fed && (redisReaderFeed(rd, buf + fed, n - fed) !=
		    REDIS_OK || redisReaderGetReply(rd, &reply) != REDIS_OK)) {
			snprintf(why, len, "%s", rd->errstr);
			break;
		}
		fed = n;
		if (reply != NULL)
			break;
		if ((got = redis_io_read(r, buf + n, sizeof(buf) - n, &events,
		    why, len)) > 0) {
			n += (size_t)got;
			continue;
		}
		if (got == 0) {
			snprintf(why, len, "connection closed by the server");
			break;
		}
		if (errno != EAGAIN)
			break;
		if (redis_wait_ready(r, events, why, len) == -1)
			break;
	}
	redisReaderFree(rd);
	return reply;
}

/* One command and its reply: the reply, or NULL with why. */
static redisReply *
command(struct redis *r, int argc, const char **argv, char *why,
    size_t len)
{
	char *cmd;
	int n;
	bool sent;

	if ((n = redisFormatCommandArgv(&cmd, argc, argv, NULL)) < 0) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	sent = redis_send_all(r, cmd, (size_t)n, why, len);
	free(cmd);
	return sent ? read_reply(r, why, len) : NULL;
}

static redisReply *
eval(struct redis *r, struct redis_call *call)
{
	const char *argv[4 + REDIS_ARGS];
	int i, n = 0;

	argv[n++] = "EVAL";
	argv[n++] = call->script;
	argv[n++] = "1";
	argv[n++] = call->key;
	for (i = 0; i < call->nargs && i < REDIS_ARGS; i++)
		argv[n++] = call->args[i];
	return command(r, n, argv, call->why, sizeof(call->why));
}

/* The reply's integers into call->out; false with call->why if none. */
static bool
take_reply(const redisReply *reply, struct redis_call *call)
{
	size_t i;

	if (reply == NULL)
		return false;
	if (reply->type == REDIS_REPLY_ERROR) {
		snprintf(call->why, sizeof(call->why), "%s", reply->str);
		return false;
	}
	if (reply->type != REDIS_REPLY_ARRAY || reply->elements == 0) {
		snprintf(call->why, sizeof(call->why), "unexpected reply");
		return false;
	}
	call->nout = 0;
	for (i = 0; i < reply->elements && i < REDIS_OUT; i++) {
		if (reply->element[i]->type != REDIS_REPLY_INTEGER) {
			snprintf(call->why, sizeof(call->why),
			    "unexpected reply");
			return false;
		}
		call->out[call->nout++] = reply->element[i]->integer;
	}
	return true;
}

/*
 * AUTH with r's user and password, or ASKING: true if the server said
 * OK, or false with why.
 */
static bool
simple(struct redis *r, const char *verb, char *why, size_t len)
{
	const char *argv[] = { verb, r->user, r->password };
	redisReply *reply;
	bool ok;

	if (strcmp(verb, "AUTH") != 0)
		reply = command(r, 1, argv, why, len);
	else if (*r->user == '\0')
		reply = command(r, 2, (const char *[]){ verb, r->password },
		    why, len);
	else
		reply = command(r, 3, argv, why, len);
	if (reply == NULL)
		return false;
	ok = reply->type == REDIS_REPLY_STATUS;
	if (!ok)
		snprintf(why, len, "%s: %s", verb, reply->type ==
		    REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
	freeReplyObject(reply);
	return ok;
}

/*
 * AUTH [user] password, a step within the first answer's allowance, as
 * the connect's mark has it: true, or false with why.  The password
 * comes from the environment, as redis-cli's does, so that it never
 * shows in a command line.
 */
bool
redis_auth(struct redis *r, const char *user, const char *password,
    char *why, size_t len)
{
	bool ok;

	r->user = user;
	r->password = password;
	redis_step_begin(r, r->mark);
	if ((ok = simple(r, "AUTH", why, len)))
		redis_step_end(r);
	return ok;
}

/*
 * SELECT db, after AUTH, a step as AUTH is: true, or false with why,
 * which names the database the server refused.
 */
bool
redis_select(struct redis *r, int db, char *why, size_t len)
{
	char n[16];
	redisReply *reply;
	bool ok;

	snprintf(n, sizeof(n), "%d", db);
	redis_step_begin(r, r->mark);
	if ((reply = command(r, 2, (const char *[]){ "SELECT", n }, why,
	    len)) == NULL)
		return false;
	redis_step_end(r);
	ok = reply->type == REDIS_REPLY_STATUS;
	if (!ok)
		snprintf(why, len, "SELECT %d: %s", db, reply->type ==
		    REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
	freeReplyObject(reply);
	return ok;
}

/*
 * A Redis Cluster's redirection, "MOVED SLOT HOST:PORT" or "ASK SLOT
 * HOST:PORT" (an IPv6 address without brackets): the node into host
 * and port, *ask for ASK; false if reply is none.  An empty HOST (what
 * Redis 7 sends with cluster-preferred-endpoint-type unknown-endpoint)
 * is the node of r's connection, by the name it was reached by, as the
 * cluster specification says.
 */
static bool
redirection(const struct redis *r, const redisReply *reply, char *host,
    size_t hlen, int *port, bool *ask)
{
	const char *s, *colon, *errstr;

	if (reply->type != REDIS_REPLY_ERROR)
		return false;
	*ask = strncmp(reply->str, "ASK ", 4) == 0;
	if (!*ask && strncmp(reply->str, "MOVED ", 6) != 0)
		return false;
	if ((s = strchr(reply->str + (*ask ? 4 : 6), ' ')) == NULL ||
	    (colon = strrchr(++s, ':')) == NULL ||
	    (size_t)(colon - s) >= hlen)
		return false;
	*port = (int)strtonum(colon + 1, 1, 65535, &errstr);
	if (colon == s)
		snprintf(host, hlen, "%s", r->host);
	else
		snprintf(host, hlen, "%.*s", (int)(colon - s), s);
	return errstr == NULL && host[0] != '\0';
}

/*
 * Follows a redirection to host:port within the step's deadline: the
 * new node is r's from now on (after MOVED) or for this command (ASK,
 * which it must be told with ASKING).  It gets the same AUTH; SELECT
 * has no place in a cluster.  false with why.
 */
static bool
follow(struct redis *r, const char *host, int port, bool ask, char *why,
    size_t len)
{
	if (!redis_reconnect(r, host, port, why, len))
		return false;
	if (r->password != NULL && !simple(r, "AUTH", why, len))
		return false;
	return !ask || simple(r, "ASKING", why, len);
}

/*
 * Runs call's script on its key, a step whose waits a stop after mark
 * ends: true with call->out, or call->why.  A cluster's node that does
 * not hold the key's slot redirects: at most REDIRECTS_MAX times, all
 * within the step's deadline.
 */
bool
redis_eval(struct redis *r, struct redis_call *call, long mark)
{
	char host[REDIS_HOST_MAX];
	redisReply *reply;
	int hops, port;
	bool ok, ask;

	redis_step_begin(r, mark);
	for (hops = 0; (reply = eval(r, call)) != NULL &&
	    hops < REDIRECTS_MAX &&
	    redirection(r, reply, host, sizeof(host), &port, &ask); hops++) {
		freeReplyObject(reply);
		if (!follow(r, host, port, ask, call->why, sizeof(call->why)))
			return false;
	}
	if (reply != NULL) {
		redis_step_end(r);
		r->answered = true;
	}
	ok = take_reply(reply, call);
	if (reply != NULL)
		freeReplyObject(reply);
	return ok;
}

#endif	/* HAVE_HIREDIS */
