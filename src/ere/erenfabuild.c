/*
 * erenfabuild.c: makes the tables of the bit-parallel NFA (erenfa.c runs
 * them, erenfa.h lays them out) from the program: numbers the consumers
 * and fills their accept sets, finds every pc's closure without a byte
 * (Tarjan's components), and from those each consumer's follow set, as
 * shifts of the state and far sets; erenfagroup.c then groups the far
 * sets for the step.  The memory is bounded by K (about 200 KiB at
 * K = 4096 with word assertions, half without), and the NFA says what a
 * byte can cost at worst, so that erecomp.c can refuse an ERE neither the
 * DFA nor it can match fast.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"
#include "ereclosure.h"
#include "erenfa.h"
#include "ereprog.h"
#include "eresyntax.h"

/* The e'th pc that pc leads to without a byte, -1 after the last. */
static int
edge(const struct ere *re, int pc, int e, int prev, int next)
{
	int to[2], m = ere_successors(&re->prog[pc], pc, prev, next, to);

	return e < m ? to[m - 1 - e] : -1;
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
	if (!nfa_groups(nf)) {
		nfa_free(nf);
		return NULL;
	}
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
