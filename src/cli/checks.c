/*
 * checks.c: the checks across options, which no single option can make:
 * options.c runs them once a vector is parsed, on what its pass noted.
 * --cap below --base, --delays with a computed schedule or with
 * decorrelated jitter, an http: item without --http, --until-failure
 * with a guard, the EREs of RETRY_OPTIONS, and no command at all.  An
 * error that names two options says which of them came from
 * RETRY_OPTIONS.  --delays also sets the base and the cap that the logs
 * and the guards read, and -k 0 becomes "never".
 */
#include <stdio.h>

#include "attempt/match.h"
#include "os/defs.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "text/format.h"
#include "checks.h"
#include "config.h"

#define IN_ENV		" (in RETRY_OPTIONS)"

/*
 * An http: item in a LIST means nothing without a head to read it from:
 * silently ignored, -x http:404 would let every 404 be retried.
 */
static bool
check_http_items(const struct config *cfg, const struct origin *env,
    char *err, size_t len)
{
	static const char *const names[] = { "--retry-on", "--stop-on",
	    "--success-on" };
	const struct outcome_set *lists[] = { &cfg->retry_on, &cfg->stop_on,
	    &cfg->success_on };
	int i, bad = -1;
	bool from_env = false;

	if (cfg->http_file != NULL)
		return true;
	/* RETRY_OPTIONS' words are checked even where argv replaced them. */
	for (i = 0; i < 3 && bad == -1; i++)
		if (env->http[i])
			bad = i;
	from_env = bad != -1;
	for (i = 0; i < 3 && bad == -1; i++)
		if (outcomes_have_http(lists[i]))
			bad = i;
	if (bad == -1)
		return true;
	snprintf(err, len, "%s%s names HTTP statuses, which need --http=FILE "
	    "to be read", from_env ? "RETRY_OPTIONS: " : "", names[bad]);
	return false;
}

/*
 * --delays: no jitter unless -j asks for one, which then jitters each
 * value as its window; base and cap become the first and the longest, as
 * the logs and the guards read them.
 */
static bool
check_delay_jitter(struct schedule *s, bool jitter_given, char *err,
    size_t len)
{
	int i;

	if (!jitter_given)
		s->jitter.kind = JITTER_NONE;
	if (s->jitter.kind == JITTER_DECORRELATED) {
		snprintf(err, len, "--delays and --jitter=decorrelated cannot "
		    "be combined: decorrelated jitter draws from the previous "
		    "sleep, not from a list");
		return false;
	}
	s->base = s->cap = s->delays[0];
	for (i = 1; i < s->ndelays; i++)
		if (s->delays[i] > s->cap)
			s->cap = s->delays[i];
	s->first_now = false;
	return true;
}

/*
 * Why --cap is below --base: both named in err, each from RETRY_OPTIONS
 * or argv, or the base that --preset gave.
 */
static void
describe_low_cap(const struct config *cfg, const char *cap_arg,
    const char *base_arg, const struct origin *env, char *err, size_t len)
{
	/* Both from RETRY_OPTIONS: the whole error is the variable's. */
	bool all_env = env->cap && (base_arg != NULL ? env->base :
	    cfg->preset == NULL || env->preset);
	const char *pre = all_env ? "RETRY_OPTIONS: " : "";
	const char *cap_in = env->cap && !all_env ? IN_ENV : "";
	char base[32];

	if (base_arg == NULL && cfg->preset != NULL) {
		format_seconds(base, sizeof(base), cfg->sched.base);
		snprintf(err, len, "%sinvalid --cap '%.*s'%s: below the base "
		    "of --preset=%s%s, %ss", pre, VALUE_SHOWN, cap_arg, cap_in,
		    cfg->preset, env->preset && !all_env ? IN_ENV : "", base);
	} else
		snprintf(err, len, "%sinvalid --cap '%.*s'%s: below --base "
		    "'%.*s'%s", pre, VALUE_SHOWN, cap_arg, cap_in, VALUE_SHOWN,
		    base_arg != NULL ? base_arg : "1s",
		    base_arg != NULL && env->base && !all_env ? IN_ENV : "");
}

/* --until-failure with a guard, each said to be from where it came. */
static void
describe_until_guard(const struct config *cfg, const struct origin *env,
    char *err, size_t len)
{
	bool budget = cfg->budget.name[0] != '\0';
	bool guard_env = budget ? env->budget : env->breaker;
	bool all_env = env->until && guard_env;

	snprintf(err, len, "%s--until-failure%s and --%s%s cannot be "
	    "combined: it stops at the first failure, so nothing is retried",
	    all_env ? "RETRY_OPTIONS: " : "", env->until && !all_env ?
	    IN_ENV : "", budget ? "budget" : "breaker", guard_env &&
	    !all_env ? IN_ENV : "");
}

/*
 * --guard-status and --guard-reset act on the guards named, and run no
 * command: false with err if there is none, or a command.
 */
static bool
check_guard_tool(const struct config *cfg, char *err, size_t len)
{
	const char *opt = cfg->guard_reset ? "--guard-reset" :
	    "--guard-status";

	/* Which one was meant is a guess, and a reset cannot be undone. */
	if (cfg->guard_reset && cfg->guard_status)
		snprintf(err, len, "--guard-status and --guard-reset cannot "
		    "be combined: --guard-reset shows the state too");
	else if (cfg->budget.name[0] == '\0' && cfg->breaker.name[0] == '\0')
		snprintf(err, len, "%s needs --budget or --breaker", opt);
	else if (cfg->argv != NULL)
		snprintf(err, len, "%s runs no command", opt);
	else
		return true;
	return false;
}

/*
 * What no single option can check; false with err filled in.  base_arg
 * is NULL when the base is the default or the preset's.
 */
bool
check_config(struct config *cfg, const struct pass *p, char *err,
    size_t len)
{
	struct schedule *s = &cfg->sched;

	if (p->cap_arg != NULL && s->cap < s->base) {
		describe_low_cap(cfg, p->cap_arg, p->base_arg, &p->env, err,
		    len);
		return false;
	}
	if (s->cap < s->base)
		s->cap = s->base;
	if (s->ndelays > 0 && !check_delay_jitter(s, p->jitter, err, len))
		return false;
	if (!check_http_items(cfg, &p->env, err, len))
		return false;
	/* A budget and a breaker meter retries; this run retries nothing. */
	if (cfg->until_failure && (cfg->budget.name[0] != '\0' ||
	    cfg->breaker.name[0] != '\0')) {
		describe_until_guard(cfg, &p->env, err, len);
		return false;
	}
	/* As in timeout(1), -k 0 sends no KILL at all. */
	if (cfg->kill_after == 0)
		cfg->kill_after = NSEC_INF;
	/* A dry run touches nothing: it only shows the schedule. */
	if (!cfg->dry_run && (cfg->guard_status || cfg->guard_reset))
		return check_guard_tool(cfg, err, len);
	if (!cfg->dry_run && cfg->argv == NULL) {
		snprintf(err, len, "no command given");
		return false;
	}
	return true;
}

/*
 * --delays replaces the computed schedule: one vector may not give both;
 * across RETRY_OPTIONS and argv, argv's wins.  false with err filled in.
 */
bool
check_delays(struct config *cfg, const struct pass *p, char *err,
    size_t len)
{
	if (p->delays && p->computed != NULL) {
		snprintf(err, len, "--delays and --%s cannot be combined: the "
		    "list replaces the computed schedule", p->computed);
		return false;
	}
	if (!p->from_env && p->computed != NULL)
		cfg->sched.ndelays = 0;	/* argv's schedule over the env's */
	return true;
}

/*
 * The EREs of RETRY_OPTIONS, compiled now and dropped: argv may replace
 * them, and every word of the variable is checked all the same.
 */
bool
check_env_eres(const struct match_rules *conds, char *why, size_t len)
{
	struct matcher *m;

	if ((m = matcher_open(conds, why, len)) == NULL && *why != '\0')
		return false;
	matcher_free(m);
	return true;
}
