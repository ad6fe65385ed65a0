/*
 * format.c: values as text.  Durations in seconds (exact for the dry run
 * and the JSON log, to the millisecond for messages), outcomes as the
 * messages name them, and jitter modes as --jitter spells them, so that
 * the parser, the log and the dry run all say a value the same way.
 */
#include <inttypes.h>
#include <stdio.h>

#include "internal.h"

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

/* Seconds rounded to the millisecond, for messages. */
int
format_ms(char *buf, size_t len, nsec_t ns)
{
	long long ms = (long long)((ns + NSEC_PER_MSEC / 2) / NSEC_PER_MSEC);

	return snprintf(buf, len, "%lld.%03lld", ms / 1000, ms % 1000);
}

/* "exit 3", "signal TERM", "timed out", with the output condition. */
int
format_outcome(char *buf, size_t len, const struct outcome *o)
{
	char name[16];
	int n;

	switch (o->kind) {
	case OUT_SIGNAL:
		n = snprintf(buf, len, "signal %s",
		    sig_name(o->value, name, sizeof(name)));
		break;
	case OUT_TIMEOUT:
		n = snprintf(buf, len, o->value == EXIT_KILLED ?
		    "timed out, killed" : "timed out");
		break;
	default:
		n = snprintf(buf, len, "exit %d", o->value);
		break;
	}
	if (o->matched_text != NULL && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
		    ", output matched '%s'", o->matched_text);
	return n;
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
	default:
		return names[j->kind];
	}
}
