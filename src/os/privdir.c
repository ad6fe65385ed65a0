/*
 * privdir.c: a fresh directory of mode 0700, for files that a command
 * and retry share: made with mkdtemp(3) in $XDG_RUNTIME_DIR, else
 * $TMPDIR, else /tmp, and removed with what the command left in it.
 *
 * A base directory is taken only when it is absolute, fits, and is the
 * user's or root's, and others who may write to it cannot rename what is
 * in it (the sticky bit): elsewhere another user could swap the
 * directory for one of theirs under the command's feet.  The directory
 * made is then checked through its own descriptor, which retry keeps:
 * every later access is relative to it and never follows a link.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "privdir.h"

#define ENTRIES_MAX	4096	/* removed from one directory, at most */
#define DEPTH_MAX	8	/* levels of directories below it */

/* Whether base is a directory where others cannot swap our entries. */
static bool
safe_base(const char *base)
{
	struct stat st;

	if (base == NULL || *base != '/' || stat(base, &st) == -1 ||
	    !S_ISDIR(st.st_mode))
		return false;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return false;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 ||
	    (st.st_mode & S_ISVTX) != 0;
}

/* mkdtemp() in base, into d; 0 or an errno. */
static int
make_in(struct privdir *d, const char *base, const char *prefix)
{
	struct stat st;
	size_t b = strlen(base), p = strlen(prefix);
	int n;

	/* No snprintf(3): every attempt pays for this. */
	if (b + p + sizeof("/.XXXXXX") > sizeof(d->path))
		return ENAMETOOLONG;
	memcpy(d->path, base, b);
	if (base[b - 1] != '/')
		d->path[b++] = '/';
	memcpy(d->path + b, prefix, p);
	memcpy(d->path + b + p, ".XXXXXX", sizeof(".XXXXXX"));
	if (mkdtemp(d->path) == NULL)
		return errno;
	d->fd = fd_above_stdio(open(d->path, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC));
	if (d->fd != -1 && fstat(d->fd, &st) == 0 &&
	    st.st_uid == geteuid() && (st.st_mode & 07777) == 0700)
		return 0;
	n = d->fd == -1 ? errno : EPERM;
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
	(void)rmdir(d->path);
	return n;
}

/*
 * A fresh directory, PREFIX.XXXXXX in the first base that is safe: 0, or
 * the last errno (ENOENT: no base was safe), d->fd -1.
 */
int
privdir_make(struct privdir *d, const char *prefix)
{
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"),
	    "/tmp" };
	size_t i;
	int error = ENOENT;

	d->fd = -1;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (safe_base(bases[i]) &&
		    (error = make_in(d, bases[i], prefix)) == 0)
			return 0;
	return error;
}

/*
 * Empties the directory fd, depth levels below d, of what the command
 * left: files, links, directories (DEPTH_MAX deep), ENTRIES_MAX entries
 * a level at most, never following a link.  Two passes, as readdir(3)
 * may skip an entry while others go.
 */
static void
empty_dir(int fd, int depth)
{
	struct dirent *de;
	DIR *dir;
	int pass, n, sub, dfd;

	(void)fchmod(fd, 0700);
	for (pass = 0; pass < 2; pass++) {
		if ((dfd = dup(fd)) == -1)
			return;
		if ((dir = fdopendir(dfd)) == NULL) {
			close(dfd);
			return;
		}
		rewinddir(dir);
		for (n = 0; n < ENTRIES_MAX && (de = readdir(dir)) != NULL;
		    n++) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0 ||
			    unlinkat(fd, de->d_name, 0) == 0 ||
			    depth >= DEPTH_MAX)
				continue;
			sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sub != -1) {
				empty_dir(sub, depth + 1);
				close(sub);
			}
			(void)unlinkat(fd, de->d_name, AT_REMOVEDIR);
		}
		closedir(dir);
	}
}

/*
 * Removes d, name in it first (unless NULL: known to be missing), then
 * what else the command left there.  False when something stays.
 */
bool
privdir_remove(struct privdir *d, const char *name)
{
	bool ok;

	if (d->fd == -1)
		return true;
	if (name != NULL)
		(void)unlinkat(d->fd, name, 0);
	if (!(ok = rmdir(d->path) == 0)) {
		empty_dir(d->fd, 0);
		ok = rmdir(d->path) == 0;
	}
	close(d->fd);
	d->fd = -1;
	return ok;
}
