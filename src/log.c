/*
 * log.c: what retry tells its user while it works, and where.  The text
 * sink is stderr or --log-file: lines that start with "retry: " (after
 * the local time, in a --log-file that is a regular file), or with
 * --log-format=github the GitHub Actions workflow commands that turn a
 * retried failure into a warning and giving up into an error.  On a
 * terminal the wait before the next attempt is a status line that counts
 * down in place and then leaves the plain line behind, so that the
 * command's own output never lands in the middle of it.  The JSON log,
 * jsonlog.c's, goes to the text sink instead with --log-format=json, and
 * to --json-log's file besides.  The log is told what to print, times
 * included, and computes nothing of the run itself; values become text
 * through format.c.  Errors do not pass through here: they always go to
 * stderr with err(3).
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <err.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define LINE_MAX_LEN	512

/* A file to append to, above stdio and closed on exec; exits on error. */
static int
open_append(const char *path, const char *what)
{
	int fd;

	if ((fd = fd_above_stdio(open(path, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC, 0666))) == -1)
		err(EXIT_CANCELED, "%s %s", what, path);
	return fd;
}

/* Whether a terminal can take the status line's carriage returns. */
static bool
can_count_down(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && term != NULL && *term != '\0' &&
	    strcmp(term, "dumb") != 0;
}

/* Whether fd is a regular file, whose lines get the local time. */
static bool
is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

void
log_open(struct log *lg, const struct config *cfg)
{
	const char *gh;

	memset(lg, 0, sizeof(*lg));
	lg->fd = STDERR_FILENO;
	lg->gh_output = -1;
	lg->format = cfg->log_format;
	lg->verbosity = cfg->verbosity;
	lg->max = cfg->attempts;
	lg->http = lg->json.http = cfg->http_file != NULL;
	lg->server = -1;
	lg->until_failure = cfg->until_failure;
	if (cfg->log_file != NULL) {
		lg->fd = open_append(cfg->log_file, "--log-file");
		lg->stamp = lg->format == LOG_TEXT && is_regular(lg->fd);
	}
	if (lg->format == LOG_JSON)
		lg->json.fd[lg->json.nfd++] = lg->fd;
	if (cfg->json_log != NULL)
		lg->json.fd[lg->json.nfd++] = open_append(cfg->json_log,
		    "--json-log");
	gh = getenv("GITHUB_OUTPUT");
	if (lg->format == LOG_GITHUB && gh != NULL && *gh != '\0')
		lg->gh_output = open_append(gh, "GITHUB_OUTPUT");
	lg->countdown = lg->format == LOG_TEXT && lg->verbosity >= 0 &&
	    can_count_down(lg->fd);
	if (lg->stamp)
		tzset();
}

/* Whether text lines are wanted at verbosity v: never in JSON. */
static bool
says(const struct log *lg, int v)
{
	return lg->format != LOG_JSON && lg->verbosity >= v;
}

/* What starts a text line: the local time in a log file, then "retry: ". */
static void
line_start(const struct log *lg, char *buf, size_t len)
{
	char t[48];

	*buf = '\0';
	if (lg->stamp) {
		format_local(t, sizeof(t), wall_now());
		snprintf(buf, len, "%s ", t);
	}
	strlcat(buf, getprogname(), len);
	strlcat(buf, ": ", len);
}

static void __printflike(2, 3)
text(struct log *lg, const char *fmt, ...)
{
	char line[LINE_MAX_LEN];
	size_t n;
	va_list ap;

	line_start(lg, line, sizeof(line));
	n = strlen(line);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	strlcat(line, "\n", sizeof(line));
	fd_write_all(lg->fd, line, strlen(line));
}

/*
 * Appends s to buf as workflow-command text: % CR and LF always escaped,
 * and in a property also the , and : that would end it.
 */
static void
gh_escape(char *buf, size_t len, const char *s, bool property)
{
	char one[2] = "", esc[4];

	for (; *s != '\0'; s++) {
		if (*s == '%' || *s == '\r' || *s == '\n' ||
		    (property && (*s == ',' || *s == ':'))) {
			snprintf(esc, sizeof(esc), "%%%02X", (unsigned char)*s);
			strlcat(buf, esc, len);
		} else {
			one[0] = *s;
			strlcat(buf, one, len);
		}
	}
}

/* One GitHub Actions annotation: ::warning or ::error, titled "retry". */
static void __printflike(3, 4)
gh_annotate(struct log *lg, const char *command, const char *fmt, ...)
{
	char line[LINE_MAX_LEN], msg[LINE_MAX_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "::%s title=", command);
	gh_escape(line, sizeof(line) - 1, getprogname(), true);
	strlcat(line, "::", sizeof(line) - 1);
	gh_escape(line, sizeof(line) - 1, msg, false);
	strlcat(line, "\n", sizeof(line));
	fd_write_all(lg->fd, line, strlen(line));
}

/* The step's outputs, appended to $GITHUB_OUTPUT as the run ends. */
static void
gh_outputs(const struct log *lg, long long k, int status)
{
	char buf[64];

	if (lg->gh_output == -1)
		return;
	snprintf(buf, sizeof(buf), "attempts=%lld\nstatus=%d\n", k, status);
	fd_write_all(lg->gh_output, buf, strlen(buf));
}

static void
attempt_name(const struct log *lg, long long k, char *buf, size_t len)
{
	if (lg->max == 0)
		snprintf(buf, len, "%lld/inf", k);
	else
		snprintf(buf, len, "%lld/%lld", k, lg->max);
}

/* The run starts; its times count from t0. */
void
log_start(struct log *lg, const struct config *cfg, nsec_t t0)
{
	lg->t0 = lg->json.t0 = t0;
	jsonlog_start(&lg->json, cfg);
	if (cfg->env_options != NULL && says(lg, 1))
		text(lg, "options from RETRY_OPTIONS: %s", cfg->env_options);
}

void
log_attempt_start(struct log *lg, long long k)
{
	char name[48];

	jsonlog_attempt_start(&lg->json, k);
	if (!says(lg, 1))
		return;
	attempt_name(lg, k, name, sizeof(name));
	text(lg, "attempt %s starting", name);
}

void
log_attempt_end(struct log *lg, long long k, const struct outcome *o)
{
	char name[48], what[64], d[32];

	jsonlog_attempt_end(&lg->json, k, o);
	if (!says(lg, 1))
		return;
	attempt_name(lg, k, name, sizeof(name));
	format_outcome(what, sizeof(what), o);
	format_ms(d, sizeof(d), o->duration);
	text(lg, "attempt %s ended after %ss: %s", name, d, what);
}

/*
 * --http: the next sleep, which log_retrying() reports, includes server,
 * the delay that the server's Retry-After (the value ra) asked for; ra
 * NULL and server -1: none.
 */
void
log_server_delay(struct log *lg, const char *ra, nsec_t server)
{
	lg->retry_after = ra;
	lg->server = server;
}

/*
 * An attempt failed and the next one comes after sleep, drawn by the
 * jitter mode from the window, plus the server's delay if there is one.
 */
void
log_retrying(struct log *lg, long long k, const struct outcome *o,
    nsec_t sleep, nsec_t window, const struct jitter *jitter)
{
	char name[48], what[64], d[32], start[64], ra[128] = "";
	const char *verb = lg->until_failure ? "succeeded" : "failed";
	nsec_t server = lg->server;

	if (lg->retry_after != NULL)
		snprintf(ra, sizeof(ra), " (Retry-After: %s)", lg->retry_after);
	log_server_delay(lg, NULL, -1);	/* for this sleep only */
	jsonlog_sleep(&lg->json, k, sleep, window, jitter, server);
	if (!says(lg, 0))
		return;
	attempt_name(lg, k, name, sizeof(name));
	format_outcome(what, sizeof(what), o);
	format_ms(d, sizeof(d), sleep);
	if (lg->format == LOG_GITHUB) {
		gh_annotate(lg, "warning", "attempt %s %s (%s), next in "
		    "%ss%s", name, verb, what, d, ra);
		return;
	}
	snprintf(lg->status, sizeof(lg->status), "%s: attempt %s %s (%s)",
	    getprogname(), name, verb, what);
	line_start(lg, start, sizeof(start));
	snprintf(lg->plain, sizeof(lg->plain), "%sattempt %s %s (%s), "
	    "next in %ss%s\n", start, name, verb, what, d, ra);
	if (!lg->countdown)
		fd_write_all(lg->fd, lg->plain, strlen(lg->plain));
}

/* Whether the wait is to be shown by log_countdown() ticks. */
bool
log_counts_down(const struct log *lg)
{
	return lg->countdown;
}

/* Redraws the status line: the proc_sleep() tick on a terminal. */
void
log_countdown(nsec_t left, void *arg)
{
	struct log *lg = arg;
	struct winsize ws;
	char line[320];
	size_t len;
	int n;

	/* Round up, so that the line never shows 0.0s while waiting. */
	left = (left + 99999999) / 100000000;
	n = snprintf(line, sizeof(line), "\r\033[K%s, next in %lld.%llds",
	    lg->status, (long long)(left / 10), (long long)(left % 10));
	len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	/* A line that wraps cannot be redrawn in place: cut it to fit. */
	if (ioctl(lg->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
	    len > 4 + (size_t)ws.ws_col - 1)
		len = 4 + (size_t)ws.ws_col - 1;
	fd_write_all(lg->fd, line, len);
	lg->line_open = true;
}

void
log_sleep_done(struct log *lg)
{
	if (lg->line_open)
		fd_write_all(lg->fd, "\r\033[K", 4);
	/* Also after a sleep too short for a single redraw. */
	if (lg->countdown)
		fd_write_all(lg->fd, lg->plain, strlen(lg->plain));
	lg->line_open = false;
}

/*
 * The end of the run after k attempts and elapsed; reason is NULL on
 * success.  status is what retry exits with: 1, not the command's 0, when
 * it gives up.  A success says so when it needed retries, or with -v.
 */
void
log_finish(struct log *lg, long long k, const struct outcome *o,
    const char *reason, int status, nsec_t elapsed)
{
	char name[48], what[64], d[32], why[96];

	jsonlog_summary(&lg->json, k, elapsed, status,
	    reason != NULL ? reason : "success");
	gh_outputs(lg, k, status);
	if (!says(lg, 0))
		return;
	format_outcome(what, sizeof(what), o);
	format_ms(d, sizeof(d), elapsed);
	if (reason != NULL && lg->until_failure) {
		snprintf(why, sizeof(why), status != outcome_status(o) ?
		    "%s; exiting %d" : "%s", reason, status);
		attempt_name(lg, k, name, sizeof(name));
		if (lg->format == LOG_GITHUB)
			gh_annotate(lg, "error", "attempt %s failed after %ss: "
			    "%s (%s)", name, d, what, why);
		else
			text(lg, "attempt %s failed after %ss: %s (%s)", name,
			    d, what, why);
	} else if (reason != NULL) {
		snprintf(why, sizeof(why), status != outcome_status(o) ?
		    "%s; exiting %d" : "%s", reason, status);
		if (lg->format == LOG_GITHUB)
			gh_annotate(lg, "error", "giving up after %lld attempt%s "
			    "in %ss: %s (%s)", k, k == 1 ? "" : "s", d, what, why);
		else
			text(lg, "giving up after %lld attempt%s in %ss: %s (%s)",
			    k, k == 1 ? "" : "s", d, what, why);
	} else if (says(lg, 1) || k > 1) {
		attempt_name(lg, k, name, sizeof(name));
		text(lg, "succeeded on attempt %s after %ss", name, d);
	}
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

	jsonlog_summary(&lg->json, k, elapsed, 0, why != NULL ? why :
	    "all attempts succeeded");
	gh_outputs(lg, k, 0);
	if (!says(lg, 0))
		return;
	format_ms(d, sizeof(d), elapsed);
	if (lg->format == LOG_GITHUB)
		gh_annotate(lg, "notice", "all %lld attempt%s succeeded in "
		    "%ss%s%s", k, k == 1 ? "" : "s", d, why != NULL ? "; " : "",
		    why != NULL ? why : "");
	else
		text(lg, "all %lld attempt%s succeeded in %ss%s%s", k,
		    k == 1 ? "" : "s", d, why != NULL ? "; " : "",
		    why != NULL ? why : "");
}

/* Something of attempt k that only -v reports, such as an ignored field. */
void
log_note(struct log *lg, long long k, const char *fmt, ...)
{
	char msg[256], name[48];
	va_list ap;

	if (!says(lg, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	attempt_name(lg, k, name, sizeof(name));
	text(lg, "attempt %s: %s", name, msg);
}

/*
 * A stop signal ended the run, elapsed into it, during attempt k or
 * after it, or during the splay when k is 0; retry exits with status.
 */
void
log_stopped(struct log *lg, long long k, bool during, int sig, int status,
    nsec_t elapsed)
{
	char d[32], buf[16], name[48], reason[32];
	const char *sname = sig_name(sig, buf, sizeof(buf));

	snprintf(reason, sizeof(reason), "signal %s", sname);
	jsonlog_summary(&lg->json, k, elapsed, status, reason);
	gh_outputs(lg, k, status);
	if (!says(lg, 0))
		return;
	format_ms(d, sizeof(d), elapsed);
	attempt_name(lg, k, name, sizeof(name));
	if (k == 0)
		text(lg, "stopped by %s during the splay after %ss", sname, d);
	else if (during)
		text(lg, "stopped by %s during attempt %s after %ss", sname,
		    name, d);
	else
		text(lg, "stopped by %s after attempt %s in %ss", sname, name,
		    d);
}

/*
 * The breaker kept the command from starting: wait is the time until
 * the next probe, or -1 while a probe is under way (JSON: null).
 */
void
log_breaker_open(struct log *lg, const char *name, nsec_t wait)
{
	char d[32], reason[GUARD_NAME_MAX + 32];

	snprintf(reason, sizeof(reason), "circuit breaker '%s' is open", name);
	jsonlog_breaker_open(&lg->json, reason, wait);
	gh_outputs(lg, 0, EXIT_TEMPFAIL);
	if (!says(lg, 0))
		return;
	if (wait >= 0) {
		format_ms(d, sizeof(d), wait);
		text(lg, "%s: not running the command; next probe in %ss",
		    reason, d);
	} else
		text(lg, "%s: not running the command; a probe run is under "
		    "way", reason);
}
