/*
 * privdir.h: what privdir.c offers its callers: directories that only
 * the user can enter, kept ($XDG_RUNTIME_DIR) or fresh ($TMPDIR, /tmp),
 * the removal of what a command left in them, and whether a base is out
 * of other users' reach.
 */
#ifndef PRIVDIR_H
#define PRIVDIR_H

#include <stdbool.h>

#define PRIVDIR_PATH_MAX	200	/* the directory's path, at most */

struct privdir {
	int		 fd;		/* the directory; -1: none */
	char		 path[PRIVDIR_PATH_MAX];
};

int		 privdir_open(struct privdir *d, const char *name);
int		 privdir_make(struct privdir *d, const char *name);
bool		 privdir_destroy(struct privdir *d, const char *name);
bool		 privdir_check(struct privdir *d);
bool		 privdir_remove(const struct privdir *d, const char *name);
bool		 privdir_safe_base(const char *base);

#endif /* PRIVDIR_H */
