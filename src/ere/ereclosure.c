/*
 * ereclosure.c: the walk of an ERE's program (ereprog.h) that takes no
 * byte: from a pc through splits, jumps and the assertions that hold
 * between the context before a position and the byte after it
 * (ere_successors(), ereprog.h), to the byte consumers and MATCH it
 * reaches; and its work space.  eredfa.c's DFA makes each state with it,
 * erecomp.c's Pike pass follows the threads with it, and erenfa.c's
 * bit-parallel NFA finds its start sets with it (its follow sets come
 * from Tarjan's walk of the same edges, which visits each pc once for
 * every consumer at once).  It calls nothing of retry's.
 */
#include <stdlib.h>
#include <string.h>

#include "ereclosure.h"
#include "ereprog.h"
#include "eresyntax.h"

bool
ere_walk_alloc(struct ere_walk *w, const struct inst *prog, int nprog)
{
	size_t n = (size_t)nprog;

	w->prog = prog;
	w->nprog = nprog;
	w->gen = 0;
	w->mark = calloc(n, sizeof(*w->mark));
	w->stack = malloc((2 * n + 2) * sizeof(*w->stack));
	w->list = malloc(n * sizeof(*w->list));
	return w->mark != NULL && w->stack != NULL && w->list != NULL;
}

void
ere_walk_free(struct ere_walk *w)
{
	free(w->mark);
	free(w->stack);
	free(w->list);
	w->mark = NULL;
	w->stack = w->list = NULL;
}

void
ere_walk_next_gen(struct ere_walk *w)
{
	if (++w->gen == 0) {
		memset(w->mark, 0, (size_t)w->nprog * sizeof(*w->mark));
		w->gen = 1;
	}
}

bool
ere_closure(struct ere_walk *w, int pc, int prev, int next, int *n)
{
	const struct inst *in;
	bool match = false;
	int sp = 0;

	w->stack[sp++] = pc;
	while (sp > 0) {
		pc = w->stack[--sp];
		if (w->mark[pc] == w->gen)
			continue;
		w->mark[pc] = w->gen;
		in = &w->prog[pc];
		if (in->op == I_SET)
			w->list[(*n)++] = pc;
		else if (in->op == I_MATCH)
			match = true;
		else
			sp += ere_successors(in, pc, prev, next, w->stack + sp);
	}
	return match;
}

bool
ere_state_closure(struct ere_walk *w, const int *pcs, int npcs, int prev,
    int next, int *n)
{
	bool match;
	int k;

	ere_walk_next_gen(w);
	*n = 0;
	match = ere_closure(w, 0, prev, next, n);
	for (k = 0; k < npcs && !match; k++)
		match = ere_closure(w, pcs[k], prev, next, n);
	return match;
}
