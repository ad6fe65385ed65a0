/*
 * log.c: what retry tells its user while it works, and where.  The text
 * sink is stderr or --log-file: lines that start with "retry: " (after
 * the local time, in a --log-file that is a regular file), or with
 * --log-format=github the GitHub Actions workflow commands: one
 * annotation for the run's outcome (an error on giving up), titled with
 * the command, the retries as plain lines and -v's as debug lines.  On a
 * terminal the wait before the next attempt is a status line that counts
 * down in place and then leaves the plain line behind: log.c makes both
 * lines, status.c draws them.  The JSON log,
 * jsonlog.c's, goes to the text sink instead with --log-format=json, and
 * to --json-log's file besides.  The log is told what to print, times
 * included, and computes nothing of the run itself; values become text
 * through format.c.  A pipe on stderr is errout.c's, for the text lines
 * and the JSON ones alike: it bounds their wait for the pipe's reader.
 * Errors do not pass through here: they always go to stderr with err(3),
 * which on a terminal log_open() makes a stream as bounded as the
 * messages.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "policy/outcomes.h"
#include "text/escape.h"
#include "text/format.h"
#include "errout.h"
#include "jsonlog.h"
#include "log.h"
#include "metrics.h"
#include "status.h"

/* A file to append to, above stdio and closed on exec; exits on error. */
static int
open_append(const char *path, const char *what)
{
	int fd;

	if ((fd = fd_open_append(path)) == -1 && errno == ENXIO)
		err_safe(EXIT_CANCELED, false, "%s %s: %s", what, path,
		    FD_NO_READER);
	if (fd == -1)
		err_safe(EXIT_CANCELED, true, "%s %s", what, path);
	return fd;
}

/*
 * $GITHUB_OUTPUT, readable too where it can be, so that the outputs can
 * start on a line of their own after a step that left no newline.  A
 * FIFO there that nobody empties holds the outputs a second at most, not
 * retry for ever in write(2), deaf to -m and TERM.
 */
static int
open_gh_output(const char *path)
{
	int fd;

	fd = fd_above_stdio(open(path, O_RDWR | O_APPEND | O_CLOEXEC));
	if (fd == -1)
		fd = open_append(path, "GITHUB_OUTPUT");
	(void)fd_own_nonblock(fd);
	return fd;
}

/*
 * Writes s to fd, one of lg's sinks, through errout_write(), which
 * bounds the wait for a terminal or a pipe on stderr.
 */
static void
log_put(struct log *lg, int fd, const char *s, size_t len)
{
	errout_write(&lg->err, fd, s, len);
}

/*
 * Messages to a terminal go to a non-blocking open of it, whose writes
 * log_put() bounds: a terminal nobody reads must not stop retry.
 * Elsewhere, a pipe on stderr is errout.c's.  Errors go to either.
 */
static void
open_terminal(struct log *lg)
{
	lg->fd = STDERR_FILENO;
	lg->tty = fd_tty_nonblock(STDERR_FILENO);
	errout_open(&lg->err, lg->tty);
	if (lg->tty != -1)
		lg->fd = lg->tty;
	errout_bound_stderr(&lg->err);
}

/* Sets up the messages as the command line lo asks for them. */
void
log_open(struct log *lg, const struct log_options *lo)
{
	const char *gh;

	memset(lg, 0, sizeof(*lg));
	open_terminal(lg);
	lg->gh_output = -1;
	lg->format = lo->format;
	lg->verbosity = lo->verbosity;
	lg->max = lo->attempts;
	lg->json.http = lo->http;
	lg->json.out = &lg->err;
	lg->until_failure = lo->until_failure;
	lg->metrics_file = lo->metrics_file;
	lg->json.trace = lo->trace;
	/* -q quiets the terminal and the mail, not a file the user named. */
	if (lo->log_file != NULL && lg->verbosity < 0)
		lg->verbosity = 0;
	if (lo->log_file != NULL) {
		lg->fd = open_append(lo->log_file, "--log-file");
		lg->stamp = lg->format == LOG_TEXT && fd_is_regular(lg->fd);
		errout_own(&lg->err, lg->fd, "--log-file", lo->log_file);
	}
	if (lg->format == LOG_JSON)
		lg->json.fd[lg->json.nfd++] = lg->fd;
	if (lo->json_log != NULL) {
		lg->json.fd[lg->json.nfd] = open_append(lo->json_log,
		    "--json-log");
		errout_own(&lg->err, lg->json.fd[lg->json.nfd++],
		    "--json-log", lo->json_log);
	}
	gh = getenv("GITHUB_OUTPUT");
	if (lg->format == LOG_GITHUB && gh != NULL && *gh != '\0')
		lg->gh_output = open_gh_output(gh);
	if (lo->on_failure)
		errout_hold(&lg->err, lg->fd);
	status_open(&lg->line, &lg->err, lg->fd, lg->format == LOG_TEXT &&
	    lg->verbosity >= 0 && !lo->on_failure);
	if (lg->stamp)
		tzset();
}

/* Whether text lines are wanted at verbosity v: never in JSON. */
static bool
says(const struct log *lg, int v)
{
	return lg->format != LOG_JSON && lg->verbosity >= v;
}

/*
 * What starts a text line: the local time in a log file, then "retry: ";
 * the program's name is made visible too, since it comes from argv[0].
 */
static void
line_start(const struct log *lg, struct strbuf *sb)
{
	char t[48];

	if (lg->stamp) {
		format_local(t, sizeof(t), wall_now());
		sb_printf(sb, "%s ", t);
	}
	sb_visible(sb, getprogname());
	sb_str(sb, ": ");
}

/*
 * A message as a line of the log, in line: a text line, or with
 * --log-format=github and an annotation (error, notice; debug for -v's
 * lines) that GitHub Actions workflow command, titled with gh_title().  The
 * message may hold outside text (an ERE, a path, a header's value): it is
 * made visible, or escaped as workflow-command data, in one place, so
 * that it stays one line whatever it holds.
 */
static void
format_line(const struct log *lg, const char *annotation, const char *msg,
    struct strbuf *line)
{
	if (annotation != NULL && lg->format == LOG_GITHUB) {
		/*
		 * A command's last line left open on the same stderr would
		 * make the annotation text: a pipe (a runner's) gets a
		 * newline first, a file only if it is seen to need one.
		 */
		if (strcmp(annotation, "debug") != 0 && (!fd_is_regular(lg->fd)
		    || fd_ends_mid_line(lg->fd)))
			sb_str(line, "\n");
		if (strcmp(annotation, "debug") == 0)
			sb_str(line, "::debug::");
		else {
			sb_printf(line, "::%s title=", annotation);
			sb_github(line, *lg->title != '\0' ? lg->title :
			    getprogname(), true);
			sb_str(line, "::");
		}
		sb_github(line, msg, false);
	} else {
		line_start(lg, line);
		sb_visible(line, msg);
	}
	sb_str(line, "\n");
}

/* Says a message, as format_line() makes it a line. */
static void __printflike(3, 4)
say(struct log *lg, const char *annotation, const char *fmt, ...)
{
	struct strbuf msg = { 0 }, line = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	format_line(lg, annotation, sb_text(&msg), &line);
	log_put(lg, lg->fd, line.s, line.len);
	sb_free(&msg);
	sb_free(&line);
}

/* A text line, in every format; one of -v's, a debug line in github's. */
#define text(lg, ...)	say((lg), NULL, __VA_ARGS__)
#define verbose(lg, ...)	say((lg), "debug", __VA_ARGS__)

/*
 * The annotation's title: the program's name and the command, cut at a
 * character's start to fit, so that in a job with several retry steps
 * the one that gave up is known.
 */
static void
gh_title(struct log *lg, char **argv)
{
	size_t n, cap = sizeof(lg->title);

	n = (size_t)snprintf(lg->title, cap, "%s", getprogname());
	for (; *argv != NULL && n < cap; argv++)
		n += (size_t)snprintf(lg->title + n, cap - n, " %s", *argv);
	if (n < cap)
		return;
	for (n = cap - 4; n > 0 && (lg->title[n] & 0xc0) == 0x80; n--)
		continue;
	memcpy(lg->title + n, "...", 4);
}

/* The outcome as text, of any length: it can hold a long ERE. */
static char *
outcome_text(const struct outcome *o)
{
	int n = outcome_format(NULL, 0, o);
	char *s;

	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		err(EXIT_CANCELED, NULL);
	outcome_format(s, (size_t)n + 1, o);
	return s;
}

/* The step's outputs, appended to $GITHUB_OUTPUT as the run ends. */
static void
gh_outputs(const struct log *lg, long long k, int status)
{
	char buf[64];

	if (lg->gh_output == -1)
		return;
	/* "url=x" without a newline must not become "url=xattempts=1". */
	snprintf(buf, sizeof(buf), "%sattempts=%lld\nstatus=%d\n",
	    fd_ends_mid_line(lg->gh_output) ? "\n" : "", k, status);
	fd_write_all(lg->gh_output, buf, strlen(buf));
}

/* The run's end for the next layer: $GITHUB_OUTPUT, --metrics-file. */
static void
ended(const struct log *lg, long long k, int status,
    enum metrics_outcome how, nsec_t elapsed)
{
	gh_outputs(lg, k, status);
	if (lg->metrics_file != NULL)
		metrics_write(lg->metrics_file, &(struct metrics_run){ k,
		    status, how, elapsed });
}

static void
attempt_name(const struct log *lg, long long k, char *buf, size_t len)
{
	if (lg->max == 0)
		snprintf(buf, len, "%lld/inf", k);
	else
		snprintf(buf, len, "%lld/%lld", k, lg->max);
}

/*
 * From here on, a message waits for a stalled pipe on stderr, or a FIFO
 * named by --log-file or --json-log, only until a stop signal that ss
 * sees, or until deadline (0: none); a terminal is waited for as ever.
 */
void
log_bound_waits(struct log *lg, const struct sigstate *ss, nsec_t deadline)
{
	errout_bound(&lg->err, ss, deadline);
}

/* The run starts; its times count from t0. */
void
log_start(struct log *lg, const struct log_run *run, nsec_t t0)
{
	lg->json.t0 = t0;
	jsonlog_start(&lg->json, run);
	if (lg->format == LOG_GITHUB) {
		lg->summary = summary_open(getenv("GITHUB_STEP_SUMMARY"),
		    run->argv);
		gh_title(lg, run->argv);
	}
	if (run->env_options != NULL && says(lg, 1))
		verbose(lg, "options from RETRY_OPTIONS: %s", run->env_options);
}

/* -v: the splay drawn, and when attempt 1 starts: a late job waits. */
void
log_splay(struct log *lg, nsec_t drawn, nsec_t max)
{
	char d[32], m[32], t[48];

	if (!says(lg, 1))
		return;
	format_ms(d, sizeof(d), drawn);
	format_ms(m, sizeof(m), max);
	format_local(t, sizeof(t), wall_now() + drawn);
	verbose(lg, "splay: %ss drawn up to %ss; attempt 1 starts at %s", d,
	    m, t);
}

void
log_attempt_start(struct log *lg, long long k)
{
	char name[48];

	jsonlog_attempt_start(&lg->json, k);
	lg->attempt_at = mono_now() - lg->json.t0;
	if (!says(lg, 1))
		return;
	attempt_name(lg, k, name, sizeof(name));
	verbose(lg, "attempt %s starting", name);
}

void
log_attempt_end(struct log *lg, long long k, const struct outcome *o)
{
	char name[48], *what, d[32];

	jsonlog_attempt_end(&lg->json, k, o);
	if (lg->summary != NULL) {
		what = outcome_text(o);
		summary_attempt(lg->summary, k, lg->attempt_at, o->duration,
		    what);
		free(what);
	}
	if (!says(lg, 1))
		return;
	attempt_name(lg, k, name, sizeof(name));
	what = outcome_text(o);
	format_ms(d, sizeof(d), o->duration);
	verbose(lg, "attempt %s ended after %ss: %s", name, d, what);
	free(what);
}

/*
 * Attempt k ended with o and the next one comes after the sleep sl: a
 * draw by the jitter mode from the window, plus the server's delay
 * (--http) if there is one.
 */
void
log_retrying(struct log *lg, long long k, const struct outcome *o,
    const struct log_sleep *sl)
{
	char name[48], *what, d[32];
	struct strbuf ra = { 0 }, msg = { 0 }, next = { 0 }, plain = { 0 };
	const char *verb = lg->until_failure ? "succeeded" : "failed";

	if (sl->retry_after != NULL)
		sb_printf(&ra, " (%s)", sl->retry_after);
	jsonlog_sleep(&lg->json, k, sl->sleep, sl->window, sl->jitter,
	    sl->server);
	summary_wait(lg->summary, sl->sleep);
	if (!says(lg, 0)) {
		sb_free(&ra);
		return;
	}
	attempt_name(lg, k, name, sizeof(name));
	what = outcome_text(o);
	format_ms(d, sizeof(d), sl->sleep);
	sb_printf(&msg, "attempt %s %s (%s)", name, verb, what);
	sb_printf(&next, "%s, next in %ss%s", sb_text(&msg), d, sb_text(&ra));
	format_line(lg, NULL, sb_text(&next), &plain);
	status_wait(&lg->line, sb_text(&msg), &plain);
	free(what);
	sb_free(&ra);
	sb_free(&msg);
	sb_free(&next);
}

/* Whether the wait is to be shown by log_countdown() ticks. */
bool
log_counts_down(const struct log *lg)
{
	return lg->line.on;
}

/* The attempt_sleep() tick on a terminal: the status line redrawn. */
void
log_countdown(nsec_t left, void *arg)
{
	struct log *lg = arg;

	status_draw(&lg->line, left);
}

void
log_sleep_done(struct log *lg)
{
	status_done(&lg->line);
}

/* The job summary's last line, and the summary written. */
static void __printflike(3, 4)
job_summary_end(struct log *lg, int status, const char *fmt, ...)
{
	struct strbuf msg = { 0 };
	va_list ap;

	if (lg->summary == NULL)
		return;
	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	summary_close(lg->summary, status, sb_text(&msg));
	lg->summary = NULL;
	sb_free(&msg);
}

/* log_finish()'s result in the job summary; why is the reason told. */
static void
job_summary_finish(struct log *lg, long long k, const struct outcome *o,
    const char *why, nsec_t elapsed, int status)
{
	char d[32], *what;

	if (lg->summary == NULL)
		return;
	format_ms(d, sizeof(d), elapsed);
	what = outcome_text(o);
	if (why == NULL)
		job_summary_end(lg, status, "succeeded on attempt %lld after "
		    "%ss", k, d);
	else
		job_summary_end(lg, status, "gave up after %lld attempt%s in "
		    "%ss: %s (%s)", k, k == 1 ? "" : "s", d, what, why);
	free(what);
}

/*
 * The end of the run after k attempts and elapsed; reason is NULL on
 * success.  The status logged is the run's: 1, not the command's 0, when
 * it gives up; exit is what retry exits with, told when it is another
 * (--exhausted-status).  A success says so when it needed retries, or
 * with -v.
 */
void
log_finish(struct log *lg, long long k, const struct outcome *o,
    const char *reason, int exit, nsec_t elapsed)
{
	struct strbuf why = { 0 };
	char name[48], *what, d[32];
	int status = reason != NULL && outcome_status(o) == 0 ? 1 :
	    outcome_status(o);

	if (reason != NULL) {
		sb_str(&why, reason);
		if (exit != outcome_status(o))
			sb_printf(&why, "; exiting %d", exit);
	}
	jsonlog_summary(&lg->json, k, elapsed, status, exit,
	    reason != NULL ? reason : "success");
	ended(lg, k, status, reason != NULL ? METRICS_GAVE_UP :
	    METRICS_SUCCESS, elapsed);
	job_summary_finish(lg, k, o, reason != NULL ? sb_text(&why) : NULL,
	    elapsed, status);
	if (!says(lg, 0)) {
		sb_free(&why);
		errout_end(&lg->err, status != 0);
		return;
	}
	what = outcome_text(o);
	format_ms(d, sizeof(d), elapsed);
	attempt_name(lg, k, name, sizeof(name));
	if (reason != NULL && lg->until_failure)
		say(lg, "error", "attempt %s failed after %ss: %s (%s)", name,
		    d, what, sb_text(&why));
	else if (reason != NULL)
		say(lg, "error", "giving up after %lld attempt%s in %ss: %s "
		    "(%s)", k, k == 1 ? "" : "s", d, what, sb_text(&why));
	else if (says(lg, 1) || k > 1)
		text(lg, "succeeded on attempt %s after %ss", name, d);
	free(what);
	sb_free(&why);
	errout_end(&lg->err, status != 0);
}

/*
 * --until-failure: attempts 1 to k all succeeded, and why the run ends
 * there (NULL: no attempts left).  retry exits 0.
 */
void
log_all_succeeded(struct log *lg, long long k, const char *why,
    nsec_t elapsed)
{
	char d[32];

	jsonlog_summary(&lg->json, k, elapsed, 0, -1, why != NULL ? why :
	    "all attempts succeeded");
	ended(lg, k, 0, METRICS_SUCCESS, elapsed);
	format_ms(d, sizeof(d), elapsed);
	job_summary_end(lg, 0, "all %lld attempt%s succeeded in %ss%s%s", k,
	    k == 1 ? "" : "s", d, why != NULL ? "; " : "",
	    why != NULL ? why : "");
	if (says(lg, 0))
		say(lg, "notice", "all %lld attempt%s succeeded in %ss%s%s",
		    k, k == 1 ? "" : "s", d, why != NULL ? "; " : "",
		    why != NULL ? why : "");
	errout_end(&lg->err, false);
}

/* Something of attempt k that only -v reports, such as an ignored field. */
void
log_note(struct log *lg, long long k, const char *fmt, ...)
{
	struct strbuf msg = { 0 };
	char name[48];
	va_list ap;

	if (!says(lg, 1))
		return;
	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	attempt_name(lg, k, name, sizeof(name));
	verbose(lg, "attempt %s: %s", name, sb_text(&msg));
	sb_free(&msg);
}

/* log_stopped()'s text line, when it is wanted. */
static void
stopped_text(struct log *lg, long long k, bool during, const char *sname,
    const char *d)
{
	char name[48];

	if (!says(lg, 0))
		return;
	attempt_name(lg, k, name, sizeof(name));
	if (k == 0 && !during)	/* before the first attempt, no splay */
		text(lg, "stopped by %s before attempt 1", sname);
	else if (k == 0)
		text(lg, "stopped by %s during the splay after %ss", sname, d);
	else if (during)
		text(lg, "stopped by %s during attempt %s after %ss", sname,
		    name, d);
	else
		text(lg, "stopped by %s after attempt %s in %ss", sname, name,
		    d);
}

/*
 * A stop signal ended the run, elapsed into it, during attempt k or
 * after it, or during the splay when k is 0; retry exits with status.
 */
void
log_stopped(struct log *lg, long long k, bool during, int sig, int status,
    nsec_t elapsed)
{
	char d[32], buf[16], reason[32];
	const char *sname = sig_name(sig, buf, sizeof(buf));

	snprintf(reason, sizeof(reason), "signal %s", sname);
	errout_stopped(&lg->err);	/* nothing waits for a reader now */
	jsonlog_summary(&lg->json, k, elapsed, status, -1, reason);
	ended(lg, k, status, METRICS_STOPPED, elapsed);
	format_ms(d, sizeof(d), elapsed);
	job_summary_end(lg, status, "stopped by %s after %ss", sname, d);
	stopped_text(lg, k, during, sname, d);
	errout_end(&lg->err, true);
}

/*
 * The breaker kept the command from starting: wait is the time until
 * the next probe, or -1 while a probe is under way (JSON: null).
 */
void
log_breaker_open(struct log *lg, const char *name, nsec_t wait, int status)
{
	char d[32], reason[160];	/* a guard's name is 64 bytes at most */

	snprintf(reason, sizeof(reason), "circuit breaker '%s' is open", name);
	jsonlog_breaker_open(&lg->json, reason, wait, status);
	ended(lg, 0, status, METRICS_BREAKER_OPEN, 0);
	job_summary_end(lg, status, "%s: the command was not run",
	    reason);
	format_ms(d, sizeof(d), wait >= 0 ? wait : 0);
	if (says(lg, 0) && wait >= 0)
		text(lg, "%s: not running the command; next probe in %ss",
		    reason, d);
	else if (says(lg, 0))
		text(lg, "%s: not running the command; a probe run is under "
		    "way", reason);
	errout_end(&lg->err, true);
}
