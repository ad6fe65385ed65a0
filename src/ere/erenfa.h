/*
 * erenfa.h: the tables of the bit-parallel NFA, shared by the files that
 * make them, erenfabuild.c (the follow sets) and erenfagroup.c (their
 * groups for a step, and what a step costs), and erenfa.c, which runs
 * them over the bytes of a stream.  No other file includes it: the rest
 * of ere/ sees the NFA through the functions ereprog.h declares.
 */
#ifndef ERENFA_H
#define ERENFA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ereclosure.h"

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

/*
 * Static inline, as they were static in the one file the NFA was:
 * bits_or() is in the step's loop over the far sets (erenfa.c), and must
 * stay inlined there.
 */
static inline void
bit_set(uint64_t *b, int k)
{
	b[k >> 6] |= (uint64_t)1 << (k & 63);
}

static inline void
bits_or(uint64_t *a, const uint64_t *b, size_t w)
{
	size_t i;

	for (i = 0; i < w; i++)
		a[i] |= b[i];
}

/*
 * erenfagroup.c: the classes and word groups of every variant's far sets,
 * the stamps of a step, and nf->cost; false when memory is exhausted.
 */
bool	nfa_groups(struct nfa *nf);

#endif /* ERENFA_H */
