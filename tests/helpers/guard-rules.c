/*
 * guard-rules: the table of tests/guard-rules.txt against the rules of
 * --budget and --breaker, on both sides of retry's fleet code.
 *
 *	guard-rules check TABLE		runs every case through budget.c's
 *					functions; lists the ones that differ
 *	guard-rules redis TABLE SHA1	the case as redis-cli commands, for
 *					the Lua script loaded as SHA1
 *	guard-rules expect TABLE	what redis-cli must print for those
 *	guard-rules script		the embedded script
 *
 * tests/rules.bats runs the first; tests/fleet.bats pipes the second
 * into redis-cli and compares with the third.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard/budget.h"
#include "os/defs.h"
#include "policy/backoff.h"

#define FIELDS	7	/* of a record: tokens state failures until ... */
#define ARGS_MAX 6
#define OUT_MAX	3

struct rule_case {
	int		 line;
	char		 op[16];
	long long	 args[ARGS_MAX], out[OUT_MAX];
	long long	 before[FIELDS], after[FIELDS], now;
	int		 nargs, nout;
};

static const char *const field_names[FIELDS] = {
	"tokens", "state", "failures", "until", "cooldown", "probe", "at",
};

/* How many ARGS and OUT an operation has, as guard.lua reads them. */
static bool
op_arity(const char *op, int *nargs, int *nout)
{
	if (strcmp(op, "attempt") == 0)
		*nargs = 4, *nout = 2;
	else if (strcmp(op, "admit") == 0)
		*nargs = 4, *nout = 3;
	else if (strcmp(op, "report") == 0)
		*nargs = 6, *nout = 1;
	else
		return false;
	return true;
}

/* n numbers from the words of s, then "|" or the end: the rest. */
static char *
numbers(char *s, long long *v, int n)
{
	char *end;
	int i;

	for (i = 0; i < n; i++) {
		v[i] = strtoll(s, &end, 10);
		if (end == s)
			return NULL;
		s = end;
	}
	s += strspn(s, " \t");
	if (*s == '|')
		return s + 1;
	return *s == '\0' ? s : NULL;
}

/* One line of the table: 1, 0 if it holds no case, -1 if malformed. */
static int
parse_case(char *s, struct rule_case *c)
{
	char *hash;
	int n;

	if ((hash = strchr(s, '#')) != NULL)
		*hash = '\0';
	if (sscanf(s, "%15s%n", c->op, &n) != 1)
		return 0;
	if (!op_arity(c->op, &c->nargs, &c->nout))
		return -1;
	s += n;
	if ((s = numbers(s, c->args, c->nargs)) == NULL ||
	    (s = numbers(s, &c->now, 1)) == NULL ||
	    (s = numbers(s, c->before, FIELDS)) == NULL ||
	    (s = numbers(s, c->out, c->nout)) == NULL ||
	    (s = numbers(s, c->after, FIELDS)) == NULL)
		return -1;
	return 1;
}

static void
record_from(struct guard_record *r, const long long f[FIELDS])
{
	record_init(r);
	r->tokens = f[0];
	r->state = (enum breaker_state)f[1];
	r->failures = f[2];
	r->until = f[3] * 1000;
	r->cooldown = f[4] * 1000;
	r->probe = (uint32_t)f[5];
	r->at = f[6] * 1000;
}

/* Runs c through budget.c: the outputs and the record after. */
static bool
run_c(const struct rule_case *c, long long out[OUT_MAX], long long f[FIELDS])
{
	struct guard_spec g;
	struct guard_record r;
	nsec_t wait = 0, cap = 0;

	memset(&g, 0, sizeof(g));
	record_from(&r, c->before);
	if (strcmp(c->op, "attempt") == 0) {
		g.tokens = c->args[0] / MILLI;
		g.ratio = c->args[1];
		g.refill = c->args[3] * 1000;
		out[0] = budget_attempt(&r, &g, c->now * 1000, c->args[2] == 1);
		out[1] = r.tokens;
	} else if (strcmp(c->op, "admit") == 0) {
		g.cooldown = c->args[0] * 1000;
		cap = c->args[3];
		out[0] = breaker_admit(&r, &g, c->now * 1000,
		    c->args[1] * 1000, (uint32_t)c->args[2], &wait);
		out[1] = wait / 1000;
		out[2] = r.state;
	} else {
		g.failures = c->args[0];
		g.cooldown = c->args[1] * 1000;
		cap = c->args[2];
		out[0] = breaker_report(&r, &g, c->now * 1000,
		    (uint32_t)c->args[4], (enum run_end)c->args[3],
		    (unsigned)c->args[5]);
	}
	f[0] = r.tokens;
	f[1] = r.state;
	f[2] = r.failures;
	f[3] = r.until / 1000;
	f[4] = r.cooldown / 1000;
	f[5] = r.probe;
	f[6] = r.at / 1000;
	/* The CAP that guard.c would send must be the one given. */
	return strcmp(c->op, "attempt") == 0 || breaker_cap(&g) == cap * 1000;
}

static void
print_numbers(const char *what, const long long *v, int n)
{
	int i;

	fputs(what, stderr);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %lld", v[i]);
}

/* Runs c through budget.c: true if it gives the table's answers. */
static bool
check_case(const struct rule_case *c)
{
	long long out[OUT_MAX], f[FIELDS];

	if (!run_c(c, out, f)) {
		fprintf(stderr, "line %d: CAP is not breaker_cap()\n", c->line);
		return false;
	}
	if (memcmp(out, c->out, sizeof(out[0]) * (size_t)c->nout) == 0 &&
	    memcmp(f, c->after, sizeof(f)) == 0)
		return true;
	fprintf(stderr, "line %d: %s:", c->line, c->op);
	print_numbers(" got", out, c->nout);
	print_numbers(" |", f, FIELDS);
	print_numbers("; the table says", c->out, c->nout);
	print_numbers(" |", c->after, FIELDS);
	fputc('\n', stderr);
	return false;
}

/* The case as redis-cli commands, on a key of its own. */
static void
redis_case(const struct rule_case *c, const char *sha1)
{
	int i;

	printf("ECHO \"line %d\"\nHSET rules:%d", c->line, c->line);
	for (i = 0; i < FIELDS; i++)
		printf(" %s %lld", field_names[i], c->before[i]);
	printf("\nEVALSHA %s 1 rules:%d %s", sha1, c->line, c->op);
	for (i = 0; i < c->nargs; i++)
		printf(" %lld", c->args[i]);
	printf(" %lld\nHMGET rules:%d", c->now, c->line);
	for (i = 0; i < FIELDS; i++)
		printf(" %s", field_names[i]);
	putchar('\n');
}

/* What redis-cli prints for redis_case(), if the script agrees. */
static void
expect_case(const struct rule_case *c)
{
	int i;

	printf("line %d\n%d\n", c->line, FIELDS);
	for (i = 0; i < c->nout; i++)
		printf("%lld\n", c->out[i]);
	for (i = 0; i < FIELDS; i++)
		printf("%lld\n", c->after[i]);
}

static int
each_case(const char *mode, const char *table, const char *sha1)
{
	char buf[1024];
	struct rule_case c;
	int line = 0, n, cases = 0, bad = 0;
	FILE *f;

	if ((f = fopen(table, "r")) == NULL) {
		perror(table);
		return 2;
	}
	while (fgets(buf, sizeof(buf), f) != NULL) {
		memset(&c, 0, sizeof(c));
		c.line = ++line;
		if ((n = parse_case(buf, &c)) == 0)
			continue;
		cases++;
		if (n == -1) {
			fprintf(stderr, "%s:%d: malformed\n", table, line);
			bad++;
		} else if (strcmp(mode, "check") == 0)
			bad += !check_case(&c);
		else if (strcmp(mode, "redis") == 0)
			redis_case(&c, sha1);
		else
			expect_case(&c);
	}
	fclose(f);
	if (strcmp(mode, "check") == 0)
		fprintf(stderr, "%d cases, %d differ\n", cases, bad);
	return bad != 0 || cases == 0;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "script") == 0)
		return fputs(guard_lua, stdout) == EOF;
	if (argc == 3 && (strcmp(argv[1], "check") == 0 ||
	    strcmp(argv[1], "expect") == 0))
		return each_case(argv[1], argv[2], NULL);
	if (argc == 4 && strcmp(argv[1], "redis") == 0)
		return each_case(argv[1], argv[2], argv[3]);
	fprintf(stderr, "usage: guard-rules check|expect TABLE | "
	    "redis TABLE SHA1 | script\n");
	return 2;
}
