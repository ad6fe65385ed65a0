/*
 * ere.c: POSIX extended regular expressions for the output conditions,
 * matched in time linear in the text.  glibc's regexec() takes seconds on
 * one 64 KiB line against an ERE as plain as 'a.*b' (issue 19, item 3),
 * so retry compiles EREs itself.  eresyntax.c reads a pattern into a tree
 * (glibc's syntax and words for the errors) whose leaves are sets of bytes
 * (ereclass.c); this file owns the rest.  The tree becomes a Thompson
 * NFA, a program of at most ERE_MAX_PROG instructions.  Whether a line
 * matches is asked of a DFA built lazily from the NFA, its states cached
 * in a bounded table that is emptied when full, so that each byte costs a
 * table look-up once the few states a plain ERE needs exist, and never
 * more than one pass over the program.  Only for a line that matches is
 * the NFA run again, with the start of each thread, to say where the
 * leftmost match starts.  Lines are matched one by one: no match crosses
 * a newline, and ^ $ \` \' match at the start and end of each line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"
#include "ereclass.h"
#include "eresyntax.h"

#define DFA_STATES	256
#define DFA_POOL	32768	/* program counters of all cached states */
#define HASH_SIZE	512	/* twice DFA_STATES, a power of 2 */

/* Any one state fits in the pool once the cache is emptied. */
_Static_assert(DFA_POOL > ERE_MAX_PROG + 1, "DFA_POOL too small");

#define T_UNKNOWN	(-1)	/* a transition not yet computed */
#define T_MATCH		(-2)	/* the line matches */

enum op { I_SET, I_SPLIT, I_JMP, I_ASSERT, I_MATCH };
enum ctx { C_LINE, C_WORD, C_OTHER };	/* what precedes a position */

struct inst {
	unsigned char	 op;
	unsigned char	 kind;		/* I_ASSERT */
	int		 x, y;		/* set; targets */
};

struct dstate {
	int		 pcs;		/* offset in the pool */
	int		 npcs;
	int		 ctx;
	int		 trans[256];
};

struct ere {
	struct inst	*prog;
	int		 nprog;
	byteset		*sets;
	int		 nsets;
	/* Work space of the simulations, nprog entries each. */
	unsigned	*mark;
	unsigned	 gen;
	int		*stack;
	int		*list;		/* consumers reached */
	size_t		*lstart;
	int		*carry;
	size_t		*cstart;
	/* The DFA cache. */
	struct dstate	*st;
	int		 nst;
	int		*pool;
	int		 npool;
	int		 hash[HASH_SIZE];
	unsigned char	*seen;
	/* The bytes a match can start with, when that is all it needs. */
	int		 nfirst;	/* 0: no skipping */
	int		 first1;	/* the byte, when there is one */
	unsigned char	 first[256];
};

static const char E_SPACE[] = "Memory exhausted";	/* eresyntax.c's too */

static bool
is_word(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || c == '_';
}

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

	re->mark = calloc(n, sizeof(*re->mark));
	re->stack = malloc((2 * n + 2) * sizeof(*re->stack));
	re->list = malloc(n * sizeof(*re->list));
	re->lstart = malloc(n * sizeof(*re->lstart));
	re->carry = malloc(n * sizeof(*re->carry));
	re->cstart = malloc(n * sizeof(*re->cstart));
	re->seen = calloc(n, 1);
	/* Pages of the cache are touched only as states are made. */
	re->st = malloc(DFA_STATES * sizeof(*re->st));
	re->pool = malloc(DFA_POOL * sizeof(*re->pool));
	return re->mark != NULL && re->stack != NULL && re->list != NULL &&
	    re->lstart != NULL && re->carry != NULL && re->cstart != NULL &&
	    re->seen != NULL && re->st != NULL && re->pool != NULL;
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
	int sp = 0, pc, c;

	re->nfirst = 0;
	memset(re->first, 0, sizeof(re->first));
	re->stack[sp++] = 0;
	while (sp > 0) {
		pc = re->stack[--sp];
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
				re->stack[sp++] = in->y;
			re->stack[sp++] = in->x;
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
	free(t.nodes);
	if (!alloc_work(re)) {
		ere_free(re);
		*why = E_SPACE;
		return NULL;
	}
	find_first(re);
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
	free(re->mark);
	free(re->stack);
	free(re->list);
	free(re->lstart);
	free(re->carry);
	free(re->cstart);
	free(re->seen);
	free(re->st);
	free(re->pool);
	free(re);
}

/* ---- simulation -------------------------------------------------------- */

/* Whether an assertion holds between prev (a context) and next (-1: end). */
static bool
assert_holds(int kind, int prev, int next)
{
	bool pw = prev == C_WORD, nw = next >= 0 && is_word(next);

	switch (kind) {
	case A_BOL:
		return prev == C_LINE;
	case A_EOL:
		return next < 0;
	case A_WORDB:
		return pw != nw;
	case A_NWORDB:
		return pw == nw;
	case A_WBEG:
		return !pw && nw;
	default:
		return pw && !nw;
	}
}

/*
 * Follows pc through splits, jumps and assertions that hold, appending
 * each set instruction reached and not yet marked in this generation to
 * re->list (with start in re->lstart).  Returns whether MATCH is reached.
 */
static bool
closure(struct ere *re, int pc, int prev, int next, int *n, size_t start)
{
	const struct inst *in;
	bool match = false;
	int sp = 0;

	re->stack[sp++] = pc;
	while (sp > 0) {
		pc = re->stack[--sp];
		if (re->mark[pc] == re->gen)
			continue;
		re->mark[pc] = re->gen;
		in = &re->prog[pc];
		switch (in->op) {
		case I_SET:
			re->lstart[*n] = start;
			re->list[(*n)++] = pc;
			break;
		case I_MATCH:
			match = true;
			break;
		case I_JMP:
			re->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			re->stack[sp++] = in->y;
			re->stack[sp++] = in->x;
			break;
		default:
			if (assert_holds(in->kind, prev, next))
				re->stack[sp++] = pc + 1;
			break;
		}
	}
	return match;
}

/* A new generation of marks, clearing them when the counter wraps. */
static void
next_gen(struct ere *re)
{
	if (++re->gen == 0) {
		memset(re->mark, 0, (size_t)re->nprog * sizeof(*re->mark));
		re->gen = 1;
	}
}

static void
dfa_flush(struct ere *re)
{
	re->nst = 0;
	re->npool = 0;
	memset(re->hash, 0, sizeof(re->hash));
}

static unsigned
dfa_hash(const int *pcs, int n, int ctx)
{
	unsigned h = 2166136261U ^ (unsigned)ctx;
	int i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned)pcs[i]) * 16777619U;
	return h;
}

/*
 * The state for the sorted pcs after a byte of context ctx; *flushed says
 * whether the cache had to be emptied to make room for it.
 */
static int
dfa_state(struct ere *re, const int *pcs, int n, int ctx, bool *flushed)
{
	unsigned h = dfa_hash(pcs, n, ctx) & (HASH_SIZE - 1);
	struct dstate *s;
	int i;

	for (; re->hash[h] != 0; h = (h + 1) & (HASH_SIZE - 1)) {
		s = &re->st[re->hash[h] - 1];
		if (s->ctx == ctx && s->npcs == n && memcmp(re->pool + s->pcs,
		    pcs, (size_t)n * sizeof(*pcs)) == 0)
			return re->hash[h] - 1;
	}
	if (re->nst == DFA_STATES || re->npool + n > DFA_POOL) {
		dfa_flush(re);
		*flushed = true;
		h = dfa_hash(pcs, n, ctx) & (HASH_SIZE - 1);
	}
	i = re->nst++;
	s = &re->st[i];
	s->pcs = re->npool;
	s->npcs = n;
	s->ctx = ctx;
	memmove(re->pool + re->npool, pcs, (size_t)n * sizeof(*pcs));
	re->npool += n;
	for (i = 0; i < 256; i++)
		s->trans[i] = T_UNKNOWN;
	re->hash[h] = re->nst;
	return re->nst - 1;
}

/*
 * The transition of state i on byte c, made and cached.  A newline is the
 * end of a line: the line matched, or the next one starts afresh.
 */
static int
dfa_step(struct ere *re, int i, int c)
{
	struct dstate *s = &re->st[i];
	int next = c == '\n' ? -1 : c, n = 0, k, m, t, pc;
	bool match, flushed = false;

	next_gen(re);
	match = closure(re, 0, s->ctx, next, &n, 0);
	for (k = 0; k < s->npcs && !match; k++)
		match = closure(re, re->pool[s->pcs + k], s->ctx, next, &n, 0);
	if (match) {
		s->trans[c] = T_MATCH;
		return T_MATCH;
	}
	m = 0;
	if (c != '\n') {
		for (k = 0; k < n; k++) {
			pc = re->list[k];
			if (set_has(re->sets[re->prog[pc].x], c))
				re->seen[pc + 1] = 1;
		}
		for (pc = 0; pc < re->nprog; pc++)
			if (re->seen[pc]) {
				re->seen[pc] = 0;
				re->stack[m++] = pc;
			}
	}
	t = dfa_state(re, re->stack, m, c == '\n' ? C_LINE : is_word(c) ?
	    C_WORD : C_OTHER, &flushed);
	if (!flushed)
		re->st[i].trans[c] = t;
	return t;
}

/* Where a match could start, from i on: len if nowhere. */
static size_t
skip(const struct ere *re, const unsigned char *p, size_t i, size_t len)
{
	const unsigned char *q;

	if (re->nfirst == 1) {
		q = memchr(p + i, re->first1, len - i);
		return q != NULL ? (size_t)(q - p) : len;
	}
	while (i < len && !re->first[p[i]])
		i++;
	return i;
}

/*
 * Runs the DFA: whether a line matches, and where (*at) it was seen.  In
 * a state with no thread alive, it skips to a byte that can start one.
 */
static bool
dfa_search(struct ere *re, const unsigned char *p, size_t len, size_t *at)
{
	bool flushed = false;
	size_t i;
	int s, t;

	s = dfa_state(re, re->stack, 0, C_LINE, &flushed);
	for (i = 0; i <= len; i++) {
		int c;

		if (re->nfirst > 0 && re->st[s].npcs == 0 &&
		    (i = skip(re, p, i, len)) == len)
			return false;	/* and no match is empty */
		c = i < len ? p[i] : '\n';
		if ((t = re->st[s].trans[c]) == T_UNKNOWN)
			t = dfa_step(re, s, c);
		if (t == T_MATCH) {
			*at = i;
			return true;
		}
		s = t;
	}
	return false;
}

/*
 * Where the leftmost match in the line p[0..len) starts: the NFA run with
 * the start of each thread, the earliest start kept when two threads
 * meet.  Threads stay in order of their starts.
 */
static size_t
pike_start(struct ere *re, const unsigned char *p, size_t len)
{
	size_t best = SIZE_MAX, i;
	int ncarry = 0, n, k, prev, next;

	for (i = 0;; i++) {
		prev = i == 0 ? C_LINE : is_word(p[i - 1]) ? C_WORD : C_OTHER;
		next = i < len ? p[i] : -1;
		next_gen(re);
		n = 0;
		for (k = 0; k < ncarry && re->cstart[k] < best; k++)
			if (closure(re, re->carry[k], prev, next, &n,
			    re->cstart[k]))
				best = re->cstart[k];
		if (best == SIZE_MAX && closure(re, 0, prev, next, &n, i))
			best = i;
		ncarry = 0;
		if (i == len)
			break;
		for (k = 0; k < n; k++)
			if (re->lstart[k] < best &&
			    set_has(re->sets[re->prog[re->list[k]].x], p[i])) {
				re->carry[ncarry] = re->list[k] + 1;
				re->cstart[ncarry++] = re->lstart[k];
			}
		if (ncarry == 0 && best != SIZE_MAX)
			break;
	}
	return best;
}

bool
ere_exec(struct ere *re, const char *text, size_t len, size_t *start)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t at, ls, le, s;

	if (!dfa_search(re, p, len, &at))
		return false;
	for (ls = at; ls > 0 && p[ls - 1] != '\n'; ls--)
		continue;
	for (le = at; le < len && p[le] != '\n'; le++)
		continue;
	s = pike_start(re, p + ls, le - ls);
	*start = ls + (s == SIZE_MAX ? 0 : s);
	return true;
}
