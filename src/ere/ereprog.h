/*
 * ereprog.h: the compiled form of an ERE, shared by erecomp.c, which builds
 * it and finds where a match starts, eredfa.c, which runs the DFA over a
 * stream of lines, erenfa.c, the bit-parallel NFA that eredfa.c hands a
 * stream to while its cache keeps missing (erenfabuild.c and
 * erenfagroup.c make its tables), and ereclosure.c, the walk without a
 * byte that all three make their states with.  No file outside src/ere
 * includes it.
 */
#ifndef EREPROG_H
#define EREPROG_H

#include <stdbool.h>
#include <stddef.h>

#include "ere.h"
#include "ereclass.h"
#include "erelit.h"
#include "eresyntax.h"

/*
 * Built with -DERE_TEST_NFA (the fuzzer, ere-test's second run), the cache
 * holds 2 states and the NFA (erenfa.c) takes the stream whenever it is
 * emptied, so that both and the hand-overs between them are tested.
 */
#ifdef ERE_TEST_NFA
#define DFA_STATES	2
#define NFA_ALWAYS	1
#else
#define DFA_STATES	256
#define NFA_ALWAYS	0
#endif
#define DFA_POOL	32768	/* program counters of all cached states */
#define HASH_SIZE	512	/* twice DFA_STATES, a power of 2 */

/*
 * What a byte costs at worst, in the units of nfa_cost(), each about a
 * nanosecond on the machine that measured them (bench/results.md): a
 * missing transition of the DFA is a pass over the program, about 6
 * units an instruction, and the new state's table.  An ERE for which
 * both that and its NFA's step cost more than ERE_MAX_COST is refused as
 * "too complex": about 65 ms for a 64 KiB line, whatever the line.
 */
#define MISS_COST(nprog)	(150 + 6 * (double)(nprog))
#define ERE_MAX_COST		1000

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

/*
 * The walk of a program of nprog instructions, and its work space: its
 * marks, a stack of 2 * nprog + 2 pcs, and the list of the byte
 * consumers (I_SET) it reached, nprog at most.  A caller may use the
 * stack and the list between two walks.
 */
struct ere_walk {
	const struct inst *prog;
	unsigned	*mark;
	unsigned	 gen;
	int		 nprog;
	int		*stack;
	int		*list;
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
	struct ere_walk	 walk;		/* its list: the consumers reached */
	size_t		*lstart;	/* where each one's thread started */
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
	bool		 flushed;	/* the cache: see nfa below */
	bool		 nfa_failed;	/* no memory to make the NFA */
	/* Every match starts at a line start: skip to the next newline. */
	bool		 anchored;
	bool		 skips;		/* anchored, or nfirst > 0 */
	/* With more, they and NUL as ranges, when few (ranges.n > 0). */
	struct ranges	 ranges;
	/* With 2 or 3 first bytes: they and NUL, for memchr() each. */
	unsigned char	 firsts[4];
	int		 nfirsts;
	size_t		 next[4];	/* where each is next: this feed's */
	/* The bytes every match starts with, when there are two or more. */
	unsigned char	 prefix[16];
	size_t		 nprefix;
	/* The literals every match holds one of (erelit.c): lines to wake. */
	struct ere_lits	 lits;
	size_t		 pair_leeway;	/* stops of the pairs without one */
	size_t		 byte_leeway;	/* and of the bytes */
	unsigned	 to_pair;	/* literals the bytes gave up on */
	size_t		 litnext;	/* where one is next: this feed's, */
	size_t		 bytenext[LIT_MAX];	/* and each, by its byte */
	size_t		 nextnl;	/* the next newline: this feed's */
	/*
	 * Bytes to feed before the stream is sampled again to choose the
	 * literals' pairs; for an anchored ERE, whether the last sample found
	 * them rarer than newlines, so that they are searched for.
	 */
	size_t		 sample_due;
	bool		 lit_lines;
	struct lit_sample *sample;	/* its counts, made at the first */
	/*
	 * The NFA (erenfa.c), made at once for a large program, else when the
	 * cache is first emptied; how many bytes it has yet to match; the
	 * bytes fed, and when the cache was last emptied.
	 */
	struct nfa	*nfa;
	size_t		 nfa_left;
	size_t		 pos, flush_pos;
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

/* Whether an assertion holds between prev (a context) and next (-1: end). */
static inline bool
assert_holds(int kind, int prev, int next)
{
	bool pw = prev == C_WORD, nw = next >= 0 && ere_is_word(next);

	switch (kind) {
	case A_BOL:
		return prev == C_LINE;
	case A_EOL:
		return next < 0;
	case A_WORDB:
		return pw != nw;
	case A_NWORDB:
		return pw == nw;
	case A_WBEG:
		return !pw && nw;
	default:
		return pw && !nw;
	}
}

/*
 * The pcs that in, at pc, leads to without a byte between prev and
 * next, into to[] (two at most) in the order a stack pops them, the last
 * first; how many.  A consumer or MATCH leads nowhere.  The one reading
 * of the instructions that the walks of ereclosure.c and erenfa.c share.
 */
static inline int
ere_successors(const struct inst *in, int pc, int prev, int next, int *to)
{
	switch (in->op) {
	case I_JMP:
		to[0] = in->x;
		return 1;
	case I_SPLIT:
		to[0] = in->y;
		to[1] = in->x;
		return 2;
	case I_ASSERT:
		if (!assert_holds(in->kind, prev, next))
			return 0;
		to[0] = pc + 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * erenfabuild.c, then erenfa.c.  nfa_build() returns NULL when memory is
 * exhausted; nfa_cost() is the most 64-bit words one byte's step can
 * cost.  A state is given and taken as the DFA's: the pcs after the
 * consumers that took the last byte, ascending, and that byte's context.
 * nfa_run() matches p[i..len) but at most *left bytes, which it counts
 * down: where it stopped, and in *match whether that is where a match is
 * seen.
 */
struct nfa;
struct nfa	*nfa_build(const struct ere *re);
size_t		 nfa_cost(const struct nfa *nf);
void		 nfa_free(struct nfa *nf);
void		 nfa_load(struct nfa *nf, const int *pcs, int n, int ctx);
int		 nfa_save(const struct nfa *nf, int *pcs, int *ctx);
size_t		 nfa_run(struct nfa *nf, const unsigned char *p, size_t i,
		    size_t len, bool *match, size_t *left);

#endif /* EREPROG_H */
