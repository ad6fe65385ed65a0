/*
 * erecomp.c: POSIX extended regular expressions for the output conditions,
 * matched in time linear in the text.  glibc's regexec() takes seconds on
 * one 64 KiB line against an ERE as plain as 'a.*b' (issue 19, item 3),
 * so retry compiles EREs itself.  eresyntax.c reads a pattern into a tree
 * (glibc's syntax and words for the errors) whose leaves are sets of bytes
 * (ereclass.c), and erelit.c finds on that tree the literals every match
 * holds, for the search to skip to; this file owns the rest.  The tree
 * becomes a Thompson NFA, a program of at most ERE_MAX_PROG instructions
 * (ereprog.h), which eredfa.c runs as a DFA to say whether and where a
 * line matches, and erenfa.c, where the DFA would need a new state at
 * nearly every byte, as a bit-parallel NFA; an ERE that neither could
 * match fast is refused as too complex (ERE_MAX_COST).  Only ere_exec(),
 * for a line that matches, runs the NFA again here, with the start of
 * each thread, to say where the leftmost match starts.  Lines are matched
 * one by one: no match crosses a newline, and ^ $ \` \' match at the
 * start and end of each line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"
#include "ereclass.h"
#include "ereclosure.h"
#include "erelit.h"
#include "ereprog.h"
#include "eresyntax.h"

static const char E_SPACE[] = "Memory exhausted";	/* eresyntax.c's too */
static const char E_COMPLEX[] = "too complex";		/* and this one */

/* ---- code generation --------------------------------------------------- */

static int
emit(struct ere *re, int op, int x, int y)
{
	re->prog[re->nprog] = (struct inst){ (unsigned char)op, 0, x, y };
	return re->nprog++;
}

static void	gen(struct ere *, const struct node *, int);

/* Code generation recurses as deep as the tree, at most ERE_MAX_PROG. */
/* NOLINTBEGIN(misc-no-recursion) */

/* sub{min,max}: min copies, then a loop or max - min optional ones. */
static void
gen_rep(struct ere *re, const struct node *nodes, const struct node *n)
{
	int i, loop, end, split;

	for (i = 0; i < n->min - (n->max == -1 && n->min > 0); i++)
		gen(re, nodes, n->a);
	if (n->max == -1 && n->min > 0) {
		loop = re->nprog;
		gen(re, nodes, n->a);
		emit(re, I_SPLIT, loop, re->nprog + 1);
	} else if (n->max == -1) {
		loop = emit(re, I_SPLIT, 0, 0);
		gen(re, nodes, n->a);
		emit(re, I_JMP, loop, 0);
		re->prog[loop].x = loop + 1;
		re->prog[loop].y = re->nprog;
	} else {
		end = re->nprog + (n->max - n->min) *
		    (int)(nodes[n->a].size + 1);
		for (i = n->min; i < n->max; i++) {
			split = emit(re, I_SPLIT, 0, end);
			re->prog[split].x = split + 1;
			gen(re, nodes, n->a);
		}
	}
}

static void
gen(struct ere *re, const struct node *nodes, int i)
{
	const struct node *n = &nodes[i];
	int split, jmp;

	switch (n->type) {
	case N_SET:
		emit(re, I_SET, n->a, 0);
		break;
	case N_ASSERT:
		re->prog[emit(re, I_ASSERT, 0, 0)].kind = (unsigned char)n->a;
		break;
	case N_CAT:
		gen(re, nodes, n->a);
		gen(re, nodes, n->b);
		break;
	case N_ALT:
		split = emit(re, I_SPLIT, 0, 0);
		re->prog[split].x = split + 1;
		gen(re, nodes, n->a);
		jmp = emit(re, I_JMP, 0, 0);
		re->prog[split].y = re->nprog;
		gen(re, nodes, n->b);
		re->prog[jmp].x = re->nprog;
		break;
	case N_REP:
		gen_rep(re, nodes, n);
		break;
	default:
		break;
	}
}

/* NOLINTEND(misc-no-recursion) */

static bool
alloc_work(struct ere *re)
{
	size_t n = (size_t)re->nprog;
	bool walk = ere_walk_alloc(&re->walk, re->prog, re->nprog);

	re->lstart = malloc(n * sizeof(*re->lstart));
	re->carry = malloc(n * sizeof(*re->carry));
	re->cstart = malloc(n * sizeof(*re->cstart));
	re->seen = calloc(n, 1);
	/* Pages of the cache are touched only as states are made. */
	re->st = malloc(DFA_STATES * sizeof(*re->st));
	re->pool = malloc(DFA_POOL * sizeof(*re->pool));
	return walk && re->lstart != NULL && re->carry != NULL &&
	    re->cstart != NULL && re->seen != NULL && re->st != NULL &&
	    re->pool != NULL;
}

/*
 * The bytes that can start a match and NUL as a few ranges, for
 * ranges_find(), when they are few enough; else none.
 */
static void
first_ranges(struct ere *re)
{
	struct ranges *rs = &re->ranges;
	int c, start;

	rs->n = 0;
	for (c = 0; c < 256; c++) {
		if (!re->first[c])
			continue;
		for (start = c; c + 1 < 256 && re->first[c + 1]; c++)
			continue;
		if (rs->n == RANGES_MAX) {
			rs->n = 0;
			return;
		}
		rs->lo[rs->n] = (unsigned char)start;
		rs->width[rs->n++] = (unsigned char)(c - start);
	}
}

/*
 * The bytes that can start a match, for the search to skip to: only where
 * no assertion comes before the first byte and no match is empty, so that
 * what the skipped bytes were cannot matter.
 */
static void
find_first(struct ere *re)
{
	const struct inst *in;
	int *stack = re->walk.stack, sp = 0, pc, c;

	re->nfirst = 0;
	memset(re->first, 0, sizeof(re->first));
	stack[sp++] = 0;
	while (sp > 0) {
		pc = stack[--sp];
		if (re->seen[pc])
			continue;
		re->seen[pc] = 1;
		in = &re->prog[pc];
		if (in->op == I_ASSERT || in->op == I_MATCH) {
			re->nfirst = -1;
		} else if (in->op == I_SET) {
			for (c = 0; c < 256; c++)
				if (set_has(re->sets[in->x], c))
					re->first[c] = 1;
		} else {
			if (in->op == I_SPLIT)
				stack[sp++] = in->y;
			stack[sp++] = in->x;
		}
	}
	memset(re->seen, 0, (size_t)re->nprog);
	if (re->nfirst == -1) {
		re->nfirst = 0;
		return;
	}
	for (c = 0; c < 256; c++)
		if (re->first[c]) {
			re->nfirst++;
			re->first1 = c;
		}
	if (re->nfirst == 256)
		re->nfirst = 0;
	re->nfirsts = 0;
	if (re->nfirst == 2 || re->nfirst == 3) {
		for (c = 1; c < 256; c++)
			if (re->first[c])
				re->firsts[re->nfirsts++] = (unsigned char)c;
		re->firsts[re->nfirsts++] = '\0';
	}
	re->first[0] = 1;	/* a NUL ends what is matched: stop there */
	if (re->nfirst > 3)
		first_ranges(re);
}

/*
 * Whether every path from the start to a byte or to the end passes a ^:
 * then nothing can match but at a line start.
 */
static bool
is_anchored(struct ere *re)
{
	const struct inst *in;
	bool anchored = true;
	int *stack = re->walk.stack, sp = 0, pc;

	stack[sp++] = 0;
	while (sp > 0 && anchored) {
		pc = stack[--sp];
		if (re->seen[pc])
			continue;
		re->seen[pc] = 1;
		in = &re->prog[pc];
		if (in->op == I_SET || in->op == I_MATCH)
			anchored = false;
		else if (in->op == I_ASSERT && in->kind != A_BOL)
			stack[sp++] = pc + 1;
		else if (in->op != I_ASSERT) {
			if (in->op == I_SPLIT)
				stack[sp++] = in->y;
			stack[sp++] = in->x;
		}
	}
	memset(re->seen, 0, (size_t)re->nprog);
	return anchored;
}

/*
 * The literal bytes every match starts with, for the search to skip to: a
 * chain of one-byte sets from the start, with nothing to choose between.
 */
static void
find_prefix(struct ere *re)
{
	const struct inst *in;
	int pc = 0, c, only;

	re->nprefix = 0;
	if (re->nfirst != 1)
		return;
	while (re->nprefix < sizeof(re->prefix)) {
		in = &re->prog[pc];
		if (in->op != I_SET)
			break;
		for (only = -1, c = 0; c < 256; c++)
			if (set_has(re->sets[in->x], c))
				only = only == -1 ? c : -2;
		if (only < 0)
			break;
		re->prefix[re->nprefix++] = (unsigned char)only;
		pc++;
	}
	if (re->nprefix < 2)
		re->nprefix = 0;
}

struct ere *
ere_compile(const char *pattern, const char **why)
{
	struct ere_tree t;
	struct ere *re;

	if (ere_parse(pattern, &t, why) == -1)
		return NULL;
	if ((re = calloc(1, sizeof(*re))) != NULL) {
		re->sets = t.sets;
		re->nsets = t.nsets;
		re->prog = malloc((t.nodes[t.root].size + 1) *
		    sizeof(*re->prog));
	} else
		free(t.sets);
	if (re == NULL || re->prog == NULL) {
		free(t.nodes);
		ere_free(re);
		*why = E_SPACE;
		return NULL;
	}
	gen(re, t.nodes, t.root);
	emit(re, I_MATCH, 0, 0);
	ere_literals(&t, &re->lits);
	re->pair_leeway = PAIRS_ALWAYS ? 3 : 0;
	re->byte_leeway = PAIRS_ALWAYS ? 3 : SIZE_MAX;
	free(t.nodes);
	if (!alloc_work(re)) {
		ere_free(re);
		*why = E_SPACE;
		return NULL;
	}
	find_first(re);
	re->anchored = is_anchored(re);
	find_prefix(re);
	re->skips = re->anchored || re->nfirst > 0 || re->lits.n > 0;
	/*
	 * Where a miss of the DFA may cost more than ERE_MAX_COST, the NFA is
	 * built now, to know whether it is fast enough; else only when the
	 * DFA first misses too often (eredfa.c), and most EREs never do.
	 */
	if (MISS_COST(re->nprog) <= ERE_MAX_COST)
		return re;
	if ((re->nfa = nfa_build(re)) == NULL) {
		ere_free(re);
		*why = E_SPACE;
		return NULL;
	}
	if (nfa_cost(re->nfa) > ERE_MAX_COST) {
		ere_free(re);
		*why = E_COMPLEX;
		return NULL;
	}
	return re;
}

size_t
ere_size(const struct ere *re)
{
	return (size_t)re->nprog - 1;	/* the final I_MATCH is not counted */
}

void
ere_free(struct ere *re)
{
	if (re == NULL)
		return;
	free(re->prog);
	free(re->sets);
	free(re->sample);
	ere_walk_free(&re->walk);
	free(re->lstart);
	free(re->carry);
	free(re->cstart);
	free(re->seen);
	free(re->st);
	free(re->pool);
	nfa_free(re->nfa);
	free(re);
}

/* ---- simulation -------------------------------------------------------- */

/*
 * The closure of pc, appended to re->walk.list from *n, each thread it
 * reaches started at start: whether MATCH is in it.
 */
static bool
pike_closure(struct ere *re, int pc, int prev, int next, int *n,
    size_t start)
{
	int k = *n;
	bool match = ere_closure(&re->walk, pc, prev, next, n);

	for (; k < *n; k++)
		re->lstart[k] = start;
	return match;
}

/*
 * Where the leftmost match in the line p[0..len) starts: the NFA run with
 * the start of each thread, the earliest start kept when two threads
 * meet.  Threads stay in order of their starts.
 */
static size_t
pike_start(struct ere *re, const unsigned char *p, size_t len)
{
	const int *list = re->walk.list;
	size_t best = SIZE_MAX, i;
	int ncarry = 0, n, k, prev, next;

	for (i = 0;; i++) {
		prev = i == 0 ? C_LINE : ere_is_word(p[i - 1]) ? C_WORD : C_OTHER;
		next = i < len ? p[i] : -1;
		ere_walk_next_gen(&re->walk);
		n = 0;
		for (k = 0; k < ncarry && re->cstart[k] < best; k++)
			if (pike_closure(re, re->carry[k], prev, next, &n,
			    re->cstart[k]))
				best = re->cstart[k];
		if (best == SIZE_MAX && pike_closure(re, 0, prev, next, &n, i))
			best = i;
		ncarry = 0;
		if (i == len)
			break;
		for (k = 0; k < n; k++)
			if (re->lstart[k] < best &&
			    set_has(re->sets[re->prog[list[k]].x], p[i])) {
				re->carry[ncarry] = list[k] + 1;
				re->cstart[ncarry++] = re->lstart[k];
			}
		if (ncarry == 0 && best != SIZE_MAX)
			break;
	}
	return best;
}

/*
 * The leftmost match of text[0..len), lines whose last one has no newline
 * (a newline at the very end leaves one empty line after it).
 */
bool
ere_exec(struct ere *re, const char *text, size_t len, size_t *start)
{
	const unsigned char *p = (const unsigned char *)text;
	struct ere_run run = { re->carry, 0, C_LINE, true };
	size_t at = len, ls, le, s;

	if (!ere_feed(re, &run, text, len, &at)) {
		run.midline = true;
		if (!ere_feed_end(re, &run))
			return false;
	}
	for (ls = at; ls > 0 && p[ls - 1] != '\n'; ls--)
		continue;
	for (le = at; le < len && p[le] != '\n' && p[le] != '\0'; le++)
		continue;
	s = pike_start(re, p + ls, le - ls);
	*start = ls + (s == SIZE_MAX ? 0 : s);
	return true;
}
