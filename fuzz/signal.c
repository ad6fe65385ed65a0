/*
 * signal.c: libFuzzer harness for parse_signal() and sig_number().
 *
 * Properties: a parsed signal is in [0, NSIG), 0 the null signal of
 * timeout(1) that only a number gives; a number is exactly its
 * decimal digits; a name is case-insensitive, takes an optional SIG
 * prefix, and agrees with sig_number(); the name sig_name()
 * gives any parsed signal parses back to the same signal.
 */
#include <ctype.h>
#include <strings.h>

#include "fuzz.h"

/* Digits only, read without a limit: what a signal number must be. */
static long long
ref_number(const char *s)
{
	long long n = 0;

	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		if (n < 1000)
			n = n * 10 + (*s - '0');
	}
	return n;
}

static void
check_case(const char *s, const char *why, int sig)
{
	char *t = fuzz_concat("", s), *p;
	const char *why2;
	int i, sig2;

	for (i = 0; i < 2; i++) {
		for (p = t; *p != '\0'; p++)
			*p = (char)(i == 0 ? toupper((unsigned char)*p) :
			    tolower((unsigned char)*p));
		sig2 = -1;
		why2 = parse_signal(t, &sig2);
		CHECK((why == NULL) == (why2 == NULL));
		CHECK(why != NULL || sig2 == sig);
	}
	free(t);
}

static void
check_name(const char *s, const char *why, int sig)
{
	char *t;
	int sig2 = -1;

	CHECK(why != NULL || sig_number(s) == sig);
	CHECK(why == NULL || sig_number(s) <= 0);
	check_case(s, why, sig);
	if (strncasecmp(s, "SIG", 3) != 0) {
		t = fuzz_concat("SIG", s);
		CHECK((parse_signal(t, &sig2) == NULL) == (why == NULL));
		CHECK(why != NULL || sig2 == sig);
		free(t);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, buf[32];
	const char *why, *name;
	long long n;
	int sig = -1, back = -1;

	if ((s = fuzz_string(data, size)) == NULL)
		return 0;
	why = parse_signal(s, &sig);
	CHECK(why == NULL || *why != '\0');
	if (why == NULL) {
		CHECK(sig >= 0 && sig < NSIG);
		name = sig_name(sig, buf, sizeof(buf));
		CHECK(parse_signal(name, &back) == NULL && back == sig);
	}
	if (isdigit((unsigned char)*s)) {
		n = ref_number(s);
		CHECK((why == NULL) == (n >= 0 && n < NSIG));
		CHECK(why != NULL || sig == n);
	} else
		check_name(s, why, sig);
	free(s);
	return 0;
}
