/*
 * guard.c: libFuzzer harness for --budget and --breaker: the parsers of
 * their SPEC (spec.c) and the state record with the rules that change
 * it (budget.c).  The first byte picks which; the rest is the input.
 *
 * Properties of a SPEC: parse_budget() and parse_breaker() are
 * deterministic; what they accept has a NAME of 1 to 64 allowed
 * characters that does not start with '.', parameters within their
 * documented ranges, and a port from 1 to 65535 when a host is given
 * (0 for a Unix socket's path); guard_target() writes the store as a URL
 * that parses back to the same server, database, user and NAME.
 *
 * Properties of a record: record_parse() accepts only what
 * record_format() writes, byte for byte; every rule, applied to a record
 * that parsed (or a fresh one) with parameters drawn from the input,
 * leaves a record that formats and parses back to itself; the bucket
 * stays between empty and full and answers "retry" exactly when it holds
 * more than half; a closed breaker admits and changes nothing; a probe
 * is claimed with this run's id and a lease ahead of now; a refusal says
 * how long until the time the record holds.
 */
#include <ctype.h>
#include <stdbool.h>

#include "guard/budget.h"
#include "guard/spec.h"
#include "fuzz.h"

#define PARAMS	40	/* bytes of parameters before a record's text */

static void
check_spec(const struct guard_spec *g, bool breaker)
{
	size_t n = strlen(g->name), i;

	CHECK(n >= 1 && n <= GUARD_NAME_MAX && g->name[0] != '.');
	for (i = 0; i < n; i++)
		CHECK(isalnum((unsigned char)g->name[i]) ||
		    strchr("._-", g->name[i]) != NULL);
	/* A socket's path, absolute, or a host and its port. */
	CHECK(g->host[0] == '\0' || (g->host[0] == '/' ? g->port == 0 :
	    g->port >= 1 && g->port <= 65535));
	CHECK(g->db >= 0);
	if (breaker)
		CHECK(g->failures >= 1 && g->failures <= 1000000 &&
		    g->cooldown >= 1 && g->cooldown <= DURATION_MAX);
	else
		CHECK(g->tokens >= 1 && g->tokens <= 1000000 &&
		    g->ratio >= 1 && g->ratio <= INT64_C(1000000000));
}

/* guard_target() writes a URL that parses back to the same store. */
static void
check_target(const struct guard_spec *g, bool breaker)
{
	char url[GUARD_TARGET_MAX];
	struct guard_spec back;

	if (g->host[0] == '\0')
		return;
	CHECK(guard_target(url, sizeof(url), g) < (int)sizeof(url));
	CHECK((breaker ? parse_breaker(url, &back) :
	    parse_budget(url, &back)) == NULL);
	CHECK(strcmp(back.host, g->host) == 0 && back.port == g->port &&
	    strcmp(back.user, g->user) == 0 && back.db == g->db &&
	    strcmp(back.name, g->name) == 0);
}

static void
fuzz_spec(const uint8_t *data, size_t size)
{
	struct guard_spec a, b;
	const char *why, *again;
	char *s;
	int breaker;

	if ((s = fuzz_string(data, size)) == NULL)
		return;
	for (breaker = 0; breaker <= 1; breaker++) {
		why = breaker ? parse_breaker(s, &a) : parse_budget(s, &a);
		again = breaker ? parse_breaker(s, &b) : parse_budget(s, &b);
		CHECK((why == NULL) == (again == NULL));
		CHECK(why == NULL || *why != '\0');
		if (why == NULL) {
			CHECK(memcmp(&a, &b, sizeof(a)) == 0);
			check_spec(&a, breaker);
			check_target(&a, breaker);
		}
	}
	free(s);
}

static uint64_t
take(const uint8_t **p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | *(*p)++;
	return v;
}

/* Field by field: a record's padding holds whatever the stack held. */
static bool
record_equal(const struct guard_record *a, const struct guard_record *b)
{
	return a->tokens == b->tokens && a->state == b->state &&
	    a->failures == b->failures && a->until == b->until &&
	    a->cooldown == b->cooldown && a->probe == b->probe &&
	    a->at == b->at;
}

static void
check_roundtrip(const struct guard_record *r)
{
	struct guard_record back;
	char buf[RECORD_MAX];
	int n;

	n = record_format(buf, sizeof(buf), r);
	CHECK(n > 0 && (size_t)n < sizeof(buf));
	CHECK(record_parse(buf, (size_t)n, &back));
	CHECK(record_equal(&back, r));
}

/* The rules, with parameters from the first PARAMS bytes. */
static void
fuzz_rules(struct guard_record *r, const uint8_t *p)
{
	struct guard_spec g;
	struct guard_record before;
	uint64_t a = take(&p), b = take(&p), c = take(&p), d = take(&p);
	uint64_t e = take(&p);
	nsec_t now = (nsec_t)(b % (uint64_t)DURATION_MAX), wait = -1;
	nsec_t lease = (nsec_t)(c % (uint64_t)DURATION_MAX);
	long long max, was;
	uint32_t id = (uint32_t)e | 1;
	enum admit v;
	bool allowed;

	memset(&g, 0, sizeof(g));
	g.tokens = 1 + (long long)(a % 1000000);
	g.ratio = 1 + (long long)(a >> 20) % 1000000000;
	g.failures = 1 + (long long)(d % 8);
	g.cooldown = 1 + (nsec_t)((d >> 3) % (uint64_t)DURATION_MAX);
	g.refill = (e >> 41 & 1) ? 0 : (nsec_t)((d >> 5) %
	    (uint64_t)DURATION_MAX) / 1000 * 1000;
	max = g.tokens * 1000;

	was = r->tokens < 0 || r->tokens > max ? max : r->tokens;
	budget_refill(r, &g, now);
	CHECK(r->tokens >= was && r->tokens <= max && r->at <= now);
	CHECK(r->tokens == was || g.refill > 0);
	was = r->tokens;
	allowed = budget_attempt(r, &g, now, e >> 32 & 1);
	CHECK(r->tokens >= 0 && r->tokens <= max);
	CHECK(allowed == (r->tokens * 2 > max));
	CHECK((e >> 32 & 1) ? r->tokens >= was :
	    r->tokens == (was > 1000 ? was - 1000 : 0));
	check_roundtrip(r);

	before = *r;
	v = breaker_admit(r, &g, now, lease, id, &wait);
	if (before.state == BREAKER_CLOSED)
		CHECK(v == ADMIT_RUN && record_equal(r, &before));
	if (v == ADMIT_PROBE)
		CHECK(r->state == BREAKER_PROBING && r->probe == id &&
		    r->until >= now);
	if (v == ADMIT_REFUSED)
		CHECK(wait > 0 && now + wait == r->until &&
		    r->state != BREAKER_CLOSED);
	check_roundtrip(r);

	before = *r;
	breaker_report(r, &g, now, (e >> 33 & 1) ? id : 0,
	    (enum run_end)((e >> 34) % 3), 750 + (unsigned)(e >> 40) % 501);
	if (!(e >> 33 & 1) && (e >> 34) % 3 == RUN_STOPPED)
		CHECK(record_equal(r, &before));
	CHECK(r->state != BREAKER_OPEN || r->cooldown > 0 ||
	    before.state == BREAKER_OPEN || before.state == BREAKER_PROBING);
	check_roundtrip(r);
}

static void
fuzz_record(const uint8_t *data, size_t size)
{
	struct guard_record r;
	char buf[RECORD_MAX];
	const uint8_t *text = data + PARAMS;
	size_t len = size - PARAMS;
	int n;

	if (size < PARAMS)
		return;
	if (record_parse((const char *)text, len, &r)) {
		n = record_format(buf, sizeof(buf), &r);
		CHECK((size_t)n == len && memcmp(buf, text, len) == 0);
	} else
		record_init(&r);
	fuzz_rules(&r, data);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] % 2 == 0)
		fuzz_spec(data + 1, size - 1);
	else
		fuzz_record(data + 1, size - 1);
	return 0;
}
