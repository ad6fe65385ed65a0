/*
 * redisconn.c: the connection of the Redis store, and the allowance of
 * time that bounds every wait on it.  It reaches a server over TCP or a
 * Unix socket and moves the bytes of the exchange (rediscmd.c's) in and
 * out.  hiredis only connects here: the socket (TCP or Unix alike) is
 * non-blocking and every wait on it is signals_wait_fd(), so that a stop
 * signal that came after the caller's mark ends it.
 *
 * The allowance depends on whether a server listens.  Until a connection
 * is made (the name resolved, the connect), a wait ends after
 * REDIS_TIMEOUT_MS: a host that refuses, is unreachable or never answers
 * the SYN costs half a second at most.  Once the connection is accepted,
 * a server is there, alive, and perhaps busy: a single-threaded
 * redis-server does a herd's TLS handshakes one after another, and to
 * the last in its queue it looks like a peer that accepts and says
 * nothing.  So from there on the waits are bounded by a ceiling only:
 * REDIS_CEILING_MS of waiting for everything before the server's first
 * answer (the connect, TLS, AUTH, SELECT and the first exchange
 * together, however the steps divide it and however slowly a peer
 * trickles its bytes; and all the guards' waits before attempt 1
 * together, the opening that guard.c gives), then as much for each
 * exchange after it.  The ceiling is 5 s: 500 ms of silence after the
 * connect let 581 of a herd of 600 rediss:// runs go unguarded on an
 * idle 2-core host (issue 36); it is short beside any command worth a
 * budget, and the most a peer that accepts and says nothing, or trickles
 * a byte at a time, can cost.  No wait passes the run's deadline (-m;
 * the guards' half of it before attempt 1), but for the run's end: a run
 * that -m ended still records it, within REDIS_TIMEOUT_MS of -m for all
 * its stores together, as the state file keeps its lock's wait, so that
 * a store that answers at once is heard and silent ones cost half a
 * second.  On any of these the caller goes on without the budget or
 * breaker rather than keep the command waiting on Redis.
 * Nothing is ever sent twice: a step that ran out is not resent, so an
 * update the server may have made counts once, and the run goes on as
 * if it had been allowed.
 *
 * rediss:// puts a TLS session (tls.c) on the same socket: its handshake
 * is part of reaching a node, within the same allowance and stop mark,
 * on the first node and on every node a cluster redirects to;
 * redis_send_all() and rediscmd.c's reads go through io_write() and
 * redis_io_read(), which use the session where there is one and say
 * which event to wait for.
 *
 * Only where hiredis is built in (HAVE_HIREDIS): without it, this file
 * is empty, and redisstore.c refuses the redis:// and unix:// forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redisconn.h"

#ifdef HAVE_HIREDIS
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <hiredis.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "resolve.h"
#include "tls.h"

#define REASON_MAX		256	/* a step's reason, as call->why holds */

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
 * The wait under way ends at the step's ceiling, or, while no connection
 * is made, REDIS_TIMEOUT_MS after from (the step's start) if sooner.
 */
static void
quiet_from(struct redis *r, nsec_t from)
{
	nsec_t d = nsec_add(from, (nsec_t)REDIS_TIMEOUT_MS * NSEC_PER_MSEC);

	r->silent = !r->accepted && d < r->ceiling;
	r->deadline = r->silent ? d : r->ceiling;
}

/*
 * A step begins (the connect, AUTH, SELECT or an exchange), whose waits a
 * stop after mark ends.  Until the first exchange is over, all the steps
 * share one REDIS_CEILING_MS; retry's own work between them (an attempt,
 * a splay) is not counted.
 */
void
redis_step_begin(struct redis *r, long mark)
{
	nsec_t most = (nsec_t)REDIS_CEILING_MS * NSEC_PER_MSEC, limit;

	r->mark = mark;
	r->began = mono_now();
	if (!r->answered)
		most = r->spent < most ? most - r->spent : 0;
	r->ceiling = nsec_add(r->began, most);
	limit = r->limit == NULL || *r->limit == 0 ? 0 : *r->limit;
	/*
	 * Past -m, once attempt 1 has run: the run's end, recorded within
	 * one short allowance from -m that every store's steps share.
	 */
	if (limit != 0 && limit <= r->began &&
	    (r->opening == NULL || *r->opening == 0))
		limit = nsec_add(limit, (nsec_t)REDIS_TIMEOUT_MS *
		    NSEC_PER_MSEC);
	r->cut = limit != 0 && limit < r->ceiling;
	if (r->cut)
		r->ceiling = limit;
	if (r->opening != NULL && *r->opening != 0 &&
	    *r->opening < r->ceiling) {
		r->ceiling = *r->opening;
		r->cut = false;
	}
	quiet_from(r, r->began);
}

/*
 * The server sent bytes: the wait's deadline from now (tls.c's handshake
 * asks for it); on a connection made, the step's ceiling.
 */
nsec_t
redis_progress(struct redis *r)
{
	quiet_from(r, mono_now());
	return r->deadline;
}

/* How the wait under way is bounded, for why: "within 500 ms", say. */
static const char *
bound(const struct redis *r, char *buf, size_t len)
{
	if (r->silent)
		snprintf(buf, len, "within %d ms", REDIS_TIMEOUT_MS);
	else if (r->cut)
		snprintf(buf, len, "before --max-time");
	else
		snprintf(buf, len, "within %d s", REDIS_CEILING_MS / 1000);
	return buf;
}

/* why, when a wait's deadline passed: its silence's, ceiling's or -m's. */
static void
redis_late(const struct redis *r, char *why, size_t len)
{
	char b[32];

	snprintf(why, len, "no answer %s", bound(r, b, sizeof(b)));
}

void
redis_step_end(struct redis *r)
{
	if (!r->answered)
		r->spent = nsec_add(r->spent, mono_now() - r->began);
}

/*
 * Waits until the socket is ready for events: 0, or -1 with why filled
 * in when the wait's deadline passed or a stop came after its mark.
 * Bytes to read are the server's progress; room to write is not.
 */
int
redis_wait_ready(struct redis *r, short events, char *why, size_t len)
{
	if (signals_wait_fd(r->ss, r->c->fd, events, r->deadline,
	    r->mark) == 0) {
		if (events & POLLIN)
			(void)redis_progress(r);
		return 0;
	}
	if (errno == EINTR)
		snprintf(why, len, "stopped");
	else if (errno == ETIMEDOUT)
		redis_late(r, why, len);
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

	if (redis_wait_ready(r, POLLOUT, why, len) == -1)
		return false;
	if (getsockopt(r->c->fd, SOL_SOCKET, SO_ERROR, &e, &sl) == -1)
		e = errno;
	if (e != 0)
		snprintf(why, len, "%s", strerror(e));
	return e == 0;
}

/*
 * A store on node whose first step begins: waits that a stop after mark
 * ends, within node's bounds.
 */
static struct redis *
redis_new(const struct redis_node *node, const struct sigstate *ss,
    long mark, char *why, size_t len)
{
	struct redis *r;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	r->ss = ss;
	r->limit = node->limit;
	r->opening = node->opening;
	redis_step_begin(r, mark);
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

	r->accepted = false;
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
	r->accepted = connected(r, why, len);
	return r->accepted;
}

/* tls.c's handshake read the server's bytes: its progress. */
static nsec_t
tls_heard(void *r)
{
	return redis_progress(r);
}

/*
 * rediss://: the TLS handshake with host, whose certificate must name
 * it, within the step's allowance, which each of the server's flights
 * renews: true, or false with why.
 */
static bool
start_tls(struct redis *r, const char *host, int port, char *why, size_t len)
{
	struct tls_wait w = { r->ss, r->deadline, r->mark, tls_heard, r };
	struct tls_peer p = { host, port };
	bool ok = tls_start(r->tls, r->c->fd, &p, &w, why, len);

	if (!ok && errno == ETIMEDOUT)
		redis_late(r, why, len);
	else if (!ok && errno == EINTR)
		snprintf(why, len, "stopped");
	r->tls_up = ok;
	return ok;
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
	/*
	 * The host accepted: a server listens, alive, perhaps busy with a
	 * herd's handshakes one after another; from here it has the
	 * ceiling, not a silence.
	 */
	if (ok)
		quiet_from(r, mono_now());
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
unresolved(const struct redis *r, const char *host,
    const struct resolved *res, char *why, size_t len)
{
	char b[32];

	if (errno == EINTR)
		snprintf(why, len, "stopped");
	else if (errno == ETIMEDOUT)
		snprintf(why, len, "%s not resolved %s", host,
		    bound(r, b, sizeof(b)));
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

	/* For a redirection that names no host ("MOVED 1 :6381"). */
	if ((size_t)snprintf(r->host, sizeof(r->host), "%s", host) >=
	    sizeof(r->host))
		r->host[0] = '\0';
	if (!resolve_host(host, r->ss, r->deadline, r->mark, &res)) {
		unresolved(r, host, &res, why, len);
		return false;
	}
	for (i = 0; i < res.n; i++) {
		if (reach_address(r, res.addr[i], port, res.n - i, why, len))
			return r->tls == NULL || start_tls(r, host, port, why, len);
		if (signals_stops() != r->mark || mono_now() >= r->deadline)
			break;
	}
	if (signals_stops() == r->mark)
		unreached(host, &res, i < res.n ? i + 1 : res.n, why, len);
	return false;
}

/*
 * r, off its node, connected to host:port instead, within the step's
 * deadline: a cluster's redirection (rediscmd.c).  true, or false with
 * why: see reach().
 */
bool
redis_reconnect(struct redis *r, const char *host, int port, char *why,
    size_t len)
{
	tls_end(r->tls);
	r->tls_up = false;
	redisFree(r->c);
	r->c = NULL;
	/* A new host: its connect has the silence again, from now. */
	r->accepted = false;
	quiet_from(r, mono_now());
	return reach(r, host, port, why, len);
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
	struct tls *t = NULL;

	/* The TLS context first: its CPU is not the server's delay. */
	if (node->files != NULL && (t = tls_new(node->files, node->host,
	    node->port, why, len)) == NULL)
		return NULL;
	if ((r = redis_new(node, ss, mark, why, len)) == NULL) {
		tls_free(t);
		return NULL;
	}
	r->tls = t;
	if (!reach(r, node->host, node->port, why, len))
		return open_failed(r, why, why, len);
	redis_step_end(r);
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
 * A connection to the Unix socket at node's host (its path), or NULL
 * with why: the same bounds as a TCP connection's, since a server that
 * accepts and never answers blocks a socket's client no less; and
 * nothing is sent to a server that another user runs.
 */
struct redis *
redis_open_unix(const struct redis_node *node, const struct sigstate *ss,
    long mark, char *why, size_t len)
{
	struct redis *r;

	if ((r = redis_new(node, ss, mark, why, len)) == NULL)
		return NULL;
	if (!attach(r, redisConnectUnixNonBlock(node->host), why, len) ||
	    !server_trusted(r, why, len))
		return open_failed(r, why, why, len);
	redis_step_end(r);
	return r;
}

/*
 * read(2) and write(2) on the connection, through TLS if it has it: -1
 * with errno EAGAIN and *events to wait for, or -1 with why.
 */
ssize_t
redis_io_read(struct redis *r, void *buf, size_t n, short *events,
    char *why, size_t len)
{
	ssize_t got;

	if (r->tls_up)
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

	if (r->tls_up)
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
bool
redis_send_all(struct redis *r, const char *buf, size_t n, char *why,
    size_t len)
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
		if (redis_wait_ready(r, events, why, len) == -1)
			return false;
	}
	return true;
}

/* Closes r's connection and frees it; NULL is nothing. */
void
redis_close(struct redis *r)
{
	if (r == NULL)
		return;
	tls_free(r->tls);
	if (r->c != NULL)
		redisFree(r->c);
	free(r);
}

#endif	/* HAVE_HIREDIS */
