/*
 * match.h: what match.c offers its callers: the output conditions, a line
 * matcher for two streams, each rule on one of them or both.
 */
#ifndef MATCH_H
#define MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"

/* The output conditions, strongest first. */
enum match_kind {
	MATCH_SUCCESS,
	MATCH_STOP,
	MATCH_RETRY,
	MATCH_KINDS
};
#define OUTPUT_RULES_MAX	16	/* of each kind, its three forms */
/* The streams a rule looks at: --*-if-stdout, --*-if-stderr, or both. */
#define MATCH_ON_STDOUT	1
#define MATCH_ON_STDERR	2
#define MATCH_ON_BOTH	(MATCH_ON_STDOUT | MATCH_ON_STDERR)
struct match_rules {
	const char	*output[MATCH_KINDS][OUTPUT_RULES_MAX];	/* EREs */
	unsigned char	 on[MATCH_KINDS][OUTPUT_RULES_MAX];	/* MATCH_ON_* */
	int		 noutput[MATCH_KINDS];
	bool		 fixed;		/* -F: each is a literal string */
};

enum { MATCH_STDOUT, MATCH_STDERR };
const char	*match_option(int kind, int on);
struct matcher;
struct matcher	*matcher_open(const struct match_rules *cfg, char *msg,
		    size_t len);
void		 matcher_free(struct matcher *m);
bool		 matcher_wants(const struct matcher *m, int which);
void		 matcher_begin(struct matcher *m);
size_t		 matcher_scan(struct matcher *m, int which, const char *p,
		    size_t n, nsec_t until);
void		 matcher_eof(struct matcher *m, int which);
int		 matcher_end(const struct matcher *m, const char **text);

#endif /* MATCH_H */
