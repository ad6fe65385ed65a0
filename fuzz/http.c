/*
 * http.c: libFuzzer harness for the --http parsers of src/policy/http.c: the
 * response head (http_parse_head) and Retry-After (http_parse_retry_after,
 * http_wait).
 *
 * Properties of the head: any bytes give a status of 0 or 200-599 and a
 * kept Retry-After that is printable, trimmed and NUL-terminated; the
 * same bytes give the same answer; whatever comes before it, a complete
 * final head appended at the end is the one that counts, and an interim
 * head after it changes nothing; http_wait() gives a delay within --cap,
 * a delay above it with the start of a reason, or a message, as it says.
 *
 * Properties of Retry-After, with the input as the value: a delay is
 * never negative nor above 100 years; digits are that many seconds; a
 * wall clock one second later shortens a date's delay by exactly one
 * second unless it is clamped; an IMF-fixdate in the future formats back,
 * by strftime(3), to the same text, day name and leap second aside.  And
 * with the input as a time: the three forms of that time, written by the
 * C library, parse back to it (the two-digit year of RFC 850 only within
 * the 100 years that RFC 9110 lets a reader resolve).
 */
#include <stdbool.h>
#include <time.h>

#include "fuzz.h"

#define WALL_SEC	INT64_C(1790000000)	/* 2026-09-21 */
#define YEAR_SEC	INT64_C(31556952)	/* a mean Gregorian year */

/* http_wait() with a cap of 60 s: its answer and its message agree. */
static void
check_wait(const struct http_head *h)
{
	nsec_t cap = 60 * NSEC_PER_SEC, d;
	char msg[128];

	memset(msg, 0, sizeof(msg));
	switch (http_wait(h, WALL_SEC * NSEC_PER_SEC, cap, &d, msg,
	    sizeof(msg))) {
	case HTTP_WAIT_NONE:
		CHECK(d == -1 &&
		    (h->status == 0 || h->retry_after_fields == 0));
		break;
	case HTTP_WAIT:
		CHECK(d >= 0 && d <= cap && h->retry_after_fields == 1);
		break;
	case HTTP_WAIT_LONG:
		CHECK(d > cap && d <= DURATION_MAX);
		CHECK(strncmp(msg, "the server asks to wait ", 24) == 0);
		break;
	case HTTP_WAIT_IGNORED:
		CHECK(d == -1 && strncmp(msg, "ignoring Retry-After", 20) == 0);
		break;
	default:
		CHECK(false);
	}
}

static void
check_head(const uint8_t *data, size_t size)
{
	static const char tail[] = "\nHTTP/1.1 503 Busy\r\nRetry-After: 7\r\n"
	    "\r\nHTTP/1.1 100 Continue\r\nRetry-After: 9\r\n\r\n";
	struct http_head h, again;
	char *buf;
	size_t n;

	http_parse_head((const char *)data, size, &h);
	CHECK(h.status == 0 || (h.status >= 200 && h.status <= 599));
	CHECK(h.retry_after_fields >= 0);
	CHECK(h.status != 0 || h.retry_after_fields == 0);
	if (h.retry_after_fields > 0 && !h.retry_after_bad) {
		n = strnlen(h.retry_after, sizeof(h.retry_after));
		CHECK(n < sizeof(h.retry_after));
		CHECK(n == 0 || (h.retry_after[0] != ' ' &&
		    h.retry_after[n - 1] != ' '));
		for (; n > 0; n--)
			CHECK(h.retry_after[n - 1] >= 0x20 &&
			    h.retry_after[n - 1] <= 0x7e);
	}
	http_parse_head((const char *)data, size, &again);
	CHECK(memcmp(&h, &again, sizeof(h)) == 0);
	check_wait(&h);

	if ((buf = malloc(size + sizeof(tail))) == NULL)
		abort();
	memcpy(buf, data, size);
	memcpy(buf + size, tail, sizeof(tail) - 1);
	http_parse_head(buf, size + sizeof(tail) - 1, &h);
	CHECK(h.status == 503 && h.retry_after_fields == 1 &&
	    !h.retry_after_bad && strcmp(h.retry_after, "7") == 0);
	free(buf);
}

static bool
all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Digits as seconds, saturated at 100 years. */
static nsec_t
ref_digits(const char *s)
{
	int64_t v = 0;

	for (; *s != '\0'; s++)
		if (v <= DURATION_MAX / NSEC_PER_SEC)
			v = v * 10 + (*s - '0');
	return v > DURATION_MAX / NSEC_PER_SEC ? DURATION_MAX :
	    v * NSEC_PER_SEC;
}

static void
check_value(const char *s)
{
	nsec_t w = WALL_SEC * NSEC_PER_SEC, d, d2;
	bool ok, ok2;
	struct tm tm;
	time_t t;
	char back[64];

	ok = http_parse_retry_after(s, w, &d);
	ok2 = http_parse_retry_after(s, w + NSEC_PER_SEC, &d2);
	CHECK(ok == ok2);
	if (!ok)
		return;
	CHECK(d >= 0 && d <= DURATION_MAX && d2 >= 0 && d2 <= DURATION_MAX);
	if (all_digits(s)) {
		CHECK(d == ref_digits(s) && d2 == d);
		return;
	}
	CHECK(d % NSEC_PER_SEC == 0);
	if (d > NSEC_PER_SEC && d < DURATION_MAX)
		CHECK(d2 == d - NSEC_PER_SEC);
	/* A future IMF-fixdate: strftime(3) writes the same text. */
	if (strlen(s) == 29 && s[3] == ',' && d > 0 && d < DURATION_MAX &&
	    strncmp(s + 23, "60", 2) != 0) {
		t = (time_t)(WALL_SEC + d / NSEC_PER_SEC);
		CHECK(gmtime_r(&t, &tm) != NULL);
		strftime(back, sizeof(back), ", %d %b %Y %H:%M:%S GMT", &tm);
		CHECK(strcmp(back, s + 3) == 0);
	}
}

/* The delay of time t, seen at WALL_SEC. */
static nsec_t
delay_of(int64_t t)
{
	if (t <= WALL_SEC)
		return 0;
	if (t - WALL_SEC > DURATION_MAX / NSEC_PER_SEC)
		return DURATION_MAX;
	return (t - WALL_SEC) * NSEC_PER_SEC;
}

static void
check_time(const uint8_t *data, size_t size)
{
	static const char *const forms[] = {
		"%a, %d %b %Y %H:%M:%S GMT",	/* IMF-fixdate */
		"%A, %d-%b-%y %H:%M:%S GMT",	/* RFC 850 */
		"%a %b %e %H:%M:%S %Y",		/* asctime */
	};
	struct tm tm, now;
	uint64_t raw = 0;
	int64_t t;
	time_t tt, wt = (time_t)WALL_SEC;
	char text[64];
	nsec_t d;
	size_t i;

	if (size < 8)
		return;
	for (i = 0; i < 8; i++)
		raw = raw << 8 | data[i];
	/* From 150 years before the wall clock to 150 years after it. */
	t = WALL_SEC - 150 * YEAR_SEC + (int64_t)(raw % (300 * YEAR_SEC));
	tt = (time_t)t;
	CHECK(gmtime_r(&tt, &tm) != NULL && gmtime_r(&wt, &now) != NULL);
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (i == 1 && (tm.tm_year < now.tm_year - 49 ||
		    tm.tm_year > now.tm_year + 50))
			continue;
		strftime(text, sizeof(text), forms[i], &tm);
		CHECK(http_parse_retry_after(text, WALL_SEC * NSEC_PER_SEC,
		    &d));
		CHECK(d == delay_of(t));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	check_head(data, size);
	check_time(data, size);
	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	check_value(s);
	free(s);
	return 0;
}
