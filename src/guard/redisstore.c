/*
 * redisstore.c: the Redis store of --budget and --breaker, for a fleet
 * whose hosts share nothing local.  It connects to the server, over TCP
 * or a Unix socket, authenticates and selects the database if asked to,
 * and runs a Lua script there, sent whole with EVAL: the script, which
 * the caller passes in, does the whole read-modify-write atomically on
 * the server's clock.  EVAL rather than EVALSHA: its 3 KiB cost less to
 * send than a SHA-1 costs to compute, and a server that lost its
 * scripts needs no second round trip (README.md, "Fleet": measured).
 * This file knows nothing of the rules.
 *
 * hiredis is linked statically where it is built in (the Makefile finds
 * it with pkg-config): a run that names no redis:// store loads no more
 * shared libraries than before.  Without it, redis_built_in() says so
 * and the caller refuses the redis:// and unix:// forms.  hiredis only
 * connects, formats commands and parses replies: the socket (TCP or
 * Unix alike) is non-blocking and every wait on it is signals_wait_fd(),
 * so that a stop signal that came after the caller's mark ends it.
 * Everything before the server's first answer (the connect, AUTH,
 * SELECT and the first exchange together) shares ONE allowance of
 * REDIS_TIMEOUT_MS of waiting, however the steps divide it and however
 * slowly a peer trickles its bytes: a server that takes 0.45 s a
 * request is given up on at the second request, not after four.  Each
 * exchange after the first answer has REDIS_TIMEOUT_MS of its own.  A
 * reply is at most REPLY_MAX bytes and announces no array or string
 * longer than REPLY_ITEMS: the script's answers are a few integers, so a
 * peer that claims more is not the server retry expects.  On any of
 * these the caller goes on without the budget or breaker rather than
 * keep the command waiting on Redis.
 *
 * rediss:// puts a TLS session (tls.c) on the same socket: its handshake
 * is part of reaching a node, within the same allowance and stop mark,
 * on the first node and on every node a cluster redirects to; send_all()
 * and read_reply() go through io_write() and io_read(), which use the
 * session where there is one and say which event to wait for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "redisstore.h"
#include "resolve.h"
#include "tls.h"

#ifdef HAVE_HIREDIS
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <hiredis.h>

#define REPLY_MAX		4096	/* bytes of one reply */
#define REPLY_ITEMS		64	/* elements of an array, bytes of a string */
#define REDIRECTS_MAX		4	/* MOVED or ASK, for one update */
#define REDIRECT_HOST_MAX	256
#define REASON_MAX		256	/* a step's reason, as call->why holds */

struct redis {
	redisContext	*c;
	const struct sigstate *ss;
	nsec_t		 deadline;	/* of the step under way */
	long		 mark;		/* a stop after this ends its waits */
	nsec_t		 began;		/* when the step under way began */
	nsec_t		 spent;		/* waited before the first answer */
	bool		 answered;	/* the first exchange is over */
	const char	*user;		/* for AUTH on every node, or NULL */
	const char	*password;
	struct tls	*tls;		/* rediss://: the session, or NULL */
	bool		 use_tls;	/* rediss://: every node speaks TLS */
	struct tls_files files;		/* its CA, certificate and key */
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

/*
 * A step begins (the connect, AUTH, SELECT or an exchange), whose waits a
 * stop after mark ends.  Until the first exchange is over, all the steps
 * share one REDIS_TIMEOUT_MS; retry's own work between them (an attempt,
 * a splay) is not counted.
 */
static void
step_begin(struct redis *r, long mark)
{
	nsec_t allowance = (nsec_t)REDIS_TIMEOUT_MS * NSEC_PER_MSEC;

	r->mark = mark;
	r->began = mono_now();
	if (!r->answered)
		allowance = r->spent < allowance ? allowance - r->spent : 0;
	r->deadline = nsec_add(r->began, allowance);
}

static void
step_end(struct redis *r)
{
	if (!r->answered)
		r->spent = nsec_add(r->spent, mono_now() - r->began);
}

/*
 * Waits until the socket is ready for events: 0, or -1 with why filled
 * in when the step's deadline passed or a stop came after its mark.
 */
static int
wait_ready(struct redis *r, short events, char *why, size_t len)
{
	if (signals_wait_fd(r->ss, r->c->fd, events, r->deadline,
	    r->mark) == 0)
		return 0;
	if (errno == EINTR)
		snprintf(why, len, "stopped");
	else if (errno == ETIMEDOUT)
		snprintf(why, len, "no answer within %d ms", REDIS_TIMEOUT_MS);
	else
		snprintf(why, len, "%s", strerror(errno));
	return -1;
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

/* A store whose first step begins: waits that a stop after mark ends. */
static struct redis *
redis_new(const struct sigstate *ss, long mark, char *why, size_t len)
{
	struct redis *r;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	r->ss = ss;
	step_begin(r, mark);
	return r;
}

/*
 * r on the connection that c started: true, or false with why.  It is
 * connected within the step's allowance, on a descriptor above 2 that
 * the command does not inherit.  A stop signal after r's mark that ends
 * the wait gives why "stopped".
 */
static bool
attach(struct redis *r, redisContext *c, char *why, size_t len)
{
	int fd;

	if ((r->c = c) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return false;
	}
	if (r->c->err != 0) {
		snprintf(why, len, "%s", r->c->errstr);
		return false;
	}
	if ((fd = fd_above_stdio(r->c->fd)) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
		r->c->fd = fd;
		snprintf(why, len, "%s", strerror(errno));
		return false;
	}
	r->c->fd = fd;
	return connected(r, why, len);
}

/*
 * rediss://: the TLS handshake with host, whose certificate must name
 * it, within the step's allowance: true, or false with why.
 */
static bool
start_tls(struct redis *r, const char *host, char *why, size_t len)
{
	struct tls_wait w = { r->ss, r->deadline, r->mark };

	r->tls = tls_start(r->c->fd, host, &r->files, &w, why, len);
	if (r->tls == NULL && errno == ETIMEDOUT)
		snprintf(why, len, "no answer within %d ms", REDIS_TIMEOUT_MS);
	else if (r->tls == NULL && errno == EINTR)
		snprintf(why, len, "stopped");
	return r->tls != NULL;
}

/*
 * r connected to addr:port, the first of left addresses still to try:
 * true, or false with why.  Its connect has an equal share of what is
 * left of the step's deadline, (deadline - now) / left: a refused
 * connection ends at once and leaves the next address all it did not
 * use, one that hangs is given up at its share, so that every address
 * is tried with at least a 1/left part of what was left (about 250 ms
 * each for ::1 and 127.0.0.1), and the last gets all that remains.  One
 * connect at a time rather than RFC 8305's race: a connect to a live
 * Redis takes one round trip, far less than any share, and one socket
 * keeps the waits as they are.  The share bounds the connect only: TLS,
 * AUTH and the exchanges on a connection made have the step's deadline.
 */
static bool
reach_address(struct redis *r, const char *addr, int port, int left,
    char *why, size_t len)
{
	nsec_t deadline = r->deadline, now = mono_now();
	bool ok;

	if (left > 1 && now < deadline)
		r->deadline = now + (deadline - now) / left;
	ok = attach(r, redisConnectNonBlock(addr, port), why, len);
	r->deadline = deadline;
	if (!ok && r->c != NULL) {
		redisFree(r->c);
		r->c = NULL;
	}
	return ok;
}

/*
 * why, when no address of host's res could be reached after tried of
 * them: the last one's reason, with host, and how many and which was
 * last if there were more than one.
 */
static void
unreached(const char *host, const struct resolved *res, int tried,
    char *why, size_t len)
{
	char last[REASON_MAX];

	if (tried < 2)
		return;
	snprintf(last, sizeof(last), "%s", why);
	snprintf(why, len, "%s (%d addresses, the last %s): %s", host, tried,
	    res->addr[tried - 1], last);
}

/* why, when host could not be resolved (resolve_host()'s errno). */
static void
unresolved(const char *host, const struct resolved *res, char *why,
    size_t len)
{
	if (errno == EINTR)
		snprintf(why, len, "stopped");
	else if (errno == ETIMEDOUT)
		snprintf(why, len, "%s not resolved within %d ms", host,
		    REDIS_TIMEOUT_MS);
	else
		snprintf(why, len, "%s: %s", host, errno == EHOSTUNREACH ?
		    res->why : strerror(errno));
}

/*
 * r connected to host:port, through TLS for rediss://: true, or false
 * with why.  A host name is resolved first, within the step's allowance
 * (resolve.c): hiredis is given an address, and never blocks in the
 * resolver.  Each address is tried in turn, as hiredis did, until one
 * accepts the connection (reach_address()), within the same allowance
 * and stop mark; a stop, or the allowance's end, ends the turn.  TLS
 * then checks the certificate against host, the name, not the address
 * the connection went to, and a certificate refused is the answer: the
 * server was reached, and another address would not make it the right
 * one.
 */
static bool
reach(struct redis *r, const char *host, int port, char *why, size_t len)
{
	struct resolved res;
	int i;

	if (!resolve_host(host, r->ss, r->deadline, r->mark, &res)) {
		unresolved(host, &res, why, len);
		return false;
	}
	for (i = 0; i < res.n; i++) {
		if (reach_address(r, res.addr[i], port, res.n - i, why, len))
			return !r->use_tls || start_tls(r, host, why, len);
		if (signals_stops() != r->mark || mono_now() >= r->deadline)
			break;
	}
	if (signals_stops() == r->mark)
		unreached(host, &res, i < res.n ? i + 1 : res.n, why, len);
	return false;
}

/*
 * A connection to the node, through TLS if its files are not NULL, or
 * NULL with why: see reach().
 */
struct redis *
redis_open(const struct redis_node *node, const struct sigstate *ss,
    long mark, char *why, size_t len)
{
	struct redis *r;

	if ((r = redis_new(ss, mark, why, len)) == NULL)
		return NULL;
	if (node->files != NULL) {
		r->use_tls = true;
		r->files = *node->files;
	}
	if (!reach(r, node->host, node->port, why, len))
		return open_failed(r, why, why, len);
	step_end(r);
	return r;
}

/*
 * Whether r's socket is served by this user or by root: anyone else may
 * have planted it, to learn the password or to keep the user's commands
 * from running with a breaker's refusal.  false with why, which names
 * the server's uid.
 */
static bool
server_trusted(struct redis *r, char *why, size_t len)
{
	uid_t uid;

	if (fd_peer_uid(r->c->fd, &uid) == -1) {
		snprintf(why, len, "cannot tell who serves the socket: %s",
		    strerror(errno));
		return false;
	}
	if (uid == geteuid() || uid == 0)
		return true;
	snprintf(why, len, "the socket is served by uid %lu, not by uid %lu "
	    "or root", (unsigned long)uid, (unsigned long)geteuid());
	return false;
}

/*
 * A connection to the Unix socket at path, or NULL with why: the same
 * bounds as a TCP connection's, since a server that accepts and never
 * answers blocks a socket's client no less; and nothing is sent to a
 * server that another user runs.
 */
struct redis *
redis_open_unix(const char *path, const struct sigstate *ss, long mark,
    char *why, size_t len)
{
	struct redis *r;

	if ((r = redis_new(ss, mark, why, len)) == NULL)
		return NULL;
	if (!attach(r, redisConnectUnixNonBlock(path), why, len) ||
	    !server_trusted(r, why, len))
		return open_failed(r, why, why, len);
	step_end(r);
	return r;
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
 * the connect's mark has it: true, or false with why.  The password comes from the environment, as redis-cli's does,
 * so that it never shows in a command line.
 */
bool
redis_auth(struct redis *r, const char *user, const char *password,
    char *why, size_t len)
{
	bool ok;

	r->user = user;
	r->password = password;
	step_begin(r, r->mark);
	if ((ok = simple(r, "AUTH", why, len)))
		step_end(r);
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
	step_begin(r, r->mark);
	if ((reply = command(r, 2, (const char *[]){ "SELECT", n }, why,
	    len)) == NULL)
		return false;
	step_end(r);
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
 * and port, *ask for ASK; false if reply is none.
 */
static bool
redirection(const redisReply *reply, char *host, size_t hlen, int *port,
    bool *ask)
{
	const char *s, *colon, *errstr;

	if (reply->type != REDIS_REPLY_ERROR)
		return false;
	*ask = strncmp(reply->str, "ASK ", 4) == 0;
	if (!*ask && strncmp(reply->str, "MOVED ", 6) != 0)
		return false;
	if ((s = strchr(reply->str + (*ask ? 4 : 6), ' ')) == NULL ||
	    (colon = strrchr(++s, ':')) == NULL || colon == s ||
	    (size_t)(colon - s) >= hlen)
		return false;
	*port = (int)strtonum(colon + 1, 1, 65535, &errstr);
	snprintf(host, hlen, "%.*s", (int)(colon - s), s);
	return errstr == NULL;
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
	tls_free(r->tls);
	r->tls = NULL;
	redisFree(r->c);
	r->c = NULL;
	if (!reach(r, host, port, why, len))
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
	char host[REDIRECT_HOST_MAX];
	redisReply *reply;
	int hops, port;
	bool ok, ask;

	step_begin(r, mark);
	for (hops = 0; (reply = eval(r, call)) != NULL &&
	    hops < REDIRECTS_MAX &&
	    redirection(reply, host, sizeof(host), &port, &ask); hops++) {
		freeReplyObject(reply);
		if (!follow(r, host, port, ask, call->why, sizeof(call->why)))
			return false;
	}
	if (reply != NULL) {
		step_end(r);
		r->answered = true;
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
redis_open(const struct redis_node *node, const struct sigstate *ss,
    long mark, char *why, size_t len)
{
	(void)node;
	(void)ss;
	(void)mark;
	snprintf(why, len, "built without Redis support");
	return NULL;
}

struct redis *
redis_open_unix(const char *path, const struct sigstate *ss, long mark,
    char *why, size_t len)
{
	(void)path;
	(void)ss;
	(void)mark;
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
redis_eval(struct redis *r, struct redis_call *call, long mark)
{
	(void)r;
	(void)mark;
	snprintf(call->why, sizeof(call->why), "built without Redis support");
	return false;
}

#endif	/* HAVE_HIREDIS */
