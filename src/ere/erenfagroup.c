/*
 * erenfagroup.c: groups the far sets that erenfabuild.c made, so that a
 * step of erenfa.c looks at each group once: for each variant, its
 * classes (many consumers whose far sets are ranges that end alike and
 * start in their order), and for each word of the state its other
 * consumers with a far set, grouped by far set.  Then what a byte's step
 * can cost at worst, which erecomp.c and eredfa.c weigh against the DFA's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "erenfa.h"

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

/*
 * For each word of the state in each variant, its consumers with a far
 * set, grouped by far set, so that a step looks at each group once.
 */
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

bool
nfa_groups(struct nfa *nf)
{
	size_t cost;
	int v;

	if (!all_classes(nf) || !word_groups(nf) ||
	    (nf->stamp = calloc((size_t)nf->nfar + (size_t)nf->k + 1,
	    sizeof(*nf->stamp))) == NULL)
		return false;
	for (v = 0; v < nf->nvar; v++)
		if ((cost = variant_cost(nf, v)) > nf->cost)
			nf->cost = cost;
	return true;
}
