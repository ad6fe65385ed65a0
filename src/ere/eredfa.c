/*
 * eredfa.c: the DFA that says whether a line matches an ERE, built
 * lazily from the program erecomp.c compiled (ereprog.h), its states cached
 * in a bounded table that is emptied when full, so that each byte costs a
 * table look-up once the few states a plain ERE needs exist, and never
 * more than one pass over the program.  It runs over a stream of lines
 * given in pieces of any size: the state between two pieces is kept in an
 * ere_run, so that a line cut by a read is still one line, ^ and $ match
 * only at its real start and end, and a match across the cut is found.
 * A line is matched up to its first NUL byte: from there to its newline
 * nothing is looked at.  Where no thread is alive it skips to the next
 * line that holds one of the literals every match holds (erelit.c found
 * them, and the pair of bytes or the byte of each to search by), to a
 * byte that can start a match (pairscan.c, memchr()) or, for an ERE
 * anchored at the line start, to the next newline, or to the next line
 * with a literal where a sample of the stream says that such lines are
 * the fewer (sample_stream()).  Where the cache keeps being emptied,
 * the DFA needing a new state at nearly every byte, it hands the
 * stream to the bit-parallel NFA of erenfa.c for a while, if
 * that is cheaper (see nfa_worth()).  Each new state is the closure
 * (ereclosure.c) of the threads of the last, after the byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"
#include "ereclosure.h"
#include "ereprog.h"
#include "eresyntax.h"
#include "pairscan.h"

#define SAMPLE_EVERY	((size_t)4 << 20)	/* a piece counted in 4 MiB */
#ifndef ERE_SAMPLE_MIN
#define ERE_SAMPLE_MIN	1024	/* from a piece at least this long */
#endif

/* Any one state fits in the pool once the cache is emptied. */
_Static_assert(DFA_POOL > ERE_MAX_PROG + 1, "DFA_POOL too small");

#define T_UNKNOWN	(-1)	/* a transition not yet computed */
#define T_MATCH		(-2)	/* the line matches */

/*
 * When the cache was full, the stream goes to the NFA if that is cheaper
 * than the DFA has been (nfa_worth()), for a spell of 8 times the work
 * of filling the cache again, after which the DFA fills it again: at
 * worst an eighth more work than the NFA alone, and the DFA has its turn
 * back soon where it was warm (MISS_COST() in ereprog.h).
 */
#define NFA_SPELL_MIN		4096

static void
dfa_flush(struct ere *re)
{
	re->flushed = true;
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
		if (s->ctx == ctx && s->npcs == n && (n == 0 ||
		    memcmp(re->pool + s->pcs, pcs, (size_t)n * sizeof(*pcs)) ==
		    0))
			return re->hash[h] - 1;
	}
	if (re->nst == DFA_STATES || re->npool + n > DFA_POOL) {
		dfa_flush(re);
		*flushed = true;
		h = dfa_hash(pcs, n, ctx) & (HASH_SIZE - 1);
	}
	s = &re->st[re->nst++];
	s->pcs = re->npool;
	s->npcs = n;
	s->ctx = ctx;
	s->skip = n == 0 && (re->skips || ctx == C_SKIP);
	if (n > 0)
		memmove(re->pool + re->npool, pcs, (size_t)n * sizeof(*pcs));
	re->npool += n;
	for (i = 0; i < 256; i++)
		s->trans[i] = T_UNKNOWN;
	re->hash[h] = re->nst;
	return re->nst - 1;
}

/*
 * The threads of the n consumers in re->walk.list that byte c lets
 * through, into re->walk.stack: how many.
 */
static int
dfa_advance(struct ere *re, int n, int c)
{
	int k, m = 0, pc;

	for (k = 0; k < n; k++) {
		pc = re->walk.list[k];
		if (set_has(re->sets[re->prog[pc].x], c))
			re->seen[pc + 1] = 1;
	}
	for (pc = 0; pc < re->nprog; pc++)
		if (re->seen[pc]) {
			re->seen[pc] = 0;
			re->walk.stack[m++] = pc;
		}
	return m;
}

/*
 * The closure of state s before next (-1: its line's end) into
 * re->walk.list, n of them: whether MATCH is in it.
 */
static bool
dfa_closure(struct ere *re, const struct dstate *s, int next, int *n)
{
	return ere_state_closure(&re->walk, re->pool + s->pcs, s->npcs,
	    s->ctx, next, n);
}

/*
 * The transition of state i on byte c, made and cached.  A newline ends
 * the line, and a NUL its matched part: the line matched, or the next
 * one starts afresh.  A byte that completes a match is found one byte
 * late, as the closure of the next position sees it: it is the same line.
 */
static int
dfa_step(struct ere *re, int i, int c)
{
	struct dstate *s = &re->st[i];
	int m = 0, n, t, ctx;
	bool flushed = false;

	if (s->ctx == C_SKIP)
		ctx = c == '\n' ? C_LINE : C_SKIP;
	else if (c == '\n' || c == '\0') {
		ctx = c == '\n' ? C_LINE : C_SKIP;
		if (dfa_closure(re, s, -1, &n)) {
			s->trans[c] = T_MATCH;
			return T_MATCH;
		}
	} else {
		if (dfa_closure(re, s, c, &n)) {
			s->trans[c] = T_MATCH;
			return T_MATCH;
		}
		m = dfa_advance(re, n, c);
		ctx = ere_is_word(c) ? C_WORD : C_OTHER;
	}
	t = dfa_state(re, re->walk.stack, m, ctx, &flushed);
	if (!flushed)
		re->st[i].trans[c] = t;
	return t;
}

/*
 * Where re's prefix is next in p[i..len), or its first byte where the
 * bytes left are too few to hold it (it may go on in the next piece: the
 * DFA takes them one by one); len if nowhere.  memchr() and memcmp():
 * glibc's memmem() took twice the instructions on base64 and log lines.
 */
static size_t
seek_prefix(const struct ere *re, const unsigned char *p, size_t i,
    size_t len)
{
	const unsigned char *q;
	size_t n = re->nprefix;

	for (; (q = memchr(p + i, re->prefix[0], len - i)) != NULL; i++) {
		i = (size_t)(q - p);
		if (len - i < n || memcmp(q, re->prefix, n) == 0)
			return i;
	}
	return len;
}

/*
 * Where the next of re->firsts is in p[i..len), len if none: one memchr()
 * a byte, each kept until the search passes it (this feed's, re->next).
 */
static size_t
seek_bytes(struct ere *re, const unsigned char *p, size_t i, size_t len)
{
	const unsigned char *q;
	size_t best = len;
	int k;

	for (k = 0; k < re->nfirsts; k++) {
		if (re->next[k] == SIZE_MAX || re->next[k] < i) {
			q = memchr(p + i, re->firsts[k], len - i);
			re->next[k] = q != NULL ? (size_t)(q - p) : len;
		}
		if (re->next[k] < best)
			best = re->next[k];
	}
	return best;
}

/*
 * Where literal k of re->lits is next in p[i..len), whole; len if
 * nowhere.  memchr() on the byte of it erelit.c chose, then memcmp();
 * the answer is kept until the search passes it (this feed's,
 * re->bytenext).  A sample can mislead here too: where the bytes stop
 * without a literal more often than it said (re->byte_leeway), the
 * search stops at the next such place as if the literal were there (the
 * DFA finds that it is not), and seek_literals() searches for it by a
 * pair from then on.
 */
static size_t
seek_by_byte(struct ere *re, int k, const unsigned char *p, size_t i,
    size_t len)
{
	const struct ere_lits *l = &re->lits;
	const unsigned char *q;
	size_t n = l->len[k], r = l->byte[k], j;

	if (re->bytenext[k] != SIZE_MAX && re->bytenext[k] >= i)
		return re->bytenext[k];
	re->bytenext[k] = len;
	if (len - i < n)
		return len;
	/*
	 * The byte of an occurrence that starts at i to len - n; the first
	 * and last bytes are compared before memcmp() is called.
	 */
	for (j = i + r; (q = memchr(p + j, l->s[k][r], len - n + r + 1 - j)) !=
	    NULL; j = (size_t)(q - p) + 1)
		if (q[-(ptrdiff_t)r] == l->s[k][0] &&
		    q[n - 1 - r] == l->s[k][n - 1] &&
		    memcmp(q - r, l->s[k], n) == 0) {
			re->bytenext[k] = (size_t)(q - p) - r;
			break;
		} else if (n > 1 && re->byte_leeway-- == 0) {
			re->to_pair |= 1U << k;
			re->bytenext[k] = (size_t)(q - p) - r;
			break;
		}
	return re->bytenext[k];
}

/* Whether one of re's literals is whole in p[w..len). */
static bool
literal_at(const struct ere_lits *l, const unsigned char *p, size_t w,
    size_t len)
{
	int k;

	for (k = 0; k < l->n; k++)
		if (len - w >= l->len[k] && memcmp(p + w, l->s[k], l->len[k]) ==
		    0)
			return true;
	return false;
}

/* seek_literals() for the literals of mask, each by a byte. */
static size_t
seek_by_bytes(struct ere *re, unsigned mask, const unsigned char *p,
    size_t i, size_t len)
{
	size_t w = len, e;
	int k;

	for (k = 0; k < re->lits.n; k++)
		if (mask >> k & 1 && (e = seek_by_byte(re, k, p, i, len)) < w)
			w = e;
	return w;
}

/*
 * seek_literals() for the literals searched for by a pair of bytes, all
 * at once (pairs_find()), then memcmp(), the answer kept until the search
 * passes it (this feed's, re->litnext).  A sample can mislead: where the
 * pairs stop without a literal more often than it said (re->pair_leeway),
 * the bytes take over until the next sample, so that a stream can cost
 * little more than the bytes would have.  None of those literals begins
 * between i and where that happens, so their bytes are searched from
 * there.
 */
static size_t
seek_by_pairs(struct ere *re, const unsigned char *p, size_t i, size_t len)
{
	struct ere_lits *l = &re->lits;
	unsigned was = l->paired;
	size_t w;

	if (re->litnext != SIZE_MAX && re->litnext >= i)
		return re->litnext;
	for (w = i; (w = pairs_find(&l->pairs, p, w, len)) < len &&
	    !literal_at(l, p, w, len); w++)
		if (re->pair_leeway-- == 0) {
			l->paired = 0;
			l->pairs.n = 0;
			return seek_by_bytes(re, was, p, w, len);
		}
	re->litnext = w;
	return w;
}

/*
 * Where one of re's literals is next in p[i..len), whole; len if
 * nowhere (or, once, where the bytes gave up: see seek_by_byte()): each
 * literal by the pair of bytes or the byte erelit.c chose.
 */
static size_t
seek_literals(struct ere *re, const unsigned char *p, size_t i, size_t len)
{
	unsigned all = (1U << re->lits.n) - 1;
	size_t w, e;
	int k;

	if (re->to_pair != 0) {
		ere_lits_pair(&re->lits, re->lits.paired | re->to_pair);
		for (k = 0; k < re->lits.n; k++)
			if (re->to_pair >> k & 1)
				re->bytenext[k] = SIZE_MAX;
		re->to_pair = 0;
		re->litnext = SIZE_MAX;
	}
	w = seek_by_bytes(re, all & ~re->lits.paired, p, i, len);
	if (re->lits.paired != 0 && (e = seek_by_pairs(re, p, i, len)) < w)
		w = e;
	return w;
}

/*
 * Where the line that holds p[x - 1] starts, or i if before: memrchr(),
 * glibc's, when it is there, which takes a long line in a few passes.
 */
static size_t
line_start(const unsigned char *p, size_t i, size_t x)
{
#if defined(_GNU_SOURCE) && defined(__GLIBC__) && !defined(RETRY_PORTABLE)
	const unsigned char *q = memrchr(p + i, '\n', x - i);

	return q != NULL ? (size_t)(q - p) + 1 : i;
#else
	while (x > i && p[x - 1] != '\n')
		x--;
	return x;
#endif
}

/*
 * From i, in state s that has no thread alive, for an ERE whose matches
 * hold one of re->lits: where the search must look again.  At a line
 * start, the start of the next line that holds one whole, or else of the
 * last line of the piece, begun and not ended, which the DFA takes byte
 * by byte (a literal cut by the end of the piece may begin there, and
 * the state the next piece starts in must be right); mid-line, the
 * newline that ends the line if none is before it; else i.
 */
static size_t
lit_skip(struct ere *re, const struct dstate *s, const unsigned char *p,
    size_t i, size_t len)
{
	const unsigned char *q;
	size_t x = seek_literals(re, p, i, len);

	if (s->ctx == C_LINE)
		return line_start(p, i, x);
	if (re->nextnl == SIZE_MAX || re->nextnl < i) {
		q = memchr(p + i, '\n', len - i);
		re->nextnl = q != NULL ? (size_t)(q - p) : len;
	}
	return re->nextnl < x ? re->nextnl : i;
}

/*
 * From i, in state s that has no thread alive, where the search must look
 * again: the next newline after a NUL or where only a line start can
 * begin a match, else the next line or byte where the literals every
 * match holds can be, or the next byte that can start one (stopping at a
 * NUL, which ends what is matched of the line); len if none.
 */
static size_t
dfa_skip(struct ere *re, const struct dstate *s,
    const unsigned char *p, size_t i, size_t len)
{
	const unsigned char *q;
	size_t e;

	/* An anchored ERE has no first bytes (erecomp.c). */
	if (re->anchored || s->ctx == C_SKIP) {
		if (s->ctx == C_LINE)
			return re->lit_lines ? lit_skip(re, s, p, i, len) : i;
		q = memchr(p + i, '\n', len - i);
		return q != NULL ? (size_t)(q - p) : len;
	}
	if (re->lits.n > 0 && (e = lit_skip(re, s, p, i, len)) != i)
		return e;
	if (re->nfirst == 0)
		return i;
	if (re->nprefix > 0) {
		e = seek_prefix(re, p, i, len);
		q = memchr(p + i, '\0', e - i);
		return q != NULL ? (size_t)(q - p) : e;
	}
	if (re->nfirst == 1) {
		q = memchr(p + i, re->first1, len - i);
		e = q != NULL ? (size_t)(q - p) : len;
		q = memchr(p + i, '\0', e - i);
		return q != NULL ? (size_t)(q - p) : e;
	}
	if (re->nfirsts > 0)
		return seek_bytes(re, p, i, len);
	if (re->ranges.n > 0)
		return ranges_find(&re->ranges, p, i, len);
	while (i < len && !re->first[p[i]])
		i++;
	return i;
}

struct ere_run *
ere_run_new(const struct ere *re)
{
	struct ere_run *run;

	if ((run = malloc(sizeof(*run))) == NULL)
		return NULL;
	if ((run->pcs = malloc((size_t)re->nprog * sizeof(int))) == NULL) {
		free(run);
		return NULL;
	}
	ere_run_reset(run);
	return run;
}

void
ere_run_reset(struct ere_run *run)
{
	run->npcs = 0;
	run->ctx = C_LINE;
	run->midline = false;
}

void
ere_run_free(struct ere_run *run)
{
	if (run == NULL)
		return;
	free(run->pcs);
	free(run);
}

/* Keeps state s in run, for the next piece. */
static void
dfa_save(const struct ere *re, int s, struct ere_run *run)
{
	const struct dstate *d = &re->st[s];

	run->npcs = d->npcs;
	run->ctx = d->ctx;
	if (d->npcs > 0)
		memcpy(run->pcs, re->pool + d->pcs, (size_t)d->npcs *
		    sizeof(*run->pcs));
}

/*
 * The cache has just been emptied, at the pos'th byte fed: whether the
 * NFA is to take the stream over, the DFA having made DFA_STATES states
 * since it was last emptied in too few bytes for that to be cheaper.
 */
static bool
nfa_worth(struct ere *re, size_t pos)
{
	double refill = DFA_STATES * MISS_COST(re->nprog);
	size_t bytes = pos - re->flush_pos;

	re->flushed = false;
	re->flush_pos = pos;
	/* Without memory for it, the DFA goes on: slower, never wrong. */
	if (re->nfa == NULL && !re->nfa_failed &&
	    (re->nfa = nfa_build(re)) == NULL)
		re->nfa_failed = true;
	if (re->nfa == NULL || (!NFA_ALWAYS && refill <= (double)bytes *
	    (double)nfa_cost(re->nfa)))
		return false;
	re->nfa_left = (size_t)(8 * refill / (double)nfa_cost(re->nfa));
	if (re->nfa_left < NFA_SPELL_MIN)
		re->nfa_left = NFA_SPELL_MIN;
	return true;
}

enum { GO_MATCH, GO_END, GO_DFA };

/*
 * The NFA matches p[*i..len) on from the threads in from: until a match,
 * seen at *i; the end, its state kept in run; or the end of its spell,
 * where the DFA goes on at *i from the state kept in run.
 */
static int
nfa_go(struct ere *re, struct ere_run *run, const struct ere_run *from,
    const unsigned char *p, size_t *i, size_t len)
{
	bool match;

	nfa_load(re->nfa, from->pcs, from->npcs, from->ctx);
	*i = nfa_run(re->nfa, p, *i, len, &match, &re->nfa_left);
	if (match)
		return GO_MATCH;
	run->npcs = nfa_save(re->nfa, run->pcs, &run->ctx);
	run->midline = p[len - 1] != '\n';
	return *i == len ? GO_END : GO_DFA;
}

/* nfa_go() from DFA state t, after the byte at *i. */
static int
nfa_turn(struct ere *re, struct ere_run *run, int t, const unsigned char *p,
    size_t *i, size_t len)
{
	const struct dstate *d = &re->st[t];
	struct ere_run from = { re->pool + d->pcs, d->npcs, d->ctx, true };

	++*i;
	return nfa_go(re, run, &from, p, i, len);
}

/*
 * Has erelit.c count the start of a piece, once in 4 MiB, and choose
 * again each literal's pair of bytes to search for (the stream's rarest,
 * where its fixed table guessed: on base64 all letters come as often),
 * and, for an anchored ERE, whether lines that hold a literal are fewer
 * than lines: the search then skips to them, else from line to line.
 */
static void
sample_stream(struct ere *re, const unsigned char *p, size_t len)
{
	unsigned long hits;

	if (re->sample_due > len) {
		re->sample_due -= len;
		return;
	}
	if (len < ERE_SAMPLE_MIN)
		return;
	/* Without memory for the counts, the choice made stands. */
	if (re->sample == NULL && (re->sample = malloc(sizeof(*re->sample))) ==
	    NULL)
		return;
	hits = ere_lits_sample(&re->lits, re->sample, p, len);
	re->lit_lines = re->anchored && hits < re->sample->byte['\n'];
	/* Four times the stops the sample foretells, till the next. */
	re->pair_leeway = (4 * hits + 16) * (SAMPLE_EVERY / (len < LIT_SAMPLE ?
	    len : LIT_SAMPLE));
	re->byte_leeway = re->pair_leeway;
	re->to_pair = 0;
	re->sample_due = SAMPLE_EVERY;
}

/* The NFA matched, at j, or took the piece to its end. */
static bool
nfa_ended(struct ere *re, int go, size_t j, size_t *at)
{
	re->pos += j;
	*at = j;
	return go == GO_MATCH;
}

bool
ere_feed(struct ere *re, struct ere_run *run, const char *text, size_t len,
    size_t *at)
{
	const unsigned char *p = (const unsigned char *)text;
	bool flushed = false;
	size_t i, j = 0;
	int s, t, go;

	/* i, s and t are never address-taken: they stay in registers. */
	if (len == 0)
		return false;
	if (re->nfa_left > 0 &&
	    (go = nfa_go(re, run, run, p, &j, len)) != GO_DFA)
		return nfa_ended(re, go, j, at);
	s = dfa_state(re, run->pcs, run->npcs, run->ctx, &flushed);
	if (re->lits.n > 0)
		sample_stream(re, p, len);
	for (i = 0; i < 4; i++)
		re->next[i] = SIZE_MAX;
	re->litnext = SIZE_MAX;
	for (i = 0; i < LIT_MAX; i++)
		re->bytenext[i] = SIZE_MAX;
	re->nextnl = SIZE_MAX;
	for (i = j; i < len; i++) {
		if (re->st[s].skip &&
		    (i = dfa_skip(re, &re->st[s], p, i, len)) == len)
			break;
		if ((t = re->st[s].trans[p[i]]) < 0) {
			if (t == T_UNKNOWN)
				t = dfa_step(re, s, p[i]);
			if (t == T_MATCH) {
				re->pos += i;
				*at = i;
				return true;
			}
			/* The cache was emptied to make state t. */
			if (re->flushed && nfa_worth(re, re->pos + i)) {
				j = i;
				if ((go = nfa_turn(re, run, t, p, &j, len)) !=
				    GO_DFA)
					return nfa_ended(re, go, j, at);
				i = j - 1;
				t = dfa_state(re, run->pcs, run->npcs,
				    run->ctx, &flushed);
			}
		}
		s = t;
	}
	re->pos += len;
	dfa_save(re, s, run);
	run->midline = p[len - 1] != '\n';
	return false;
}

bool
ere_feed_end(struct ere *re, struct ere_run *run)
{
	bool flushed = false, midline = run->midline;
	int s, t;

	if (!midline)
		return false;
	s = dfa_state(re, run->pcs, run->npcs, run->ctx, &flushed);
	ere_run_reset(run);
	if ((t = re->st[s].trans['\n']) == T_UNKNOWN)
		t = dfa_step(re, s, '\n');
	return t == T_MATCH;
}
