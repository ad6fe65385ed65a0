/*
 * regex: the time one line takes against an output condition's ERE, for
 * the matchers retry could use (issue 19, item 3).  The line is 64 KiB
 * of 'a' (the most retry matches of a line) and does not match, so a
 * matcher must look at all of it.  Prints, per ERE, the milliseconds of
 * one match by the libc's regexec() (or, built with -DWITH_TRE and linked
 * with libtre.a, TRE's: the two regex.h cannot be included together) and
 * by src/ere/erecomp.c, retry's own matcher, each on a freshly compiled ERE.
 *
 *	cc -O2 -D_GNU_SOURCE -Isrc -o regex src/ere/bench/regex.c \
 *	    src/ere/ere*.c src/ere/pairscan.c
 *	regex [ERE...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef WITH_TRE
#include <tre/tre.h>
#define MATCHER	"TRE"
#else
#include <regex.h>
#define tre_regcomp	regcomp
#define tre_regexec	regexec
#define tre_regfree	regfree
#define MATCHER	"libc"
#endif

#include "ere/ere.h"

#define LINE	(64 * 1024)

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One regexec() of line, as match.c called it; -1 for a bad ERE. */
static double
regex_ms(const char *ere, const char *line)
{
	regex_t re;
	regmatch_t pm;
	double t;

	if (tre_regcomp(&re, ere, REG_EXTENDED | REG_NEWLINE) != 0)
		return -1;
	t = now_ms();
	(void)tre_regexec(&re, line, 1, &pm, 0);
	t = now_ms() - t;
	tre_regfree(&re);
	return t;
}

/* One ere_exec() of line, as match.c calls it; -1 for a bad ERE. */
static double
ere_ms(const char *ere, const char *line)
{
	struct ere *re;
	const char *why;
	size_t start;
	double t;

	if ((re = ere_compile(ere, &why)) == NULL)
		return -1;
	t = now_ms();
	(void)ere_exec(re, line, strlen(line), &start);
	t = now_ms() - t;
	ere_free(re);
	return t;
}

int
main(int argc, char **argv)
{
	static const char *const dflt[] = { "a.*b", "(a|aa)*c", "((a*)*)*b",
	    "(a*)*(b|c)", "a{1,50}b", "^(a|b)*c$", "error:", NULL };
	const char *const *eres = argc > 1 ? (const char *const *)argv + 1 :
	    dflt;
	char *line;
	int i;

	if ((line = malloc(LINE + 1)) == NULL)
		return 1;
	memset(line, 'a', LINE);
	line[LINE] = '\0';
	printf("ERE\t%s ms\tere ms\n", MATCHER);
	for (i = 0; eres[i] != NULL; i++) {
		printf("%s\t%.2f\t", eres[i], regex_ms(eres[i], line));
		fflush(stdout);
		printf("%.2f\n", ere_ms(eres[i], line));
		fflush(stdout);
	}
	free(line);
	return 0;
}
