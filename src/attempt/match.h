/*
 * match.h: what match.c offers its callers: the output conditions, a line
 * matcher for two streams.
 */
#ifndef MATCH_H
#define MATCH_H

#include <stddef.h>

#include "os/defs.h"

/* The output conditions, strongest first. */
enum match_kind {
	MATCH_SUCCESS,
	MATCH_STOP,
	MATCH_RETRY,
	MATCH_KINDS
};
#define OUTPUT_RULES_MAX	16	/* of each kind */
struct match_rules {
	const char	*output[MATCH_KINDS][OUTPUT_RULES_MAX];	/* EREs */
	int		 noutput[MATCH_KINDS];
};

enum { MATCH_STDOUT, MATCH_STDERR };
struct matcher;
struct matcher	*matcher_open(const struct match_rules *cfg, char *msg,
		    size_t len);
void		 matcher_free(struct matcher *m);
void		 matcher_begin(struct matcher *m);
size_t		 matcher_scan(struct matcher *m, int which, const char *p,
		    size_t n, nsec_t until);
void		 matcher_eof(struct matcher *m, int which);
int		 matcher_end(const struct matcher *m, const char **text);

#endif /* MATCH_H */
