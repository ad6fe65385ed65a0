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
 * non-word bytes around the position.  This file owns the state and the
 * step, the loop a long line spends its time in, with every function it
 * calls, so that they inline into it; erenfabuild.c and erenfagroup.c
 * make the tables (erenfa.h) with the program.
 */
#include <stdint.h>
#include <string.h>

#include "ere.h"
#include "erenfa.h"
#include "ereprog.h"

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

/*
 * ORs into d the far sets of the consumers of the state that have one:
 * each bitset once, each run of ranges that end alike once.
 */
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
