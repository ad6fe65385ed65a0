/*
 * format.c: values as text.  Durations in seconds (exact for the dry run
 * and the JSON log, to the millisecond for messages), wall-clock times
 * for the logs' timestamps, and spans as a person reads them, so that
 * the parser, the log and the dry run all say a value the same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "os/defs.h"
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
