/*
 * envopts.h: what envopts.c offers its callers: the words of
 * RETRY_OPTIONS, split without expansion.
 */
#ifndef ENVOPTS_H
#define ENVOPTS_H

#include <stddef.h>

#include "os/defs.h"

int		 envopts_split(const char *s, char *argv0, int *argcp,
		    char ***argvp, char *err, size_t len);
char		*envopts_show(int argc, char **words);
int		 envopts_read(char *argv0, int *envc, char ***envv,
		    char *err, size_t len);

#endif /* ENVOPTS_H */
