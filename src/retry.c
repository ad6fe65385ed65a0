/*
 * retry: run a command until it succeeds, with exponential backoff and
 * jitter, and exit with the status of the final attempt.
 *
 * This file holds main, the attempt loop, the decision after each
 * attempt and the final status; it alone turns the struct config of the
 * command line into what each module below needs.  The folders below it,
 * what each owns and what each may call, are mapped in HACKING.md: calls
 * run one way, from here down, and build-aux/check-layout.sh holds the
 * code to that map.
 */
#include <err.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attempt/afterfile.h"
#include "attempt/attempt.h"
#include "attempt/held.h"
#include "attempt/hooks.h"
#include "attempt/match.h"
#include "attempt/spawn.h"
#include "attempt/streams.h"
#include "cli/config.h"
#include "cli/dryrun.h"
#include "cli/envopts.h"
#include "cli/help.h"
#include "guard/budget.h"
#include "guard/guard.h"
#include "log/jsonlog.h"
#include "log/log.h"
#include "os/clock.h"
#include "os/defs.h"
#include "os/env.h"
#include "os/fd.h"
#include "os/signals.h"
#include "os/trace.h"
#include "policy/after.h"
#include "policy/backoff.h"
#include "policy/http.h"
#include "policy/outcomes.h"
#include "text/escape.h"
#include "text/format.h"

extern char **environ;

/* Everything one run of the attempt loop needs. */
struct run {
	const struct config *cfg;
	const struct sigstate *sigs;
	struct log	 log;
	struct backoff	 backoff;
	struct streams	*streams;	/* -I, -O, output conditions; or NULL */
	struct failed_sink failed[2];	/* -O, -E: a failed attempt's */
	long long	 step;		/* retries since the schedule began */
	char		**envp;
	struct env_attempt env;		/* RETRY_ATTEMPT and its kin */
	struct trace	 trace;		/* TRACEPARENT, a span per attempt */
	struct http_head head;		/* --http: the last attempt's */
	struct after_file after;	/* RETRY_AFTER_FILE */
	char		 why[128];	/* a reason that holds values */
	nsec_t		 t0;		/* when the first attempt started */
	nsec_t		 deadline;	/* --max-time after t0; 0: none */
	enum leftovers_mode leftovers;	/* how they are found */
	bool		 told_unseen;	/* that they cannot be: said once */
	bool		 told_head;	/* --http FILE stays empty: said */
	char		 exhausted[GUARD_NAME_MAX + 32];	/* the reason */
	/* Last: setup_run() leaves its 8 KiB to guards_open(). */
	struct guards	 guards;	/* --budget and --breaker */
};

static _Noreturn void
usage_error(const char *msg)
{
	err_safe(EXIT_CANCELED, false, "%s; try '%s --help'", msg,
	    getprogname());
}

enum verdict {
	SUCCEED,
	RETRY,
	STOP
};

/* The retry policy: the first rule that matches decides. */
static enum verdict
decide(const struct config *cfg, const struct outcome *o)
{
	static const enum verdict by_output[MATCH_KINDS] = {
		[MATCH_SUCCESS] = SUCCEED,
		[MATCH_STOP] = STOP,
		[MATCH_RETRY] = RETRY,
	};
	static const enum verdict by_http[] = {
		[HTTP_SUCCEED] = SUCCEED,
		[HTTP_STOP] = STOP,
		[HTTP_RETRY] = RETRY,
	};
	enum http_rule h;

	if (o->kind == OUT_NOEXEC)
		return outcome_in(&cfg->retry_on, o) &&
		    !outcome_in(&cfg->stop_on, o) ? RETRY : STOP;
	if (o->matched != -1)
		return by_output[o->matched];
	if (o->http_status != 0 &&
	    (h = http_policy(&cfg->success_on, &cfg->stop_on, &cfg->retry_on,
	    o->http_status)) != HTTP_NEXT)
		return by_http[h];
	if (outcome_in(&cfg->success_on, o))
		return SUCCEED;
	if (outcome_in(&cfg->stop_on, o))
		return STOP;
	if (outcome_in(&cfg->retry_on, o))
		return RETRY;
	return STOP;
}

/* A stop signal came after attempt k ended: retry dies by it. */
static _Noreturn void
stopped(struct run *r, long long k, int sig)
{
	guards_end(&r->guards, RUN_STOPPED);
	log_stopped(&r->log, k, false, sig, 128 + sig, mono_now() - r->t0);
	die_by_signal(sig);
}

/*
 * Sends the held output of attempt k on: when it is the final one of a
 * run that ends as how, to stderr, then stdout (the error out whatever
 * stdout's reader does), else where --failed-output and --failed-stderr
 * say.  A stderr that cannot take it is not retry's to report; a reader
 * of stdout gone ends retry by SIGPIPE, as it would the command, and what
 * --max-time leaves unwritten is lost (125), once the breaker heard how.
 * A stop that came after the attempt ended (in a wait for the log or a
 * guard) reached no command: retry dies by it, whatever was passed on.
 * Returns whether a stop cut stdout's short: its reader had no room.
 */
static bool
release_output(struct run *r, long long k, bool final, enum run_end how)
{
	struct held *herr = streams_held(r->streams, MATCH_STDERR),
	    *hout = streams_held(r->streams, MATCH_STDOUT);
	int rc, sig;

	rc = final ? held_flush(r->sigs, herr, STDERR_FILENO, r->deadline) :
	    held_flush_failed(r->sigs, herr, &r->failed[1], r->deadline);
	if (rc > 0 || (rc = final ? held_flush(r->sigs, hout, STDOUT_FILENO,
	    r->deadline) : held_flush_failed(r->sigs, hout, &r->failed[0],
	    r->deadline)) > 0)
		stopped(r, k, rc);
	if (final && how != RUN_STOPPED && (sig = signals_stop()) != 0)
		stopped(r, k, sig);
	/* EAGAIN: a stop came, and a stalled reader is not waited for. */
	if (rc == 0 || !final || errno == EAGAIN)
		return rc != 0;
	guards_end(&r->guards, how);	/* errno kept */
	if (errno == EPIPE && signals_sigpipe_default(r->sigs))
		die_by_signal(SIGPIPE);
	if (errno == ETIMEDOUT)
		errx(EXIT_CANCELED, "standard output: not written within "
		    "--max-time");
	err(EXIT_CANCELED, "standard output");
}

/* Runs hook h after attempt k; a stop signal during it ends the run. */
static void
run_hook(struct run *r, const struct hook *h, long long k)
{
	int sig;

	if (h->cmd != NULL && (sig = hook_run(r->sigs, h)) != 0)
		stopped(r, k, sig);
}

/* How the run ends after an attempt, and the reason it gives (or NULL). */
struct end {
	enum run_end	 how;
	const char	*why;
	bool		 exhausted;	/* on an outcome it would retry */
};

/*
 * The run ends after attempt k with outcome o, as e says.  A run that
 * gives up never exits 0: when the policy did not count an exit 0 as a
 * success, retry exits 1.  --exhausted-status replaces the status, or
 * the signal, when it gave up on an outcome that it would have retried.
 */
static _Noreturn void
conclude(struct run *r, long long k, const struct outcome *o,
    const struct end *e)
{
	bool replace = e->exhausted && r->cfg->exhausted_status >= 0;
	int status = e->why != NULL && outcome_status(o) == 0 ? 1 :
	    outcome_status(o), code = replace ? r->cfg->exhausted_status :
	    status;

	log_finish(&r->log, k, o, e->why, code, mono_now() - r->t0);
	if (e->why != NULL)
		run_hook(r, &(struct hook){ "--on-give-up",
		    r->cfg->on_give_up, r->envp, outcome_status(o), -1,
		    hook_give_up_deadline(r->deadline, r->cfg->kill_after),
		    r->cfg->kill_after }, k);
	if (replace || code != outcome_status(o))
		exit(code);
	outcome_exit(o);
}

/*
 * The run ends after attempt k with outcome o, as e says: the held
 * output goes to stdout, the guards and the log are told, and retry
 * exits as the final attempt did.  A stop signal during it, or
 * --until-failure with every attempt a success, ends it otherwise; so
 * does a stop that cut the held output short: never an exit 0 on that.
 */
static _Noreturn void
finish(struct run *r, long long k, const struct outcome *o,
    const struct end *e)
{
	bool cut = release_output(r, k, true, e->how);
	int sig = o->stop_signal;

	guards_end(&r->guards, e->how);
	if (e->how == RUN_STOPPED) {
		log_stopped(&r->log, k, true, sig, cut ? 128 + sig :
		    outcome_status(o), mono_now() - r->t0);
		if (cut)
			die_by_signal(sig);
		outcome_exit(o);
	}
	if ((sig = signals_stop()) != 0)
		stopped(r, k, sig);
	if (e->how == RUN_SUCCEEDED && r->cfg->until_failure) {
		log_all_succeeded(&r->log, k, e->why, mono_now() - r->t0);
		exit(0);
	}
	conclude(r, k, o, e);
}

/* Fills e and says that the run ends. */
static bool
ending(struct end *e, enum run_end how, const char *why)
{
	e->how = how;
	e->why = why;
	e->exhausted = false;
	return true;
}

/*
 * The run is out of attempts (why NULL) or of time (why says how): it
 * gives up, or with --until-failure every attempt so far succeeded.
 */
static bool
out_of(const struct run *r, const char *why, struct end *e)
{
	if (r->cfg->until_failure)
		return ending(e, RUN_SUCCEEDED, why);
	ending(e, RUN_GAVE_UP, why != NULL ? why : "no attempts left");
	return e->exhausted = true;
}

/* --http: the head the attempt saved, its status into o. */
static void
read_head(struct run *r, long long k, struct outcome *o)
{
	const char *path = r->cfg->http_file;
	int error;

	if (path == NULL)
		return;
	if ((error = http_load(path, &r->head)) != 0)
		log_note(&r->log, k, "%s: %s, taken as no response", path,
		    error == EFBIG ? "more than 64 KiB" : strerror(error));
	o->http_status = error == 0 ? r->head.status : 0;
	/* A 404 retried for want of a head is what --http is there for. */
	if (o->http_status != 0)
		r->told_head = true;
	else if (!r->told_head && error == 0 && outcome_status(o) != 0 &&
	    o->kind != OUT_NOEXEC && !http_path_named(r->cfg->argv, path)) {
		r->told_head = true;
		warnx_safe("--http %s: the command wrote no HTTP head there; "
		    "curl writes it with -D %s (--dump-header)", path, path);
	}
}

/* A stop signal came before attempt 1: the run ends before it. */
static _Noreturn void
stop_before_start(struct run *r, bool splay, int sig)
{
	guards_end(&r->guards, RUN_STOPPED);
	log_stopped(&r->log, 0, splay, sig, 128 + sig, mono_now() - r->t0);
	die_by_signal(sig);
}

/*
 * Whether attempt k, a retry or not, may start now: the lines before it
 * (the countdown's ticks, its own line) can wait for a reader of the log
 * or a terminal.  A stop signal that such a wait took ends the run here;
 * past the deadline, a retry does not start.  A stop still pending is
 * not looked for, which would cost system calls on every attempt: the
 * attempt's own wait takes it and passes it on.
 */
static bool
may_start(struct run *r, long long k, bool retry)
{
	int sig;

	if ((sig = signals_stop()) != 0) {
		if (k == 1)
			stop_before_start(r, false, sig);
		stopped(r, k - 1, sig);
	}
	return !retry ||
	    after_past_max_time(r->deadline, mono_now(), 0) == NULL;
}

/*
 * Runs attempt k, its outcome into o, unless may_start() says no before
 * its line or after it: then false, and the run gives up with the last
 * attempt's status.
 */
static bool
run_attempt(struct run *r, long long k, const struct outcome *prev,
    struct outcome *o)
{
	struct attempt_spec spec = { r->cfg->argv, r->envp, r->cfg->timeout,
	    r->cfg->timeout_signal, r->cfg->kill_after, r->deadline,
	    { -1, -1, -1 }, r->leftovers == LEFTOVERS_GROUP, r->streams,
	    r->cfg->stall };
	int error;

	if (!may_start(r, k, prev != NULL))
		return false;
	trace_next_span(&r->trace);
	log_attempt_start(&r->log, k);
	if (!may_start(r, k, prev != NULL))
		return false;
	env_attempt_set(&r->env, k, prev != NULL ? outcome_status(prev) : -1,
	    prev != NULL ? prev->http_status : 0);
	if (r->cfg->http_file != NULL &&
	    (error = http_reset(r->cfg->http_file)) != 0)
		errc(EXIT_CANCELED, error, "--http %s", r->cfg->http_file);
	after_file_begin(&r->after, k);
	attempt_run(r->sigs, &spec, o);
	after_file_end(&r->after);
	if (o->kind == OUT_NOEXEC)
		spawn_cannot_run(r->cfg->argv[0], o->error);
	read_head(r, k, o);
	log_attempt_end(&r->log, k, o);
	return true;
}

/*
 * The wait asked for from outside, into *asked (-1: none), or why the
 * run ends: the server's Retry-After on a retried response, and what the
 * attempt wrote to RETRY_AFTER_FILE, the longer.  A delay above --cap is
 * honoured, and -v says so; only one that would pass --max-time, or
 * without it HTTP_WAIT_CEILING, ends the run.  label is for the log.
 */
static const char *
asked_delay(struct run *r, long long k, const struct outcome *o,
    nsec_t *asked, char *label, size_t len)
{
	static const char *const end[] = { [AFTER_PAST_MAX_TIME] =
	    "past --max-time", [AFTER_PAST_CEILING] = "more than the 1h "
	    "retry waits without --max-time" };
	enum after_fit fit;
	char d[32];

	*asked = -1;
	if (r->cfg->http_file != NULL && o->http_status != 0 &&
	    http_wait(&r->head, wall_now(), r->cfg->sched.cap, asked, r->why,
	    sizeof(r->why)) == HTTP_WAIT_IGNORED)
		log_note(&r->log, k, "%s", r->why);
	/* Whole seconds, rounded up: never "60s, more than --cap=60s". */
	snprintf(d, sizeof(d), "%llds",
	    (long long)((*asked + NSEC_PER_SEC - 1) / NSEC_PER_SEC));
	snprintf(r->why, sizeof(r->why), "the server asks to wait %s", d);
	snprintf(label, len, "Retry-After: %s", r->head.retry_after);
	if (r->after.ask == AFTER_WAIT && r->after.delay > *asked) {
		*asked = r->after.delay;
		format_span(d, sizeof(d), *asked);
		snprintf(r->why, sizeof(r->why), "RETRY_AFTER_FILE asks to "
		    "wait %s", d);
		snprintf(label, len, "RETRY_AFTER_FILE: %.64s", r->after.text);
	}
	if (*asked < 0 || (fit = after_fit(*asked, r->cfg->sched.cap,
	    mono_now(), r->deadline)) == AFTER_FITS)
		return NULL;
	if (fit == AFTER_ABOVE_CAP) {
		log_note(&r->log, k, "%s, more than --cap: waiting for it",
		    r->why);
		return NULL;
	}
	snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why),
	    ", %s", end[fit]);
	return r->why;
}

/*
 * Waits before attempt k + 1, unless the deadline comes first: the
 * jittered draw, plus the server's Retry-After if it gave one.  Returns
 * NULL, or why the run ends instead.
 */
static const char *
wait_for_next(struct run *r, long long k, const struct outcome *o)
{
	long long step = backoff_step(&r->backoff, &r->step,
	    r->cfg->reset_after, o->duration);
	nsec_t sleep = backoff_next(&r->backoff, step), now, server;
	const char *why;
	char label[96];
	int sig;

	if ((why = asked_delay(r, k, o, &server, label, sizeof(label))) !=
	    NULL)
		return why;
	if (server > 0)
		sleep = nsec_add(sleep, server);
	now = mono_now();
	if ((why = after_past_max_time(r->deadline, now, sleep)) != NULL)
		return why;
	if (r->leftovers == LEFTOVERS_UNSEEN && !r->told_unseen) {
		r->told_unseen = true;
		warnx_safe("without /proc, what an attempt leaves running in "
		    "the terminal's job cannot be found: it is not cleared "
		    "before the next attempt");
	}
	if ((sig = attempt_clear_leftovers(r->sigs, o->group,
	    r->cfg->timeout_signal, r->cfg->kill_after, r->deadline)) != 0)
		stopped(r, k, sig);
	/* Leftovers can take --kill-after to clear: past the deadline? */
	if ((why = after_past_max_time(r->deadline, mono_now(), 0)) != NULL)
		return why;
	release_output(r, k, false, RUN_GAVE_UP);
	log_retrying(&r->log, k, o, &(struct log_sleep){ sleep,
	    backoff_window(&r->cfg->sched, step), &r->cfg->sched.jitter, server,
	    server >= 0 ? label : NULL });
	/* Its line can wait for a stalled reader up to the deadline. */
	if ((why = after_past_max_time(r->deadline, mono_now(), 0)) != NULL)
		return why;
	if (r->cfg->on_retry != NULL) {
		/* The hook is no part of the backoff: the whole sleep follows. */
		run_hook(r, &(struct hook){ "--on-retry", r->cfg->on_retry,
		    r->envp, outcome_status(o), sleep, r->deadline,
		    r->cfg->kill_after }, k);
		now = mono_now();
		if ((why = after_past_max_time(r->deadline, now, sleep)) !=
		    NULL)
			return why;
	}
	sig = attempt_sleep(r->sigs, nsec_add(now, sleep),
	    log_counts_down(&r->log) ? log_countdown : NULL, &r->log);
	log_sleep_done(&r->log);
	if (sig != 0)
		stopped(r, k, sig);
	return NULL;
}

/*
 * Whether the run ends after attempt k with outcome o, and how (in e): a
 * stop signal ends it, then the policy's verdict, then the limits of
 * attempts, time and budget.  --until-failure turns the verdict around:
 * a success goes on, and the first failure ends the run.
 */
static bool
ends_after(struct run *r, long long k, const struct outcome *o,
    struct end *e)
{
	const struct config *cfg = r->cfg;
	enum verdict v;
	bool allowed;

	if (o->stop_signal != 0)
		return ending(e, RUN_STOPPED, NULL);
	v = decide(cfg, o);
	/* Before any sleep, so that runs in backoff have paid. */
	allowed = guards_attempt(&r->guards, v == SUCCEED);
	if (cfg->until_failure && v != SUCCEED)
		return ending(e, RUN_GAVE_UP, "the first failure");
	if (!cfg->until_failure && v == SUCCEED)
		return ending(e, RUN_SUCCEEDED, NULL);
	if (v == STOP)
		return ending(e, RUN_GAVE_UP, "not retried");
	if (after_file_ask(&r->after, k, wall_now()) == AFTER_STOP)
		return ending(e, RUN_GAVE_UP, "RETRY_AFTER_FILE says stop");
	if (o->deadline)
		return out_of(r, "--max-time reached", e);
	if (cfg->attempts != 0 && k >= cfg->attempts)
		return out_of(r, NULL, e);
	if (!allowed)
		return out_of(r, r->exhausted, e);
	return false;
}

/*
 * The attempt loop: runs the command, and when the run does not end
 * there, runs it again after the sleep, unless the time runs out first.
 */
static _Noreturn void
retry_loop(struct run *r)
{
	struct outcome o, prev;
	struct end e;
	const char *why;
	long long k;

	for (k = 1;; k++) {
		if (!run_attempt(r, k, k > 1 ? &prev : NULL, &o)) {
			out_of(r, "--max-time reached", &e);
			finish(r, k - 1, &prev, &e);
		}
		if (ends_after(r, k, &o, &e))
			finish(r, k, &o, &e);
		if ((why = wait_for_next(r, k, &o)) != NULL) {
			out_of(r, why, &e);
			finish(r, k, &o, &e);
		}
		prev = o;
	}
}

static void
setup_run(struct run *r, const struct config *cfg, struct matcher *matcher)
{
	memset(r, 0, offsetof(struct run, guards));
	r->cfg = cfg;
	trace_init(&r->trace, getenv("TRACEPARENT"));
	log_open(&r->log, &(struct log_options){ cfg->log_format,
	    cfg->verbosity, cfg->log_file, cfg->json_log, cfg->attempts,
	    cfg->http_file != NULL, cfg->until_failure, cfg->log_on_failure,
	    cfg->metrics_file, &r->trace });
	/* As the logs: a FIFO's open waits, while TERM still ends retry. */
	if (cfg->hold_stdout || cfg->hold_stderr)
		held_failed_sinks(r->failed, cfg->failed_output,
		    cfg->failed_stderr);
	r->sigs = signals_init();
	log_bound_waits(&r->log, r->sigs, 0);
	r->leftovers = attempt_init(cfg->foreground);
	backoff_init(&r->backoff, &cfg->sched, cfg->seeded, cfg->seed);
	/* Rewritten in place before each attempt; named here already. */
	env_attempt_init(&r->env, cfg->attempts);
	after_file_init(&r->after);
	r->envp = env_with(environ, (char *[]){ r->env.attempt, r->env.max,
	    r->env.prev, r->env.prev_http, r->after.var, r->trace.var },
	    5 + r->trace.on, 5 + r->trace.on);
	r->streams = streams_open(cfg->replay_stdin, (bool[]){
	    cfg->hold_stdout, cfg->hold_stderr }, matcher, cfg->stall != 0);
	guards_open(&r->guards, &cfg->budget, &cfg->breaker,
	    &(struct guard_limits){ cfg->attempts, cfg->timeout,
	    cfg->kill_after, cfg->sched.cap, cfg->max_time }, r->sigs);
	snprintf(r->exhausted, sizeof(r->exhausted),
	    "retry budget '%s' exhausted", cfg->budget.name);
}

/*
 * -m starts here, after the splay: the breaker's question and every wait
 * on a store count in it, the breaker's in its first half, so that
 * attempt 1 has at least the rest.  The probe's claim starts when the
 * probe does: after the splay too.  Exits 75 (or --exhausted-status) if
 * the breaker is open.
 */
static void
admit(struct run *r, const struct config *cfg)
{
	nsec_t wait;
	int sig;

	r->t0 = mono_now();
	if (cfg->max_time != 0)
		r->deadline = nsec_add(r->t0, cfg->max_time);
	/* A guard's warning waits for a reader of stderr: not past -m. */
	log_bound_waits(&r->log, r->sigs, r->deadline);
	guards_limit(&r->guards, r->deadline == 0 ? 0 :
	    nsec_add(r->t0, cfg->max_time / 2));
	if (!guards_admit(&r->guards, &wait)) {
		log_breaker_open(&r->log, cfg->breaker.name, wait,
		    cfg->exhausted_status >= 0 ? cfg->exhausted_status :
		    EXIT_TEMPFAIL);
		exit(cfg->exhausted_status >= 0 ? cfg->exhausted_status :
		    EXIT_TEMPFAIL);
	}
	/* A stop may have ended the breaker's wait for its store. */
	if ((sig = attempt_sleep(r->sigs, mono_now(), NULL, NULL)) != 0)
		stop_before_start(r, cfg->sched.splay > 0, sig);
	guards_limit(&r->guards, r->deadline);
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct run run;
	struct matcher *matcher;
	enum parse_result r;
	char msg[512], **envv, *shown = NULL;
	int sig, envc, status;
	nsec_t splay;

	/* Each message one write(2); stdio keeps the buffer to exit. */
	(void)fd_stderr_lines();
	if (envopts_read(argv[0], &envc, &envv, msg, sizeof(msg)) != 0)
		usage_error(msg);
	r = parse_options(envc > 0 ? envv : NULL, argc, argv, &cfg, msg,
	    sizeof(msg));
	if (r == PARSE_ERROR)
		usage_error(msg);
	/* The words are freed where main returns, for the leak checkers. */
	if (r != PARSE_OK) {
		free(envv);
		return help_info(r);
	}
	if (envc > 0 && (cfg.env_options = shown = envopts_show(envc,
	    envv)) == NULL)
		err(EXIT_CANCELED, "RETRY_OPTIONS");
	if ((matcher = matcher_open(&cfg.conds, msg, sizeof(msg))) == NULL &&
	    *msg != '\0')
		usage_error(msg);
	if (cfg.dry_run || cfg.guard_status || cfg.guard_reset) {
		matcher_free(matcher);	/* checked, never used */
		status = run_nothing(&cfg);
		free(shown);
		free(envv);
		return status;
	}
	setup_run(&run, &cfg, matcher);
	run.t0 = mono_now();
	/* Without a splay, a sleep of 0: a stop that came already counts. */
	splay = cfg.sched.splay > 0 ? backoff_splay(&run.backoff) : 0;
	if (cfg.sched.splay > 0)
		log_splay(&run.log, splay, cfg.sched.splay);
	if ((sig = attempt_sleep(run.sigs, nsec_add(run.t0, splay), NULL,
	    NULL)) != 0)
		stop_before_start(&run, cfg.sched.splay > 0, sig);
	admit(&run, &cfg);
	log_start(&run.log, &(struct log_run){ cfg.argv, cfg.attempts,
	    &cfg.sched, cfg.timeout, cfg.max_time, cfg.env_options, cfg.stall,
	    splay },
	    run.t0);
	retry_loop(&run);
}
