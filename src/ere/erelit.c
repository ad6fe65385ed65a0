/*
 * erelit.c: the literals that every match of an ERE contains one of,
 * found on the tree eresyntax.c reads, so that eredfa.c can look for them
 * with memchr() and memcmp() and wake its DFA only on the lines that hold
 * one: {" errors", " failures"} for '[0-9]+ (errors|failures)', {"timeout",
 * "refused", "reset by peer"}, {"error:"}.  Each node gets four sets of
 * strings: those it matches, when they are few and short (exact); those
 * each of its matches begins with (pre), ends with (suf) and contains
 * (req).  A concatenation joins the ends of its left side to the
 * beginnings of its right side, which is how runs of characters combine
 * across the tree; an alternation takes the union of its sides; a
 * repetition that may be absent knows nothing.  A set holds at most
 * LIT_MAX strings of LIT_LEN bytes: past that, nothing is known, which is
 * always a right answer (no skipping).  It also owns the choice of the
 * pair of adjacent bytes each literal is searched by (pairscan.c), a
 * pair being far rarer in a stream than either of its bytes, or the
 * byte.  No newline or NUL is ever in a literal: a line ends at its
 * newline, and what is matched of it at its first NUL.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ereclass.h"
#include "erelit.h"
#include "eresyntax.h"

#define ANY		(-1)	/* a set of which nothing is known */
#define DEPTH_MAX	64	/* deeper nodes are taken as ANY */
#define SELECTIVE	6	/* bytes past which a longer set is no rarer */

struct lset {
	int		 n;	/* ANY, or strings */
	unsigned char	 len[LIT_MAX];
	unsigned char	 s[LIT_MAX][LIT_LEN];
};

/* What a joined string longer than LIT_LEN keeps. */
enum keep { KEEP_ALL, KEEP_HEAD, KEEP_TAIL };

struct info {
	struct lset	 exact, pre, suf, req;
};

struct walk {
	const struct ere_tree	*t;
	struct info		*scratch;	/* two a level of depth */
};

/*
 * Bytes from the most frequent to the least in what retry's users match:
 * English words and log lines (lower case, digits, the punctuation of
 * dates, paths and key=value), then upper case and the rarest letters and
 * punctuation; a byte not listed (control, 0x80 and above) is the rarest.
 * The first guess: eredfa.c then has the pairs chosen again from a
 * sample of the stream (ere_lits_sample()), 4 KiB in 4 MiB, since on
 * base64 or on a log whose lines share their words the table is wrong.
 */
static const char by_frequency[] =
    " etaoinsrhldcumfpgwybvk0123456789.-:/_,=\"'()[]"
    "ETAOINSRHLDCUMFPGWYBVKxjqzXJQZ;<>{}!?*+#@$%&|\\^~`\t";

/* Adds s[0..n) to a unless it is there; false when a is full. */
static bool
ls_add(struct lset *a, const unsigned char *s, size_t n)
{
	int k;

	for (k = 0; k < a->n; k++)
		if (a->len[k] == n && memcmp(a->s[k], s, n) == 0)
			return true;
	if (a->n == LIT_MAX)
		return false;
	a->len[a->n] = (unsigned char)n;
	memcpy(a->s[a->n++], s, n);
	return true;
}

/* The empty string tells nothing of what a match begins, ends or holds. */
static void
ls_useful(struct lset *a)
{
	int k;

	for (k = 0; k < a->n; k++)
		if (a->len[k] == 0)
			a->n = ANY;
}

/*
 * Each of a's strings followed by each of b's, into out, which is neither:
 * for a beginning, an end or a part (keep of KEEP_HEAD or KEEP_TAIL), what
 * is unknown on one side is taken as the empty string and a long string
 * is cut; for exact strings (KEEP_ALL), it makes all unknown.
 */
static void
ls_cross(struct lset *out, const struct lset *a, const struct lset *b,
    int keep)
{
	static const struct lset empty = { 1, { 0 }, { { 0 } } };
	unsigned char buf[2 * LIT_LEN];
	size_t n, off;
	int i, j;

	out->n = ANY;
	if (keep == KEEP_ALL && (a->n == ANY || b->n == ANY))
		return;
	a = a->n == ANY ? &empty : a;
	b = b->n == ANY ? &empty : b;
	out->n = 0;
	for (i = 0; i < a->n; i++)
		for (j = 0; j < b->n; j++) {
			memcpy(buf, a->s[i], a->len[i]);
			memcpy(buf + a->len[i], b->s[j], b->len[j]);
			n = (size_t)a->len[i] + b->len[j];
			off = keep == KEEP_TAIL && n > LIT_LEN ?
			    n - LIT_LEN : 0;
			if ((keep == KEEP_ALL && n > LIT_LEN) ||
			    !ls_add(out, buf + off, n > LIT_LEN ? LIT_LEN :
			    n)) {
				out->n = ANY;
				return;
			}
		}
}

/* The strings of a and of b, into out, which may be a but not b. */
static void
ls_union(struct lset *out, const struct lset *a, const struct lset *b)
{
	int k;

	if (a->n == ANY || b->n == ANY) {
		out->n = ANY;
		return;
	}
	if (out != a)
		*out = *a;
	for (k = 0; k < b->n; k++)
		if (!ls_add(out, b->s[k], b->len[k])) {
			out->n = ANY;
			return;
		}
}

static int
ls_shortest(const struct lset *a)
{
	int k, min = LIT_LEN;

	for (k = 0; k < a->n; k++)
		if (a->len[k] < min)
			min = a->len[k];
	return min;
}

/*
 * Whether a, a set of parts, is more selective than b: a memchr() on a
 * longer literal can pick a rarer byte, and each literal costs one.
 */
static bool
ls_better(const struct lset *a, const struct lset *b)
{
	int ma, mb;

	if (a->n == ANY || b->n == ANY)
		return b->n == ANY && a->n != ANY;
	ma = ls_shortest(a);
	mb = ls_shortest(b);
	if ((ma < SELECTIVE ? ma : SELECTIVE) != (mb < SELECTIVE ? mb :
	    SELECTIVE))
		return ma > mb;
	if (a->n != b->n)
		return a->n < b->n;
	return ma > mb;
}

/* The exact strings, when they tell more, as what the rest knows. */
static void
info_exact(struct info *in)
{
	struct lset e = in->exact;

	ls_useful(&e);
	if (e.n == ANY)
		return;
	in->pre = e;
	in->suf = e;
	if (ls_better(&e, &in->req))
		in->req = e;
}

static void
info_any(struct info *in)
{
	in->exact.n = ANY;
	in->pre.n = ANY;
	in->suf.n = ANY;
	in->req.n = ANY;
}

/* A set of a few bytes is that many strings of one byte. */
static void
info_set(struct info *in, const uint32_t *set)
{
	unsigned char c;
	int w, b;

	info_any(in);
	in->exact.n = 0;
	/* Word by word: a wide set is seen to be wide without a byte loop. */
	for (w = 0; w < 8; w++)
		for (b = 32 * w; set[w] >> (b & 31) != 0 && b < 32 * w + 32;
		    b++) {
			c = (unsigned char)b;
			if (b != '\0' && b != '\n' && set_has(set, b) &&
			    !ls_add(&in->exact, &c, 1)) {
				in->exact.n = ANY;
				return;
			}
		}
	if (in->exact.n == 0)	/* it matches nothing: say nothing */
		in->exact.n = ANY;
	info_exact(in);
}

/*
 * Each of a's strings followed by each of b's, cut as keep says, into
 * out where that tells something; else out is left as it was.
 */
static void
ls_join(struct lset *out, const struct lset *a, const struct lset *b,
    int keep)
{
	struct lset join;

	ls_cross(&join, a, b, keep);
	ls_useful(&join);
	if (join.n != ANY)
		*out = join;
}

/*
 * A concatenation begins with its left side's beginnings, or, where that
 * side's exact strings are known, with them followed by the right side's
 * beginnings; and likewise, from the right, for its ends.
 */
static void
info_cat(struct info *out, const struct info *a, const struct info *b)
{
	struct lset join;

	ls_cross(&out->exact, &a->exact, &b->exact, KEEP_ALL);
	out->pre = a->pre;
	if (a->exact.n != ANY)
		ls_join(&out->pre, &a->exact, &b->pre, KEEP_HEAD);
	out->suf = b->suf;
	if (b->exact.n != ANY)
		ls_join(&out->suf, &a->suf, &b->exact, KEEP_TAIL);
	out->req = ls_better(&a->req, &b->req) ? a->req : b->req;
	ls_cross(&join, &a->suf, &b->pre, KEEP_HEAD);
	ls_useful(&join);
	if (ls_better(&join, &out->req))
		out->req = join;
	info_exact(out);
}

static void
info_alt(struct info *out, const struct info *a, const struct info *b)
{
	ls_union(&out->exact, &a->exact, &b->exact);
	ls_union(&out->pre, &a->pre, &b->pre);
	ls_union(&out->suf, &a->suf, &b->suf);
	ls_union(&out->req, &a->req, &b->req);
	info_exact(out);
}

/* sub{min,max}: its strings min to max times over, when few and short. */
static void
info_rep(struct info *out, const struct info *a, int min, int max)
{
	struct lset pow = { 1, { 0 }, { { 0 } } }, next;
	int k;

	info_any(out);
	if (min > 0) {
		out->pre = a->pre;
		out->suf = a->suf;
		out->req = a->req;
	}
	if (max == -1 || max > LIT_LEN || a->exact.n == ANY)
		return;
	out->exact = pow;
	out->exact.n = min == 0;
	for (k = 1; k <= max && out->exact.n != ANY; k++) {
		ls_cross(&next, &pow, &a->exact, KEEP_ALL);
		pow = next;
		if (pow.n == ANY)
			out->exact.n = ANY;
		else if (k >= min)
			ls_union(&out->exact, &out->exact, &pow);
	}
	info_exact(out);
}

/* The tree recurses at most DEPTH_MAX deep. */
/* NOLINTBEGIN(misc-no-recursion) */
static void
walk(const struct walk *w, int i, int depth, struct info *out)
{
	const struct node *n = &w->t->nodes[i];
	struct info *a = &w->scratch[2 * (size_t)depth], *b = a + 1;

	info_any(out);
	if (depth == DEPTH_MAX - 1)
		return;
	switch (n->type) {
	case N_SET:
		info_set(out, w->t->sets[n->a]);
		break;
	case N_CAT:
		walk(w, n->a, depth + 1, a);
		walk(w, n->b, depth + 1, b);
		info_cat(out, a, b);
		break;
	case N_ALT:
		walk(w, n->a, depth + 1, a);
		walk(w, n->b, depth + 1, b);
		info_alt(out, a, b);
		break;
	case N_REP:
		walk(w, n->a, depth + 1, a);
		info_rep(out, a, n->min, n->max);
		break;
	default:	/* N_EMPTY, N_ASSERT: the empty string */
		out->exact.n = 1;
		out->exact.len[0] = 0;
		break;
	}
}
/* NOLINTEND(misc-no-recursion) */

/* Whether s[0..n) holds t[0..m). */
static bool
holds(const unsigned char *s, size_t n, const unsigned char *t, size_t m)
{
	size_t i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(s + i, t, m) == 0)
			return true;
	return false;
}

/* Drops each string that holds another: finding that one is enough. */
static void
ls_minimal(struct lset *a)
{
	int i, j, n = 0;

	for (i = 0; i < a->n; i++) {
		for (j = 0; j < a->n; j++)
			if (j != i && holds(a->s[i], a->len[i], a->s[j],
			    a->len[j]))
				break;
		if (j < a->n)
			continue;
		a->len[n] = a->len[i];
		memmove(a->s[n++], a->s[i], a->len[i]);
	}
	a->n = n;
}

/* The slot of the pair a, b in a sample's counts: 16 bits hashed to 12. */
static unsigned
pair_slot(unsigned a, unsigned b)
{
	return (((a << 8 | b) * 40503U) & 0xffffU) >> 4;
}

/*
 * What searching 4096 bytes in the cache costs, in nanoseconds on the
 * machine that measured it (bench/results.md): a pass of memchr() for
 * each literal; one of pairs_find() for all, and more for each pair; and
 * each place where either stops, which costs more than a pass.  A stop
 * of memchr() at a byte that comes seldom and at no fixed interval, as a
 * literal's rarest does on a real stream, costs 10 to 17 ns, its branch
 * mispredicted, where one every 64 bytes of base64 cost 5.
 */
#define BYTE_PASS	45
#define PAIR_PASS	55
#define PAIR_EACH	145
#define BYTE_STOP	13
#define PAIR_STOP(n)	(10 + 7 * (n))	/* a call, and a memcmp() each */

/*
 * The offset of literal k's pair (pair) or byte (!pair) that came least
 * often in the sample, and in *hits how often; on a tie, the one it is
 * searched by now (a sample of one long line of other bytes has none).
 */
static int
least_sampled(const struct ere_lits *l, int k, bool pair,
    const struct lit_sample *sm, unsigned long *hits)
{
	const unsigned char *s = l->s[k];
	unsigned c, least;
	int i, best = pair ? l->pair[k] : l->byte[k];

	if (best + pair >= l->len[k])
		best = 0;
	least = pair ? sm->pair[pair_slot(s[best], s[best + 1])] :
	    sm->byte[s[best]];
	for (i = 0; i + pair < l->len[k]; i++) {
		c = pair ? sm->pair[pair_slot(s[i], s[i + 1])] : sm->byte[s[i]];
		if (c < least) {
			least = c;
			best = i;
		}
	}
	*hits = least;
	return best;
}

/*
 * Counts the bytes and pairs of p[0..n) into *sm: all of them up to
 * LIT_SAMPLE, else SLICES slices spread over them, since one long line
 * can fill the first LIT_SAMPLE bytes with what the stream seldom holds.
 */
#define SLICES		16

static void
lits_count(struct lit_sample *sm, const unsigned char *p, size_t n)
{
	size_t j, at, slice = n > LIT_SAMPLE ? LIT_SAMPLE / SLICES : n;
	int k, slices = n > LIT_SAMPLE ? SLICES : 1;

	memset(sm, 0, sizeof(*sm));
	for (k = 0; k < slices; k++) {
		at = slices > 1 ? (n - slice) / (SLICES - 1) * (size_t)k : 0;
		for (j = at; j < at + slice; j++)
			sm->byte[p[j]]++;
		for (j = at; j + 1 < at + slice; j++)
			sm->pair[pair_slot(p[j], p[j + 1])]++;
	}
}

void
ere_lits_pair(struct ere_lits *l, unsigned mask)
{
	int k, m = 0;

	for (k = 0; k < l->n; k++)
		if (mask >> k & 1) {
			l->pairs.off[m] = l->pair[k];
			l->pairs.a[m] = l->s[k][l->pair[k]];
			l->pairs.b[m++] = l->s[k][l->pair[k] + 1];
		}
	l->pairs.n = m;
	l->paired = mask;
}

/* PAIRS_ALWAYS's choice: the first literal and every second one. */
static unsigned
every_second(const struct ere_lits *l)
{
	unsigned mask = 0;
	int k, m = 0;

	for (k = 0; k < l->n; k++)
		if (l->len[k] > 1 && m++ % 2 == 0)
			mask |= 1U << k;
	return mask;
}

/*
 * The literals to search for by a pair, given how often each one's byte
 * (bhits) and pair (phits) came in a sample of n bytes: each whose pair
 * costs less than its byte, if what they save pays for the pass of
 * pairs_find().
 */
static unsigned
lits_choose(const struct ere_lits *l, const unsigned long *bhits,
    const unsigned long *phits, size_t n)
{
	unsigned long bcost, pcost, bytes = 0, mixed = PAIR_PASS * n /
	    LIT_SAMPLE;
	unsigned mask = 0;
	int k;

	for (k = 0; k < l->n; k++) {
		bcost = BYTE_PASS * n / LIT_SAMPLE + BYTE_STOP * bhits[k];
		pcost = PAIR_EACH * n / LIT_SAMPLE +
		    PAIR_STOP((unsigned long)l->n) * phits[k];
		bytes += bcost;
		if (l->len[k] > 1 && pcost < bcost) {
			mask |= 1U << k;
			mixed += pcost;
		} else
			mixed += bcost;
	}
	return mask != 0 && mixed < bytes ? mask : 0;
}

unsigned long
ere_lits_sample(struct ere_lits *l, struct lit_sample *sm,
    const unsigned char *p, size_t n)
{
	/* Each literal's hits, 0 until counted (a pair only where len > 1). */
	unsigned long bhits[LIT_MAX] = { 0 }, phits[LIT_MAX] = { 0 }, hits = 0;
	unsigned mask;
	int k;

	lits_count(sm, p, n);
	if (n > LIT_SAMPLE)
		n = LIT_SAMPLE;
	for (k = 0; k < l->n; k++) {
		l->byte[k] = (unsigned char)least_sampled(l, k, false, sm,
		    &bhits[k]);
		if (l->len[k] > 1)
			l->pair[k] = (unsigned char)least_sampled(l, k, true,
			    sm, &phits[k]);
		hits += bhits[k] + phits[k];
	}
	/* Without a hit either way, the sample says nothing: keep to it. */
	mask = PAIRS_ALWAYS ? every_second(l) : hits == 0 ? l->paired :
	    lits_choose(l, bhits, phits, n);
	ere_lits_pair(l, mask);
	for (hits = 0, k = 0; k < l->n; k++)
		hits += mask >> k & 1 ? phits[k] : bhits[k];
	return hits;
}

/* Where byte c stands in by_frequency: the higher, the rarer. */
static size_t
rank(unsigned char c)
{
	const char *r = memchr(by_frequency, c, sizeof(by_frequency) - 1);

	return r != NULL ? (size_t)(r - by_frequency) : sizeof(by_frequency);
}

/* The offset of the rarest byte of s[0..n), by by_frequency. */
static unsigned char
rarest(const unsigned char *s, size_t n)
{
	size_t i, best = 0, most = 0;

	for (i = 0; i < n; i++)
		if (rank(s[i]) > most) {
			most = rank(s[i]);
			best = i;
		}
	return (unsigned char)best;
}

void
ere_literals(const struct ere_tree *tree, struct ere_lits *out)
{
	struct walk w = { tree, NULL };
	struct info root;
	int k;

	out->n = 0;
	out->paired = 0;
	out->pairs.n = 0;
	w.scratch = malloc(2 * (size_t)DEPTH_MAX * sizeof(*w.scratch));
	if (w.scratch == NULL)
		return;
	walk(&w, tree->root, 0, &root);
	free(w.scratch);
	if (root.req.n == ANY)
		return;
	ls_minimal(&root.req);
	/* Several literals of one byte: first bytes' search does as well. */
	if (root.req.n > 1 && ls_shortest(&root.req) < 2)
		return;
	out->n = root.req.n;
	for (k = 0; k < out->n; k++) {
		out->len[k] = root.req.len[k];
		memcpy(out->s[k], root.req.s[k], root.req.len[k]);
		out->byte[k] = rarest(out->s[k], out->len[k]);
		out->pair[k] = (unsigned char)(out->byte[k] + 1 < out->len[k] ?
		    out->byte[k] : out->byte[k] > 0 ? out->byte[k] - 1 : 0);
	}
	if (PAIRS_ALWAYS)
		ere_lits_pair(out, every_second(out));
}
