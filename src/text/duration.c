/*
 * duration.c: DURATION, the text of every time value that retry takes: a
 * number with an optional unit, or number+unit terms such as 1m30s, to
 * whole nanoseconds.  The options' parser (cli/parse.c) and the
 * breaker's SPEC (guard/spec.c, cooldown=) read it alike.  Nothing here
 * exits or prints, so the fuzz harnesses can drive it directly.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "os/defs.h"
#include "duration.h"

#define MAX_FRACTION_DIGITS 24

struct unit {
	const char	*name;
	nsec_t		 ns;
};

static const struct unit units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
	{ "d", 86400 * NSEC_PER_SEC },
};

static const struct unit *
unit_lookup(const char **sp)
{
	const char *s = *sp;
	size_t len = 0, i;

	while (isalpha((unsigned char)s[len]))
		len++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].name) == len &&
		    strncmp(units[i].name, s, len) == 0) {
			*sp = s + len;
			return &units[i];
		}
	}
	return NULL;
}

/*
 * Rounds 0.<digits> * unit to the nearest nanosecond, halfway up, with
 * 64-bit integer arithmetic only.  Horner's rule from the last digit:
 * each step divides (unit * digit + carry) by 10, and the part dropped
 * below the nanosecond is less than one, so only the last step's
 * remainder decides the rounding: 5 or more of 10 is at least a half.
 * Every value stays below 10 * unit, far from 2^63.  Digits past the
 * 24th are dropped: with a unit below 10^14 ns they weigh less than
 * 10^-10 ns.
 */
static nsec_t
fraction_ns(const char *digits, size_t n, nsec_t unit)
{
	uint64_t q = 0, r = 0, v;
	size_t i = n < MAX_FRACTION_DIGITS ? n : MAX_FRACTION_DIGITS;

	while (i-- > 0) {
		v = (uint64_t)unit * (unsigned)(digits[i] - '0') + q;
		q = v / 10;
		r = v % 10;
	}
	return (nsec_t)(q + (r >= 5));
}

/* One number+unit term; *unitless tells whether the unit was omitted. */
static const char *
duration_term(const char **sp, nsec_t *out, bool *unitless)
{
	const char *s = *sp, *frac = NULL;
	const struct unit *u;
	unsigned long long whole = 0;
	size_t nfrac = 0;
	nsec_t ns;

	/* ".5", as timeout(1) and sleep(1) take it; "." alone is nothing. */
	if (!isdigit((unsigned char)*s) && (*s != '.' ||
	    !isdigit((unsigned char)s[1])))
		return "expected a number";
	for (; isdigit((unsigned char)*s); s++) {
		/* Checked before the multiplication, which must not wrap. */
		if (whole > (unsigned long long)DURATION_MAX / 10)
			return "too large (the limit is 100 years)";
		whole = whole * 10 + (unsigned)(*s - '0');
	}
	if (*s == '.') {
		frac = ++s;
		while (isdigit((unsigned char)*s))
			s++;
		nfrac = (size_t)(s - frac);
		if (nfrac == 0)
			return "expected digits after the decimal point";
	}
	*unitless = (*s == '\0');
	if (*unitless)
		u = &units[3];
	else if ((u = unit_lookup(&s)) == NULL)
		return "unknown unit (use ns, us, ms, s, m, h or d)";
	if (whole > (unsigned long long)(DURATION_MAX / u->ns))
		return "too large (the limit is 100 years)";
	ns = (nsec_t)whole * u->ns;
	if (frac != NULL)
		ns += fraction_ns(frac, nfrac, u->ns);
	/* 0 means none: a value above it is never rounded down to it. */
	if (ns == 0 && frac != NULL && strspn(frac, "0") < nfrac)
		ns = 1;
	*out = ns;
	*sp = s;
	return NULL;
}

/*
 * DURATION: a number with an optional unit, or a sequence of number+unit
 * terms such as 1m30s.  With allow_inf, "inf" means never (NSEC_INF).
 */
const char *
parse_duration(const char *s, nsec_t *out, bool allow_inf)
{
	const char *why;
	nsec_t total = 0, term;
	bool unitless, first = true;

	if (allow_inf && strcmp(s, "inf") == 0) {
		*out = NSEC_INF;
		return NULL;
	}
	if (*s == '\0')
		return "empty duration";
	if (*s == '-')
		return "negative duration";
	while (*s != '\0') {
		if ((why = duration_term(&s, &term, &unitless)) != NULL)
			return why;
		if (unitless && !first)
			return "a number inside a compound needs a unit";
		total += term;
		if (total > DURATION_MAX)
			return "too large (the limit is 100 years)";
		first = false;
	}
	*out = total;
	return NULL;
}
