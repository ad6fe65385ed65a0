/*
 * ereline: the milliseconds src/ere/erecomp.c's DFA takes over a text, fed in
 * 64 KiB pieces as match.c feeds it (issue 27).  The text is FILE, or
 * with -a N one line of N 'a' and a 'b' (with -r N, N random 'a' and 'b'
 * then a 'c'); prints, per ERE, the best of five runs and whether the
 * text matched.
 *
 *	cc -O2 -D_GNU_SOURCE -Isrc -o ereline src/ere/bench/ereline.c \
 *	    src/ere/ere*.c src/ere/pairscan.c
 *	ereline FILE|-a N|-r N ERE...
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ere/ere.h"

#define PIECE	((size_t)64 * 1024)

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
		exit(2);
	rewind(f);
	if ((p = malloc((size_t)n + 1)) == NULL ||
	    fread(p, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static char *
line(const char *how, size_t n, size_t *len)
{
	char *p = malloc(n + 2);
	size_t i;

	if (p == NULL)
		exit(2);
	for (i = 0; i < n; i++)
		p[i] = how[1] == 'a' ? 'a' : "ab"[rand() & 1];
	p[n] = how[1] == 'a' ? 'b' : 'c';
	p[n + 1] = '\n';
	*len = n + 2;
	return p;
}

/* One pass over text; whether it matched. */
static bool
feed(struct ere *re, struct ere_run *run, const char *text, size_t len)
{
	size_t off, n, at;

	ere_run_reset(run);
	for (off = 0; off < len; off += n) {
		n = len - off < PIECE ? len - off : PIECE;
		if (ere_feed(re, run, text + off, n, &at))
			return true;
	}
	return ere_feed_end(re, run);
}

int
main(int argc, char **argv)
{
	const char *why;
	struct ere *re;
	struct ere_run *run;
	size_t len;
	char *text;
	double t, best;
	bool m = false;
	int i, k, first = 2;

	if (argc < 3)
		return 2;
	if (argv[1][0] == '-') {
		text = line(argv[1], (size_t)atol(argv[2]), &len);
		first = 3;
	} else
		text = slurp(argv[1], &len);
	for (i = first; i < argc; i++) {
		if ((re = ere_compile(argv[i], &why)) == NULL ||
		    (run = ere_run_new(re)) == NULL) {
			printf("%s\t%s\n", argv[i], why);
			continue;
		}
		for (best = 1e18, k = 0; k < 5; k++) {
			t = now_ms();
			m = feed(re, run, text, len);
			t = now_ms() - t;
			best = t < best ? t : best;
		}
		printf("%s\t%.2f ms\t%s\n", argv[i], best, m ? "match" :
		    "none");
		ere_run_free(run);
		ere_free(re);
	}
	free(text);
	return 0;
}
