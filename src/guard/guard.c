/*
 * guard.c: --budget and --breaker as the attempt loop sees them.  Four
 * calls, each one update of the shared state: open the stores before the
 * first attempt, ask the breaker whether this run may start, record each
 * attempt in the budget (which answers whether a retry is still allowed),
 * and tell the breaker how the run ended.  Each guard's state lives in a
 * local file (statefile.c) or in Redis (redisstore.c); the rules are
 * budget.c's, applied here to the file's record or run by Redis itself
 * as a Lua script.
 *
 * A store that fails in the middle of a run, and a Redis server that
 * cannot be reached at all, cost the guard, not the run: retry warns
 * once and goes on as if the option had not been given.  A budget or a
 * breaker must never be the reason that a command does not run when the
 * dependency it protects is fine.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "os/clock.h"
#include "os/defs.h"
#include "os/signals.h"
#include "text/escape.h"
#include "budget.h"
#include "guard.h"
#include "redisstore.h"
#include "statefile.h"
#include "tls.h"

#define NSEC_PER_USEC		1000
#define PROBE_LEASE_MIN		(60 * NSEC_PER_SEC)
#define JITTER_PERMILLE_MIN	750	/* a failed probe's cooldown grows */
#define JITTER_PERMILLE_SPAN	501	/* by 1.5 to 2.5 times */

/* Goes on without g, after saying why, once. */
static void
guard_off(struct guard *g, const char *why)
{
	if (!g->on)
		return;
	warnx_safe("%s: %s: going on without %s '%s'", g->where, why, g->what,
	    g->spec->name);
	g->on = false;
}

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
	    spec->tls ? &files : NULL };

	g->redis = spec->port == 0 ?
	    redis_open_unix(spec->host, g->ss, mark, why, len) :
	    redis_open(&node, g->ss, mark, why, len);
	if (g->redis == NULL)
		return false;
	if ((pass != NULL || *spec->user != '\0') && !redis_auth(g->redis,
	    spec->user, pass != NULL ? pass : "", why, len))
		return false;
	return spec->db == 0 || redis_select(g->redis, spec->db, why, len);
}

static void
guard_open(struct guard *g, const struct guard_spec *spec, const char *what,
    const struct sigstate *ss, long mark)
{
	char why[PATH_MAX_GUARD + 128];

	memset(g, 0, sizeof(*g));
	g->spec = spec;
	g->what = what;
	g->ss = ss;
	g->fd = -1;
	if (spec->name[0] == '\0')
		return;
	if (spec->host[0] == '\0') {
		/* A state no one can trust must not stop the command. */
		if (statefile_open(g, why, sizeof(why)))
			g->on = true;
		else
			warnx_safe("%s: going on without %s '%s'", why, what,
			    spec->name);
		return;
	}
	guard_target(g->where, sizeof(g->where), spec);
	if (!redis_built_in())
		errx(EXIT_CANCELED, "%s: this retry was built without Redis "
		    "support (hiredis)", g->where);
	if (spec->tls && !tls_built_in())
		errx(EXIT_CANCELED, "%s: this retry was built without TLS "
		    "support (OpenSSL)", g->where);
	/* A stop during the other guard's wait: the run is about to end. */
	if (signals_stops() != mark)
		return;
	g->on = true;
	if (redis_start(g, mark, why, sizeof(why)))
		return;
	if (signals_stop() != 0 && strcmp(why, "stopped") == 0)
		g->on = false;	/* the run is about to end */
	else
		guard_off(g, why);
}

/*
 * How long the probe's claim lasts: as long as the probe can run, where
 * that is known (--max-time; or a number of attempts that each have a
 * --timeout, with their sleeps at most twice the cap), and at least a
 * minute, time for an ordinary run to end and report.  The cooldown, if
 * longer still, is budget.c's to add.
 */
static nsec_t
probe_lease(const struct guard_limits *lim)
{
	nsec_t per, n = lim->attempts, longest = 0;

	if (lim->max_time > 0)
		longest = lim->max_time;
	else if (n > 0 && lim->timeout > 0 && lim->kill_after != NSEC_INF) {
		per = nsec_add(nsec_add(lim->timeout, lim->kill_after),
		    nsec_add(lim->cap, lim->cap));
		longest = per > DURATION_MAX / n ? DURATION_MAX : per * n;
	}
	return longest > PROBE_LEASE_MIN ? longest : PROBE_LEASE_MIN;
}

/*
 * --budget and --breaker as the specs budget and breaker give them, for
 * a run within the limits lim.  A stop signal of ss ends a wait; one
 * mark for all the guards' work before attempt 1, so that a stop during
 * one guard's wait ends the other's too, or spares it.
 */
void
guards_open(struct guards *gs, const struct guard_spec *budget,
    const struct guard_spec *breaker, const struct guard_limits *lim,
    const struct sigstate *ss)
{
	memset(gs, 0, sizeof(*gs));
	gs->mark = signals_stops();
	guard_open(&gs->budget, budget, "retry budget", ss, gs->mark);
	guard_open(&gs->breaker, breaker, "circuit breaker", ss, gs->mark);
	gs->lease = probe_lease(lim);
}

/* --- the local file -------------------------------------------------- */

/*
 * Locks g's file and reads its record: false (and g off) if it failed.
 * A stop signal during the wait for the lock turns the guard off without
 * a word: the run is about to end anyway.
 */
static bool
record_load(struct guard *g, struct guard_record *r)
{
	char buf[RECORD_MAX], why[64];
	ssize_t n;

	if ((n = statefile_begin(g, buf, sizeof(buf))) == -1) {
		if (errno == EINTR)
			g->on = false;
		else if (errno == ETIMEDOUT) {
			snprintf(why, sizeof(why), "still locked after %d ms",
			    LOCK_WAIT_MS);
			guard_off(g, why);
		} else
			guard_off(g, strerror(errno));
		return false;
	}
	record_init(r);
	g->corrupt = n > 0 && !record_parse(buf, (size_t)n, r);
	if (g->corrupt)
		record_init(r);
	record_rebase(r, boot_id(), boot_now());
	return true;
}

/*
 * Writes r back and unlocks g's file; only then says what went wrong,
 * since a write to a stderr that blocks must not hold up the others.
 */
static void
record_store(struct guard *g, struct guard_record *r)
{
	char buf[RECORD_MAX];
	int n, rc;

	record_stamp(r, boot_id());
	n = record_format(buf, sizeof(buf), r);
	rc = statefile_commit(g, buf, (size_t)n);
	if (g->corrupt)
		warnx_safe("state file %s held no valid record: starting afresh",
		    g->where);
	g->corrupt = false;
	if (rc == -1)
		guard_off(g, strerror(errno));
}

/* --- Redis ----------------------------------------------------------- */

/*
 * Runs g's script with call's first nargs args, waits that a stop after
 * mark ends: false if it failed.
 */
static bool
redis_op(struct guard *g, struct redis_call *call, int nargs, long mark)
{
	char key[8 + GUARD_NAME_MAX];

	snprintf(key, sizeof(key), "retry:%s", g->spec->name);
	call->script = guard_lua;
	call->key = key;
	call->nargs = nargs;
	if (redis_eval(g->redis, call, mark) && call->nout >= 1)
		return true;
	if (signals_stop() != 0 && strcmp(call->why, "stopped") == 0) {
		g->on = false;	/* the run is about to end */
		return false;
	}
	guard_off(g, call->why[0] != '\0' ? call->why : "unexpected reply");
	return false;
}

/* --- the four calls -------------------------------------------------- */

/*
 * Records one attempt in the budget; false if a retry is not allowed.
 */
bool
guards_attempt(struct guards *gs, bool success)
{
	struct guard *g = &gs->budget;
	struct guard_record r;
	struct redis_call call;
	char max[24], ratio[24];
	bool allowed;

	if (!g->on)
		return true;
	if (g->redis == NULL) {
		if (!record_load(g, &r))
			return true;
		allowed = budget_attempt(&r, g->spec, success);
		record_store(g, &r);
		return allowed;
	}
	memset(&call, 0, sizeof(call));
	snprintf(max, sizeof(max), "%lld", g->spec->tokens * MILLI);
	snprintf(ratio, sizeof(ratio), "%lld", g->spec->ratio);
	call.args[0] = "attempt";
	call.args[1] = max;
	call.args[2] = ratio;
	call.args[3] = success ? "1" : "0";
	if (!redis_op(g, &call, 4, signals_stops()))
		return true;
	return call.out[0] != 0;
}

/* Durations for the script, which counts in microseconds. */
static const char *
usec(char *buf, size_t len, nsec_t ns)
{
	snprintf(buf, len, "%" PRId64, ns / NSEC_PER_USEC);
	return buf;
}

static enum admit
redis_admit(struct guard *g, nsec_t lease, uint32_t id, long mark,
    nsec_t *wait)
{
	struct redis_call call;
	char cooldown[24], l[24], i[24], cap[24];

	memset(&call, 0, sizeof(call));
	call.args[0] = "admit";
	call.args[1] = usec(cooldown, sizeof(cooldown), g->spec->cooldown);
	call.args[2] = usec(l, sizeof(l), lease);
	snprintf(i, sizeof(i), "%" PRIu32, id);
	call.args[3] = i;
	call.args[4] = usec(cap, sizeof(cap), breaker_cap(g->spec));
	if (!redis_op(g, &call, 5, mark) || call.nout < 3)
		return ADMIT_RUN;
	/* The server's numbers are data: kept in range before arithmetic. */
	*wait = call.out[1] <= 0 ? 0 :
	    call.out[1] < DURATION_MAX / NSEC_PER_USEC ?
	    call.out[1] * NSEC_PER_USEC : DURATION_MAX;
	if (call.out[2] == BREAKER_PROBING)
		*wait = -1;
	return call.out[0] == ADMIT_PROBE ? ADMIT_PROBE :
	    call.out[0] == ADMIT_REFUSED ? ADMIT_REFUSED : ADMIT_RUN;
}

/*
 * Whether the breaker lets this run start; if not, *wait is the time
 * until the next probe, or -1 while a probe is under way.
 */
bool
guards_admit(struct guards *gs, nsec_t *wait)
{
	struct guard *g = &gs->breaker;
	struct guard_record r;
	enum admit a;
	uint32_t id;

	if (!g->on)
		return true;
	while ((id = arc4random()) == 0)
		continue;	/* 0 means "not a probe" */
	if (g->redis != NULL)
		a = redis_admit(g, gs->lease, id, gs->mark, wait);
	else {
		if (!record_load(g, &r))
			return true;
		a = breaker_admit(&r, g->spec, boot_now(), gs->lease, id, wait);
		if (a == ADMIT_REFUSED && r.state == BREAKER_PROBING)
			*wait = -1;
		record_store(g, &r);
	}
	if (a == ADMIT_PROBE)
		gs->probe = id;
	return a != ADMIT_REFUSED;
}

static void
redis_report(struct guard *g, uint32_t probe, enum run_end end,
    unsigned permille)
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
	redis_op(g, &call, 7, signals_stops());
}

/* Tells the breaker how the run ended, just before retry exits. */
void
guards_end(struct guards *gs, enum run_end end)
{
	struct guard *g = &gs->breaker;
	struct guard_record r;
	unsigned permille;

	/*
	 * A stopped run that is not the probe changes no record (the rule
	 * of breaker_report() and the script): asking the store anyway
	 * would keep a stop waiting on a slow peer or a held lock.
	 */
	if (!g->on || (end == RUN_STOPPED && gs->probe == 0))
		return;
	permille = JITTER_PERMILLE_MIN +
	    arc4random_uniform(JITTER_PERMILLE_SPAN);
	if (g->redis != NULL) {
		redis_report(g, gs->probe, end, permille);
		return;
	}
	if (!record_load(g, &r))
		return;
	breaker_report(&r, g->spec, boot_now(), gs->probe, end, permille);
	record_store(g, &r);
}
