/*
 * erenfa.c: the bit-parallel NFA that matches a line when the DFA's cache
 * keeps missing (eredfa.c hands a stream over to it, and back).  Each of
 * the K byte consumers of the program (its I_SET instructions, in program
 * order) is a bit; the state is the set of consumers that took the last
 * byte.  A byte's step ORs three things: the start set, the state shifted
 * by one (a consumer followed by the next, as in a chain like [ab]{4085}),
 * and, for the few consumers whose follow set is more than that, a far
 * set: a bit range shared by all consumers whose far set ends at the same
 * consumer (a{1,1000}b: the 1000 that can go on to the b), or a bitset
 * shared by all with the same far set.  Then it keeps what the byte's
 * accept set lets through.  Assertions: ^ holds only where the start set
 * is taken at a line start, $ only at a line's end, so one set of tables
 * serves; with \b \B \< \> the tables are made for each pair of word or
 * non-word bytes around the position.  It is built with the program, its
 * memory bounded by K (about 200 KiB at K = 4096 with word assertions,
 * half without), and it says what a byte can cost at worst, so that
 * ere.c can refuse an ERE neither the DFA nor it can match fast.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"
#include "ereclosure.h"
#include "ereprog.h"
#include "eresyntax.h"

#define V_MAX		4	/* variants: previous byte word?, next word? */
#define N_END		2	/* the "next" of a line's end */
#define BACK		4	/* shifts of the state by -4 ... */
#define NSHIFT		12	/* ... to 7: index d + BACK */

/* What a consumer can go on to besides its successor. */
struct far {
	int	 lo, hi;	/* the consumers [lo, hi) */
	int	 off;		/* a bitset's words [lo, hi) at off, or -1 */
};

/*
 * The consumers of one word of the state that share a far set, or whose
 * far sets are ranges that end alike and start in their order (far -1:
 * the lowest of them that is in the state has the widest range).
 */
struct wfar {
	uint64_t mask;
	int	 far;
	int	 hi;
};

/*
 * The consumers of a variant whose far sets are ranges that end at hi
 * and start in their order, when they are many: the lowest of them in
 * the state has the widest, found by a scan of their words that stops
 * at the first with one in it.
 */
struct cls {
	int	 hi;
	int	 lo;		/* the widest range's start */
	int	 wlo, whi;	/* the words that hold them */
	size_t	 off;		/* their mask, in the pool of masks */
};

#define CLS_MIN		16	/* consumers that make a class worth it */

struct nfa {
	int		 k, w;		/* consumers, 64-bit words */
	int		 nvar;		/* 1, or V_MAX with word assertions */
	bool		 anchored;
	int		*kpc;		/* the pc of each consumer */
	int		*kof;		/* the consumer at a pc, or -1 */
	uint64_t	*accept;	/* 256 sets */
	uint64_t	*shift;		/* per variant, d: k goes to k + d */
	unsigned	 shifts[V_MAX];	/* each d + BACK some consumer has */
	unsigned char	 dlist[V_MAX][NSHIFT];	/* those d + BACK, but 1 */
	int		 nshifts[V_MAX];
	uint64_t	*special;	/* per variant: k has a far set */
	uint64_t	*matchm;	/* per variant: MATCH follows k */
	uint64_t	*matchend;	/* [previous byte word?] */
	uint64_t	*start;		/* [ctx][next: other, word] */
	bool		 startmatch[3][3];	/* [ctx][other, word, end] */
	int		*farof;		/* per variant, per consumer: build */
	int		*klo;		/* per variant, per consumer: range */
	struct wfar	*wfar;
	int		*wstart;	/* per variant and word: its wfar */
	struct cls	*cls;
	int		 ncls, cstart[V_MAX + 1];	/* per variant */
	uint64_t	*cmask;
	size_t		 ncmask;
	struct far	*far;
	int		 nfar, capfar;
	uint64_t	*pool;
	size_t		 npool, cappool;
	size_t		 cost;		/* words a byte may cost at worst */
	/* The state, and the work space of a step. */
	uint64_t	*s, *d;
	int		 ctx;
	bool		 empty;
	unsigned	*stamp;		/* per far set and per end consumer */
	int		*minlo;
	int		*touched;
	unsigned	 gen;
	/* The work space of the build. */
	struct ere_walk	 walk;		/* of the start sets */
	uint64_t	*cl;		/* each pc's closure, bit k: MATCH */
	uint64_t	*tmp;
	int		*tidx, *tlow, *tstk, *tcs, *tce, *tcomp;
	int		 tsp, tcount;	/* Tarjan's stack, its count */
	int		 prev, next;	/* the context of the closures */
	int		*hash;		/* far sets that are bitsets, + 1 */
	size_t		 nhash, slot;
};

static void
bit_set(uint64_t *b, int k)
{
	b[k >> 6] |= (uint64_t)1 << (k & 63);
}

/* The e'th pc that pc leads to without a byte, -1 after the last. */
static int
edge(const struct ere *re, int pc, int e, int prev, int next)
{
	int to[2], m = ere_successors(&re->prog[pc], pc, prev, next, to);

	return e < m ? to[m - 1 - e] : -1;
}

static void
bits_or(uint64_t *a, const uint64_t *b, size_t w)
{
	size_t i;

	for (i = 0; i < w; i++)
		a[i] |= b[i];
}

/*
 * The strongly connected component of the pcs on nf->tstk down to pc,
 * the last found: all its pcs have the same closure, their consumers'
 * and MATCH, and those of the components they lead to, found before.
 */
static void
component(const struct ere *re, struct nfa *nf, int pc)
{
	size_t w = (size_t)nf->w, i;
	uint64_t *acc = nf->cl + (size_t)pc * w;
	const struct inst *in;
	int first = nf->tsp, m, e, to[2];

	while (nf->tstk[--first] != pc)
		continue;
	for (i = (size_t)first; i < (size_t)nf->tsp; i++)
		nf->tcomp[nf->tstk[i]] = pc;
	for (i = (size_t)first; i < (size_t)nf->tsp; i++) {
		in = &re->prog[m = nf->tstk[i]];
		if (in->op == I_SET)
			bit_set(acc, nf->kof[m]);
		else if (in->op == I_MATCH)
			bit_set(acc, nf->k);
		for (e = ere_successors(in, m, nf->prev, nf->next, to);
		    e-- > 0;)
			if (nf->tcomp[to[e]] != pc)
				bits_or(acc, nf->cl + (size_t)to[e] * w, w);
	}
	for (i = (size_t)first; i < (size_t)nf->tsp; i++)
		if (nf->tstk[i] != pc)
			memcpy(nf->cl + (size_t)nf->tstk[i] * w, acc,
			    w * sizeof(*acc));
	nf->tsp = first;
}

/* Tarjan's walk from root, without recursion: tcs and tce its calls. */
static void
tarjan(const struct ere *re, struct nfa *nf, int root)
{
	int pc, t, csp = 1;

	nf->tcs[0] = root;
	nf->tce[0] = 0;
	while (csp > 0) {
		pc = nf->tcs[csp - 1];
		if (nf->tce[csp - 1] == 0 && nf->tidx[pc] == 0) {
			nf->tidx[pc] = nf->tlow[pc] = ++nf->tcount;
			nf->tstk[nf->tsp++] = pc;
		}
		t = edge(re, pc, nf->tce[csp - 1]++, nf->prev, nf->next);
		if (t >= 0 && nf->tidx[t] == 0) {
			nf->tcs[csp] = t;
			nf->tce[csp++] = 0;
			continue;
		}
		if (t >= 0) {
			if (nf->tcomp[t] == -1 && nf->tidx[t] < nf->tlow[pc])
				nf->tlow[pc] = nf->tidx[t];
			continue;
		}
		if (nf->tlow[pc] == nf->tidx[pc])
			component(re, nf, pc);
		if (--csp > 0 && nf->tlow[pc] < nf->tlow[nf->tcs[csp - 1]])
			nf->tlow[nf->tcs[csp - 1]] = nf->tlow[pc];
	}
}

/*
 * The closure of every pc between prev and next, in nf->cl: Tarjan's
 * strongly connected components, which come each after those it leads
 * to, so that one pass over the program does, where a walk from each
 * consumer took time K times the program's.
 */
static void
closures(const struct ere *re, struct nfa *nf, int prev, int next)
{
	size_t n = (size_t)re->nprog;
	int root;

	memset(nf->cl, 0, n * (size_t)nf->w * sizeof(*nf->cl));
	memset(nf->tidx, 0, n * sizeof(*nf->tidx));
	for (root = 0; root < (int)n; root++)
		nf->tcomp[root] = -1;
	nf->prev = prev;
	nf->next = next;
	nf->tsp = nf->tcount = 0;
	for (root = 0; root < (int)n; root++)
		if (nf->tidx[root] == 0)
			tarjan(re, nf, root);
}

/*
 * An equal far set among those made: f, a range, or a bitset of words b;
 * else -1, its slot in the hash table kept in nf->slot.
 */
static int
far_find(struct nfa *nf, const struct far *f, const uint64_t *b)
{
	size_t len = f->off < 0 ? 0 : (size_t)(f->hi - f->lo), i;
	uint64_t h = ((uint64_t)f->lo << 32 | (uint64_t)f->hi) *
	    0x9e3779b97f4a7c15U;
	const struct far *g;
	int j;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3U;
	for (i = (size_t)(h >> 20) & (nf->nhash - 1); (j = nf->hash[i]) != 0;
	    i = (i + 1) & (nf->nhash - 1)) {
		g = &nf->far[j - 1];
		if (g->lo == f->lo && g->hi == f->hi && (g->off < 0) ==
		    (f->off < 0) && (len == 0 || memcmp(nf->pool + g->off, b,
		    len * sizeof(*b)) == 0))
			return j - 1;
	}
	nf->slot = i;
	return -1;
}

/* The lowest and highest + 1 of the bits of b[0..w), and how many. */
static int
bits_span(const uint64_t *b, int w, int *lo, int *hi)
{
	int i, n = 0;

	*lo = INT32_MAX;
	*hi = -1;
	for (i = 0; i < w; i++)
		if (b[i] != 0) {
			if (*lo == INT32_MAX)
				*lo = i * 64 + __builtin_ctzll(b[i]);
			*hi = i * 64 + 64 - __builtin_clzll(b[i]);
			n += __builtin_popcountll(b[i]);
		}
	return n;
}

/* A new far set f. */
static int
far_push(struct nfa *nf, const struct far *f)
{
	if (nf->nfar == nf->capfar) {
		int cap = 2 * nf->capfar + 16;
		struct far *p = realloc(nf->far, (size_t)cap * sizeof(*p));

		if (p == NULL)
			return -2;
		nf->far = p;
		nf->capfar = cap;
	}
	nf->hash[nf->slot] = nf->nfar + 1;
	nf->far[nf->nfar] = *f;
	return nf->nfar++;
}

/* The far set b (nf->w words, cleared of MATCH), new or an equal one. */
static int
far_add(struct nfa *nf, const uint64_t *b)
{
	struct far f;
	int i, n, lo, hi;
	size_t len = 0;

	if ((n = bits_span(b, nf->w, &lo, &hi)) == 0)
		return -1;
	f = (struct far){ lo, hi, -1 };
	if (n < hi - lo) {
		/* Not a range: a bitset, its words from lo's to hi's. */
		f = (struct far){ lo >> 6, ((hi - 1) >> 6) + 1, 0 };
		len = (size_t)(f.hi - f.lo);
		b += f.lo;
	}
	if ((i = far_find(nf, &f, b)) >= 0)
		return i;
	if (len > 0) {
		if (nf->npool + len > nf->cappool) {
			size_t cap = 2 * nf->cappool + len;
			uint64_t *p = realloc(nf->pool, cap * sizeof(*p));

			if (p == NULL)
				return -2;
			nf->pool = p;
			nf->cappool = cap;
		}
		memcpy(nf->pool + nf->npool, b, len * sizeof(*b));
		f.off = (int)nf->npool;
		nf->npool += len;
	}
	return far_push(nf, &f);
}


/* The contexts of variant v: the previous byte's, a next byte. */
static void
variant_ctx(const struct nfa *nf, int v, int *prev, int *next)
{
	if (nf->nvar == 1)
		v = 0;
	*prev = v >> 1 ? C_WORD : C_OTHER;
	*next = v & 1 ? 'a' : ' ';
}

/*
 * What follows consumer k in variant v, and whether MATCH does.  The
 * consumers k - BACK to k + NSHIFT - BACK - 1 that follow it are reached
 * by shifting the state, unless what follows is one range reaching
 * further (as in nested stars): then that range is its far set; else
 * the rest is.
 */
static bool
follow(struct nfa *nf, int v, int k, unsigned use, size_t *count)
{
	uint64_t *b = nf->tmp, *sh;
	int n, t, f, lo, hi, d;

	memcpy(b, nf->cl + (size_t)(nf->kpc[k] + 1) * (size_t)nf->w,
	    (size_t)nf->w * sizeof(*b));
	if ((b[nf->k >> 6] >> (nf->k & 63)) & 1) {
		bit_set(nf->matchm + (size_t)v * (size_t)nf->w, k);
		b[nf->k >> 6] &= ~((uint64_t)1 << (nf->k & 63));
	}
	n = bits_span(b, nf->w, &lo, &hi);
	if (n == 0 || ((lo < k - BACK || hi > k + NSHIFT - BACK) &&
	    hi - lo == n))
		t = k + NSHIFT - BACK;		/* nothing, or one range */
	else
		t = k - BACK > 0 ? k - BACK : 0;
	for (; t < k + NSHIFT - BACK && t < nf->k; t++) {
		if (((b[t >> 6] >> (t & 63)) & 1) == 0)
			continue;
		d = t - k + BACK;
		if (count != NULL) {
			count[d]++;
			continue;
		}
		if ((use & 1U << d) == 0)
			continue;
		b[t >> 6] &= ~((uint64_t)1 << (t & 63));
		sh = nf->shift + ((size_t)v * NSHIFT + (size_t)d) *
		    (size_t)nf->w;
		bit_set(sh, k);
		nf->shifts[v] |= 1U << d;
	}
	if (count != NULL)
		return true;
	if ((f = far_add(nf, b)) == -2)
		return false;
	nf->farof[(size_t)v * (size_t)nf->k + (size_t)k] = f;
	if (f >= 0)
		bit_set(nf->special + (size_t)v * (size_t)nf->w, k);
	return true;
}

/*
 * The follow sets of variant v: a shift is used where it serves enough
 * consumers to pay its two passes over the state, else they have far
 * sets; the successor's shift always, a chain being the common case.
 */
static bool
follows(struct nfa *nf, int v)
{
	size_t count[NSHIFT] = { 0 };
	unsigned use = 1U << (1 + BACK);
	int k, d;

	for (k = 0; k < nf->k; k++)
		(void)follow(nf, v, k, 0, count);
	for (d = 0; d < NSHIFT; d++)
		if (4 * count[d] >= (size_t)nf->w)
			use |= 1U << d;
	for (k = 0; k < nf->k; k++)
		if (!follow(nf, v, k, use, NULL))
			return false;
	for (d = 0; d < NSHIFT; d++)
		if (d != 1 + BACK && (nf->shifts[v] & 1U << d) != 0)
			nf->dlist[v][nf->nshifts[v]++] = (unsigned char)d;
	return true;
}

/* The start sets and whether MATCH is at the start, in every context. */
static void
starts(const struct ere *re, struct nfa *nf)
{
	static const int nexts[3] = { ' ', 'a', -1 };
	uint64_t *b;
	int ctx, x, n, i;

	for (ctx = C_LINE; ctx <= C_OTHER; ctx++)
		for (x = 0; x < 3; x++) {
			nf->startmatch[ctx][x] = ere_state_closure(&nf->walk,
			    NULL, 0, ctx, nexts[x], &n);
			if (x == N_END)
				continue;
			b = nf->start + (size_t)(ctx * 2 + x) * (size_t)nf->w;
			for (i = 0; i < n; i++)
				bit_set(b, nf->kof[nf->walk.list[i]]);
		}
	for (x = 0; x < 2; x++) {
		closures(re, nf, x ? C_WORD : C_OTHER, -1);
		for (i = 0; i < nf->k; i++) {
			b = nf->cl + (size_t)(nf->kpc[i] + 1) * (size_t)nf->w;
			if ((b[nf->k >> 6] >> (nf->k & 63)) & 1)
				bit_set(nf->matchend + (size_t)x *
				    (size_t)nf->w, i);
		}
	}
}

/* The most words a byte's step can cost in variant v. */
static size_t
variant_cost(struct nfa *nf, int v)
{
	const int *farof = nf->farof + (size_t)v * (size_t)nf->k;
	size_t cost = 5 * (size_t)nf->w;
	const struct far *f;
	unsigned d;
	int k, h;

	const struct cls *c;

	for (d = nf->shifts[v] & ~(1U << (1 + BACK)); d != 0; d &= d - 1)
		cost += 2 * (size_t)nf->w;
	for (c = nf->cls + nf->cstart[v]; c < nf->cls + nf->cstart[v + 1]; c++)
		cost += (size_t)(c->whi - c->wlo + ((c->hi - 1) >> 6) -
		    (c->lo >> 6) + 1);
	for (h = 0; h <= nf->k; h++)
		nf->minlo[h] = INT32_MAX;
	nf->gen++;
	for (k = 0; k < nf->k; k++) {
		if (farof[k] < 0)
			continue;
		f = &nf->far[farof[k]];
		if (f->off < 0)
			nf->minlo[f->hi] = f->lo < nf->minlo[f->hi] ? f->lo :
			    nf->minlo[f->hi];
		else if (nf->stamp[farof[k]] != nf->gen) {
			nf->stamp[farof[k]] = nf->gen;
			cost += (size_t)(f->hi - f->lo);
		}
	}
	for (h = 0; h <= nf->k; h++)
		if (nf->minlo[h] != INT32_MAX)
			cost += (size_t)((h - 1) / 64 - nf->minlo[h] / 64 + 1);
	return cost + (size_t)(nf->wstart[(size_t)(v + 1) * (size_t)nf->w] -
	    nf->wstart[(size_t)v * (size_t)nf->w]) / 2;
}

/*
 * For each word of the state in each variant, its consumers with a far
 * set, grouped by far set, so that a step looks at each group once.
 */
/* The range's start of the last consumer of mask, in word w. */
static int
last_lo(const struct nfa *nf, size_t v, size_t w, uint64_t mask)
{
	return nf->klo[v * (size_t)nf->k + w * 64 + 63 -
	    (size_t)__builtin_clzll(mask)];
}

/*
 * The pair of word w (its pairs from first to n) that consumer w * 64 + b
 * of variant v joins, its far set j: the one with the same bitset, or
 * the one of ranges ending alike whose last consumer starts no later;
 * else n, a new one.
 */
static size_t
word_pair(struct nfa *nf, size_t v, size_t w, size_t first, size_t n,
    int j)
{
	const struct far *f = &nf->far[j];
	const struct wfar *p;
	size_t i;

	for (i = first; i < n; i++) {
		p = &nf->wfar[i];
		if (f->off >= 0 ? p->far == j : p->far < 0 && p->hi == f->hi &&
		    last_lo(nf, v, w, p->mask) <= f->lo)
			return i;
	}
	nf->wfar[n] = (struct wfar){ 0, f->off < 0 ? -1 : j, f->hi };
	return n;
}

/*
 * A class of variant v for the ranges ending at hi, if they are many and
 * start in their order; mark[hi] says it was made.
 */
static bool
class_add(struct nfa *nf, int v, int hi, int *mark)
{
	const int *farof = nf->farof + (size_t)v * (size_t)nf->k;
	struct cls c = { hi, 0, -1, 0, nf->ncmask };
	int k, j, n = 0, lo = -1;
	uint64_t *p;

	for (k = 0; k < nf->k; k++) {
		if ((j = farof[k]) < 0 || nf->far[j].off >= 0 ||
		    nf->far[j].hi != hi)
			continue;
		if (nf->far[j].lo < lo)
			return true;	/* not in their order */
		if (n++ == 0) {
			c.lo = nf->far[j].lo;
			c.wlo = k >> 6;
		}
		lo = nf->far[j].lo;
		c.whi = (k >> 6) + 1;
	}
	if (n < CLS_MIN)
		return true;
	if ((p = realloc(nf->cmask, (nf->ncmask + (size_t)(c.whi - c.wlo)) *
	    sizeof(*p))) == NULL)
		return false;
	nf->cmask = p;
	memset(p + c.off, 0, (size_t)(c.whi - c.wlo) * sizeof(*p));
	for (k = 0; k < nf->k; k++)
		if ((j = farof[k]) >= 0 && nf->far[j].off < 0 &&
		    nf->far[j].hi == hi)
			bit_set(p + c.off, k - (c.wlo << 6));
	nf->ncmask += (size_t)(c.whi - c.wlo);
	nf->cls[nf->ncls++] = c;
	mark[hi] = v;
	return true;
}

/*
 * The classes of variant v; their consumers leave special and the word
 * groups.  Every consumer's range start is kept in klo.
 */
static bool
classes(struct nfa *nf, int v, int *mark)
{
	int *farof = nf->farof + (size_t)v * (size_t)nf->k;
	int j, k, h;

	nf->cstart[v] = nf->ncls;
	for (h = 0; h <= nf->k; h++)
		mark[h] = -1;
	for (j = 0; j < nf->nfar; j++)
		if (nf->far[j].off < 0 && mark[nf->far[j].hi] == -1) {
			mark[nf->far[j].hi] = -2;	/* looked at */
			if (!class_add(nf, v, nf->far[j].hi, mark))
				return false;
		}
	for (k = 0; k < nf->k; k++) {
		if ((j = farof[k]) < 0 || nf->far[j].off >= 0)
			continue;
		nf->klo[(size_t)v * (size_t)nf->k + (size_t)k] = nf->far[j].lo;
		if (mark[nf->far[j].hi] != v)
			continue;
		nf->special[(size_t)v * (size_t)nf->w + (size_t)(k >> 6)] &=
		    ~((uint64_t)1 << (k & 63));
		farof[k] = -1;
	}
	nf->cstart[v + 1] = nf->ncls;
	return true;
}

static bool
all_classes(struct nfa *nf)
{
	size_t nk = (size_t)nf->nvar * (size_t)nf->k + 1;
	int v;

	nf->klo = calloc(nk, sizeof(*nf->klo));
	nf->cls = malloc(nk * sizeof(*nf->cls));
	if (nf->klo == NULL || nf->cls == NULL)
		return false;
	for (v = 0; v < nf->nvar; v++)
		if (!classes(nf, v, nf->touched))
			return false;
	return true;
}

static bool
word_groups(struct nfa *nf)
{
	size_t n = 0, v, w, i, b, first, kk, nk = (size_t)nf->k;
	struct wfar *p;
	int j;

	nf->wstart = malloc(((size_t)nf->nvar * (size_t)nf->w + 1) *
	    sizeof(*nf->wstart));
	nf->wfar = malloc(((size_t)nf->nvar * nk + 1) * sizeof(*nf->wfar));
	if (nf->wstart == NULL || nf->wfar == NULL)
		return false;
	for (v = 0; v < (size_t)nf->nvar; v++)
		for (w = 0; w < (size_t)nf->w; w++) {
			nf->wstart[v * (size_t)nf->w + w] = (int)n;
			first = n;
			for (b = 0; b < 64 && w * 64 + b < nk; b++) {
				kk = v * nk + w * 64 + b;
				if ((j = nf->farof[kk]) < 0)
					continue;
				if ((i = word_pair(nf, v, w, first, n, j)) == n)
					n++;
				nf->wfar[i].mask |= (uint64_t)1 << b;
			}
		}
	nf->wstart[(size_t)nf->nvar * (size_t)nf->w] = (int)n;
	/* Most consumers have none: give back what they did not use. */
	if ((p = realloc(nf->wfar, (n + 1) * sizeof(*p))) != NULL)
		nf->wfar = p;
	return true;
}

static bool
nfa_alloc(struct nfa *nf, const struct inst *prog, int nprog)
{
	size_t w = (size_t)nf->w, k = (size_t)nf->k, v = (size_t)nf->nvar;
	bool walk = ere_walk_alloc(&nf->walk, prog, nprog);

	nf->kpc = calloc(k + 1, sizeof(*nf->kpc));
	nf->kof = calloc((size_t)nprog + 1, sizeof(*nf->kof));
	nf->accept = calloc(256 * w, sizeof(uint64_t));
	nf->shift = calloc(v * NSHIFT * w, sizeof(uint64_t));
	nf->special = calloc(v * w, sizeof(uint64_t));
	nf->matchm = calloc(v * w, sizeof(uint64_t));
	nf->matchend = calloc(2 * w, sizeof(uint64_t));
	nf->start = calloc(6 * w, sizeof(uint64_t));
	nf->farof = malloc((v * k + 1) * sizeof(*nf->farof));
	nf->s = calloc(w, sizeof(uint64_t));
	nf->d = calloc(w, sizeof(uint64_t));
	nf->minlo = malloc((k + 1) * sizeof(*nf->minlo));
	nf->touched = malloc((k + 1) * sizeof(*nf->touched));
	nf->cl = malloc((size_t)nprog * w * sizeof(*nf->cl));
	nf->tmp = malloc(w * sizeof(*nf->tmp));
	nf->tidx = malloc((size_t)nprog * sizeof(int));
	nf->tlow = malloc((size_t)nprog * sizeof(int));
	nf->tstk = malloc((size_t)nprog * sizeof(int));
	nf->tcs = malloc((size_t)nprog * sizeof(int));
	nf->tce = malloc((size_t)nprog * sizeof(int));
	nf->tcomp = malloc((size_t)nprog * sizeof(int));
	for (nf->nhash = 16; nf->nhash < 2 * v * k; nf->nhash *= 2)
		continue;
	nf->hash = calloc(nf->nhash, sizeof(*nf->hash));
	return walk && nf->kpc != NULL && nf->kof != NULL &&
	    nf->accept != NULL && nf->shift != NULL && nf->special != NULL &&
	    nf->matchm != NULL && nf->matchend != NULL && nf->start != NULL &&
	    nf->farof != NULL && nf->s != NULL && nf->d != NULL &&
	    nf->minlo != NULL && nf->touched != NULL && nf->hash != NULL &&
	    nf->cl != NULL && nf->tmp != NULL && nf->tidx != NULL &&
	    nf->tlow != NULL && nf->tstk != NULL && nf->tcs != NULL &&
	    nf->tce != NULL && nf->tcomp != NULL;
}

/* Numbers the consumers and fills their accept sets. */
static void
consumers(const struct ere *re, struct nfa *nf)
{
	int pc, c, k = 0;

	for (pc = 0; pc < re->nprog; pc++) {
		nf->kof[pc] = -1;
		if (re->prog[pc].op != I_SET)
			continue;
		nf->kof[pc] = k;
		nf->kpc[k] = pc;
		for (c = 0; c < 256; c++)
			if (set_has(re->sets[re->prog[pc].x], c))
				bit_set(nf->accept + (size_t)c *
				    (size_t)nf->w, k);
		k++;
	}
}

/* Whether the program has an assertion on words. */
static bool
has_word_assert(const struct ere *re)
{
	int pc;

	for (pc = 0; pc < re->nprog; pc++)
		if (re->prog[pc].op == I_ASSERT && re->prog[pc].kind !=
		    A_BOL && re->prog[pc].kind != A_EOL)
			return true;
	return false;
}

/* The work space of the build, not needed after it. */
static void
build_free(struct nfa *nf)
{
	ere_walk_free(&nf->walk);
	free(nf->hash);
	free(nf->cl);
	free(nf->tmp);
	free(nf->tidx);
	free(nf->tlow);
	free(nf->tstk);
	free(nf->tcs);
	free(nf->tce);
	free(nf->tcomp);
	nf->cl = nf->tmp = NULL;
	nf->hash = NULL;
	nf->tidx = nf->tlow = nf->tstk = nf->tcs = nf->tce = NULL;
	nf->tcomp = NULL;
}

void
nfa_free(struct nfa *nf)
{
	if (nf == NULL)
		return;
	build_free(nf);
	free(nf->kpc);
	free(nf->kof);
	free(nf->accept);
	free(nf->shift);
	free(nf->special);
	free(nf->matchm);
	free(nf->matchend);
	free(nf->start);
	free(nf->farof);
	free(nf->klo);
	free(nf->cls);
	free(nf->cmask);
	free(nf->wfar);
	free(nf->wstart);
	free(nf->far);
	free(nf->pool);
	free(nf->s);
	free(nf->d);
	free(nf->stamp);
	free(nf->minlo);
	free(nf->touched);
	free(nf);
}

struct nfa *
nfa_build(const struct ere *re)
{
	struct nfa *nf;
	int pc, v, prev, next, k = 0;
	size_t cost;

	if ((nf = calloc(1, sizeof(*nf))) == NULL)
		return NULL;
	for (pc = 0; pc < re->nprog; pc++)
		k += re->prog[pc].op == I_SET;
	nf->k = k;
	nf->w = k / 64 + 1;
	nf->nvar = has_word_assert(re) ? V_MAX : 1;
	nf->anchored = re->anchored;
	if (!nfa_alloc(nf, re->prog, re->nprog)) {
		nfa_free(nf);
		return NULL;
	}
	consumers(re, nf);
	starts(re, nf);
	for (v = 0; v < nf->nvar; v++) {
		variant_ctx(nf, v, &prev, &next);
		closures(re, nf, prev, next);
		if (!follows(nf, v)) {
			nfa_free(nf);
			return NULL;
		}
	}
	build_free(nf);
	if (!all_classes(nf) || !word_groups(nf) ||
	    (nf->stamp = calloc((size_t)nf->nfar + (size_t)nf->k + 1,
	    sizeof(*nf->stamp))) == NULL) {
		nfa_free(nf);
		return NULL;
	}
	for (v = 0; v < nf->nvar; v++)
		if ((cost = variant_cost(nf, v)) > nf->cost)
			nf->cost = cost;
	free(nf->farof);
	nf->farof = NULL;
	nf->ctx = C_LINE;
	nf->empty = true;
	return nf;
}

size_t
nfa_cost(const struct nfa *nf)
{
	return nf->cost;
}

void
nfa_load(struct nfa *nf, const int *pcs, int n, int ctx)
{
	int i;

	memset(nf->s, 0, (size_t)nf->w * sizeof(*nf->s));
	for (i = 0; i < n; i++)
		bit_set(nf->s, nf->kof[pcs[i] - 1]);
	nf->ctx = ctx;
	nf->empty = n == 0;
}

int
nfa_save(const struct nfa *nf, int *pcs, int *ctx)
{
	uint64_t x;
	int w, n = 0;

	for (w = 0; w < nf->w; w++)
		for (x = nf->s[w]; x != 0; x &= x - 1)
			pcs[n++] = nf->kpc[w * 64 + __builtin_ctzll(x)] + 1;
	*ctx = nf->ctx;
	return n;
}

/* Whether the state matches where its line ends. */
static bool
matches_at_end(const struct nfa *nf)
{
	const uint64_t *m = nf->matchend + (size_t)(nf->ctx == C_WORD) *
	    (size_t)nf->w;
	int w;

	if (nf->startmatch[nf->ctx][N_END])
		return true;
	for (w = 0; w < nf->w && !nf->empty; w++)
		if (nf->s[w] & m[w])
			return true;
	return false;
}

/* Sets the bits [lo, hi) of b. */
static void
set_range(uint64_t *b, int lo, int hi)
{
	int wl = lo >> 6, wh = (hi - 1) >> 6, w;
	uint64_t ml = ~(uint64_t)0 << (lo & 63);
	uint64_t mh = ~(uint64_t)0 >> (63 - ((hi - 1) & 63));

	if (wl == wh) {
		b[wl] |= ml & mh;
		return;
	}
	b[wl] |= ml;
	for (w = wl + 1; w < wh; w++)
		b[w] = ~(uint64_t)0;
	b[wh] |= mh;
}

/*
 * ORs into d the far sets of the consumers of the state that have one:
 * each bitset once, each run of ranges that end alike once.
 */
/* The range [lo, hi) is to be set: the widest of those ending at hi. */
static void
range_add(struct nfa *nf, int lo, int hi, int *nt)
{
	unsigned *hstamp = nf->stamp + nf->nfar;

	if (hstamp[hi] != nf->gen) {
		hstamp[hi] = nf->gen;
		nf->minlo[hi] = lo;
		nf->touched[(*nt)++] = hi;
	} else if (lo < nf->minlo[hi])
		nf->minlo[hi] = lo;
}

/* ORs into d far set wf's; lo, its range's start where it is one. */
static void
far_or(struct nfa *nf, const struct wfar *wf, int lo, uint64_t *d, int *nt)
{
	const struct far *f;

	if (wf->far < 0) {
		range_add(nf, lo, wf->hi, nt);
		return;
	}
	f = &nf->far[wf->far];
	if (nf->stamp[wf->far] != nf->gen) {
		nf->stamp[wf->far] = nf->gen;
		bits_or(d + f->lo, nf->pool + f->off, (size_t)(f->hi - f->lo));
	}
}

/* The classes of variant v: the range of each one's lowest in the state. */
static void
step_classes(struct nfa *nf, int v, const int *klo, int *nt)
{
	const struct cls *c, *end = nf->cls + nf->cstart[v + 1];
	const uint64_t *m;
	uint64_t y;
	int w;

	for (c = nf->cls + nf->cstart[v]; c < end; c++) {
		m = nf->cmask + c->off;
		for (w = c->wlo; w < c->whi; w++)
			if ((y = nf->s[w] & m[w - c->wlo]) != 0) {
				range_add(nf, klo[w * 64 + __builtin_ctzll(y)],
				    c->hi, nt);
				break;
			}
	}
}

static void
step_far(struct nfa *nf, int v, uint64_t *d)
{
	const uint64_t *sp = nf->special + (size_t)v * (size_t)nf->w;
	const int *ws = nf->wstart + (size_t)v * (size_t)nf->w;
	const int *klo = nf->klo + (size_t)v * (size_t)nf->k;
	const struct wfar *wf, *end, *base = nf->wfar;
	uint64_t x, y;
	int w, i, nt = 0;

	if (++nf->gen == 0) {
		memset(nf->stamp, 0, ((size_t)nf->nfar + (size_t)nf->k + 1) *
		    sizeof(*nf->stamp));
		nf->gen = 1;
	}
	for (w = 0; w < nf->w; w++) {
		if ((x = nf->s[w] & sp[w]) == 0)
			continue;
		for (wf = base + ws[w], end = base + ws[w + 1]; wf < end; wf++)
			if ((y = x & wf->mask) != 0)
				far_or(nf, wf, klo[w * 64 +
				    __builtin_ctzll(y)], d, &nt);
	}
	step_classes(nf, v, klo, &nt);
	for (i = 0; i < nt; i++)
		set_range(d, nf->minlo[nf->touched[i]], nf->touched[i]);
}

/* ORs into d the state shifted by -4 to 7 but 1, where consumers go so. */
static void
step_shifts(const struct nfa *nf, int v, uint64_t *d)
{
	const uint64_t *sh;
	uint64_t x, carry;
	int i, k, w, n = nf->w;

	for (i = 0; i < nf->nshifts[v]; i++) {
		k = nf->dlist[v][i] - BACK;
		sh = nf->shift + ((size_t)v * NSHIFT + (size_t)(k + BACK)) *
		    (size_t)n;
		if (k == 0)
			for (w = 0; w < n; w++)
				d[w] |= nf->s[w] & sh[w];
		else if (k > 0)
			for (carry = 0, w = 0; w < n; w++) {
				x = nf->s[w] & sh[w];
				d[w] |= x << k | carry;
				carry = x >> (64 - k);
			}
		else
			for (carry = 0, w = n - 1; w >= 0; w--) {
				x = nf->s[w] & sh[w];
				d[w] |= x >> -k | carry;
				carry = x << (64 + k);
			}
	}
}

/*
 * The step over byte c, not a newline nor a NUL: whether the line
 * matches before c (the state is then left as it was).
 */
static bool
step(struct nfa *nf, int c)
{
	int nw = ere_is_word(c), v, w;
	const uint64_t *m, *sh, *st, *a = nf->accept + (size_t)c *
	    (size_t)nf->w;
	uint64_t x, hit = 0, carry = 0, any = 0, *d = nf->d, *s = nf->s;

	v = nf->nvar == 1 ? 0 : (nf->ctx == C_WORD) * 2 + nw;
	if (nf->startmatch[nf->ctx][nw])
		return true;
	m = nf->matchm + (size_t)v * (size_t)nf->w;
	sh = nf->shift + ((size_t)v * NSHIFT + 1 + BACK) * (size_t)nf->w;
	st = nf->start + (size_t)(nf->ctx * 2 + nw) * (size_t)nf->w;
	/* Whether MATCH follows, and the successors, in one pass. */
	for (w = 0; w < nf->w; w++) {
		hit |= s[w] & m[w];
		x = s[w] & sh[w];
		d[w] = st[w] | x << 1 | carry;
		carry = x >> 63;
	}
	if (hit != 0)
		return true;
	if (!nf->empty) {
		step_shifts(nf, v, d);
		step_far(nf, v, d);
	}
	for (w = 0; w < nf->w; w++) {
		s[w] = d[w] & a[w];
		any |= s[w];
	}
	nf->empty = any == 0;
	nf->ctx = nw ? C_WORD : C_OTHER;
	return false;
}

/* A newline or a NUL: whether the line matches there. */
static bool
step_end(struct nfa *nf, int c)
{
	if (matches_at_end(nf))
		return true;
	memset(nf->s, 0, (size_t)nf->w * sizeof(*nf->s));
	nf->empty = true;
	nf->ctx = c == '\n' ? C_LINE : C_SKIP;
	return false;
}

size_t
nfa_run(struct nfa *nf, const unsigned char *p, size_t i, size_t len,
    bool *match, size_t *left)
{
	size_t end = len - i > *left ? i + *left : len, from = i;
	const unsigned char *q;

	*match = false;
	for (; i < end; i++) {
		if (nf->ctx == C_SKIP ||
		    (nf->empty && nf->anchored && nf->ctx != C_LINE)) {
			if ((q = memchr(p + i, '\n', end - i)) == NULL) {
				i = end;
				break;
			}
			i = (size_t)(q - p);
			if (nf->ctx == C_SKIP) {
				nf->ctx = C_LINE;
				continue;
			}
		}
		if (p[i] == '\n' || p[i] == '\0' ? step_end(nf, p[i]) :
		    step(nf, p[i])) {
			*match = true;
			break;
		}
	}
	*left -= i - from;
	return i;
}
