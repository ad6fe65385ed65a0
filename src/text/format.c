/*
 * format.c: values as text.  Durations in seconds (exact for the dry run
 * and the JSON log, to the millisecond for messages), wall-clock times
 * for the logs' timestamps, outcomes as the messages name them, and
 * jitter modes as --jitter spells them, so that the parser, the log and
 * the dry run all say a value the same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "os/defs.h"
#include "os/signals.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "format.h"

/* Seconds with at least 3 decimals, more when they are not zero. */
int
format_seconds(char *buf, size_t len, nsec_t ns)
{
	char frac[16];
	int n = 9;

	if (ns == NSEC_INF)
		return snprintf(buf, len, "inf");
	snprintf(frac, sizeof(frac), "%09" PRId64, ns % NSEC_PER_SEC);
	while (n > 3 && frac[n - 1] == '0')
		n--;
	return snprintf(buf, len, "%" PRId64 ".%.*s", ns / NSEC_PER_SEC, n,
	    frac);
}

/*
 * Seconds with exactly digits decimals, 3 or 9, for columns and JSON
 * numbers that must all look alike: exact with 9, and with 3 for a whole
 * number of milliseconds, which is what callers pass it.
 */
int
format_fixed(char *buf, size_t len, nsec_t ns, int digits)
{
	char frac[16];

	if (ns == NSEC_INF)
		return snprintf(buf, len, "inf");
	snprintf(frac, sizeof(frac), "%09" PRId64, ns % NSEC_PER_SEC);
	return snprintf(buf, len, "%" PRId64 ".%.*s", ns / NSEC_PER_SEC,
	    digits, frac);
}

/* Splits a wall-clock time into seconds and milliseconds, rounding down. */
static time_t
wall_split(nsec_t wall, int *ms)
{
	nsec_t sec = wall / NSEC_PER_SEC, rem = wall % NSEC_PER_SEC;

	if (rem < 0) {
		rem += NSEC_PER_SEC;
		sec--;
	}
	*ms = (int)(rem / NSEC_PER_MSEC);
	return (time_t)sec;
}

/* RFC 3339 in UTC with milliseconds: 2026-11-23T04:12:09.123Z. */
int
format_utc(char *buf, size_t len, nsec_t wall)
{
	struct tm tm;
	char date[32];
	time_t t;
	int ms;

	t = wall_split(wall, &ms);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return snprintf(buf, len, "?");
	return snprintf(buf, len, "%s.%03dZ", date, ms);
}

/*
 * ISO 8601 in local time with milliseconds and the offset as RFC 3339
 * writes it, with a colon: 2026-11-23T04:12:09.123+01:00.
 */
int
format_local(char *buf, size_t len, nsec_t wall)
{
	struct tm tm;
	char date[32], zone[8];
	time_t t;
	int ms;

	t = wall_split(wall, &ms);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) == 0 ||
	    strftime(zone, sizeof(zone), "%z", &tm) != 5)
		return snprintf(buf, len, "?");
	return snprintf(buf, len, "%s.%03d%.3s:%s", date, ms, zone, zone + 3);
}

/* Seconds rounded to the millisecond, for messages. */
int
format_ms(char *buf, size_t len, nsec_t ns)
{
	long long ms = (long long)((ns + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC);

	return snprintf(buf, len, "%lld.%03lld", ms / 1000, ms % 1000);
}

/* Seconds without trailing zeros, as an option would spell them: 60, 1.5. */
int
format_short(char *buf, size_t len, nsec_t ns)
{
	char s[32];
	size_t n;

	format_seconds(s, sizeof(s), ns);
	n = strlen(s);
	while (n > 0 && s[n - 1] == '0')
		n--;
	if (n > 0 && s[n - 1] == '.')
		n--;
	return snprintf(buf, len, "%.*s", (int)n, s);
}

/*
 * A duration in its largest whole unit, as a user would write it: "5m",
 * "90s", "1.5s", "250ms".
 */
int
format_span(char *buf, size_t len, nsec_t ns)
{
	static const struct {
		nsec_t		 unit;
		const char	*name;
	} units[] = {
		{ 86400 * NSEC_PER_SEC, "d" }, { 3600 * NSEC_PER_SEC, "h" },
		{ 60 * NSEC_PER_SEC, "m" }, { NSEC_PER_SEC, "s" },
		{ NSEC_PER_MSEC, "ms" },
	};
	char s[32];
	size_t i;

	if (ns == 0)
		return snprintf(buf, len, "0");
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].unit && ns % units[i].unit == 0 &&
		    (ns < NSEC_PER_SEC || units[i].unit >= NSEC_PER_SEC))
			return snprintf(buf, len, "%lld%s",
			    (long long)(ns / units[i].unit), units[i].name);
	format_short(s, sizeof(s), ns);
	return snprintf(buf, len, "%ss", s);
}

/*
 * "exit 3", "signal TERM", "timed out", with the output condition: the
 * outcome without the HTTP status.
 */
static int
format_plain_outcome(char *buf, size_t len, const struct outcome *o)
{
	char name[16], span[40];
	int n;

	switch (o->kind) {
	case OUT_SIGNAL:
		n = snprintf(buf, len, "signal %s",
		    sig_name(o->value, name, sizeof(name)));
		break;
	case OUT_TIMEOUT:
		n = snprintf(buf, len, o->value == EXIT_KILLED ?
		    "timed out, killed" : "timed out");
		if (o->stalled != 0 && n >= 0) {
			format_span(span, sizeof(span), o->stalled);
			n += snprintf((size_t)n < len ? buf + n : NULL,
			    (size_t)n < len ? len - (size_t)n : 0,
			    ": no output for %s", span);
		}
		break;
	default:
		n = snprintf(buf, len, "exit %d", o->value);
		break;
	}
	/* The whole length even when cut, so that a caller can size buf. */
	if (o->matched_text != NULL && n >= 0)
		n += snprintf((size_t)n < len ? buf + n : NULL,
		    (size_t)n < len ? len - (size_t)n : 0,
		    ", output matched '%s'", o->matched_text);
	return n;
}

/*
 * The outcome; with an HTTP response first, "HTTP 503, exit 22", or
 * "HTTP 503" alone when the command exited 0 and nothing more is said.
 */
int
format_outcome(char *buf, size_t len, const struct outcome *o)
{
	int n = 0;

	if (o->http_status != 0) {
		if (o->kind == OUT_EXIT && o->value == 0 &&
		    o->matched_text == NULL)
			return snprintf(buf, len, "HTTP %d", o->http_status);
		n = snprintf(buf, len, "HTTP %d, ", o->http_status);
		if (n < 0)
			return n;
		buf = (size_t)n < len ? buf + n : NULL;
		len = (size_t)n < len ? len - (size_t)n : 0;
	}
	return n + format_plain_outcome(buf, len, o);
}

const char *
format_jitter(const struct jitter *j, char *buf, size_t len)
{
	static const char *const names[] = {
		[JITTER_NONE] = "none",
		[JITTER_FULL] = "full",
		[JITTER_EQUAL] = "equal",
		[JITTER_DECORRELATED] = "decorrelated",
	};
	char d[32];

	switch (j->kind) {
	case JITTER_RANGE:
		snprintf(buf, len, "%g..%g", j->lo, j->hi);
		return buf;
	case JITTER_ADD:
		format_seconds(d, sizeof(d), j->add);
		snprintf(buf, len, "+%ss", d);
		return buf;
	case JITTER_STEPS:
		format_seconds(d, sizeof(d), j->add);
		if (j->lo == 0)
			snprintf(buf, len, "full, in steps of %ss", d);
		else
			snprintf(buf, len, "%g..%g, in steps of %ss", j->lo,
			    j->lo + 1, d);
		return buf;
	default:
		return names[j->kind];
	}
}
