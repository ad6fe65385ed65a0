/*
 * trace.c: W3C Trace Context passed through the environment, as
 * OpenTelemetry passes it to batch and command-line work: when retry's
 * own TRACEPARENT is valid, each attempt gets one with the same trace id
 * and flags and a span id of its own, drawn afresh for each attempt, so
 * that the attempts show as siblings under the caller's span.  A value
 * that is not valid is not used, and the attempts get it as it was;
 * TRACESTATE is never touched.  The span ids come from arc4random, the
 * source that seeds the backoff's draws, and not from --seed: two runs
 * with one seed must not share span ids, and drawing them from the
 * schedule's generator would change the sleeps a seeded dry run shows.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define TRACEPARENT_LEN	55	/* 00-<trace id>-<span id>-<flags> */

/* Whether s starts with n lowercase hex digits, not all of them zero. */
static bool
lowhex(const char *s, size_t n, bool zero_ok)
{
	bool zero = true;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return false;
		zero &= s[i] == '0';
	}
	return zero_ok || !zero;
}

/*
 * Whether v is a traceparent that retry can use, by the W3C rules:
 * version 00 is exactly 55 characters; a later version (not ff, which is
 * invalid) may be longer, with a '-' after the flags, and is read by its
 * first four fields, which every version keeps.  Upper case is refused.
 */
static bool
valid(const char *v)
{
	size_t len = strnlen(v, TRACEPARENT_LEN + 1);

	if (len < TRACEPARENT_LEN || !lowhex(v, 2, true) ||
	    strncmp(v, "ff", 2) == 0)
		return false;
	if (strncmp(v, "00", 2) == 0 ? len != TRACEPARENT_LEN :
	    len > TRACEPARENT_LEN && v[TRACEPARENT_LEN] != '-')
		return false;
	return v[2] == '-' && lowhex(v + 3, TRACE_ID_LEN, false) &&
	    v[35] == '-' && lowhex(v + 36, SPAN_ID_LEN, false) &&
	    v[52] == '-' && lowhex(v + 53, 2, true);
}

/*
 * Reads value, retry's TRACEPARENT or NULL: whether the attempts get
 * their own.  They are given version 00, the version written here,
 * whatever version came in.
 */
bool
trace_init(struct trace *t, const char *value)
{
	/* Nothing else is cleared: every run starts here, most untraced. */
	t->on = false;
	if (value == NULL || !valid(value))
		return false;
	snprintf(t->var, sizeof(t->var), "TRACEPARENT=00-%.*s",
	    TRACEPARENT_LEN - 3, value + 3);
	return t->on = true;
}

/* A new span id for the next attempt, into its TRACEPARENT. */
void
trace_next_span(struct trace *t)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t id;
	int i;

	if (!t->on)
		return;
	do
		arc4random_buf(&id, sizeof(id));
	while (id == 0);
	for (i = SPAN_ID_LEN - 1; i >= 0; i--, id >>= 4)
		t->var[SPAN_ID_AT + i] = hex[id & 0xf];
}
