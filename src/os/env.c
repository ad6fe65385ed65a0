/*
 * env.c: the environment a command or a hook is given: a base
 * environment less the variables that retry sets itself, plus those, so
 * that a stale RETRY_ATTEMPT from the caller cannot stand beside retry's.
 */
#include <err.h>
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
