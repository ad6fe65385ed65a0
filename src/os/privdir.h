/*
 * privdir.h: what privdir.c offers its callers: a fresh directory that
 * only the user can enter, and its removal.
 */
#ifndef PRIVDIR_H
#define PRIVDIR_H

#include <stdbool.h>

#define PRIVDIR_PATH_MAX	200	/* the directory's path, at most */

struct privdir {
	int		 fd;		/* the directory; -1: none */
	char		 path[PRIVDIR_PATH_MAX];
};

int		 privdir_make(struct privdir *d, const char *prefix);
bool		 privdir_remove(struct privdir *d, const char *name);

#endif /* PRIVDIR_H */
