/*
 * log.c: what retry tells its user while it works.  In text mode, lines
 * that start with "retry: " on stderr (or --log-file); on a terminal the
 * wait before the next attempt is a status line that counts down in
 * place and then leaves the plain line behind, so that the command's own
 * output never lands in the middle of it.  In JSON mode, one object per
 * line and per event, for a CI system to parse.  The log is told what
 * to print, times included, and computes nothing of the run itself;
 * values become text through format.c.  Errors do not pass through
 * here: they always go to stderr with err(3).
 */
#include <sys/ioctl.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define JSON_LINE_MAX	1024	/* a start event, less the command */

static void
write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, s, len)) == -1) {
			if (errno == EINTR)
				continue;
			return;	/* nowhere left to complain to */
		}
		s += n;
		len -= (size_t)n;
	}
}

static void __printflike(2, 3)
text(struct log *lg, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", getprogname());
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strlcat(line, "\n", sizeof(line));
	write_all(lg->fd, line, strlen(line));
}

static void
attempt_name(const struct log *lg, long long k, char *buf, size_t len)
{
	if (lg->max == 0)
		snprintf(buf, len, "%lld/inf", k);
	else
		snprintf(buf, len, "%lld/%lld", k, lg->max);
}

void
log_open(struct log *lg, const struct config *cfg)
{
	memset(lg, 0, sizeof(*lg));
	lg->fd = STDERR_FILENO;
	lg->format = cfg->log_format;
	lg->verbosity = cfg->verbosity;
	lg->max = cfg->attempts;
	lg->http = cfg->http_file != NULL;
	lg->server = -1;
	if (cfg->log_file != NULL && (lg->fd = fd_above_stdio(open(
	    cfg->log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0666))) == -1)
		err(EXIT_CANCELED, "--log-file %s", cfg->log_file);
	lg->countdown = lg->format == LOG_TEXT && lg->verbosity >= 0 &&
	    isatty(lg->fd);
}

/*
 * The length of the well-formed UTF-8 sequence at p, or 0: no overlong
 * form, no surrogate, nothing above U+10FFFF (RFC 3629), which a strict
 * JSON parser would reject.
 */
static size_t
utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (*p >= 0xc2 && *p <= 0xdf)
		need = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		need = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		need = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

/* Appends n bytes at *at, when they fit with the final NUL. */
static void
json_append(char *buf, size_t len, size_t *at, const void *s, size_t n)
{
	if (*at + n < len) {
		memcpy(buf + *at, s, n);
		*at += n;
		buf[*at] = '\0';
	}
}

/*
 * JSON: a string with every control character escaped and each byte of
 * bad UTF-8 replaced by U+FFFD.  The end of buf is tracked, not searched:
 * a long command line stays linear.
 */
static void
json_string(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = strlen(buf), n;

	json_append(buf, len, &at, "\"", 1);
	for (; *p != '\0'; p += n) {
		char esc[8] = "";

		n = 1;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		else if (*p >= 0x80 && (n = utf8_len(p)) == 0) {
			snprintf(esc, sizeof(esc), "\\ufffd");
			n = 1;
		}
		if (*esc != '\0')
			json_append(buf, len, &at, esc, strlen(esc));
		else
			json_append(buf, len, &at, p, n);
	}
	json_append(buf, len, &at, "\"", 1);
}

/* Starts a JSON event line with its name and the time since the start. */
static void
json_begin(struct log *lg, char *buf, size_t len, const char *event)
{
	char t[32];

	format_seconds(t, sizeof(t), lg->t0 ? mono_now() - lg->t0 : 0);
	snprintf(buf, len, "{\"event\":\"%s\",\"time\":%s", event, t);
}

static void __printflike(3, 4)
json_field(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

static void
json_end(struct log *lg, char *buf, size_t len)
{
	strlcat(buf, "}\n", len);
	write_all(lg->fd, buf, strlen(buf));
}

static void
json_seconds(char *buf, size_t len, const char *name, nsec_t ns)
{
	char v[32];

	if (ns == NSEC_INF)
		json_field(buf, len, ",\"%s\":null", name);
	else {
		format_seconds(v, sizeof(v), ns);
		json_field(buf, len, ",\"%s\":%s", name, v);
	}
}

/* Room for the start event: every byte of the command may become \uXXXX. */
static size_t
start_event_size(char **argv)
{
	size_t n = JSON_LINE_MAX;

	for (; *argv != NULL; argv++)
		n += strlen(*argv) * 6 + 3;
	return n;
}

/* The run starts; its times count from t0. */
void
log_start(struct log *lg, const struct config *cfg, nsec_t t0)
{
	char *buf, jit[64];
	char **a;
	size_t size;

	lg->t0 = t0;
	if (lg->format != LOG_JSON)
		return;
	size = start_event_size(cfg->argv);
	if ((buf = malloc(size)) == NULL)
		err(EXIT_CANCELED, NULL);
	json_begin(lg, buf, size, "start");
	json_field(buf, size, ",\"command\":[");
	for (a = cfg->argv; *a != NULL; a++) {
		if (a != cfg->argv)
			strlcat(buf, ",", size);
		json_string(buf, size, *a);
	}
	strlcat(buf, "]", size);
	if (cfg->attempts == 0)
		json_field(buf, size, ",\"attempts\":null");
	else
		json_field(buf, size, ",\"attempts\":%lld",
		    cfg->attempts);
	json_seconds(buf, size, "base", cfg->sched.base);
	json_field(buf, size, ",\"factor\":%.17g", cfg->sched.factor);
	json_seconds(buf, size, "cap", cfg->sched.cap);
	json_field(buf, size, ",\"jitter\":");
	json_string(buf, size, format_jitter(&cfg->sched.jitter, jit,
	    sizeof(jit)));
	json_seconds(buf, size, "timeout",
	    cfg->timeout ? cfg->timeout : NSEC_INF);
	json_seconds(buf, size, "max_time",
	    cfg->max_time ? cfg->max_time : NSEC_INF);
	json_end(lg, buf, size);
	free(buf);
}

void
log_attempt_start(struct log *lg, long long k)
{
	char buf[256], name[48];

	if (lg->format == LOG_JSON) {
		json_begin(lg, buf, sizeof(buf), "attempt_start");
		json_field(buf, sizeof(buf), ",\"attempt\":%lld", k);
		json_end(lg, buf, sizeof(buf));
	} else if (lg->verbosity > 0) {
		attempt_name(lg, k, name, sizeof(name));
		text(lg, "attempt %s starting", name);
	}
}

static const char *
outcome_kind_name(const struct outcome *o)
{
	static const char *const names[] = {
		[OUT_EXIT] = "exit",
		[OUT_SIGNAL] = "signal",
		[OUT_TIMEOUT] = "timeout",
		[OUT_NOEXEC] = "noexec",
	};

	return names[o->kind];
}

void
log_attempt_end(struct log *lg, long long k, const struct outcome *o)
{
	char buf[512], name[48], what[64], d[32], sig[16];

	if (lg->format == LOG_JSON) {
		format_seconds(d, sizeof(d), o->duration);
		json_begin(lg, buf, sizeof(buf), "attempt_end");
		json_field(buf, sizeof(buf), ",\"attempt\":%lld,\"outcome\":"
		    "\"%s\"", k, outcome_kind_name(o));
		if (o->kind == OUT_SIGNAL)
			json_field(buf, sizeof(buf), ",\"value\":\"%s\"",
			    sig_name(o->value, sig, sizeof(sig)));
		else
			json_field(buf, sizeof(buf), ",\"value\":%d",
			    o->value);
		json_field(buf, sizeof(buf), ",\"status\":%d,\"duration\":%s",
		    outcome_status(o), d);
		if (o->matched_text != NULL) {
			json_field(buf, sizeof(buf), ",\"output_matched\":");
			json_string(buf, sizeof(buf), o->matched_text);
		}
		if (lg->http && o->http_status != 0)
			json_field(buf, sizeof(buf), ",\"http_status\":%d",
			    o->http_status);
		else if (lg->http)
			json_field(buf, sizeof(buf), ",\"http_status\":null");
		json_end(lg, buf, sizeof(buf));
	} else if (lg->verbosity > 0) {
		attempt_name(lg, k, name, sizeof(name));
		format_outcome(what, sizeof(what), o);
		format_ms(d, sizeof(d), o->duration);
		text(lg, "attempt %s ended after %ss: %s", name, d, what);
	}
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
	char buf[512], name[48], what[64], d[32], jit[64];
	const char *ra = lg->retry_after;
	nsec_t server = lg->server;

	log_server_delay(lg, NULL, -1);	/* for this sleep only */
	if (lg->format == LOG_JSON) {
		json_begin(lg, buf, sizeof(buf), "sleep");
		json_field(buf, sizeof(buf), ",\"attempt\":%lld", k);
		json_seconds(buf, sizeof(buf), "seconds", sleep);
		json_seconds(buf, sizeof(buf), "window", window);
		json_field(buf, sizeof(buf), ",\"jitter\":");
		json_string(buf, sizeof(buf), format_jitter(jitter, jit,
		    sizeof(jit)));
		if (lg->http)
			json_seconds(buf, sizeof(buf), "retry_after",
			    server >= 0 ? server : NSEC_INF);
		json_end(lg, buf, sizeof(buf));
		return;
	}
	if (lg->verbosity < 0)
		return;
	attempt_name(lg, k, name, sizeof(name));
	format_outcome(what, sizeof(what), o);
	format_ms(d, sizeof(d), sleep);
	snprintf(lg->status, sizeof(lg->status), "%s: attempt %s failed (%s)",
	    getprogname(), name, what);
	snprintf(lg->plain, sizeof(lg->plain), "%s, next in %ss%s%s%s\n",
	    lg->status, d, ra != NULL ? " (Retry-After: " : "",
	    ra != NULL ? ra : "", ra != NULL ? ")" : "");
	if (!lg->countdown)
		write_all(lg->fd, lg->plain, strlen(lg->plain));
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
	write_all(lg->fd, line, len);
	lg->line_open = true;
}

void
log_sleep_done(struct log *lg)
{
	if (lg->line_open)
		write_all(lg->fd, "\r\033[K", 4);
	/* Also after a sleep too short for a single redraw. */
	if (lg->countdown)
		write_all(lg->fd, lg->plain, strlen(lg->plain));
	lg->line_open = false;
}

/*
 * The end of the run; reason is NULL on success.  status is what retry
 * exits with: 1, not the command's 0, when it gives up.
 */
void
log_finish(struct log *lg, long long k, const struct outcome *o,
    const char *reason, int status)
{
	char buf[512], what[64], d[32];
	nsec_t elapsed = mono_now() - lg->t0;

	if (lg->format == LOG_JSON) {
		format_seconds(d, sizeof(d), elapsed);
		json_begin(lg, buf, sizeof(buf), "summary");
		json_field(buf, sizeof(buf), ",\"attempts\":%lld,"
		    "\"elapsed\":%s,\"status\":%d,\"reason\":", k, d, status);
		json_string(buf, sizeof(buf), reason ? reason : "success");
		json_end(lg, buf, sizeof(buf));
		return;
	}
	format_outcome(what, sizeof(what), o);
	format_ms(d, sizeof(d), elapsed);
	if (reason != NULL && lg->verbosity >= 0 &&
	    status != outcome_status(o))
		text(lg, "giving up after %lld attempt%s in %ss: %s (%s; "
		    "exiting %d)", k, k == 1 ? "" : "s", d, what, reason,
		    status);
	else if (reason != NULL && lg->verbosity >= 0)
		text(lg, "giving up after %lld attempt%s in %ss: %s (%s)", k,
		    k == 1 ? "" : "s", d, what, reason);
	else if (reason == NULL && lg->verbosity > 0)
		text(lg, "succeeded on attempt %lld after %ss", k, d);
}

/* Something of attempt k that only -v reports, such as an ignored field. */
void
log_note(struct log *lg, long long k, const char *fmt, ...)
{
	char msg[256], name[48];
	va_list ap;

	if (lg->format != LOG_TEXT || lg->verbosity <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	attempt_name(lg, k, name, sizeof(name));
	text(lg, "attempt %s: %s", name, msg);
}

/*
 * A stop signal ended the run during or after attempt k (0: during the
 * splay); retry exits with status.  Text mode stays quiet, as a killed
 * command would; JSON gets its summary.
 */
void
log_stopped(struct log *lg, long long k, int sig, int status)
{
	char buf[256], d[32], name[16], reason[32];

	if (lg->format != LOG_JSON)
		return;
	format_seconds(d, sizeof(d), lg->t0 ? mono_now() - lg->t0 : 0);
	snprintf(reason, sizeof(reason), "signal %s",
	    sig_name(sig, name, sizeof(name)));
	json_begin(lg, buf, sizeof(buf), "summary");
	json_field(buf, sizeof(buf), ",\"attempts\":%lld,\"elapsed\":%s,"
	    "\"status\":%d,\"reason\":", k, d, status);
	json_string(buf, sizeof(buf), reason);
	json_end(lg, buf, sizeof(buf));
}

/*
 * The breaker kept the command from starting: wait is the time until
 * the next probe, or -1 while a probe is under way (JSON: null).
 */
void
log_breaker_open(struct log *lg, const char *name, nsec_t wait)
{
	char buf[512], d[32], reason[GUARD_NAME_MAX + 32];

	snprintf(reason, sizeof(reason), "circuit breaker '%s' is open", name);
	if (lg->format == LOG_JSON) {
		json_begin(lg, buf, sizeof(buf), "summary");
		json_field(buf, sizeof(buf), ",\"attempts\":0,\"elapsed\":0.000,"
		    "\"status\":%d,\"reason\":", EXIT_TEMPFAIL);
		json_string(buf, sizeof(buf), reason);
		json_seconds(buf, sizeof(buf), "next_probe", wait >= 0 ? wait :
		    NSEC_INF);
		json_end(lg, buf, sizeof(buf));
	} else if (lg->verbosity >= 0 && wait >= 0) {
		format_ms(d, sizeof(d), wait);
		text(lg, "%s: not running the command; next probe in %ss",
		    reason, d);
	} else if (lg->verbosity >= 0)
		text(lg, "%s: not running the command; a probe run is under "
		    "way", reason);
}
