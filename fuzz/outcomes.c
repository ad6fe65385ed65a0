/*
 * outcomes.c: libFuzzer harness for parse_outcomes(), the LIST of
 * --retry-on, --stop-on and --success-on.
 *
 * Properties: a list is the union of its items, each parsed alone, laid
 * over the option's default as the man page says (a leading + adds to
 * it; otherwise each part the list names, exit codes with signals and
 * timeout, or HTTP statuses, replaces that part of the default), and
 * what the set held before does not matter; an exit-code item is
 * checked against an independent reading (N or A-B, 0 <= A <= B <= 255),
 * an http: item too (NNN from 200 to 599, or Nxx from 2xx to 5xx); a
 * name is accepted exactly when parse_signal() accepts it, with the same
 * signal; a rejected list leaves the set alone and names the item it
 * rejects; outcome_in() and outcome_http_in() answer from exactly the
 * bits that were set.
 */
#include <ctype.h>
#include <stdbool.h>
#include <strings.h>

#include "fuzz.h"

#define ITEM_MAX 63	/* parse_outcomes() takes items up to this long */

static bool
set_equal(const struct outcome_set *a, const struct outcome_set *b)
{
	return memcmp(a->exits, b->exits, sizeof(a->exits)) == 0 &&
	    memcmp(a->signals, b->signals, sizeof(a->signals)) == 0 &&
	    a->timeout == b->timeout &&
	    memcmp(a->http, b->http, sizeof(a->http)) == 0;
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

/* The oracle for an item that starts with http: (any case). */
static bool
ref_http_item(const char *s, struct outcome_set *set)
{
	int lo, hi, n;

	memset(set, 0, sizeof(*set));
	if (strlen(s) != 3 || !isdigit((unsigned char)s[0]))
		return false;
	if (tolower((unsigned char)s[1]) == 'x' &&
	    tolower((unsigned char)s[2]) == 'x') {
		lo = (s[0] - '0') * 100;
		hi = lo + 99;
	} else if (isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]))
		lo = hi = atoi(s);
	else
		return false;
	if (lo < 200 || hi > 599)
		return false;
	for (n = lo; n <= hi; n++)
		set->http[n / 64] |= UINT64_C(1) << (n % 64);
	return true;
}

static const struct outcome_set no_default;

/* One item alone: parse_outcomes() against the oracle or parse_signal(). */
static bool
check_item(const char *item, struct outcome_set *one)
{
	struct outcome_set ref;
	const char *why;
	char msg[160];
	int sig = -1;

	memset(one, 0, sizeof(*one));
	why = parse_outcomes(item, one, &no_default, msg, sizeof(msg));
	CHECK(why == NULL || (why == msg && *why != '\0'));
	if (strncasecmp(item, "http:", 5) == 0) {
		CHECK((why == NULL) == ref_http_item(item + 5, &ref));
		CHECK(why != NULL || set_equal(one, &ref));
	} else if (strcmp(item, "timeout") == 0) {
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

/*
 * outcome_in() must answer from the bits alone.  No list item names a
 * signal from NSIG up; the default of --retry-on sets them all.
 */
static void
check_membership(const struct outcome_set *set,
    const struct outcome_set *dflt)
{
	struct outcome o;
	int n;

	memset(&o, 0, sizeof(o));
	CHECK(!bit(set->signals, 0));
	for (n = NSIG; n < 128; n++)
		CHECK(!bit(set->signals, n) || bit(dflt->signals, n));
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
	for (n = -1; n < 700; n++)
		CHECK(outcome_http_in(set, n) == (n >= 200 && n <= 599 &&
		    bit(set->http, n)));
	for (n = 0; n < 200; n++)
		CHECK(!bit(set->http, n));
	for (n = 600; n < 640; n++)
		CHECK(!bit(set->http, n));
}

static bool
any(const uint64_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] != 0)
			return true;
	return false;
}

/* The oracle of the default rule: what the man page says. */
static void
ref_merge(struct outcome_set *out, const struct outcome_set *dflt,
    const struct outcome_set *add, bool plus)
{
	bool codes = any(add->exits, 4) || any(add->signals, 2) ||
	    add->timeout;
	size_t i;

	*out = *dflt;
	if (!plus && codes) {
		memset(out->exits, 0, sizeof(out->exits));
		memset(out->signals, 0, sizeof(out->signals));
		out->timeout = false;
	}
	if (!plus && any(add->http, 10))
		memset(out->http, 0, sizeof(out->http));
	for (i = 0; i < 4; i++)
		out->exits[i] |= add->exits[i];
	for (i = 0; i < 2; i++)
		out->signals[i] |= add->signals[i];
	for (i = 0; i < 10; i++)
		out->http[i] |= add->http[i];
	out->timeout = out->timeout || add->timeout;
}

/*
 * The list against the union of its items over the default; a rejected
 * list names its first bad item in the message.
 */
static void
check_items(const char *list, const char *why, const struct outcome_set *set,
    const struct outcome_set *dflt)
{
	struct outcome_set all, one, ref;
	const char *p, *comma, *s = list + (*list == '+');
	char item[ITEM_MAX + 1], quoted[ITEM_MAX + 4];
	bool ok = *s != '\0';
	size_t len;
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
		/* Only the list may start with +: "+1" alone is a list. */
		ok = *item != '+' && check_item(item, &one);
		if (!ok) {
			snprintf(quoted, sizeof(quoted), "'%s'", item);
			CHECK(why == NULL || strstr(why, quoted) != NULL);
		}
		for (i = 0; ok && i < 4; i++)
			all.exits[i] |= one.exits[i];
		for (i = 0; ok && i < 2; i++)
			all.signals[i] |= one.signals[i];
		for (i = 0; ok && i < 10; i++)
			all.http[i] |= one.http[i];
		all.timeout = all.timeout || (ok && one.timeout);
		if (comma == NULL)
			break;
	}
	CHECK((why == NULL) == ok);
	if (why == NULL) {
		ref_merge(&ref, dflt, &all, *list == '+');
		CHECK(set_equal(set, &ref));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome_set set, again, before, dflt;
	const char *why;
	char msg[160], msg2[160];
	char *s;

	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	/* The default: --retry-on's, plus a few HTTP statuses. */
	outcomes_default_retry(&dflt);
	dflt.http[503 / 64] |= UINT64_C(1) << (503 % 64);
	memset(&set, 0xa5, sizeof(set));
	set.timeout = true;
	before = set;
	why = parse_outcomes(s, &set, &dflt, msg, sizeof(msg));
	CHECK(why == NULL || (why == msg && *why != '\0' &&
	    memchr(msg, '\0', sizeof(msg)) != NULL));
	CHECK(why == NULL || memcmp(&set, &before, sizeof(set)) == 0);
	memset(&again, 0, sizeof(again));
	CHECK((parse_outcomes(s, &again, &dflt, msg2, sizeof(msg2)) == NULL) ==
	    (why == NULL));
	CHECK(why != NULL || set_equal(&set, &again));
	CHECK(why == NULL || strcmp(msg, msg2) == 0);
	if (why == NULL)
		check_membership(&set, &dflt);
	check_items(s, why, &set, &dflt);
	free(s);
	return 0;
}
