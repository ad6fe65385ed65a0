/*
 * ereprog.h: the compiled form of an ERE, shared by ere.c, which builds
 * it and finds where a match starts, and eredfa.c, which runs the DFA
 * over a stream of lines.  No other file includes it.
 */
#ifndef EREPROG_H
#define EREPROG_H

#include <stdbool.h>
#include <stddef.h>

#include "ere.h"
#include "ereclass.h"
#include "erelit.h"

#define DFA_STATES	256
#define DFA_POOL	32768	/* program counters of all cached states */
#define HASH_SIZE	512	/* twice DFA_STATES, a power of 2 */

enum op { I_SET, I_SPLIT, I_JMP, I_ASSERT, I_MATCH };

/*
 * What precedes a position: a line start, a word byte, another byte, or
 * a NUL, after which the rest of the line is not matched.
 */
enum ctx { C_LINE, C_WORD, C_OTHER, C_SKIP };

struct inst {
	unsigned char	 op;
	unsigned char	 kind;		/* I_ASSERT */
	int		 x, y;		/* set; targets */
};

struct dstate {
	int		 pcs;		/* offset in the pool */
	int		 npcs;
	int		 ctx;
	bool		 skip;		/* no thread alive, and a skip applies */
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
	unsigned char	 first[256];	/* and NUL */
	/* Every match starts at a line start: skip to the next newline. */
	bool		 anchored;
	bool		 skips;		/* anchored, or nfirst > 0 */
	/* With 2 or 3 first bytes: they and NUL, for memchr() each. */
	unsigned char	 firsts[4];
	int		 nfirsts;
	size_t		 next[4];	/* where each is next: this feed's */
	/* The bytes every match starts with, when there are two or more. */
	unsigned char	 prefix[16];
	size_t		 nprefix;
	/* The literals every match holds one of (erelit.c): lines to wake. */
	struct ere_lits	 lits;
	size_t		 litnext[LIT_MAX];	/* each next: this feed's */
	size_t		 nextnl;	/* the next newline: this feed's */
};

/* Where a stream of lines is between two pieces (see ere_feed()). */
struct ere_run {
	int		*pcs;		/* the DFA state's, nprog at most */
	int		 npcs;
	int		 ctx;
	bool		 midline;	/* a line has begun and not ended */
};

static inline bool
ere_is_word(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || c == '_';
}

bool	ere_closure(struct ere *re, int pc, int prev, int next, int *n,
	    size_t start);
void	ere_next_gen(struct ere *re);

#endif /* EREPROG_H */
