/*
 * env.h: what env.c offers its callers: the environment of a command or a
 * hook.
 */
#ifndef ENV_H
#define ENV_H

#include <stddef.h>

#include "defs.h"

char		**env_with(char **base, char *const *add, size_t nadd,
		    size_t nset);

#endif /* ENV_H */
