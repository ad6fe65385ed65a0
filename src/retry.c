/*
 * retry: run a command until it succeeds, with exponential backoff and
 * jitter, and exit with the status of the final attempt.
 *
 * This file holds main, the usage text, the attempt loop, the decision
 * after each attempt, the dry run and the final status.  Calls run one
 * way only, from here down to the leaves; no file below calls one above
 * it, and none of them keeps state but the signal flags:
 *
 *	retry.c		main, the attempt loop, the decision, the status
 *	 |- options.c	the command line, into a struct config
 *	 |   |- preset.c	the schedules of --preset (also --preset=list)
 *	 |   `- parse.c	every conversion from a string
 *	 |- backoff.c	the schedule and the random source
 *	 |- log.c	progress messages: text, workflow commands, JSON
 *	 |   `- jsonlog.c	the JSON log's events
 *	 |- spool.c	--replay-stdin, --hold-stdout, copies between fds
 *	 `- proc.c	spawning an attempt, waiting, timing it out
 *	     `- leftovers.c	what an attempt left running, per platform
 *	format.c	values as text (used by parse.c, log.c, retry.c)
 *	signals.c	handlers, masks, names, the one wait for events
 *	clock.c		the monotonic clock, and the wall clock for logs
 *
 * The last three are leaves that any file above may call.  Every
 * platform-specific #ifdef lives in leftovers.c, proc.c, spool.c or
 * signals.c, each with a fallback that says what it gives up.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define STATUS_BUF	48

static const char usage_text[] =
"usage: retry [options] [--] command [argument ...]\n"
"       retry --dry-run [options] [[--] command ...]\n";

static const char help_text[] =
"Run a command until it succeeds, waiting longer after each failure.\n"
"\n"
"Schedule:\n"
"  -n, --attempts=N          total runs, the first included, or inf          [5]\n"
"  -b, --base=DURATION       the first backoff window                       [1s]\n"
"  -f, --factor=X            growth of the window per retry, >= 1            [2]\n"
"  -c, --cap=DURATION        no sleep exceeds it      [60s, or --base if larger]\n"
"  -j, --jitter=MODE         none|full|equal|decorrelated|A..B|+DURATION  [full]\n"
"      --splay=DURATION      random wait before the first attempt            [0]\n"
"      --seed=N              make every random draw reproducible        [random]\n"
"      --preset=NAME         a known system's schedule, or list           [none]\n"
"\n"
"Policy (LIST: exit codes, ranges such as 1-125, signal names, timeout):\n"
"  -r, --retry-on=LIST       outcomes that are retried\n"
"        [1-255 but 126,127; timeout; signals but INT, TERM, HUP, QUIT, PIPE]\n"
"  -x, --stop-on=LIST        outcomes never retried; wins over -r         [none]\n"
"      --success-on=LIST     outcomes that count as success                  [0]\n"
"      --success-if-output=ERE  a line matching ERE: success               [none]\n"
"      --stop-if-output=ERE  a line matching ERE: not retried              [none]\n"
"      --retry-if-output=ERE a line matching ERE: retried                  [none]\n"
"      --reset-after=DURATION  a run this long restarts the schedule      [never]\n"
"\n"
"Hooks (CMD runs through /bin/sh -c):\n"
"      --on-retry=CMD        run after a failed attempt, before the sleep  [none]\n"
"      --on-give-up=CMD      run once when retry gives up                  [none]\n"
"\n"
"Time and signals:\n"
"  -t, --timeout=DURATION    limit for each attempt, 0 for none           [none]\n"
"  -s, --signal=SIG          sent when an attempt times out               [TERM]\n"
"  -k, --kill-after=DURATION then SIGKILL after this long, or inf          [10s]\n"
"  -m, --max-time=DURATION   limit for the whole run, 0 for none          [none]\n"
"      --foreground          always stay in the caller's process group\n"
"\n"
"Pipelines:\n"
"  -I, --replay-stdin        give every attempt the same standard input\n"
"  -O, --hold-stdout         pass on only the final attempt's stdout\n"
"\n"
"Output:\n"
"      --dry-run             print the schedule and run nothing\n"
"      --log-format=FORMAT   text, json or github                         [text]\n"
"      --log-file=PATH       write progress messages there              [stderr]\n"
"      --json-log=PATH       also append the JSON log there               [none]\n"
"  -q, --quiet               no progress messages, errors only\n"
"  -v, --verbose             also report each attempt's start and end\n"
"  -h, --help                show this help and exit\n"
"  -V, --version             show the version and exit\n"
"\n"
"DURATION is a number with an optional unit ns, us, ms, s, m, h or d\n"
"(seconds by default), or a sum such as 1m30s.  See retry(1).\n";

/* Everything one run of the attempt loop needs. */
struct run {
	const struct config *cfg;
	struct sigstate	 sigs;
	struct log	 log;
	struct backoff	 backoff;
	struct spools	*spools;	/* -I and -O, or NULL */
	struct matcher	*matcher;	/* output conditions, or NULL */
	long long	 step;		/* retries since the schedule began */
	char		**envp;
	char		 env_attempt[STATUS_BUF];
	char		 env_prev[STATUS_BUF];
	nsec_t		 t0;		/* when the first attempt started */
	nsec_t		 deadline;	/* --max-time after t0; 0: none */
};

static _Noreturn void
usage_error(const char *msg)
{
	errx(EXIT_CANCELED, "%s; try '%s --help'", msg, getprogname());
}

/*
 * The command's environment: retry's own, less any RETRY_* variables it
 * sets, plus those, rewritten in place before each attempt.
 */
static char **
build_env(struct run *r, char *max)
{
	extern char **environ;
	char **env, **e;
	size_t n = 0;

	for (e = environ; *e != NULL; e++)
		n++;
	if ((env = calloc(n + 4, sizeof(*env))) == NULL)
		err(EXIT_CANCELED, NULL);
	n = 0;
	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, "RETRY_ATTEMPT=", 14) != 0 &&
		    strncmp(*e, "RETRY_MAX_ATTEMPTS=", 19) != 0 &&
		    strncmp(*e, "RETRY_PREV_STATUS=", 18) != 0)
			env[n++] = *e;
	env[n++] = r->env_attempt;
	env[n++] = max;
	env[n++] = r->env_prev;
	return env;
}

static void
set_attempt_env(struct run *r, long long k, const struct outcome *prev)
{
	snprintf(r->env_attempt, sizeof(r->env_attempt), "RETRY_ATTEMPT=%lld",
	    k);
	if (prev == NULL)
		snprintf(r->env_prev, sizeof(r->env_prev),
		    "RETRY_PREV_STATUS=");
	else
		snprintf(r->env_prev, sizeof(r->env_prev),
		    "RETRY_PREV_STATUS=%d", outcome_status(prev));
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

	if (o->kind == OUT_NOEXEC)
		return outcome_in(&cfg->retry_on, o) &&
		    !outcome_in(&cfg->stop_on, o) ? RETRY : STOP;
	if (o->matched != -1)
		return by_output[o->matched];
	if (outcome_in(&cfg->success_on, o))
		return SUCCEED;
	if (outcome_in(&cfg->stop_on, o))
		return STOP;
	if (outcome_in(&cfg->retry_on, o))
		return RETRY;
	return STOP;
}

/* Exits as the final attempt did: the same code, or the same signal. */
static _Noreturn void
exit_as(const struct outcome *o)
{
	if (o->kind == OUT_SIGNAL)
		die_by_signal(o->value);
	exit(o->value);
}

static _Noreturn void stopped(struct run *, long long, int);

/*
 * Sends the held output of attempt k on: to stdout when it is the final
 * one, else to stderr.  A reader of stdout that went away ends retry as
 * it would have ended the command, by SIGPIPE.
 */
static void
release_output(struct run *r, long long k, bool final)
{
	int rc;

	if (!r->cfg->hold_stdout)
		return;
	rc = spools_flush(&r->sigs, r->spools, final ? STDOUT_FILENO :
	    STDERR_FILENO);
	if (rc > 0)
		stopped(r, k, rc);
	if (rc == 0 || !final)
		return;
	if (errno == EPIPE && signals_sigpipe_default(&r->sigs))
		die_by_signal(SIGPIPE);
	err(EXIT_CANCELED, "standard output");
}

/* A stop signal came after attempt k, between attempts: retry dies by it. */
static _Noreturn void
stopped(struct run *r, long long k, int sig)
{
	log_stopped(&r->log, k, false, sig, 128 + sig, mono_now() - r->t0);
	die_by_signal(sig);
}

/*
 * Runs a hook after attempt k until the deadline; a stop signal during it
 * ends the run.
 */
static void
run_hook(struct run *r, const char *name, const char *cmd, long long k,
    const struct outcome *o, nsec_t next_sleep, nsec_t deadline)
{
	struct hook h = { name, cmd, r->envp, outcome_status(o), next_sleep,
	    deadline };
	int sig;

	if (cmd != NULL && (sig = hook_run(&r->sigs, r->cfg, &h)) != 0)
		stopped(r, k, sig);
}

/*
 * The give-up hook's deadline.  It comes after the run, when --max-time
 * may have passed: it gets what is left of it, and at least --kill-after
 * (no limit with -k inf), so that a run that ran out of time can still
 * tell someone.
 */
static nsec_t
give_up_deadline(const struct run *r)
{
	nsec_t now = mono_now(), grace;

	if (r->deadline == 0)
		return 0;
	if (r->cfg->kill_after == NSEC_INF)
		return now < r->deadline ? r->deadline : 0;
	grace = nsec_add(now, r->cfg->kill_after);
	return grace > r->deadline ? grace : r->deadline;
}

static _Noreturn void
finish(struct run *r, long long k, const struct outcome *o,
    const char *reason)
{
	log_finish(&r->log, k, o, reason, mono_now() - r->t0);
	if (reason != NULL)
		run_hook(r, "--on-give-up", r->cfg->on_give_up, k, o, -1,
		    give_up_deadline(r));
	exit_as(o);
}

static void
run_attempt(struct run *r, long long k, const struct outcome *prev,
    struct outcome *o)
{
	struct attempt_io io;

	set_attempt_env(r, k, prev);
	spools_begin(r->spools, &io, r->matcher == NULL);
	io.err = -1;
	io.pump[1] = (struct io_pump){ NULL, NULL, NULL, NULL, NULL };
	if (r->matcher != NULL)
		matcher_begin(r->matcher, spools_held_fd(r->spools), &io,
		    &io.pump[1]);
	log_attempt_start(&r->log, k);
	proc_run(&r->sigs, r->cfg, r->envp, &io, r->deadline, o);
	spools_end(r->spools);
	if (r->matcher != NULL)
		o->matched = matcher_end(r->matcher, &o->matched_text);
	if (o->kind == OUT_NOEXEC)
		warnx("cannot run %s: %s", r->cfg->argv[0], strerror(o->error));
	log_attempt_end(&r->log, k, o);
}

/*
 * The schedule's step for the next sleep: an attempt that ran at least
 * --reset-after before it failed starts the schedule over.
 */
static long long
next_step(struct run *r, const struct outcome *o)
{
	if (r->cfg->reset_after != 0 && o->duration >= r->cfg->reset_after) {
		backoff_restart(&r->backoff);
		r->step = 0;
	}
	return ++r->step;
}

/* Waits before attempt k + 1, unless the deadline comes first. */
static const char *
wait_for_next(struct run *r, long long k, const struct outcome *o)
{
	long long step = next_step(r, o);
	nsec_t sleep = backoff_next(&r->backoff, step), now;
	int sig;

	now = mono_now();
	if (r->deadline != 0 && nsec_add(now, sleep) >= r->deadline)
		return "the next sleep would pass --max-time";
	if ((sig = proc_clear_leftovers(&r->sigs, r->cfg, r->deadline)) != 0)
		stopped(r, k, sig);
	/* Leftovers can take --kill-after to clear: past the deadline? */
	if (r->deadline != 0 && mono_now() >= r->deadline)
		return "--max-time reached";
	release_output(r, k, false);
	log_retrying(&r->log, k, o, sleep, backoff_window(&r->cfg->sched,
	    step), &r->cfg->sched.jitter);
	if (r->cfg->on_retry != NULL) {
		/* The hook is no part of the backoff: the whole sleep follows. */
		run_hook(r, "--on-retry", r->cfg->on_retry, k, o, sleep,
		    r->deadline);
		now = mono_now();
		if (r->deadline != 0 && now >= r->deadline)
			return "--max-time reached";
		if (r->deadline != 0 && nsec_add(now, sleep) >= r->deadline)
			return "the next sleep would pass --max-time";
	}
	sig = proc_sleep(&r->sigs, nsec_add(now, sleep),
	    log_counts_down(&r->log) ? log_countdown : NULL, &r->log);
	log_sleep_done(&r->log);
	if (sig != 0)
		stopped(r, k, sig);
	return NULL;
}

/* The attempt loop; never returns. */
static _Noreturn void
retry_loop(struct run *r)
{
	const struct config *cfg = r->cfg;
	struct outcome o, prev;
	const char *why;
	long long k;

	for (k = 1;; k++) {
		run_attempt(r, k, k > 1 ? &prev : NULL, &o);
		/* Asked to stop: this attempt was the last one. */
		if (o.stop_signal != 0) {
			release_output(r, k, true);
			log_stopped(&r->log, k, true, o.stop_signal,
			    outcome_status(&o), mono_now() - r->t0);
			exit_as(&o);
		}
		switch (decide(cfg, &o)) {
		case SUCCEED:
			release_output(r, k, true);
			finish(r, k, &o, NULL);
		case STOP:
			release_output(r, k, true);
			finish(r, k, &o, "not retried");
		case RETRY:
			break;
		}
		if (o.deadline || (cfg->attempts != 0 && k >= cfg->attempts)) {
			release_output(r, k, true);
			finish(r, k, &o, o.deadline ? "--max-time reached" :
			    "no attempts left");
		}
		if ((why = wait_for_next(r, k, &o)) != NULL) {
			release_output(r, k, true);
			finish(r, k, &o, why);
		}
		prev = o;
	}
}

/* The dry run's columns after "attempt": window, min, max, draw, elapsed. */
#define DRY_COLS	5
#define DRY_WIDTH	14	/* the least width of a column */

struct dry_table {
	bool		 sub_ms[DRY_COLS];	/* needs 9 decimals, not 3 */
	nsec_t		 most[DRY_COLS];	/* the largest finite value */
	int		 width[DRY_COLS];
	bool		 print;			/* or only measure */
	long long	 cut;		/* --max-time ends the run before it */
	nsec_t		 worst;		/* the sum of the max column */
};

/* A value of column i as the table shows it; a negative one is "-". */
static void
dry_cell(const struct dry_table *t, int i, nsec_t v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		format_fixed(buf, len, v, t->sub_ms[i] ? 9 : 3);
}

/* One row: measured on the first pass, printed on the second. */
static void
dry_row(struct dry_table *t, long long k, const nsec_t v[DRY_COLS])
{
	char cell[DRY_COLS][32];
	int i;

	for (i = 0; i < DRY_COLS; i++) {
		if (t->print) {
			dry_cell(t, i, v[i], cell[i], sizeof(cell[i]));
			continue;
		}
		if (v[i] < 0 || v[i] == NSEC_INF)
			continue;
		t->sub_ms[i] |= v[i] % NSEC_PER_MSEC != 0;
		if (v[i] > t->most[i])
			t->most[i] = v[i];
	}
	if (t->print)
		printf("%7lld %*s %*s %*s %*s %*s\n", k, t->width[0], cell[0],
		    t->width[1], cell[1], t->width[2], cell[2], t->width[3],
		    cell[3], t->width[4], cell[4]);
}

/*
 * The rows, drawn by the same calls in the same order as a real run,
 * with every attempt taken to fail at once.
 */
static void
dry_walk(const struct config *cfg, uint64_t seed, struct dry_table *t)
{
	const struct schedule *s = &cfg->sched;
	struct backoff b;
	nsec_t v[DRY_COLS], since_start = 0, draw;
	long long k, rows;

	backoff_init(&b, s, true, seed);
	rows = cfg->attempts != 0 ? cfg->attempts : DRYRUN_UNLIMITED_ROWS;
	t->cut = 0;
	v[0] = -1;
	v[1] = 0;
	v[2] = t->worst = s->splay;
	v[3] = v[4] = backoff_splay(&b);
	dry_row(t, 1, v);
	for (k = 2; k <= rows; k++) {
		draw = backoff_next(&b, k - 1);
		if (cfg->max_time != 0 &&
		    nsec_add(since_start, draw) >= cfg->max_time) {
			t->cut = k;
			break;
		}
		since_start = nsec_add(since_start, draw);
		v[0] = backoff_window(s, k - 1);
		backoff_bounds(s, k - 1, &v[1], &v[2]);
		v[3] = draw;
		v[4] = nsec_add(v[4], draw);
		t->worst = nsec_add(t->worst, v[2]);
		dry_row(t, k, v);
	}
}

/*
 * --dry-run: the schedule as a table whose columns line up, each with
 * one number of decimals for all its values: a first pass measures the
 * rows, a second prints them, from the same seed.
 */
static int
dry_run(const struct config *cfg)
{
	struct dry_table t;
	uint64_t seed = cfg->seed;
	char w[32];
	int i;

	if (!cfg->seeded)
		seed = (uint64_t)arc4random() << 32 | arc4random();
	memset(&t, 0, sizeof(t));
	dry_walk(cfg, seed, &t);
	for (i = 0; i < DRY_COLS; i++) {
		dry_cell(&t, i, t.most[i], w, sizeof(w));
		t.width[i] = strlen(w) > DRY_WIDTH ? (int)strlen(w) : DRY_WIDTH;
	}
	printf("%7s %*s %*s %*s %*s %*s\n", "attempt", t.width[0], "window",
	    t.width[1], "min", t.width[2], "max", t.width[3], "draw",
	    t.width[4], "elapsed");
	t.print = true;
	dry_walk(cfg, seed, &t);
	if (t.cut != 0) {
		format_seconds(w, sizeof(w), cfg->max_time);
		printf("# --max-time=%ss ends the run before attempt %lld\n", w,
		    t.cut);
	}
	format_seconds(w, sizeof(w), t.worst);
	/* A saturated sum prints as "inf", which takes no unit. */
	printf("# worst-case total sleep for the rows above: %s%s\n", w,
	    t.worst == NSEC_INF ? "" : "s");
	if (cfg->reset_after != 0) {
		format_seconds(w, sizeof(w), cfg->reset_after);
		printf("# --reset-after=%ss starts the schedule over after an "
		    "attempt that runs that long; a dry run cannot know how "
		    "long attempts run\n", w);
	}
	/* Not when --max-time cut the table before the 20th row. */
	if (cfg->attempts == 0 && t.cut == 0)
		printf("# attempts are unlimited: the first %d are shown\n",
		    DRYRUN_UNLIMITED_ROWS);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_CANCELED, "standard output");
	return 0;
}

static void
setup_run(struct run *r, const struct config *cfg, char *max_env,
    struct matcher *matcher)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->matcher = matcher;
	log_open(&r->log, cfg);
	signals_init(&r->sigs);
	proc_init(cfg);
	backoff_init(&r->backoff, &cfg->sched, cfg->seeded, cfg->seed);
	if (cfg->attempts == 0)
		snprintf(max_env, STATUS_BUF, "RETRY_MAX_ATTEMPTS=inf");
	else
		snprintf(max_env, STATUS_BUF, "RETRY_MAX_ATTEMPTS=%lld",
		    cfg->attempts);
	r->envp = build_env(r, max_env);
	r->spools = spools_open(cfg->replay_stdin, cfg->hold_stdout);
}

int
main(int argc, char *argv[])
{
	struct config cfg;
	struct run run;
	struct matcher *matcher;
	char msg[512], max_env[STATUS_BUF];
	int sig;

	switch (parse_options(argc, argv, &cfg, msg, sizeof(msg))) {
	case PARSE_HELP:
		fputs(usage_text, stdout);
		fputs("\n", stdout);
		fputs(help_text, stdout);
		return fflush(stdout) == EOF ? EXIT_CANCELED : 0;
	case PARSE_VERSION:
		printf("retry %s\n", RETRY_VERSION);
		return fflush(stdout) == EOF ? EXIT_CANCELED : 0;
	case PARSE_PRESETS:
		if (preset_list(stdout) != 0)
			err(EXIT_CANCELED, "standard output");
		return 0;
	case PARSE_ERROR:
		usage_error(msg);
	case PARSE_OK:
		break;
	}
	if ((matcher = matcher_open(&cfg, msg, sizeof(msg))) == NULL &&
	    *msg != '\0')
		usage_error(msg);
	if (cfg.dry_run) {
		matcher_free(matcher);	/* checked, never used */
		return dry_run(&cfg);
	}
	setup_run(&run, &cfg, max_env, matcher);
	run.t0 = mono_now();
	if (cfg.sched.splay > 0 && (sig = proc_sleep(&run.sigs,
	    nsec_add(run.t0, backoff_splay(&run.backoff)), NULL,
	    NULL)) != 0) {
		log_stopped(&run.log, 0, true, sig, 128 + sig,
		    mono_now() - run.t0);
		die_by_signal(sig);
	}
	run.t0 = mono_now();
	if (cfg.max_time != 0)
		run.deadline = nsec_add(run.t0, cfg.max_time);
	log_start(&run.log, &cfg, run.t0);
	retry_loop(&run);
}
