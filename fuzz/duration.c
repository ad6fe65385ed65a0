/*
 * duration.c: libFuzzer harness for parse_duration().
 *
 * Properties: a parsed value lies in [0, 100 years]; "inf" is the only
 * difference that allow_inf makes; a value printed by format_seconds()
 * with an "s" appended parses back to itself; "0s" in front of a compound
 * that ends in a unit adds nothing.  An independent oracle, built on
 * strtold(), says which inputs are well-formed and what they are worth
 * to within a nanosecond per term, and so which ones must be accepted.
 */
#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"

struct ref_unit {
	const char	*name;
	long double	 ns;
};

static const struct ref_unit ref_units[] = {
	{ "ns", 1 }, { "us", 1e3L }, { "ms", 1e6L }, { "s", 1e9L },
	{ "m", 60e9L }, { "h", 3600e9L }, { "d", 86400e9L },
};

/* The worth of one unit name of len letters, or 0 if there is none. */
static long double
ref_unit(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(ref_units) / sizeof(ref_units[0]); i++)
		if (strlen(ref_units[i].name) == len &&
		    strncmp(ref_units[i].name, s, len) == 0)
			return ref_units[i].ns;
	return 0;
}

/*
 * The oracle: whether s is well-formed (the grammar of the contract
 * notes), its worth in nanoseconds and its number of terms.
 */
static bool
ref_duration(const char *s, long double *worth, int *terms)
{
	const char *num, *unit;
	long double u, sum = 0;
	int n = 0;

	if (*s == '\0')
		return false;
	while (*s != '\0') {
		num = s;
		/* ".5" as timeout(1) takes it: a fraction alone. */
		if (!isdigit((unsigned char)*s) && (*s != '.' ||
		    !isdigit((unsigned char)s[1])))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s == '.') {
			if (!isdigit((unsigned char)*++s))
				return false;
			while (isdigit((unsigned char)*s))
				s++;
		}
		unit = s;
		while (isalpha((unsigned char)*s))
			s++;
		if (s == unit)
			u = n == 0 && *s == '\0' ? 1e9L : 0;
		else
			u = ref_unit(unit, (size_t)(s - unit));
		if (u == 0)
			return false;
		sum += strtold(num, NULL) * u;
		n++;
	}
	*worth = sum;
	*terms = n;
	return true;
}

static void
check_round_trip(nsec_t v)
{
	char buf[48];
	nsec_t w = -1;
	int n;

	n = format_seconds(buf, sizeof(buf) - 1, v);
	CHECK(n > 0 && (size_t)n < sizeof(buf) - 1);
	strcat(buf, "s");
	CHECK(parse_duration(buf, &w, false) == NULL);
	CHECK(w == v);
}

static void
check_oracle(const char *s, const char *why, nsec_t v)
{
	long double worth, max = (long double)DURATION_MAX;
	int terms;

	if (!ref_duration(s, &worth, &terms)) {
		CHECK(why != NULL);
		return;
	}
	if (why == NULL) {
		CHECK(worth <= max + terms);
		CHECK((long double)v >= worth - terms);
		CHECK((long double)v <= worth + terms);
	} else
		CHECK(worth > max - terms);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *z;
	const char *why, *why_inf;
	nsec_t v = -1, v_inf = -1, w = -1;

	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	why = parse_duration(s, &v, false);
	why_inf = parse_duration(s, &v_inf, true);
	check_oracle(s, why, v);
	if (strcmp(s, "inf") == 0) {
		CHECK(why != NULL && why_inf == NULL && v_inf == NSEC_INF);
	} else if (why != NULL) {
		CHECK(*why != '\0' && why_inf != NULL);
		CHECK(strcmp(why, why_inf) == 0);
	} else {
		CHECK(v >= 0 && v <= DURATION_MAX);
		CHECK(why_inf == NULL && v_inf == v);
		check_round_trip(v);
		if (isalpha((unsigned char)s[strlen(s) - 1])) {
			z = fuzz_concat("0s", s);
			CHECK(parse_duration(z, &w, false) == NULL && w == v);
			free(z);
		}
	}
	free(s);
	return 0;
}
