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

#include "os/clock.h"
#include "os/defs.h"
#include "os/signals.h"
#include "os/trace.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "text/escape.h"
#include "text/format.h"
#include "errout.h"
#include "jsonlog.h"

#define JSON_DIGITS	9	/* decimals of every number of seconds */

/* A duration in seconds; NSEC_INF, "none", is null. */
static void
json_seconds(struct strbuf *buf, const char *name, nsec_t ns)
{
	char v[32];

	if (ns == NSEC_INF)
		sb_printf(buf, ",\"%s\":null", name);
	else {
		format_fixed(v, sizeof(v), ns, JSON_DIGITS);
		sb_printf(buf, ",\"%s\":%s", name, v);
	}
}

/* Starts an event line with its name, the wall clock and the run's time. */
static void
json_begin(const struct jsonlog *jl, struct strbuf *buf, const char *event)
{
	char ts[40];

	format_utc(ts, sizeof(ts), wall_now());
	sb_printf(buf, "{\"event\":\"%s\",\"ts\":\"%s\"", event, ts);
	json_seconds(buf, "time", jl->t0 ? mono_now() - jl->t0 : 0);
}

/* Ends the line, which grew as it had to, and writes it to every sink. */
static void
json_end(const struct jsonlog *jl, struct strbuf *buf)
{
	int i;

	sb_str(buf, "}\n");
	for (i = 0; i < jl->nfd; i++)
		errout_write(jl->out, jl->fd[i], buf->s, buf->len);
	sb_free(buf);
}

/* The run starts: the command and the options that shape it. */
void
jsonlog_start(const struct jsonlog *jl, const struct log_run *run)
{
	struct strbuf buf = { 0 };
	char jit[64];
	char **a;

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "start");
	sb_printf(&buf, ",\"command\":[");
	for (a = run->argv; *a != NULL; a++) {
		if (a != run->argv)
			sb_str(&buf, ",");
		sb_json(&buf, *a);
	}
	sb_str(&buf, "]");
	if (run->attempts == 0)
		sb_printf(&buf, ",\"attempts\":null");
	else
		sb_printf(&buf, ",\"attempts\":%lld", run->attempts);
	json_seconds(&buf, "base", run->sched->base);
	sb_printf(&buf, ",\"factor\":%.17g", run->sched->factor);
	json_seconds(&buf, "cap", run->sched->cap);
	sb_printf(&buf, ",\"jitter\":");
	sb_json(&buf, jitter_format(&run->sched->jitter, jit,
	    sizeof(jit)));
	json_seconds(&buf, "timeout",
	    run->timeout ? run->timeout : NSEC_INF);
	json_seconds(&buf, "max_time",
	    run->max_time ? run->max_time : NSEC_INF);
	if (run->stall != 0)	/* the form is unchanged without it */
		json_seconds(&buf, "stall_timeout", run->stall);
	if (run->sched->splay > 0) {	/* nor without --splay */
		json_seconds(&buf, "splay", run->splay);
		json_seconds(&buf, "splay_max", run->sched->splay);
	}
	json_end(jl, &buf);
}

/* The attempt's span, when retry's TRACEPARENT was valid. */
static void
json_trace(const struct jsonlog *jl, struct strbuf *buf)
{
	if (jl->trace != NULL && jl->trace->on)
		sb_printf(buf, ",\"trace_id\":\"%.*s\",\"span_id\":\"%.*s\"",
		    TRACE_ID_LEN, jl->trace->var + TRACE_ID_AT, SPAN_ID_LEN,
		    jl->trace->var + SPAN_ID_AT);
}

void
jsonlog_attempt_start(const struct jsonlog *jl, long long k)
{
	struct strbuf buf = { 0 };

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "attempt_start");
	sb_printf(&buf, ",\"attempt\":%lld", k);
	json_trace(jl, &buf);
	json_end(jl, &buf);
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
	struct strbuf buf = { 0 };
	char sig[16];

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "attempt_end");
	sb_printf(&buf, ",\"attempt\":%lld,\"outcome\":\"%s\"",
	    k, outcome_kind_name(o));
	if (o->kind == OUT_SIGNAL)
		sb_printf(&buf, ",\"value\":\"%s\"",
		    sig_name(o->value, sig, sizeof(sig)));
	else
		sb_printf(&buf, ",\"value\":%d", o->value);
	sb_printf(&buf, ",\"status\":%d", outcome_status(o));
	json_seconds(&buf, "duration", o->duration);
	if (o->stalled != 0)	/* timed out after no output for this long */
		json_seconds(&buf, "no_output_for", o->stalled);
	if (o->matched_text != NULL) {
		sb_printf(&buf, ",\"output_matched\":");
		sb_json(&buf, o->matched_text);
	}
	if (jl->http && o->http_status != 0)
		sb_printf(&buf, ",\"http_status\":%d",
		    o->http_status);
	else if (jl->http)
		sb_printf(&buf, ",\"http_status\":null");
	json_trace(jl, &buf);
	json_end(jl, &buf);
}

/*
 * Attempt k failed; the next one comes after sleep, drawn from window,
 * with the server's delay in it (--http), or -1.
 */
void
jsonlog_sleep(const struct jsonlog *jl, long long k, nsec_t sleep,
    nsec_t window, const struct jitter *jitter, nsec_t server)
{
	struct strbuf buf = { 0 };
	char jit[64];

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "sleep");
	sb_printf(&buf, ",\"attempt\":%lld", k);
	json_seconds(&buf, "seconds", sleep);
	json_seconds(&buf, "window", window);
	sb_printf(&buf, ",\"jitter\":");
	sb_json(&buf, jitter_format(jitter, jit, sizeof(jit)));
	if (jl->http)
		json_seconds(&buf, "retry_after",
		    server >= 0 ? server : NSEC_INF);
	json_end(jl, &buf);
}

/* The end of the run, after k attempts, and why. */
void
jsonlog_summary(const struct jsonlog *jl, long long k, nsec_t elapsed,
    int status, int exit, const char *reason)
{
	struct strbuf buf = { 0 };

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "summary");
	sb_printf(&buf, ",\"attempts\":%lld", k);
	json_seconds(&buf, "elapsed", elapsed);
	sb_printf(&buf, ",\"status\":%d,\"reason\":", status);
	sb_json(&buf, reason);
	/* --exhausted-status: what retry exits with, status kept. */
	if (exit >= 0 && exit != status)
		sb_printf(&buf, ",\"exit\":%d", exit);
	json_end(jl, &buf);
}

/*
 * The breaker kept the command from starting: the summary of a run of no
 * attempt, with the time until the next probe (null while one is under
 * way, wait < 0).
 */
void
jsonlog_breaker_open(const struct jsonlog *jl, const char *reason,
    nsec_t wait, int status)
{
	struct strbuf buf = { 0 };

	if (jl->nfd == 0)
		return;
	json_begin(jl, &buf, "summary");
	sb_printf(&buf, ",\"attempts\":0");
	json_seconds(&buf, "elapsed", 0);
	sb_printf(&buf, ",\"status\":%d,\"reason\":", status);
	sb_json(&buf, reason);
	json_seconds(&buf, "next_probe", wait >= 0 ? wait :
	    NSEC_INF);
	json_end(jl, &buf);
}

