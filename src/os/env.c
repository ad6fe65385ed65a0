/*
 * env.c: the environment a command or a hook is given: a base
 * environment less the variables that retry sets itself, plus those, so
 * that a stale RETRY_ATTEMPT from the caller cannot stand beside retry's;
 * and the values of those variables.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defs.h"
#include "env.h"

/*
 * base, without the variables named in add (NAME=VALUE each), then the
 * first nset of add: the others only take a variable away.  The strings
 * are not copied: what add points to may change later.
 */
char **
env_with(char **base, char *const *add, size_t nadd, size_t nset)
{
	char **env, **e;
	size_t n = 0, i;

	for (e = base; *e != NULL; e++)
		n++;
	if ((env = calloc(n + nadd + 1, sizeof(*env))) == NULL)
		err(EXIT_CANCELED, NULL);
	n = 0;
	for (e = base; *e != NULL; e++) {
		for (i = 0; i < nadd; i++)
			if (strncmp(*e, add[i], strcspn(add[i], "=") + 1) == 0)
				break;
		if (i == nadd)
			env[n++] = *e;
	}
	for (i = 0; i < nset && i < nadd; i++)
		env[n++] = add[i];
	return env;
}

/* max 0: no limit, "inf". */
void
env_attempt_init(struct env_attempt *e, long long max)
{
	if (max == 0)
		snprintf(e->max, sizeof(e->max), "RETRY_MAX_ATTEMPTS=inf");
	else
		snprintf(e->max, sizeof(e->max), "RETRY_MAX_ATTEMPTS=%lld",
		    max);
	env_attempt_set(e, 1, -1, 0);
}

/*
 * Attempt k; prev is the previous one's status, -1 for none, and
 * prev_http its HTTP status, 0 for none: the variable is then empty.
 */
void
env_attempt_set(struct env_attempt *e, long long k, int prev, int prev_http)
{
	snprintf(e->attempt, sizeof(e->attempt), "RETRY_ATTEMPT=%lld", k);
	if (prev < 0)
		snprintf(e->prev, sizeof(e->prev), "RETRY_PREV_STATUS=");
	else
		snprintf(e->prev, sizeof(e->prev), "RETRY_PREV_STATUS=%d",
		    prev);
	if (prev_http == 0)
		snprintf(e->prev_http, sizeof(e->prev_http),
		    "RETRY_PREV_HTTP_STATUS=");
	else
		snprintf(e->prev_http, sizeof(e->prev_http),
		    "RETRY_PREV_HTTP_STATUS=%d", prev_http);
}
