/*
 * outcomes.c: libFuzzer harness for parse_outcomes(), the LIST of
 * --retry-on, --stop-on and --success-on.
 *
 * Properties: the set is cleared first, whatever it held; a list is the
 * union of its items, each parsed alone; an exit-code item is checked
 * against an independent reading (N or A-B, 0 <= A <= B <= 255); a name
 * is accepted exactly when parse_signal() accepts it, with the same
 * signal; outcome_in() answers from exactly the bits that were set.
 */
#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"

#define ITEM_MAX 63	/* parse_outcomes() takes items up to this long */

static bool
set_equal(const struct outcome_set *a, const struct outcome_set *b)
{
	return memcmp(a->exits, b->exits, sizeof(a->exits)) == 0 &&
	    memcmp(a->signals, b->signals, sizeof(a->signals)) == 0 &&
	    a->timeout == b->timeout;
}

static bool
bit(const uint64_t *words, int n)
{
	return (words[n / 64] >> (n % 64)) & 1;
}

/* Decimal digits up to the first non-digit; saturates past 999. */
static long
ref_digits(const char **sp)
{
	const char *s = *sp;
	long n = 0;

	while (isdigit((unsigned char)*s)) {
		if (n < 1000)
			n = n * 10 + (*s - '0');
		s++;
	}
	*sp = s;
	return n;
}

/* The oracle for an item that starts with a digit: N or A-B. */
static bool
ref_exit_item(const char *s, struct outcome_set *set)
{
	long a, b;
	int n;

	memset(set, 0, sizeof(*set));
	a = b = ref_digits(&s);
	if (*s == '-') {
		s++;
		if (!isdigit((unsigned char)*s))
			return false;
		b = ref_digits(&s);
	}
	if (*s != '\0' || a > 255 || b > 255 || a > b)
		return false;
	for (n = (int)a; n <= b; n++)
		set->exits[n / 64] |= UINT64_C(1) << (n % 64);
	return true;
}

/* One item alone: parse_outcomes() against the oracle or parse_signal(). */
static bool
check_item(const char *item, struct outcome_set *one)
{
	struct outcome_set ref;
	const char *why;
	int sig = -1;

	why = parse_outcomes(item, one);
	CHECK(why == NULL || *why != '\0');
	if (strcmp(item, "timeout") == 0) {
		memset(&ref, 0, sizeof(ref));
		ref.timeout = true;
		CHECK(why == NULL && set_equal(one, &ref));
	} else if (isdigit((unsigned char)*item)) {
		CHECK((why == NULL) == ref_exit_item(item, &ref));
		CHECK(why != NULL || set_equal(one, &ref));
	} else if (*item != '\0') {
		CHECK((why == NULL) == (parse_signal(item, &sig) == NULL));
		if (why == NULL) {
			memset(&ref, 0, sizeof(ref));
			ref.signals[sig / 64] |= UINT64_C(1) << (sig % 64);
			CHECK(set_equal(one, &ref));
		}
	}
	return why == NULL;
}

/* outcome_in() must answer from the bits alone. */
static void
check_membership(const struct outcome_set *set)
{
	struct outcome o;
	int n;

	memset(&o, 0, sizeof(o));
	CHECK(!bit(set->signals, 0));
	for (n = NSIG; n < 128; n++)
		CHECK(!bit(set->signals, n));
	o.kind = OUT_EXIT;
	for (n = 0; n < 256; n++) {
		o.value = n;
		CHECK(outcome_in(set, &o) == bit(set->exits, n));
	}
	o.kind = OUT_SIGNAL;
	for (n = 1; n < 128; n++) {
		o.value = n;
		CHECK(outcome_in(set, &o) == bit(set->signals, n));
	}
	o.kind = OUT_TIMEOUT;
	o.value = EXIT_TIMEDOUT;
	CHECK(outcome_in(set, &o) == set->timeout);
}

/* The list against the union of its items. */
static void
check_items(const char *s, const char *why, const struct outcome_set *set)
{
	struct outcome_set all, one;
	const char *p, *comma;
	char item[ITEM_MAX + 1];
	size_t len;
	bool ok = *s != '\0';
	size_t i;

	memset(&all, 0, sizeof(all));
	for (p = s; ok; p = comma + 1) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len > ITEM_MAX) {
			ok = false;
			break;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		ok = check_item(item, &one);
		for (i = 0; ok && i < 4; i++)
			all.exits[i] |= one.exits[i];
		for (i = 0; ok && i < 2; i++)
			all.signals[i] |= one.signals[i];
		all.timeout = all.timeout || (ok && one.timeout);
		if (comma == NULL)
			break;
	}
	CHECK((why == NULL) == ok);
	CHECK(why != NULL || set_equal(set, &all));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome_set set, again;
	const char *why;
	char *s;

	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	memset(&set, 0xa5, sizeof(set));
	set.timeout = true;
	why = parse_outcomes(s, &set);
	CHECK(why == NULL || *why != '\0');
	memset(&again, 0, sizeof(again));
	CHECK((parse_outcomes(s, &again) == NULL) == (why == NULL));
	CHECK(why != NULL || set_equal(&set, &again));
	if (why == NULL)
		check_membership(&set);
	check_items(s, why, &set);
	free(s);
	return 0;
}
