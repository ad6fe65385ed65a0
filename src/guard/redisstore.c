/*
 * redisstore.c: the Redis store of --budget and --breaker, for a fleet
 * whose hosts share nothing local, as a table of functions (store.h).
 * It connects to the server that the spec names, over TCP (through TLS
 * for rediss://) or a Unix socket (redisconn.c), authenticates and
 * selects the database if asked to, and runs guard.lua there
 * (rediscmd.c): the script, budget.c's rules in Lua, does the whole
 * read-modify-write atomically on the server's clock.  Only the
 * arguments of its three calls, attempt, admit and report, are known
 * here, as the script reads them.
 *
 * hiredis is linked statically where it is built in (the Makefile finds
 * it with pkg-config): a run that names no redis:// store loads no more
 * shared libraries than before.  Without it, the table's open refuses
 * the redis:// and unix:// forms with one line.
 */
#include <err.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/defs.h"
#include "os/signals.h"
#include "budget.h"
#include "redisstore.h"
#include "spec.h"
#include "store.h"
#include "tls.h"

#ifdef HAVE_HIREDIS
#include "rediscmd.h"
#include "redisconn.h"

#define NSEC_PER_USEC		1000

/* An environment variable's value, or NULL if it is unset or empty. */
static const char *
env_file(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/*
 * Connects to g's server, authenticates and selects its database, waits
 * that a stop after mark ends: true, or false with why.  The password
 * comes from the environment, as redis-cli's does, so that it never
 * shows in a command line; so do the files of rediss://, named after
 * redis-cli's --cacert, --cert and --key.
 */
static bool
redis_start(struct guard *g, long mark, char *why, size_t len)
{
	const struct guard_spec *spec = g->spec;
	const char *pass = getenv("REDISCLI_AUTH");
	struct tls_files files = {
		.cacert = env_file("REDISCLI_CACERT"),
		.cert = env_file("REDISCLI_CERT"),
		.key = env_file("REDISCLI_KEY"),
	};
	struct redis_node node = { spec->host, spec->port,
	    spec->tls ? &files : NULL, g->limit, g->opening };
	struct redis *r;

	r = spec->port == 0 ? redis_open_unix(&node, g->ss, mark, why, len) :
	    redis_open(&node, g->ss, mark, why, len);
	if ((g->state = r) == NULL)
		return false;
	if ((pass != NULL || *spec->user != '\0') && !redis_auth(r,
	    spec->user, pass != NULL ? pass : "", why, len))
		return false;
	return spec->db == 0 || redis_select(r, spec->db, why, len);
}

/*
 * Opens g's store, waits that a stop after mark ends; why, if it failed,
 * names the server's URL and says why.
 */
static enum store_end
redis_store_open(struct guard *g, long mark, char *why, size_t len)
{
	char reason[STORE_WHY_MAX];

	guard_target(g->where, sizeof(g->where), g->spec);
	if (g->spec->tls && !tls_built_in())
		errx(EXIT_CANCELED, "%s: this retry was built without TLS "
		    "support (OpenSSL)", g->where);
	/* A stop during the other guard's wait: the run is about to end. */
	if (signals_stops() != mark)
		return STORE_STOPPED;
	if (redis_start(g, mark, reason, sizeof(reason)))
		return STORE_OK;
	if (signals_stop() != 0 && strcmp(reason, "stopped") == 0)
		return STORE_STOPPED;	/* the run is about to end */
	snprintf(why, len, "%s: %s", g->where, reason);
	return STORE_FAILED;
}

/*
 * Runs the script on g's key with call's first nargs args, waits that a
 * stop after mark ends: STORE_OK with call's answer, or how it failed.
 */
static enum store_end
redis_op(struct guard *g, struct redis_call *call, int nargs, long mark,
    char *why, size_t len)
{
	char key[8 + GUARD_NAME_MAX];

	snprintf(key, sizeof(key), "retry:%s", g->spec->name);
	call->script = guard_lua;
	call->key = key;
	call->nargs = nargs;
	if (redis_eval(g->state, call, mark) && call->nout >= 1)
		return STORE_OK;
	if (signals_stop() != 0 && strcmp(call->why, "stopped") == 0)
		return STORE_STOPPED;	/* the run is about to end */
	snprintf(why, len, "%s", call->why[0] != '\0' ? call->why :
	    "unexpected reply");
	return STORE_FAILED;
}

/* Durations for the script, which counts in microseconds. */
static const char *
usec(char *buf, size_t len, nsec_t ns)
{
	snprintf(buf, len, "%" PRId64, ns / NSEC_PER_USEC);
	return buf;
}

static enum store_end
redis_store_attempt(struct guard *g, bool success, bool *allowed,
    char *why, size_t len)
{
	struct redis_call call;
	char max[24], ratio[24], refill[24];
	enum store_end e;

	memset(&call, 0, sizeof(call));
	snprintf(max, sizeof(max), "%lld", g->spec->tokens * MILLI);
	snprintf(ratio, sizeof(ratio), "%lld", g->spec->ratio);
	call.args[0] = "attempt";
	call.args[1] = max;
	call.args[2] = ratio;
	call.args[3] = success ? "1" : "0";
	call.args[4] = usec(refill, sizeof(refill), g->spec->refill);
	if ((e = redis_op(g, &call, 5, signals_stops(), why, len)) ==
	    STORE_OK)
		*allowed = call.out[0] != 0;
	return e;
}

/* The server's microseconds as nanoseconds, kept in range: data. */
static nsec_t
server_wait(long long us)
{
	return us <= 0 ? 0 : us < DURATION_MAX / NSEC_PER_USEC ?
	    us * NSEC_PER_USEC : DURATION_MAX;
}

static enum store_end
redis_store_admit(struct guard *g, struct admission *a, char *why,
    size_t len)
{
	struct redis_call call;
	char cooldown[24], l[24], i[24], cap[24];
	enum store_end e;

	memset(&call, 0, sizeof(call));
	call.args[0] = "admit";
	call.args[1] = usec(cooldown, sizeof(cooldown), g->spec->cooldown);
	call.args[2] = usec(l, sizeof(l), a->lease);
	snprintf(i, sizeof(i), "%" PRIu32, a->id);
	call.args[3] = i;
	call.args[4] = usec(cap, sizeof(cap), breaker_cap(g->spec));
	if ((e = redis_op(g, &call, 5, a->mark, why, len)) != STORE_OK ||
	    call.nout < 3)
		return e;
	/* The server's numbers are data: kept in range before arithmetic. */
	a->wait = server_wait(call.out[1]);
	if (call.out[2] == BREAKER_PROBING)
		a->wait = -1;
	a->verdict = call.out[0] == ADMIT_PROBE ? ADMIT_PROBE :
	    call.out[0] == ADMIT_REFUSED ? ADMIT_REFUSED : ADMIT_RUN;
	return STORE_OK;
}

static enum store_end
redis_store_report(struct guard *g, uint32_t probe, enum run_end end,
    unsigned permille, char *why, size_t len)
{
	struct redis_call call;
	char n[24], cooldown[24], cap[24], e[4], id[24], pm[8];

	memset(&call, 0, sizeof(call));
	snprintf(n, sizeof(n), "%lld", g->spec->failures);
	snprintf(e, sizeof(e), "%d", (int)end);
	snprintf(id, sizeof(id), "%" PRIu32, probe);
	snprintf(pm, sizeof(pm), "%u", permille);
	call.args[0] = "report";
	call.args[1] = n;
	call.args[2] = usec(cooldown, sizeof(cooldown), g->spec->cooldown);
	call.args[3] = usec(cap, sizeof(cap), breaker_cap(g->spec));
	call.args[4] = e;
	call.args[5] = id;
	call.args[6] = pm;
	/*
	 * A mark of its own: a stop that ended the run must not cut short
	 * the probe's report of it.
	 */
	return redis_op(g, &call, 7, signals_stops(), why, len);
}

static enum store_end
redis_store_peek(struct guard *g, struct guard_view *v, char *why,
    size_t len)
{
	struct redis_call call;
	char max[24], refill[24];
	long long m = g->spec->tokens * MILLI;
	enum store_end e;

	memset(&call, 0, sizeof(call));
	snprintf(max, sizeof(max), "%lld", m);
	call.args[0] = "peek";
	call.args[1] = max;
	call.args[2] = usec(refill, sizeof(refill), g->spec->refill);
	if ((e = redis_op(g, &call, 3, signals_stops(), why, len)) !=
	    STORE_OK)
		return e;
	if (call.nout < 4) {
		snprintf(why, len, "unexpected reply");
		return STORE_FAILED;
	}
	v->tokens = call.out[0] < 0 ? 0 : call.out[0] > m ? m : call.out[0];
	v->state = call.out[1] == BREAKER_OPEN ? BREAKER_OPEN :
	    call.out[1] == BREAKER_PROBING ? BREAKER_PROBING : BREAKER_CLOSED;
	v->failures = call.out[2] < 0 ? 0 : call.out[2];
	v->wait = v->state == BREAKER_CLOSED ? 0 : server_wait(call.out[3]);
	return STORE_OK;
}

static enum store_end
redis_store_reset(struct guard *g, bool budget, char *why, size_t len)
{
	struct redis_call call;

	memset(&call, 0, sizeof(call));
	call.args[0] = "reset";
	call.args[1] = budget ? "1" : "0";
	return redis_op(g, &call, 2, signals_stops(), why, len);
}

static void
redis_store_close(struct guard *g)
{
	redis_close(g->state);
	g->state = NULL;
}

const struct store_ops redis_store = {
	.open = redis_store_open,
	.attempt = redis_store_attempt,
	.admit = redis_store_admit,
	.report = redis_store_report,
	.peek = redis_store_peek,
	.reset = redis_store_reset,
	.close = redis_store_close,
};

#else	/* !HAVE_HIREDIS */

/* Refuses the redis:// and unix:// forms, with one line. */
static enum store_end
redis_refused(struct guard *g, long mark, char *why, size_t len)
{
	(void)mark;
	(void)why;
	(void)len;
	guard_target(g->where, sizeof(g->where), g->spec);
	errx(EXIT_CANCELED, "%s: this retry was built without Redis "
	    "support (hiredis)", g->where);
}

/* Its open never returns: no other call is ever made. */
const struct store_ops redis_store = {
	.open = redis_refused,
};

#endif	/* HAVE_HIREDIS */
