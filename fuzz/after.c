/*
 * after.c: libFuzzer harness for RETRY_AFTER_FILE's judge, after_parse()
 * of src/policy/after.c, which reads what a command wrote: any bytes.
 *
 * Properties: the answer is one of the four; a wait is never negative
 * nor above DURATION_MAX; more than AFTER_TEXT_MAX bytes, a NUL or a byte
 * outside printable ASCII (tabs and line ends aside) is refused, with a
 * reason; nothing but blanks and line ends is nothing; the same bytes at
 * the same time give the same answer; "stop" with blanks around is a
 * stop; and after_fit() places every wait on the right side of the cap.
 */
#include "fuzz.h"
#include "policy/after.h"

#define WALL_NS	(INT64_C(1790000000) * NSEC_PER_SEC)	/* 2026-09-21 */

static bool
blank_only(const uint8_t *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r\n", d[i]) == NULL || d[i] == '\0')
			return false;
	return true;
}

static bool
plain(const uint8_t *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((d[i] < 0x20 && strchr("\t\r\n", d[i]) == NULL) ||
		    d[i] == '\0' || d[i] > 0x7e)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[160], why2[160];
	nsec_t d, d2, cap = 60 * NSEC_PER_SEC;
	enum after_ask a, a2;
	enum after_fit f;

	memset(why, 0, sizeof(why));
	a = after_parse((const char *)data, size, WALL_NS, &d, why,
	    sizeof(why));
	CHECK(a == AFTER_NOTHING || a == AFTER_WAIT || a == AFTER_STOP ||
	    a == AFTER_BAD);
	if (size > AFTER_TEXT_MAX || !plain(data, size))
		CHECK(a == AFTER_BAD);
	if (a == AFTER_BAD)
		CHECK(why[0] != '\0' && strlen(why) < sizeof(why));
	if (size <= AFTER_TEXT_MAX && blank_only(data, size))
		CHECK(a == AFTER_NOTHING);
	if (a == AFTER_WAIT) {
		CHECK(d >= 0 && d <= DURATION_MAX);
		f = after_fit(d, cap, 0, 0);
		CHECK((f == AFTER_FITS) == (d <= cap));
		CHECK(f != AFTER_PAST_MAX_TIME);
	} else
		CHECK(d == -1);
	a2 = after_parse((const char *)data, size, WALL_NS, &d2, why2,
	    sizeof(why2));
	CHECK(a2 == a && (a != AFTER_WAIT || d2 == d));
	return 0;
}
