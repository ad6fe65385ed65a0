/*
 * guard.c: --budget and --breaker as the attempt loop sees them.  Four
 * calls, each one update of the shared state: open the stores before the
 * first attempt, ask the breaker whether this run may start, record each
 * attempt in the budget (which answers whether a retry is still allowed),
 * and tell the breaker how the run ended.  Each guard's state lives in a
 * store, a local file (statefile.c) or Redis (redisstore.c), whose table
 * of functions (store.h) is picked once, from the spec; the rules are
 * budget.c's, applied by the store to the file's record or run by Redis
 * itself as a Lua script.
 *
 * A store that fails in the middle of a run, and a Redis server that
 * cannot be reached at all, cost the guard, not the run: retry warns
 * once and goes on as if the option had not been given.  A budget or a
 * breaker must never be the reason that a command does not run when the
 * dependency it protects is fine.
 *
 * --guard-status and --guard-reset go through the same stores, so that a
 * user can see or clear a guard's state without knowing where it lives.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/signals.h"
#include "text/escape.h"
#include "text/format.h"
#include "budget.h"
#include "guard.h"
#include "redisstore.h"
#include "statefile.h"
#include "store.h"

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

/* After a store's call that ended as e: on without g if it failed. */
static void
store_done(struct guard *g, enum store_end e, const char *why)
{
	if (e == STORE_STOPPED)
		g->on = false;	/* the run is about to end */
	else if (e == STORE_FAILED)
		guard_off(g, why);
}

/* The store that spec names: a Redis server's URL, or the local file. */
static const struct store_ops *
store_of(const struct guard_spec *spec)
{
	return spec->host[0] == '\0' ? &statefile_store : &redis_store;
}

/* g on spec, opened within gs's bounds and stop mark. */
static void
guard_open(struct guard *g, const struct guard_spec *spec, const char *what,
    const struct sigstate *ss, const struct guards *gs)
{
	char why[STORE_WHY_MAX];

	memset(g, 0, offsetof(struct guard, where));
	g->where[0] = '\0';
	g->spec = spec;
	g->what = what;
	g->ss = ss;
	g->limit = &gs->limit;
	g->opening = &gs->opening;
	if (spec->name[0] == '\0')
		return;
	g->store = store_of(spec);
	switch (g->store->open(g, gs->mark, why, sizeof(why))) {
	case STORE_OK:
		g->on = true;
		break;
	case STORE_FAILED:
		/* A state no one can trust must not stop the command. */
		warnx_safe("%s: going on without %s '%s'", why, what,
		    spec->name);
		break;
	case STORE_STOPPED:
		break;
	}
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
	/* Field by field: guard_open() clears each guard. */
	gs->probe = 0;
	gs->limit = 0;
	gs->mark = signals_stops();
	/* Before the run's deadline is set, half of -m bounds the opening. */
	if (lim->max_time > 0)
		gs->limit = nsec_add(mono_now(), lim->max_time / 2);
	/*
	 * And one ceiling all the waits before attempt 1: two slow stores
	 * must not hold the command twice as long.
	 */
	gs->opening = nsec_add(mono_now(),
	    (nsec_t)STORE_CEILING_MS * NSEC_PER_MSEC);
	guard_open(&gs->budget, budget, "retry budget", ss, gs);
	guard_open(&gs->breaker, breaker, "circuit breaker", ss, gs);
	gs->lease = probe_lease(lim);
}

/*
 * The run's deadline (-m; 0: none), set before the breaker is asked:
 * no wait on a store passes it, so that the whole run, guards and all,
 * ends at -m.
 */
void
guards_limit(struct guards *gs, nsec_t deadline)
{
	gs->limit = deadline;
}

/*
 * Records one attempt in the budget; false if a retry is not allowed.
 */
bool
guards_attempt(struct guards *gs, bool success)
{
	struct guard *g = &gs->budget;
	char why[STORE_WHY_MAX];
	bool allowed = true;

	if (!g->on)
		return true;
	store_done(g, g->store->attempt(g, success, &allowed, why,
	    sizeof(why)), why);
	return allowed;
}

/*
 * Whether the breaker lets this run start; if not, *wait is the time
 * until the next probe, or -1 while a probe is under way.  The last
 * wait before attempt 1: the opening's ceiling ends with it.
 */
bool
guards_admit(struct guards *gs, nsec_t *wait)
{
	struct guard *g = &gs->breaker;
	char why[STORE_WHY_MAX];
	struct admission a = { gs->lease, 0, gs->mark, ADMIT_RUN, 0 };

	if (!g->on) {
		gs->opening = 0;
		return true;
	}
	while ((a.id = arc4random()) == 0)
		continue;	/* 0 means "not a probe" */
	store_done(g, g->store->admit(g, &a, why, sizeof(why)), why);
	gs->opening = 0;
	*wait = a.wait;
	if (a.verdict == ADMIT_PROBE)
		gs->probe = a.id;
	return a.verdict != ADMIT_REFUSED;
}

/*
 * Tells the breaker how the run ended, just before retry exits; errno is
 * kept, for the error that retry exits with next.
 */
void
guards_end(struct guards *gs, enum run_end end)
{
	struct guard *g = &gs->breaker;
	char why[STORE_WHY_MAX];
	unsigned permille;
	int error = errno;

	/*
	 * A stopped run that is not the probe changes no record (the rule
	 * of breaker_report() and the script): asking the store anyway
	 * would keep a stop waiting on a slow peer or a held lock.
	 */
	if (!g->on || (end == RUN_STOPPED && gs->probe == 0))
		return;
	permille = JITTER_PERMILLE_MIN +
	    arc4random_uniform(JITTER_PERMILLE_SPAN);
	store_done(g, g->store->report(g, gs->probe, end, permille, why,
	    sizeof(why)), why);
	/* Told: a stop that follows (finish()) asks the store nothing. */
	gs->probe = 0;
	errno = error;
}

/* --- --guard-status and --guard-reset ----------------------------------- */

/* Milli-tokens as a person reads them: 42, 42.5, 0.001. */
static void
add_tokens(struct strbuf *sb, long long milli)
{
	char frac[8];
	int n;

	sb_printf(sb, "%lld", milli / MILLI);
	if (milli % MILLI == 0)
		return;
	n = snprintf(frac, sizeof(frac), "%03lld", milli % MILLI);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	sb_printf(sb, ".%s", frac);
}

/* What v says of the budget g, after "retry budget 'NAME': ". */
static void
add_budget(struct strbuf *sb, const struct guard *g,
    const struct guard_view *v)
{
	long long max = g->spec->tokens * MILLI;
	char every[32];

	add_tokens(sb, v->tokens);
	sb_printf(sb, " of %lld tokens: retries %s there are more than ",
	    g->spec->tokens, v->tokens * 2 > max ? "allowed while" :
	    "refused until");
	add_tokens(sb, max / 2);
	if (g->spec->refill > 0) {
		format_span(every, sizeof(every), g->spec->refill);
		sb_printf(sb, "; a token back every %s", every);
	} else
		sb_str(sb, "; no refill");
}

/* What v says of the breaker g, after "circuit breaker 'NAME': ". */
static void
add_breaker(struct strbuf *sb, const struct guard *g,
    const struct guard_view *v)
{
	char wait[32];

	format_ms(wait, sizeof(wait), v->wait);
	if (v->state == BREAKER_OPEN)
		sb_printf(sb, "open, next probe in %ss", wait);
	else if (v->state == BREAKER_PROBING)
		sb_printf(sb, "probing, its claim lapses in %ss", wait);
	else
		sb_printf(sb, "closed, %lld of %lld failed runs in a row",
		    v->failures, g->spec->failures);
}

/* One line on stdout: g's state, and where it lives. */
static void
show(const struct guard *g, const struct guard_view *v, bool budget)
{
	struct strbuf line = { NULL, 0, 0 }, out = { NULL, 0, 0 };

	sb_printf(&line, "%s '%s': ", g->what, g->spec->name);
	if (budget)
		add_budget(&line, g, v);
	else
		add_breaker(&line, g, v);
	sb_printf(&line, " (%s)", g->where);
	sb_visible(&out, sb_text(&line));
	printf("%s\n", sb_text(&out));
	sb_free(&line);
	sb_free(&out);
}

/*
 * spec's guard reset if asked, then shown: 0, or 1 after a warning.  No
 * wait on its store passes *limit (-m; 0: none).
 */
static int
tool_one(const struct guard_spec *spec, const char *what, bool budget,
    bool reset, const nsec_t *limit, const struct sigstate *ss)
{
	struct guard g;
	struct guard_view v;
	char why[STORE_WHY_MAX];
	enum store_end e;

	if (spec->name[0] == '\0')
		return 0;
	memset(&g, 0, sizeof(g));
	g.spec = spec;
	g.what = what;
	g.ss = ss;
	g.limit = limit;
	g.store = store_of(spec);
	/* open's reason names the store; the later calls' do not. */
	if ((e = g.store->open(&g, signals_stops(), why, sizeof(why))) ==
	    STORE_FAILED)
		warnx_safe("%s", why);
	else {
		if (e == STORE_OK && reset)
			e = g.store->reset(&g, budget, why, sizeof(why));
		if (e == STORE_OK)
			e = g.store->peek(&g, &v, why, sizeof(why));
		if (e == STORE_FAILED)
			warnx_safe("%s: %s", g.where, why);
	}
	if (e == STORE_OK)
		show(&g, &v, budget);
	if (g.store->close != NULL)
		g.store->close(&g);
	return e == STORE_OK ? 0 : 1;
}

/*
 * --guard-status, or --guard-reset if reset: each guard given shown on
 * stdout, after its reset.  0, 1 if a store could not be used, or 128
 * and the number of a stop signal that ended a wait, as a shell says;
 * exits 125 if stdout cannot be written.  A max_time (-m; 0: none) bounds
 * the two guards' waits together, as it bounds a run's: a script that
 * asks with -m must not wait for a silent server's 5 s.
 */
int
guards_tool(const struct guard_spec *budget, const struct guard_spec *breaker,
    bool reset, nsec_t max_time, const struct sigstate *ss)
{
	nsec_t limit = max_time > 0 ? nsec_add(mono_now(), max_time) : 0;
	int rc;

	rc = tool_one(budget, "retry budget", true, reset, &limit, ss);
	if (signals_stop() == 0)
		rc |= tool_one(breaker, "circuit breaker", false, reset,
		    &limit, ss);
	if (signals_stop() != 0)
		rc = 128 + signals_stop();
	/* As --dry-run and -O do: a closed pipe ends retry as it would cat. */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (errno == EPIPE && signals_sigpipe_default(ss))
			die_by_signal(SIGPIPE);
		err(EXIT_CANCELED, "standard output");
	}
	return rc;
}
