/*
 * erelit.h: the literals that every match of an ERE contains one of (see
 * erelit.c), found by erecomp.c at compile time for eredfa.c's search to skip
 * to, and the pairs of their bytes to search by.  It calls ereclass.c's
 * set_has() only.
 */
#ifndef ERELIT_H
#define ERELIT_H

#include <stddef.h>
#include <stdint.h>

#include "eresyntax.h"
#include "pairscan.h"

#define LIT_MAX		PAIRS_MAX	/* literals in a set, at most */
#define LIT_LEN		16	/* bytes of a literal, at most */
#define LIT_SAMPLE	4096	/* bytes of a piece counted, at most */
#define PAIR_SLOTS	4096	/* counts of pairs in a sample */

/*
 * Built with -DERE_PAIRS_ALWAYS (src/ere/tests/ere-test-pairs, a fuzzer),
 * the first literal of two bytes or more and every second one after it
 * are searched for by a pair from the start, the others by a byte, and
 * until the first sample the bytes take over after 3 stops without a
 * literal (eredfa.c), so that the table of cases tests both searches, the
 * two at once and the switch on its short lines.
 */
#ifdef ERE_PAIRS_ALWAYS
#define PAIRS_ALWAYS	1
#else
#define PAIRS_ALWAYS	0
#endif

/*
 * n literals (0: none known, no skipping), each of len[k] bytes, with
 * byte[k] the offset in it of the byte to search for with memchr(), or,
 * where bit k of paired is set, pair[k] that of the pair of bytes to
 * search for with pairs_find() (never for a literal of one byte); pairs
 * holds those pairs, all searched for at once (pairs.n is 0 where paired
 * is).
 */
struct ere_lits {
	int		 n;
	unsigned	 paired;
	unsigned char	 len[LIT_MAX];
	unsigned char	 byte[LIT_MAX];
	unsigned char	 pair[LIT_MAX];
	unsigned char	 s[LIT_MAX][LIT_LEN];
	struct pairs	 pairs;
};

/*
 * How often each byte, and each pair of bytes, came in a sample of a
 * stream; pairs share a count where they share a slot, which only makes
 * them look less rare.
 */
struct lit_sample {
	uint16_t	 byte[256];
	uint16_t	 pair[PAIR_SLOTS];
};

/*
 * The literals of the tree's nodes[root], whose sets are sets, into *out:
 * none where every match need not contain one, or where they would be too
 * many or too short to be worth searching for.  Without memory, none.
 */
void	ere_literals(const struct ere_tree *tree, struct ere_lits *out);

/*
 * Counts LIT_SAMPLE bytes of p[0..n) and their pairs into *sm, and chooses
 * again how each literal of l is to be searched for: by the pair of its
 * bytes (pairs_find()) or by the byte (memchr()) that came least often
 * there, whichever that says costs less, some literals one way and some
 * the other where that is cheapest.  Returns how many times the chosen
 * pairs and bytes came in it, all told.
 */
unsigned long	ere_lits_sample(struct ere_lits *l, struct lit_sample *sm,
		    const unsigned char *p, size_t n);

/*
 * The literals of mask, none of one byte, are to be searched for by
 * their pairs, the others by their bytes.
 */
void		ere_lits_pair(struct ere_lits *l, unsigned mask);

#endif /* ERELIT_H */
