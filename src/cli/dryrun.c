/*
 * dryrun.c: --dry-run, the schedule as a table on stdout.  The rows are
 * drawn by the same backoff.c calls in the same order as a real run, with
 * every attempt taken to fail at once, so that with --seed the draw
 * column is what a run sleeps.  The columns line up: a first pass
 * measures the rows (which columns need 9 decimals rather than 3, and how
 * wide each is), a second prints them, from the same seed.  Both passes
 * are bounded: unlimited attempts show DRYRUN_UNLIMITED_ROWS rows and a
 * count above DRYRUN_MAX_ROWS shows that many, so that the table starts
 * at once whatever -n says (-n 9223372036854775807 once ran until killed).
 * After the table, a comment line for each option whose effect a dry run
 * can only describe: the output conditions, the held streams and more.
 * run_nothing() is where every mode that runs no command starts: this
 * table, or --guard-status and --guard-reset.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attempt/match.h"
#include "guard/guard.h"
#include "guard/spec.h"
#include "log/metrics.h"
#include "os/clock.h"
#include "os/defs.h"
#include "os/privdir.h"
#include "os/signals.h"
#include "os/trace.h"
#include "policy/backoff.h"
#include "text/escape.h"
#include "text/format.h"
#include "config.h"
#include "dryrun.h"

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
	if (rows > DRYRUN_MAX_ROWS)
		rows = DRYRUN_MAX_ROWS;
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

/* --delays: the list the windows come from. */
static void
dry_delays(const struct schedule *s)
{
	char w[40];
	int i;

	if (s->ndelays == 0)
		return;
	printf("# --delays=");
	for (i = 0; i < s->ndelays; i++) {
		format_span(w, sizeof(w), s->delays[i]);
		printf("%s%s", i > 0 ? "," : "", w);
	}
	printf(": retry k waits value k, the last repeated\n");
}

/* Where a guard keeps its state: the Redis URL as parsed, or a file. */
static void
dry_guard(const struct guard_spec *g, const char *what)
{
	char url[GUARD_TARGET_MAX];

	if (g->name[0] == '\0')
		return;
	guard_target(url, sizeof(url), g);
	printf("# %s '%s': %s%s\n", what, g->name, url[0] != '\0' ?
	    "in Redis at " : "in a local state file", url);
}

/*
 * What the run hands the next layer: --metrics-file at its end, and
 * TRACEPARENT, which the attempts get with spans of their own if it is
 * valid.
 */
static void
dry_outputs(const char *metrics_file)
{
	struct strbuf path = { 0 }, name = { 0 };
	const char *tp = getenv("TRACEPARENT");
	struct trace t;

	if (metrics_file != NULL) {
		sb_visible(&path, metrics_file);
		metrics_name(&name, metrics_file);
		printf("# --metrics-file=%s: written when the run ends, with "
		    "name=\"%s\"\n", sb_text(&path), sb_text(&name));
		sb_free(&path);
		sb_free(&name);
	}
	if (tp != NULL && trace_init(&t, tp))
		printf("# TRACEPARENT: trace %.*s; each attempt gets a span "
		    "of its own under %.*s\n", TRACE_ID_LEN,
		    t.var + TRACE_ID_AT, SPAN_ID_LEN, t.var + SPAN_ID_AT);
	else if (tp != NULL)
		printf("# TRACEPARENT is not a valid W3C traceparent: the "
		    "attempts get it unchanged\n");
}

/*
 * The worst case of the sleeps, which the deadline bounds: the windows
 * of the rows above can add up to more than --max-time (after the
 * splay), which the run never sleeps into.
 */
static void
dry_worst(const struct config *cfg, nsec_t worst)
{
	nsec_t splay = cfg->sched.splay;
	char w[32], all[32];
	bool cut = cfg->max_time != 0 && (worst == NSEC_INF ||
	    worst - splay > cfg->max_time);

	format_seconds(all, sizeof(all), worst);
	if (cut)
		worst = nsec_add(splay, cfg->max_time);
	format_seconds(w, sizeof(w), worst);
	/* A saturated sum prints as "inf", which takes no unit. */
	printf("# worst-case total sleep for the rows above: %s%s", w,
	    worst == NSEC_INF ? "" : "s");
	if (cut)
		printf(" (--max-time ends the run first; their windows add "
		    "up to %s%s)", all, strcmp(all, "inf") == 0 ? "" : "s");
	printf("\n");
}

/* Where a failed attempt's held output goes, as the sink's option says. */
static void
dry_failed_sink(const char *where, const char *dflt, struct strbuf *sb)
{
	if (where == NULL)
		where = dflt;
	if (strcmp(where, "drop") == 0)
		sb_str(sb, "is dropped");
	else if (strcmp(where, "stderr") == 0)
		sb_str(sb, "goes to stderr");
	else {
		sb_str(sb, "is appended to '");
		sb_visible(sb, where);
		sb_str(sb, "'");
	}
}

/*
 * The output conditions, each on its streams, and the held streams: what
 * decides an attempt's fate or output besides the table.  The user's text
 * is made visible: no control character reaches the terminal.
 */
static void
dry_streams(const struct config *cfg)
{
	/* Arrays, not pointers: no relocation for each at every start. */
	static const char verdict[MATCH_KINDS][16] = { "is a success",
	    "is not retried", "is retried" };
	static const char on[4][17] = { "", "stdout", "stderr",
	    "stdout or stderr" };
	const struct match_rules *c = &cfg->conds;
	struct strbuf sb = { 0 };
	int k, i;

	for (k = 0; k < MATCH_KINDS; k++)
		for (i = 0; i < c->noutput[k]; i++) {
			sb_printf(&sb, "# --%s='", match_option(k,
			    c->on[k][i]));
			sb_visible(&sb, c->output[k][i]);
			sb_printf(&sb, "'%s: an attempt with a line on %s that "
			    "%s %s\n", c->fixed ? " (-F)" : "", on[c->on[k][i]],
			    c->fixed ? "contains it" : "matches", verdict[k]);
		}
	if (cfg->hold_stdout) {
		sb_str(&sb, "# --hold-stdout: only the final attempt's stdout "
		    "reaches stdout; a failed attempt's ");
		dry_failed_sink(cfg->failed_output, "stderr", &sb);
		sb_str(&sb, "\n");
	}
	if (cfg->hold_stderr) {
		sb_str(&sb, "# --hold-stderr: only the final attempt's stderr "
		    "reaches stderr; a failed attempt's ");
		dry_failed_sink(cfg->failed_stderr, "drop", &sb);
		sb_str(&sb, "\n");
	}
	if (sb.len > 0)
		printf("%s", sb_text(&sb));
	sb_free(&sb);
}

/*
 * How a run that gives up exits, and whether RETRY_AFTER_FILE can be
 * given: its directory opened or made (and removed), as a run would.  Said
 * only when it is not as usual, so that a plain dry run prints the table.
 */
static void
dry_ends(const struct config *cfg)
{
	struct privdir d;
	int error;

	if (cfg->exhausted_status >= 0)
		printf("# --exhausted-status=%d: the exit status when the run "
		    "gives up on an outcome that would be retried\n",
		    cfg->exhausted_status);
	if (privdir_open(&d, "retry-after") == 0)
		close(d.fd);
	else if ((error = privdir_make(&d, "retry-after")) == 0)
		(void)privdir_destroy(&d, NULL);
	else
		printf("# RETRY_AFTER_FILE will be empty: no private directory "
		    "in $XDG_RUNTIME_DIR, $TMPDIR or /tmp (%s)\n",
		    strerror(error));
}

/*
 * --dry-run: the schedule as a table whose columns line up, each with
 * one number of decimals for all its values: a first pass measures the
 * rows, a second prints them, from the same seed.
 */
int
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
	dry_worst(cfg, t.worst);
	if (cfg->reset_after != 0) {
		format_seconds(w, sizeof(w), cfg->reset_after);
		printf("# --reset-after=%ss starts the schedule over after an "
		    "attempt that runs that long; a dry run cannot know how "
		    "long attempts run\n", w);
	}
	dry_delays(&cfg->sched);
	dry_streams(cfg);
	if (cfg->stall != 0) {
		format_span(w, sizeof(w), cfg->stall);
		printf("# --stall-timeout=%s: an attempt with no output for %s "
		    "is timed out\n", w, w);
	}
	dry_guard(&cfg->budget, "retry budget");
	dry_guard(&cfg->breaker, "circuit breaker");
	dry_outputs(cfg->metrics_file);
	dry_ends(cfg);
	if (cfg->env_options != NULL)
		printf("# options from RETRY_OPTIONS: %s\n", cfg->env_options);
	/* Not when --max-time cut the table before the 20th row. */
	if (cfg->attempts == 0 && t.cut == 0)
		printf("# attempts are unlimited: the first %d are shown\n",
		    DRYRUN_UNLIMITED_ROWS);
	else if (cfg->attempts > DRYRUN_MAX_ROWS && t.cut == 0)
		printf("# %lld attempts are too many to list: the first %d "
		    "are shown\n", cfg->attempts, DRYRUN_MAX_ROWS);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_CANCELED, "standard output");
	return 0;
}

/* --dry-run, --guard-status and --guard-reset: no command runs. */
int
run_nothing(const struct config *cfg)
{
	struct sigstate *ss;
	int status;

	if (cfg->dry_run)
		return dry_run(cfg);
	ss = signals_init();
	status = guards_tool(&cfg->budget, &cfg->breaker, cfg->guard_reset,
	    cfg->max_time, ss);
	free(ss);	/* main returns: for the leak checkers */
	return status;
}
