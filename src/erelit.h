/*
 * erelit.h: the literals that every match of an ERE contains one of (see
 * erelit.c), found by ere.c at compile time for eredfa.c's search to skip
 * to.  It calls ereclass.c's set_has() only.
 */
#ifndef ERELIT_H
#define ERELIT_H

#include <stdint.h>

#include "eresyntax.h"

#define LIT_MAX		8	/* literals in a set, at most */
#define LIT_LEN		16	/* bytes of a literal, at most */

/*
 * n literals (0: none known, no skipping), each of len[k] bytes, with
 * rare[k] the offset of the byte in it to search for with memchr().
 */
struct ere_lits {
	int		 n;
	unsigned char	 len[LIT_MAX];
	unsigned char	 rare[LIT_MAX];
	unsigned char	 s[LIT_MAX][LIT_LEN];
};

/*
 * The literals of the tree's nodes[root], whose sets are sets, into *out:
 * none where every match need not contain one, or where they would be too
 * many or too short to be worth searching for.  Without memory, none.
 */
void	ere_literals(const struct ere_tree *tree, struct ere_lits *out);

/*
 * Chooses again the byte of each literal of l to search for, the one that
 * came least often in a sample of the stream, whose byte counts are count;
 * returns how many times the chosen bytes came in it, all told.
 */
unsigned long	ere_lits_choose(struct ere_lits *l,
		    const uint16_t count[256]);

#endif /* ERELIT_H */
