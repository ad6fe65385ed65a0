/*
 * redisstore.c: the Redis store of --budget and --breaker, for a fleet
 * whose hosts share nothing local.  It connects to the server, over TCP
 * or a Unix socket, authenticates and selects the database if asked to
 * (each in an exchange of its own), and runs a Lua script there by its
 * SHA-1 (EVALSHA), loading it with SCRIPT LOAD the first time the server
 * answers NOSCRIPT; the script, which the caller passes in, does the
 * whole read-modify-write atomically on the server's clock.  This file
 * knows nothing of the rules.
 *
 * hiredis is linked statically where it is built in (the Makefile finds
 * it with pkg-config): a run that names no redis:// store loads no more
 * shared libraries than before.  Without it, redis_built_in() says so
 * and the caller refuses the redis:// and unix:// forms.  hiredis only
 * connects, formats commands and parses replies: the socket (TCP or
 * Unix alike) is non-blocking and every wait on it is retry's own
 * signals_wait(), so that a stop signal ends it, and the connect, and
 * each exchange (the command, a SCRIPT LOAD if need be, and every byte
 * of the replies), must be over within REDIS_TIMEOUT_MS, however slowly
 * a peer trickles its bytes.  A reply
 * is at most REPLY_MAX bytes and announces no array or string longer
 * than REPLY_ITEMS: the script's answers are a few integers, so a peer
 * that claims more is not the server retry expects.  On any of these the
 * caller goes on without the budget or breaker rather than keep the
 * command waiting on Redis.
 *
 * rediss:// puts a TLS session (tls.c) on the same socket: its handshake
 * is part of the connect, in the connect's deadline, and send_all() and
 * read_reply() go through io_write() and io_read(), which use the
 * session where there is one and say which event to wait for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "clock.h"
#include "defs.h"
#include "fd.h"
#include "redisstore.h"
#include "signals.h"
#include "tls.h"

#ifdef HAVE_HIREDIS
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <hiredis.h>

#define REDIS_TIMEOUT_MS	500
#define REPLY_MAX		4096	/* bytes of one reply */
#define REPLY_ITEMS		64	/* elements of an array, bytes of a string */

struct redis {
	redisContext	*c;
	const struct sigstate *ss;
	nsec_t		 deadline;	/* of the exchange under way */
	bool		 stopped_before; /* a stop signal came before it */
	long		 mark;		/* signals_stops() when it began */
	struct tls	*tls;		/* rediss://: the session, or NULL */
};

bool
redis_built_in(void)
{
	return true;
}

static struct redis *
open_failed(struct redis *r, const char *msg, char *why, size_t len)
{
	if (msg != why)
		snprintf(why, len, "%s", msg);
	tls_free(r->tls);
	if (r->c != NULL)
		redisFree(r->c);
	free(r);
	return NULL;
}

static void
start_exchange(struct redis *r)
{
	r->deadline = nsec_add(mono_now(),
	    (nsec_t)REDIS_TIMEOUT_MS * NSEC_PER_MSEC);
	r->stopped_before = signals_stop() != 0;
	r->mark = signals_stops();
}

/*
 * Waits until the socket is ready for events: 0, or -1 with why filled
 * in when the deadline passed (ETIMEDOUT) or a new stop signal came
 * (EINTR).
 */
static int
wait_ready(struct redis *r, short events, char *why, size_t len)
{
	struct pollfd pfd;

	for (;;) {
		if (!r->stopped_before && signals_stop() != 0) {
			snprintf(why, len, "stopped");
			errno = EINTR;
			return -1;
		}
		if (mono_now() >= r->deadline) {
			snprintf(why, len, "no answer within %d ms",
			    REDIS_TIMEOUT_MS);
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = r->c->fd;
		pfd.events = events;
		pfd.revents = 0;
		if (signals_wait(r->ss, &pfd, 1, r->deadline) > 0)
			return 0;
	}
}

/* The non-blocking connect's end: true, or false with why. */
static bool
connected(struct redis *r, char *why, size_t len)
{
	socklen_t sl = sizeof(int);
	int e = 0;

	if (wait_ready(r, POLLOUT, why, len) == -1)
		return false;
	if (getsockopt(r->c->fd, SOL_SOCKET, SO_ERROR, &e, &sl) == -1)
		e = errno;
	if (e != 0)
		snprintf(why, len, "%s", strerror(e));
	return e == 0;
}

/* rediss://: the TLS handshake, in the connect's deadline. */
static bool
start_tls(struct redis *r, const char *host, const struct tls_files *files,
    char *why, size_t len)
{
	struct tls_wait w = { r->ss, r->deadline, r->mark };

	r->tls = tls_start(r->c->fd, host, files, &w, why, len);
	if (r->tls == NULL && errno == ETIMEDOUT)
		snprintf(why, len, "no answer within %d ms", REDIS_TIMEOUT_MS);
	else if (r->tls == NULL && errno == EINTR)
		snprintf(why, len, "stopped");
	return r->tls != NULL;
}

/*
 * The connection that c started, or NULL with why filled in: connected
 * within REDIS_TIMEOUT_MS (with TLS to host, if files is not NULL), on a
 * descriptor above 2 that the command does not inherit.  A stop signal
 * that ends the wait gives why "stopped".
 */
static struct redis *
redis_connect(redisContext *c, const char *host, const struct tls_files *files,
    const struct sigstate *ss, char *why, size_t len)
{
	struct redis *r;
	int fd;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		if (c != NULL)
			redisFree(c);
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	r->ss = ss;
	start_exchange(r);
	if ((r->c = c) == NULL)
		return open_failed(r, strerror(ENOMEM), why, len);
	if (r->c->err != 0)
		return open_failed(r, r->c->errstr, why, len);
	if ((fd = fd_above_stdio(r->c->fd)) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		r->c->fd = fd;
		return open_failed(r, strerror(errno), why, len);
	}
	r->c->fd = fd;
	if (!connected(r, why, len) ||
	    (files != NULL && !start_tls(r, host, files, why, len)))
		return open_failed(r, why, why, len);
	return r;
}

/*
 * A connection to host:port, through TLS if files is not NULL, or NULL
 * with why: see redis_connect().
 */
struct redis *
redis_open(const char *host, int port, const struct tls_files *files,
    const struct sigstate *ss, char *why, size_t len)
{
	return redis_connect(redisConnectNonBlock(host, port), host, files, ss,
	    why, len);
}

/*
 * A connection to the Unix socket at path, or NULL with why: the same
 * bounds as a TCP connection's, since a server that accepts and never
 * answers blocks a socket's client no less.
 */
struct redis *
redis_open_unix(const char *path, const struct sigstate *ss, char *why,
    size_t len)
{
	return redis_connect(redisConnectUnixNonBlock(path), path, NULL, ss,
	    why, len);
}

/*
 * read(2) and write(2) on the connection, through TLS if it has it: -1
 * with errno EAGAIN and *events to wait for, or -1 with why.
 */
static ssize_t
io_read(struct redis *r, void *buf, size_t n, short *events, char *why,
    size_t len)
{
	ssize_t got;

	if (r->tls != NULL)
		return tls_read(r->tls, buf, n, events, why, len);
	*events = POLLIN;
	if ((got = read(r->c->fd, buf, n)) == -1) {
		if (errno == EWOULDBLOCK || errno == EINTR)
			errno = EAGAIN;
		if (errno != EAGAIN)
			snprintf(why, len, "%s", strerror(errno));
	}
	return got;
}

static ssize_t
io_write(struct redis *r, const void *buf, size_t n, short *events,
    char *why, size_t len)
{
	ssize_t w;

	if (r->tls != NULL)
		return tls_write(r->tls, buf, n, events, why, len);
	*events = POLLOUT;
	if ((w = write(r->c->fd, buf, n)) == -1) {
		if (errno == EWOULDBLOCK || errno == EINTR)
			errno = EAGAIN;
		if (errno != EAGAIN)
			snprintf(why, len, "%s", strerror(errno));
	}
	return w;
}

/* Writes all of buf before the deadline: false with why if not. */
static bool
send_all(struct redis *r, const char *buf, size_t n, char *why, size_t len)
{
	ssize_t w;
	short events;

	while (n > 0) {
		if ((w = io_write(r, buf, n, &events, why, len)) > 0) {
			buf += w;
			n -= (size_t)w;
			continue;
		}
		if (w == -1 && errno != EAGAIN)
			return false;
		if (wait_ready(r, events, why, len) == -1)
			return false;
	}
	return true;
}

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
		if ((got = io_read(r, buf + n, sizeof(buf) - n, &events, why,
		    len)) > 0) {
			n += (size_t)got;
			continue;
		}
		if (got == 0) {
			snprintf(why, len, "connection closed by the server");
			break;
		}
		if (errno != EAGAIN)
			break;
		if (wait_ready(r, events, why, len) == -1)
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
	sent = send_all(r, cmd, (size_t)n, why, len);
	free(cmd);
	return sent ? read_reply(r, why, len) : NULL;
}

static redisReply *
evalsha(struct redis *r, struct redis_call *call)
{
	const char *argv[4 + REDIS_ARGS];
	int i, n = 0;

	argv[n++] = "EVALSHA";
	argv[n++] = call->sha1;
	argv[n++] = "1";
	argv[n++] = call->key;
	for (i = 0; i < call->nargs && i < REDIS_ARGS; i++)
		argv[n++] = call->args[i];
	return command(r, n, argv, call->why, sizeof(call->why));
}

static bool
is_noscript(const redisReply *reply)
{
	return reply != NULL && reply->type == REDIS_REPLY_ERROR &&
	    strncmp(reply->str, "NOSCRIPT", 8) == 0;
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
	const char *argv[] = { "SCRIPT", "LOAD", call->script };
	redisReply *load;
	bool ok;

	if ((load = command(r, 3, argv, call->why, sizeof(call->why))) ==
	    NULL)
		return false;
	if (!(ok = load->type == REDIS_REPLY_STRING))
		snprintf(call->why, sizeof(call->why), "SCRIPT LOAD: %s",
		    load->type == REDIS_REPLY_ERROR ? load->str :
		    "unexpected reply");
	freeReplyObject(load);
	return ok;
}

/*
 * AUTH [user] password, in an exchange of its own: true, or false with
 * why.  The password comes from the environment, as redis-cli's does,
 * so that it never shows in a command line.
 */
bool
redis_auth(struct redis *r, const char *user, const char *password,
    char *why, size_t len)
{
	const char *argv[] = { "AUTH", user, password };
	redisReply *reply;
	bool ok;

	start_exchange(r);
	if (*user == '\0')
		reply = command(r, 2, (const char *[]){ "AUTH", password },
		    why, len);
	else
		reply = command(r, 3, argv, why, len);
	if (reply == NULL)
		return false;
	if (!(ok = reply->type == REDIS_REPLY_STATUS))
		snprintf(why, len, "AUTH: %s", reply->type ==
		    REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
	freeReplyObject(reply);
	return ok;
}

/*
 * SELECT db, in an exchange of its own, after AUTH: true, or false with
 * why, which names the database the server refused.
 */
bool
redis_select(struct redis *r, int db, char *why, size_t len)
{
	char n[16];
	redisReply *reply;
	bool ok;

	snprintf(n, sizeof(n), "%d", db);
	start_exchange(r);
	if ((reply = command(r, 2, (const char *[]){ "SELECT", n }, why,
	    len)) == NULL)
		return false;
	if (!(ok = reply->type == REDIS_REPLY_STATUS))
		snprintf(why, len, "SELECT %d: %s", db, reply->type ==
		    REDIS_REPLY_ERROR ? reply->str : "unexpected reply");
	freeReplyObject(reply);
	return ok;
}

/* Runs call's script on its key: true with call->out, or call->why. */
bool
redis_eval(struct redis *r, struct redis_call *call)
{
	redisReply *reply;
	bool ok;

	start_exchange(r);
	if ((reply = evalsha(r, call)) != NULL && is_noscript(reply)) {
		freeReplyObject(reply);
		if (!load_script(r, call))
			return false;
		reply = evalsha(r, call);
	}
	ok = take_reply(reply, call);
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
redis_open(const char *host, int port, const struct tls_files *files,
    const struct sigstate *ss, char *why, size_t len)
{
	(void)host;
	(void)port;
	(void)files;
	(void)ss;
	snprintf(why, len, "built without Redis support");
	return NULL;
}

struct redis *
redis_open_unix(const char *path, const struct sigstate *ss, char *why,
    size_t len)
{
	(void)path;
	(void)ss;
	snprintf(why, len, "built without Redis support");
	return NULL;
}

bool
redis_select(struct redis *r, int db, char *why, size_t len)
{
	(void)r;
	(void)db;
	snprintf(why, len, "built without Redis support");
	return false;
}

bool
redis_auth(struct redis *r, const char *user, const char *password,
    char *why, size_t len)
{
	(void)r;
	(void)user;
	(void)password;
	snprintf(why, len, "built without Redis support");
	return false;
}

bool
redis_eval(struct redis *r, struct redis_call *call)
{
	(void)r;
	snprintf(call->why, sizeof(call->why), "built without Redis support");
	return false;
}

#endif	/* HAVE_HIREDIS */
