/*
 * checks.h: what checks.c offers options.c: the checks across options,
 * which look at several options together once a vector is parsed, and
 * the record of a pass that they read.
 */
#ifndef CHECKS_H
#define CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "attempt/match.h"
#include "policy/outcomes.h"
#include "config.h"

#define VALUE_SHOWN	100	/* bytes of a bad value quoted in an error */

/*
 * Where what the checks across options name came from: RETRY_OPTIONS or
 * argv, so that an error says which; the last to set it decides.
 */
struct origin {
	bool		 cap, base, preset, until, budget, breaker;
	bool		 http[3];	/* RETRY_OPTIONS' LIST had http: */
};

/* One vector's pass: RETRY_OPTIONS' words, then argv. */
struct pass {
	bool		 from_env;
	struct outcome_set lists[3];	/* -r, -x, --success-on before it */
	bool		 seen[MATCH_KINDS];	/* an output rule of the pass */
	const char	*cap_arg, *base_arg;	/* NULL: default or preset */
	struct origin	 env;		/* what RETRY_OPTIONS set */
	int		 end;		/* the first word that is no option */
	const char	*computed;	/* -b, -f, -c or --preset of the pass */
	bool		 delays;	/* --delays in this pass */
	bool		 jitter;	/* -j in either pass */
};

bool		 check_delays(struct config *cfg, const struct pass *p,
		    char *err, size_t len);
bool		 check_env_eres(const struct match_rules *conds, char *why,
		    size_t len);
bool		 check_config(struct config *cfg, const struct pass *p,
		    char *err, size_t len);

#endif /* CHECKS_H */
