/*
 * eresyntax.h: an ERE read into a tree of nodes (see eresyntax.c), for
 * erecomp.c to compile.  It calls ereclass.c only.
 */
#ifndef ERESYNTAX_H
#define ERESYNTAX_H

#include <stddef.h>

#include "ereclass.h"

enum assertion { A_BOL, A_EOL, A_WORDB, A_NWORDB, A_WBEG, A_WEND };

enum ntype { N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP };

struct node {
	int	 type;
	int	 a, b;		/* children; set; assertion */
	int	 min, max;	/* N_REP; max -1 for no bound */
	size_t	 size;		/* instructions, at most ERE_MAX_PROG + 1 */
};

/* A pattern read: nodes[root], and the sets that its N_SET nodes name. */
struct ere_tree {
	struct node	*nodes;
	int		 root;
	byteset		*sets;
	int		 nsets;
};

/*
 * Reads pattern as glibc's regcomp(REG_EXTENDED | REG_NEWLINE) does in
 * the C locale, into *out, whose nodes and sets are then the caller's to
 * free.  Returns 0, or -1 with *why set to the reason (glibc's words
 * where glibc refuses the same ERE).
 */
int	ere_parse(const char *pattern, struct ere_tree *out, const char **why);

#endif /* ERESYNTAX_H */
