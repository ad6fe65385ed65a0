/*
 * jsonlog.c: the JSON log, one object per line and per event, for a CI
 * system to parse.  log.c decides where it goes (--log-format=json's
 * sink, --json-log's file, or both) and calls here; this file owns the
 * events' fields and their form: every event has its name, ts, the wall
 * clock in RFC 3339 UTC with milliseconds, and time, the seconds since
 * the first attempt started; every duration is a number of seconds with
 * exactly 9 decimals, so that one field never mixes forms; strings are
 * escaped so that a strict parser accepts any byte a command line holds.
 */
#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define JSON_LINE_MAX	1024	/* a start event, less the command */
#define JSON_DIGITS	9	/* decimals of every number of seconds */

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
 * A JSON string with every control character escaped and each byte of
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

static void __printflike(3, 4)
json_field(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

/* A duration in seconds; NSEC_INF, "none", is null. */
static void
json_seconds(char *buf, size_t len, const char *name, nsec_t ns)
{
	char v[32];

	if (ns == NSEC_INF)
		json_field(buf, len, ",\"%s\":null", name);
	else {
		format_fixed(v, sizeof(v), ns, JSON_DIGITS);
		json_field(buf, len, ",\"%s\":%s", name, v);
	}
}

/* Starts an event line with its name, the wall clock and the run's time. */
static void
json_begin(const struct jsonlog *jl, char *buf, size_t len,
    const char *event)
{
	char ts[40];

	format_utc(ts, sizeof(ts), wall_now());
	snprintf(buf, len, "{\"event\":\"%s\",\"ts\":\"%s\"", event, ts);
	json_seconds(buf, len, "time", jl->t0 ? mono_now() - jl->t0 : 0);
}

/* Ends the line and writes it to every sink. */
static void
json_end(const struct jsonlog *jl, char *buf, size_t len)
{
	int i;

	strlcat(buf, "}\n", len);
	for (i = 0; i < jl->nfd; i++)
		fd_write_all(jl->fd[i], buf, strlen(buf));
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

/* The run starts: the command and the options that shape it. */
void
jsonlog_start(const struct jsonlog *jl, const struct config *cfg)
{
	char *buf, jit[64];
	char **a;
	size_t size;

	if (jl->nfd == 0)
		return;
	size = start_event_size(cfg->argv);
	if ((buf = malloc(size)) == NULL)
		err(EXIT_CANCELED, NULL);
	json_begin(jl, buf, size, "start");
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
		json_field(buf, size, ",\"attempts\":%lld", cfg->attempts);
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
	json_end(jl, buf, size);
	free(buf);
}

void
jsonlog_attempt_start(const struct jsonlog *jl, long long k)
{
	char buf[256];

	if (jl->nfd == 0)
		return;
	json_begin(jl, buf, sizeof(buf), "attempt_start");
	json_field(buf, sizeof(buf), ",\"attempt\":%lld", k);
	json_end(jl, buf, sizeof(buf));
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
jsonlog_attempt_end(const struct jsonlog *jl, long long k,
    const struct outcome *o)
{
	char buf[512], sig[16];

	if (jl->nfd == 0)
		return;
	json_begin(jl, buf, sizeof(buf), "attempt_end");
	json_field(buf, sizeof(buf), ",\"attempt\":%lld,\"outcome\":\"%s\"",
	    k, outcome_kind_name(o));
	if (o->kind == OUT_SIGNAL)
		json_field(buf, sizeof(buf), ",\"value\":\"%s\"",
		    sig_name(o->value, sig, sizeof(sig)));
	else
		json_field(buf, sizeof(buf), ",\"value\":%d", o->value);
	json_field(buf, sizeof(buf), ",\"status\":%d", outcome_status(o));
	json_seconds(buf, sizeof(buf), "duration", o->duration);
	if (o->matched_text != NULL) {
		json_field(buf, sizeof(buf), ",\"output_matched\":");
		json_string(buf, sizeof(buf), o->matched_text);
	}
	if (jl->http && o->http_status != 0)
		json_field(buf, sizeof(buf), ",\"http_status\":%d",
		    o->http_status);
	else if (jl->http)
		json_field(buf, sizeof(buf), ",\"http_status\":null");
	json_end(jl, buf, sizeof(buf));
}

/*
 * Attempt k failed; the next one comes after sleep, drawn from window,
 * with the server's delay in it (--http), or -1.
 */
void
jsonlog_sleep(const struct jsonlog *jl, long long k, nsec_t sleep,
    nsec_t window, const struct jitter *jitter, nsec_t server)
{
	char buf[512], jit[64];

	if (jl->nfd == 0)
		return;
	json_begin(jl, buf, sizeof(buf), "sleep");
	json_field(buf, sizeof(buf), ",\"attempt\":%lld", k);
	json_seconds(buf, sizeof(buf), "seconds", sleep);
	json_seconds(buf, sizeof(buf), "window", window);
	json_field(buf, sizeof(buf), ",\"jitter\":");
	json_string(buf, sizeof(buf), format_jitter(jitter, jit, sizeof(jit)));
	if (jl->http)
		json_seconds(buf, sizeof(buf), "retry_after",
		    server >= 0 ? server : NSEC_INF);
	json_end(jl, buf, sizeof(buf));
}

/* The end of the run, after k attempts, and why. */
void
jsonlog_summary(const struct jsonlog *jl, long long k, nsec_t elapsed,
    int status, const char *reason)
{
	char buf[512];

	if (jl->nfd == 0)
		return;
	json_begin(jl, buf, sizeof(buf), "summary");
	json_field(buf, sizeof(buf), ",\"attempts\":%lld", k);
	json_seconds(buf, sizeof(buf), "elapsed", elapsed);
	json_field(buf, sizeof(buf), ",\"status\":%d,\"reason\":", status);
	json_string(buf, sizeof(buf), reason);
	json_end(jl, buf, sizeof(buf));
}

/*
 * The breaker kept the command from starting: the summary of a run of no
 * attempt, with the time until the next probe (null while one is under
 * way, wait < 0).
 */
void
jsonlog_breaker_open(const struct jsonlog *jl, const char *reason,
    nsec_t wait)
{
	char buf[512];

	if (jl->nfd == 0)
		return;
	json_begin(jl, buf, sizeof(buf), "summary");
	json_field(buf, sizeof(buf), ",\"attempts\":0");
	json_seconds(buf, sizeof(buf), "elapsed", 0);
	json_field(buf, sizeof(buf), ",\"status\":%d,\"reason\":",
	    EXIT_TEMPFAIL);
	json_string(buf, sizeof(buf), reason);
	json_seconds(buf, sizeof(buf), "next_probe", wait >= 0 ? wait :
	    NSEC_INF);
	json_end(jl, buf, sizeof(buf));
}

