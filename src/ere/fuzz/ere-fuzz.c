/*
 * ere-fuzz.c: libFuzzer harness for the ERE library (src/ere/),
 * differential against the C library's regcomp()/regexec() (glibc, C
 * locale, REG_EXTENDED | REG_NEWLINE), which retry used before.  Where glibc's answers on
 * subjects are known to be wrong (libc_unsure()), only ere's own stream
 * and whole answers are compared.
 *
 * Input: an ERE, a NUL byte, then lines to match, separated by NUL bytes
 * (a newline in a subject is taken out: retry matches one line at a time,
 * and glibc's \s can cross a newline).  Properties: an ERE the C library
 * refuses is refused; one it accepts is accepted, unless it has a
 * back-reference or ere says "too complex" (a documented limit); on every
 * subject both agree on whether it matches and where the leftmost match
 * starts.  EREs with a newline are left out: retry refuses them before.
 * And the stream of lines retry feeds in pieces (ere_feed()) gives ere's
 * answer on each subject however it is cut in two, and on all of them,
 * one a line, cut in two at a few places.  It is built twice
 * (mk/quality.mk): as retry matches (build/fuzz/ere), and with
 * -DERE_TEST_NFA (build/fuzz/ere-nfa), where the DFA keeps 2 states, so
 * that the bit-parallel NFA (src/ere/erenfa.c) matches most of every
 * subject and the hand-overs between the two happen everywhere.  A
 * property that fails prints what differs and aborts, which libFuzzer
 * records as a crash.  The harness includes ere/ere.h alone, as every
 * user of the library does: not fuzz/fuzz.h, whose headers are retry's.
 */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ere/ere.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

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
 * Whether glibc's regcomp() may take too long: its time grows
 * exponentially with repetition operators stacked on one atom
 * ("a++++++++++"), and also with those on a group that holds more
 * ("^(]?*){,22}" and "^(\\<a*+{22}}\177|)" ran for minutes).  So an ERE
 * with more than three repetition operators in all, or whose operators
 * multiply to more than 64 copies (an interval counts its largest number
 * plus one, another operator 2), is not given to it.  Ours has no such
 * limit: src/ere/tests/ere.bats and conditions.bats cover the stacked
 * forms.
 * An alternation under them is worse where an alternative can match the
 * empty string: glibc took more than a minute on "^(|<T)+{22}gg" and on
 * "(a|\\>)*{,29}..." (an assertion), so with any '|' 8 copies are the
 * most; and so with a ^ past the first byte, which it took more than 10
 * seconds to compile in "(^)*{,22})}&$", and with an assertion:
 * "(\\b){,48}" took glibc 14 s and 3.9 GB; and with an empty group:
 * "^()+{16}\001" takes it 0.5 s to compile, "^()+{21}\001" minutes.
 * A group of anchors alone is as empty: "^($)+{20}}" took it 36 s,
 * "^($)+{12}}" 0.11 s.  So is a $ before the last byte: "^(a?$)*{15}"
 * took 0.64 s unsanitized, "^(\\'$)*{20}D}" 30 s; and the buffer's
 * anchors \\` and \\' are assertions: "(\\`)*{20}" took 5.6 s.  A
 * repetition right after another counts twice: "^(]?*){,14}" took it
 * 0.27 s unsanitized (more than libFuzzer's 10 s with ASan, under load),
 * "^(]?*){,10}" 0.013 s.
 */
static bool
empty_group(const char *s)
{
	for (; (s = strchr(s, '(')) != NULL; s++)
		if (s[1 + strspn(s + 1, "^$")] == ')')
			return true;
	return false;
}

static bool
libc_slow(const char *s)
{
	const char *start = s, *t;
	unsigned long weight = 1, n, most = 64;
	int ops = 0;

	if (strchr(s, '|') != NULL || empty_group(s) ||
	    (*s != '\0' && strchr(s + 1, '^') != NULL) ||
	    ((t = strchr(s, '$')) != NULL && t[1] != '\0') ||
	    strstr(s, "\\b") != NULL || strstr(s, "\\B") != NULL ||
	    strstr(s, "\\<") != NULL || strstr(s, "\\>") != NULL ||
	    strstr(s, "\\`") != NULL || strstr(s, "\\'") != NULL)
		most = 8;

	for (; *s != '\0'; s++) {
		if (*s == '*' || *s == '+' || *s == '?')
			weight *= s > start && strchr("*+?}", s[-1]) != NULL ?
			    4 : 2;
		else if (*s == '{') {
			/*
			 * The largest number in the interval; glibc read
			 * "a?{\\,798}" as "a?{,798}": a backslash counts
			 * for nothing.
			 */
			for (n = 0; (s[1] >= '0' && s[1] <= '9') ||
			    s[1] == ',' || s[1] == '\\'; s++)
				if (s[1] >= '0' && s[1] <= '9' && (n = n * 10 +
				    (unsigned long)(s[1] - '0')) > 1000)
					return true;
			weight *= n + 1;
		} else
			continue;
		if (++ops > 3 || weight > most)
			return true;
	}
	return false;
}

/*
 * Whether glibc's answers on subjects are not to be trusted: with a ^
 * that is not the ERE's first byte and a repetition operator, it gave
 * 0, 13 and 20 for the start of the leftmost match of equivalent EREs
 * ("(^[^=a=\325])?{,24}\256\256", "{,2}" in place of "{,24}", "[^b]"
 * in place of the bracket) on one subject where the answer is 21.
 */
static bool
libc_unsure(const char *s)
{
	return s[0] != '\0' && strchr(s + 1, '^') != NULL &&
	    strpbrk(s, "*+?{") != NULL;
}

/* Whether line[0..n) matches as a stream cut at cut. */
static bool
fed(struct ere *re, struct ere_run *run, const char *line, size_t n,
    size_t cut)
{
	size_t at;
	bool match;

	ere_run_reset(run);
	match = ere_feed(re, run, line, cut, &at) ||
	    ere_feed(re, run, line + cut, n - cut, &at) ||
	    ere_feed_end(re, run);
	ere_run_reset(run);
	return match;
}

/* The stream's answers on line[0..n), cut anywhere, are ours. */
static void
compare_stream(struct ere *re, const char *line, size_t n, bool ours)
{
	struct ere_run *run = ere_run_new(re);
	size_t cut;

	if (run == NULL)
		abort();
	for (cut = 0; cut <= n; cut++)
		if (n > 0 && fed(re, run, line, n, cut) != ours) {
			fprintf(stderr, "subject '%s' cut at %zu: stream %d, "
			    "ere %d\n", line, cut, !ours, ours);
			abort();
		}
	ere_run_free(run);
}

/*
 * The subjects as one stream of lines, text[0..n), cut in two at a few
 * places: it matches where one of them does (any), the literals' search
 * jumping between lines as it may.
 */
static void
compare_lines(struct ere *re, const char *text, size_t n, bool any)
{
	struct ere_run *run = ere_run_new(re);
	size_t cut, step = n / 32 + 1;

	if (run == NULL)
		abort();
	for (cut = 0; cut <= n; cut += step)
		if (fed(re, run, text, n, cut) != any) {
			fprintf(stderr, "lines '%.*s' cut at %zu: stream %d, "
			    "lines %d\n", (int)n, text, cut, !any, any);
			abort();
		}
	ere_run_free(run);
}

/* Whether the subject, its newlines taken out, matches; appended to all. */
static bool
compare(regex_t *libc, struct ere *re, const char *subject, size_t len,
    bool unsure, char *all, size_t *nall)
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
	if (!unsure && (ours != theirs || (ours && (regoff_t)start !=
	    pm.rm_so))) {
		fprintf(stderr, "subject '%s': libc %d at %ld, ere %d at %zu\n",
		    line, theirs, theirs ? (long)pm.rm_so : -1L, ours,
		    ours ? start : 0);
		abort();
	}
	compare_stream(re, line, n, ours);
	memcpy(all + *nall, line, n);
	*nall += n;
	all[(*nall)++] = '\n';
	free(line);
	return ours;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL, *p, *end = (const char *)data + size;
	char *pattern;
	size_t plen;
	struct ere *re;
	regex_t libc;
	char *all;
	size_t nall = 0;
	bool unsure, any = false;
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
	unsure = libc_unsure(pattern);
	rc = regcomp(&libc, pattern, REG_EXTENDED | REG_NEWLINE);
	if (rc != 0) {
		if (re != NULL) {
			fprintf(stderr, "libc refuses '%s'\n", pattern);
			abort();
		}
		free(pattern);
		return 0;
	}
	if (re == NULL) {
		if (strcmp(why, "back-references are not supported") != 0 ||
		    !has_backref(pattern)) {
			fprintf(stderr, "ere refuses '%s': %s\n", pattern, why);
			abort();
		}
		regfree(&libc);
		free(pattern);
		return 0;
	}
	if ((all = malloc(size + 1)) == NULL)
		abort();
	for (p = p != NULL ? p + 1 : end; p <= end; ) {
		const char *q = memchr(p, '\0', (size_t)(end - p));
		size_t n = q != NULL ? (size_t)(q - p) : (size_t)(end - p);

		any |= compare(&libc, re, p, n > 128 ? 128 : n, unsure, all,
		    &nall);
		p += n + 1;
	}
	/* The last line has its newline: an empty line matches no more. */
	compare_lines(re, all, nall, any);
	free(all);
	regfree(&libc);
	ere_free(re);
	free(pattern);
	return 0;
}
