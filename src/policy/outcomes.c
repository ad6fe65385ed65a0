/*
 * outcomes.c: the LISTs of outcomes (-r, -x, --success-on) and the sets
 * they become: exit codes, ranges, signal names, timeout and, with
 * --http, HTTP statuses; the default of --retry-on; and whether an
 * outcome is in a set.  parse_outcomes() writes its reason, which names
 * the rejected item, into the caller's buffer; and an outcome as the
 * messages name it; outcome_exit() exits as an outcome ended, with its
 * status or its signal.  Nothing else here exits or prints, so the fuzz
 * harnesses can drive it directly.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "os/defs.h"
#include "os/signals.h"
#include "text/format.h"
#include "outcomes.h"

static void
set_bit(uint64_t *words, int n)
{
	words[n / 64] |= UINT64_C(1) << (n % 64);
}

static bool
has_bit(const uint64_t *words, int n)
{
	return (words[n / 64] >> (n % 64)) & 1;
}

static const char unknown_item[] = "unknown item";

/* http:NNN, a final status, or http:Nxx, a class of them. */
static const char *
parse_http_item(const char *s, struct outcome_set *set)
{
	int lo, hi, n;

	if (!isdigit((unsigned char)s[0]) || s[1] == '\0' || s[2] == '\0' ||
	    s[3] != '\0')
		return "expected http:NNN or http:Nxx, such as http:503";
	lo = s[0] - '0';
	if (strcasecmp(s + 1, "xx") == 0) {
		lo *= 100;
		hi = lo + 99;
	} else if (isdigit((unsigned char)s[1]) &&
	    isdigit((unsigned char)s[2])) {
		lo = lo * 100 + (s[1] - '0') * 10 + (s[2] - '0');
		hi = lo;
	} else
		return "expected http:NNN or http:Nxx, such as http:503";
	if (lo < HTTP_STATUS_MIN || hi > HTTP_STATUS_MAX)
		return "HTTP statuses go from 200 to 599";
	for (n = lo; n <= hi; n++)
		set_bit(set->http, n);
	return NULL;
}

/*
 * One LIST item: an exit code, a range, a signal name, "timeout", or an
 * HTTP status.
 */
static const char *
parse_outcome_item(const char *item, struct outcome_set *set)
{
	const char *errstr, *dash;
	char lo[64];	/* as long as an item: leading zeros are allowed */
	long long a, b;
	int sig;

	if (strcmp(item, "timeout") == 0) {
		set->timeout = true;
		return NULL;
	}
	if (strncasecmp(item, "http:", 5) == 0)
		return parse_http_item(item + 5, set);
	if (!isdigit((unsigned char)*item)) {
		if ((sig = sig_number(item)) <= 0)
			return unknown_item;
		set_bit(set->signals, sig);
		return NULL;
	}
	if ((dash = strchr(item, '-')) == NULL) {
		a = strtonum(item, 0, 255, &errstr);
		if (errstr != NULL)
			return "exit codes go from 0 to 255";
		b = a;
	} else {
		if ((size_t)(dash - item) >= sizeof(lo))
			return "exit codes go from 0 to 255";
		memcpy(lo, item, (size_t)(dash - item));
		lo[dash - item] = '\0';
		a = strtonum(lo, 0, 255, &errstr);
		if (errstr == NULL)
			b = strtonum(dash + 1, 0, 255, &errstr);
		if (errstr != NULL || !isdigit((unsigned char)dash[1]))
			return "a range is two exit codes from 0 to 255, "
			    "such as 1-125";
		if (a > b)
			return "a range must not go downwards";
	}
	for (; a <= b; a++)
		set_bit(set->exits, (int)a);
	return NULL;
}

static bool
any_bit(const uint64_t *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (words[i] != 0)
			return true;
	return false;
}

#define NWORDS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The set that a LIST and the option's default make: a LIST that starts
 * with + adds to the default.  Otherwise it replaces the default of each
 * part it names: exit codes, signals and timeout are one part, HTTP
 * statuses the other, so that -r http:404 still retries a failed
 * connection as the default does.
 */
static void
merge_default(struct outcome_set *set, const struct outcome_set *add,
    const struct outcome_set *dflt, bool plus)
{
	size_t i;

	*set = *dflt;
	if (!plus && (any_bit(add->exits, NWORDS(add->exits)) ||
	    any_bit(add->signals, NWORDS(add->signals)) || add->timeout)) {
		memset(set->exits, 0, sizeof(set->exits));
		memset(set->signals, 0, sizeof(set->signals));
		set->timeout = false;
	}
	if (!plus && any_bit(add->http, NWORDS(add->http)))
		memset(set->http, 0, sizeof(set->http));
	for (i = 0; i < NWORDS(set->exits); i++)
		set->exits[i] |= add->exits[i];
	for (i = 0; i < NWORDS(set->signals); i++)
		set->signals[i] |= add->signals[i];
	for (i = 0; i < NWORDS(set->http); i++)
		set->http[i] |= add->http[i];
	set->timeout = set->timeout || add->timeout;
}

/*
 * A LIST, over the option's default dflt.  On an error, why (len bytes)
 * gets a reason that names the item, and set is left alone.
 */
const char *
parse_outcomes(const char *s, struct outcome_set *set,
    const struct outcome_set *dflt, char *why, size_t whylen)
{
	struct outcome_set add;
	char item[64];
	const char *bad, *comma;
	bool plus = *s == '+';
	size_t len;

	memset(&add, 0, sizeof(add));
	s += plus;
	if (*s == '\0') {
		snprintf(why, whylen, "empty list");
		return why;
	}
	for (;;) {
		comma = strchr(s, ',');
		len = comma != NULL ? (size_t)(comma - s) : strlen(s);
		if (len == 0) {
			snprintf(why, whylen, "empty item in list");
			return why;
		}
		if (len >= sizeof(item)) {
			snprintf(why, whylen, "item '%.20s...' is too long", s);
			return why;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if ((bad = parse_outcome_item(item, &add)) == unknown_item)
			snprintf(why, whylen, "unknown item '%s'%s", item,
			    strpbrk(item, " \t") != NULL ? " (spaces are not "
			    "allowed in a list)" : "");
		else if (bad != NULL)
			snprintf(why, whylen, "item '%s': %s", item, bad);
		if (bad != NULL)
			return why;
		if (comma == NULL)
			break;
		s = comma + 1;
	}
	merge_default(set, &add, dflt, plus);
	return NULL;
}

bool
outcome_in(const struct outcome_set *set, const struct outcome *o)
{
	switch (o->kind) {
	case OUT_TIMEOUT:
		return set->timeout;
	case OUT_SIGNAL:
		return o->value > 0 && o->value < 128 &&
		    has_bit(set->signals, o->value);
	default:
		return has_bit(set->exits, o->value & 255);
	}
}

/* Whether an HTTP status (0: no response) is in the set. */
bool
outcome_http_in(const struct outcome_set *set, int status)
{
	return status >= HTTP_STATUS_MIN && status <= HTTP_STATUS_MAX &&
	    has_bit(set->http, status);
}

/* Whether the set names an HTTP status: those need --http to be read. */
bool
outcomes_have_http(const struct outcome_set *set)
{
	return any_bit(set->http, NWORDS(set->http));
}

/* The default of --retry-on; see retry(1). */
void
outcomes_default_retry(struct outcome_set *set)
{
	static const int spared[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	    SIGPIPE };
	size_t i;
	int n;

	memset(set, 0, sizeof(*set));
	for (n = 1; n <= 255; n++)
		if (n != EXIT_CANNOT_INVOKE && n != EXIT_ENOENT)
			set_bit(set->exits, n);
	for (n = 1; n < 128; n++)
		set_bit(set->signals, n);
	for (i = 0; i < sizeof(spared) / sizeof(spared[0]); i++)
		set->signals[spared[i] / 64] &=
		    ~(UINT64_C(1) << (spared[i] % 64));
	set->timeout = true;
}

void
outcomes_add_exit(struct outcome_set *set, int code)
{
	set_bit(set->exits, code);
}

/*
 * "exit 3", "signal TERM", "timed out after 1s (-t)", with the output
 * condition: the outcome without the HTTP status.
 */
static int
outcome_plain(char *buf, size_t len, const struct outcome *o)
{
	char name[16], span[40];
	int n;

	switch (o->kind) {
	case OUT_SIGNAL:
		n = snprintf(buf, len, "signal %s",
		    sig_name(o->value, name, sizeof(name)));
		break;
	case OUT_TIMEOUT:
		/* The limit named, as timeout(1)'s users look for it. */
		format_span(span, sizeof(span), o->timeout);
		n = snprintf(buf, len, "timed out%s%s%s%s", o->timeout != 0 ?
		    " after " : "", o->timeout != 0 ? span : "",
		    o->timeout != 0 ? " (-t)" : "", o->value == EXIT_KILLED ?
		    ", killed" : "");
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
outcome_format(char *buf, size_t len, const struct outcome *o)
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
	return n + outcome_plain(buf, len, o);
}

/* Exits as the final attempt did: the same code, or the same signal. */
_Noreturn void
outcome_exit(const struct outcome *o)
{
	if (o->kind == OUT_SIGNAL)
		die_by_signal(o->value);
	exit(o->value);
}
