/*
 * ereclosure.h: the walk of an ERE's program without a byte (see
 * ereclosure.c), which erecomp.c, eredfa.c and erenfa.c call.  It calls
 * nothing of retry's.
 */
#ifndef ERECLOSURE_H
#define ERECLOSURE_H

#include <stdbool.h>

#include "ereprog.h"

/*
 * Makes the walk of prog, nprog instructions: false, w to be freed all
 * the same, when memory is exhausted.
 */
bool	ere_walk_alloc(struct ere_walk *w, const struct inst *prog,
	    int nprog);
void	ere_walk_free(struct ere_walk *w);

/* A new generation of marks: no pc is marked. */
void	ere_walk_next_gen(struct ere_walk *w);

/*
 * The closure of pc between contexts prev (a context, ereprog.h) and
 * next (a byte, -1: the line's end): follows splits, jumps and the
 * assertions that hold, appending to w->list from *n each consumer
 * reached and not yet marked in this generation.  Whether MATCH is.
 */
bool	ere_closure(struct ere_walk *w, int pc, int prev, int next, int *n);

/*
 * In a new generation, the closure of the start (pc 0) and then of each
 * of the threads pcs[0..npcs), up to the first that reaches MATCH, into
 * w->list from 0, their number in *n.  Whether MATCH is reached.
 */
bool	ere_state_closure(struct ere_walk *w, const int *pcs, int npcs,
	    int prev, int next, int *n);

#endif /* ERECLOSURE_H */
