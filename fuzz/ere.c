/*
 * ere.c: libFuzzer harness for src/ere.c, differential against the C
 * library's regcomp()/regexec() (glibc, C locale, REG_EXTENDED |
 * REG_NEWLINE), which retry used before.
 *
 * Input: an ERE, a NUL byte, then lines to match, separated by NUL bytes
 * (a newline in a subject is taken out: retry matches one line at a time,
 * and glibc's \s can cross a newline).  Properties: an ERE the C library
 * refuses is refused; one it accepts is accepted, unless it has a
 * back-reference or ere says "too complex" (a documented limit); on every
 * subject both agree on whether it matches and where the leftmost match
 * starts.  EREs with a newline are left out: retry refuses them before.
 */
#include <regex.h>
#include <stdbool.h>

#include "fuzz.h"
#include "ere.h"

/* Whether the ERE has \1 to \9 somewhere (in a bracket, it is no
 * back-reference: then ere's refusal is checked against glibc's). */
static bool
has_backref(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '\\' && s[1] != '\0') {
			if (s[1] >= '1' && s[1] <= '9')
				return true;
			s++;
		}
	return false;
}

/*
 * Whether operators pile up: glibc's regcomp() takes time exponential in
 * the number of repetition operators on one atom ("a++++++++++"), so
 * such an ERE, or one with many intervals, is not given to it.
 */
static bool
libc_slow(const char *s)
{
	unsigned long product = 1, n;
	int run = 0;

	for (; *s != '\0'; s++) {
		if (*s == '*' || *s == '+' || *s == '?') {
			if (++run > 3)
				return true;
		} else if (*s == '{') {
			/* The largest number in the interval. */
			for (n = 0; (s[1] >= '0' && s[1] <= '9') ||
			    s[1] == ','; s++)
				if (s[1] != ',' && (n = n * 10 +
				    (unsigned long)(s[1] - '0')) > 1000)
					return true;
			if ((product *= n + 1) > 32 || ++run > 3)
				return true;
		} else if (*s != '}')
			run = 0;
	}
	return false;
}

static void
compare(regex_t *libc, struct ere *re, const char *subject, size_t len)
{
	char *line;
	regmatch_t pm;
	size_t start, i, n = 0;
	bool ours, theirs;

	if ((line = malloc(len + 1)) == NULL)
		abort();
	for (i = 0; i < len; i++)
		if (subject[i] != '\n')
			line[n++] = subject[i];
	line[n] = '\0';
	theirs = regexec(libc, line, 1, &pm, 0) == 0;
	ours = ere_exec(re, line, n, &start);
	if (ours != theirs || (ours && (regoff_t)start != pm.rm_so)) {
		fprintf(stderr, "subject '%s': libc %d at %ld, ere %d at %zu\n",
		    line, theirs, theirs ? (long)pm.rm_so : -1L, ours,
		    ours ? start : 0);
		fuzz_fail(__FILE__, __LINE__, "same answer as libc");
	}
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL, *p, *end = (const char *)data + size;
	char *pattern;
	size_t plen;
	struct ere *re;
	regex_t libc;
	int rc;

	p = memchr(data, '\0', size);
	plen = p != NULL ? (size_t)(p - (const char *)data) : size;
	if (plen > 64 || memchr(data, '\n', plen) != NULL)
		return 0;
	if ((pattern = malloc(plen + 1)) == NULL)
		abort();
	memcpy(pattern, data, plen);
	pattern[plen] = '\0';
	re = ere_compile(pattern, &why);
	/* Nothing to compare: and glibc may take long on a huge one. */
	if (re == NULL && strcmp(why, "too complex") == 0) {
		free(pattern);
		return 0;
	}
	if (libc_slow(pattern)) {
		ere_free(re);
		free(pattern);
		return 0;
	}
	rc = regcomp(&libc, pattern, REG_EXTENDED | REG_NEWLINE);
	if (rc != 0) {
		if (re != NULL)
			fprintf(stderr, "libc refuses '%s'\n", pattern);
		CHECK(re == NULL);
		free(pattern);
		return 0;
	}
	if (re == NULL) {
		if (strcmp(why, "back-references are not supported") != 0 ||
		    !has_backref(pattern))
			fprintf(stderr, "ere refuses '%s': %s\n", pattern, why);
		CHECK(strcmp(why, "back-references are not supported") == 0 &&
		    has_backref(pattern));
		regfree(&libc);
		free(pattern);
		return 0;
	}
	for (p = p != NULL ? p + 1 : end; p <= end; ) {
		const char *q = memchr(p, '\0', (size_t)(end - p));
		size_t n = q != NULL ? (size_t)(q - p) : (size_t)(end - p);

		compare(&libc, re, p, n > 128 ? 128 : n);
		p += n + 1;
	}
	regfree(&libc);
	ere_free(re);
	free(pattern);
	return 0;
}
