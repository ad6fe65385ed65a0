/*
 * env.h: what env.c offers its callers: the environment of a command or a
 * hook, and the variables that tell an attempt where it stands.
 */
#ifndef ENV_H
#define ENV_H

#include <stddef.h>

#include "defs.h"

#define ENV_VALUE_MAX	48	/* NAME=VALUE of one variable below */

/*
 * RETRY_ATTEMPT, RETRY_MAX_ATTEMPTS and the previous attempt's
 * statuses, each "NAME=VALUE", rewritten in place before each attempt
 * so that the environment env_with() made points to them all along.
 */
struct env_attempt {
	char		 attempt[ENV_VALUE_MAX];
	char		 max[ENV_VALUE_MAX];
	char		 prev[ENV_VALUE_MAX];
	char		 prev_http[ENV_VALUE_MAX];
};

char		**env_with(char **base, char *const *add, size_t nadd,
		    size_t nset);
void		 env_attempt_init(struct env_attempt *e, long long max);
void		 env_attempt_set(struct env_attempt *e, long long k,
		    int prev, int prev_http);

#endif /* ENV_H */
