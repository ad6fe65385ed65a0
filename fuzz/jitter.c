/*
 * jitter.c: libFuzzer harness for parse_jitter() and jitter_format().
 *
 * Properties: a mode name is accepted only as itself; +DURATION is
 * exactly what parse_duration() makes of DURATION; A..B is two finite
 * numbers, 0 <= A <= B, each what strtod() makes of it; jitter_format(),
 * which the JSON log prints, parses back to the same jitter (A..B to
 * the six digits of %g).  Every mode also drives a small schedule,
 * whose draws must stay inside the bounds the dry-run table shows.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz.h"

static const char *const modes[] = {
	"none", "full", "equal", "decorrelated"
};

static bool
close_enough(double a, double b)
{
	return fabs(a - b) <= 1e-5 * fmax(fabs(a), fabs(b)) + 1e-300;
}

static void
check_range(const char *s, const struct jitter *j)
{
	const char *dots = strstr(s, "..");

	CHECK(dots != NULL);
	CHECK(isfinite(j->lo) && isfinite(j->hi));
	CHECK(j->lo >= 0 && j->lo <= j->hi);
	CHECK(j->lo == strtod(s, NULL));
	CHECK(j->hi == strtod(dots + 2, NULL));
}

static void
check_name(const struct jitter *j)
{
	struct jitter back;
	char buf[64];
	const char *name;

	name = jitter_format(j, buf, sizeof(buf));
	CHECK(name != NULL && strlen(name) < sizeof(buf) - 1);
	memset(&back, 0, sizeof(back));
	CHECK(parse_jitter(name, &back) == NULL);
	CHECK(back.kind == j->kind && back.add == j->add);
	CHECK(close_enough(back.lo, j->lo) && close_enough(back.hi, j->hi));
}

/* A few draws with this jitter: each within backoff_bounds(). */
static void
check_schedule(const struct jitter *j, nsec_t base, nsec_t cap)
{
	struct schedule s;
	struct backoff b;
	nsec_t lo, hi, d;
	long long k;

	memset(&s, 0, sizeof(s));
	s.base = base;
	s.cap = cap;
	s.factor = 2;
	s.jitter = *j;
	backoff_init(&b, &s, true, (uint64_t)base);
	for (k = 1; k <= 8; k++) {
		backoff_bounds(&s, k, &lo, &hi);
		d = backoff_next(&b, k);
		CHECK(0 <= lo && lo <= hi && hi <= cap);
		CHECK(lo <= d && d <= hi);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jitter j;
	const char *why;
	char *s;
	nsec_t add = -1;
	size_t i;

	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	memset(&j, 0x5a, sizeof(j));
	why = parse_jitter(s, &j);
	CHECK(why == NULL || *why != '\0');
	if (why == NULL) {
		CHECK(j.kind >= JITTER_NONE && j.kind <= JITTER_ADD);
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			CHECK((strcmp(s, modes[i]) == 0) ==
			    ((size_t)j.kind == i));
		if (j.kind == JITTER_ADD)
			CHECK(parse_duration(s + 1, &add, false) == NULL &&
			    add == j.add && *s == '+');
		if (j.kind == JITTER_RANGE)
			check_range(s, &j);
		check_name(&j);
		check_schedule(&j, NSEC_PER_SEC, 60 * NSEC_PER_SEC);
		check_schedule(&j, 7, DURATION_MAX);
	} else if (*s == '+')
		CHECK(parse_duration(s + 1, &add, false) != NULL);
	free(s);
	return 0;
}
