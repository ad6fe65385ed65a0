/*
 * privdir.c: directories of the user's alone, mode 0700, for files that
 * a command and retry share.  In $XDG_RUNTIME_DIR, a tmpfs of the
 * user's session made for such files, NAME is made once and kept, as
 * the guards' state directory is; elsewhere NAME-UID in $TMPDIR or /tmp,
 * as tmux keeps its sockets, one small directory per user.  Only where
 * that cannot be had (another user made it first) is a fresh
 * NAME.XXXXXX made (mkdtemp(3)) and removed with what it holds each
 * time: on an ext4 /tmp that costs about half a millisecond, on a tmpfs
 * 20 us.
 *
 * A base directory is taken only when it is absolute, fits, and it and
 * every directory on the way to it (and any link there) is the user's or
 * root's,
 * and others who may write to it cannot rename what is in it (the
 * sticky bit): elsewhere another user could swap the directory for one
 * of theirs under the command's feet.  The directory
 * is then checked through its own descriptor, which retry keeps: it must
 * be the user's and closed to others.  Every later access is relative to
 * that descriptor and never follows a link.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "privdir.h"

#define ENTRIES_MAX	4096	/* removed from one directory, at most */
#define DEPTH_MAX	8	/* levels of directories below it */

/*
 * Whether path, one directory of base's, is one where others cannot swap
 * our entries: the user's or root's (and so is a link, as macOS's /tmp
 * is, to one), and open to others' writes only with the sticky bit.
 * *linked is set where path is a link.
 */
static bool
safe_dir(const char *path, bool *linked)
{
	struct stat st;

	if (lstat(path, &st) == -1)
		return false;
	if (S_ISLNK(st.st_mode)) {
		*linked = true;
		if ((st.st_uid != geteuid() && st.st_uid != 0) ||
		    stat(path, &st) == -1)
			return false;
	}
	if (!S_ISDIR(st.st_mode))
		return false;
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return false;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 ||
	    (st.st_mode & S_ISVTX) != 0;
}

/* Every directory on the way to base, and base, safe_dir(). */
static bool
safe_path(const char *base, bool *linked)
{
	char buf[PATH_MAX];
	size_t n, i;

	if (base == NULL || *base != '/' ||
	    (n = strlen(base)) >= sizeof(buf))
		return false;
	memcpy(buf, base, n + 1);
	for (i = 1; i <= n; i++)
		if (buf[i] == '/' || buf[i] == '\0') {
			buf[i] = '\0';
			if (i > 1 && buf[i - 1] != '/' &&
			    !safe_dir(buf, linked))
				return false;
			buf[i] = base[i];
		}
	return safe_dir("/", linked);
}

/*
 * Whether base, and every directory on the way to it, is safe: the
 * command gets a path, not retry's descriptor, so a link or a directory
 * that another user may rename anywhere along it would let them point
 * the command's writes into a directory of theirs.  A link's target may
 * lie below such a directory too: where the path has a link, the path
 * it resolves to is checked as well.  statefile.c asks the same of the
 * state's base: root under sudo -E must not keep its state where the
 * user may rename it.
 */
bool
privdir_safe_base(const char *base)
{
	char real[PATH_MAX];
	bool linked = false;

	if (!safe_path(base, &linked))
		return false;
	return !linked || (realpath(base, real) != NULL &&
	    safe_path(real, &linked));
}

/*
 * d->path as base/name, with room left for ".XXXXXX": where name starts,
 * or 0 when it does not fit.  No snprintf(3): every run pays for this.
 */
static size_t
join(struct privdir *d, const char *base, const char *name)
{
	size_t b = strlen(base), n = strlen(name);

	while (b > 1 && base[b - 1] == '/')
		b--;
	if (b + n + sizeof("/.XXXXXX") > sizeof(d->path))
		return 0;
	memcpy(d->path, base, b);
	d->path[b] = '/';
	b += b > 1;
	memcpy(d->path + b, name, n + 1);
	return b;
}

/* base/name, made if missing, checked; 0 or an errno. */
static int
open_in(struct privdir *d, const char *base, const char *name)
{
	struct stat st;

	if (join(d, base, name) == 0)
		return ENAMETOOLONG;
	if (mkdir(d->path, 0700) == -1 && errno != EEXIST)
		return errno;
	d->fd = fd_above_stdio(open(d->path, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC));
	/* There, and closed to the user: another's (0700), refused. */
	if (d->fd == -1)
		return errno == EACCES ? EPERM : errno;
	if (fstat(d->fd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & 077) == 0)
		return 0;
	close(d->fd);
	d->fd = -1;
	return EPERM;
}

/* base/name.XXXXXX made, opened, checked; 0 or an errno. */
static int
make_in(struct privdir *d, const char *base, const char *name)
{
	struct stat st;
	size_t at;
	int error;

	if ((at = join(d, base, name)) == 0)
		return ENAMETOOLONG;
	memcpy(d->path + at + strlen(name), ".XXXXXX", sizeof(".XXXXXX"));
	if (mkdtemp(d->path) == NULL)
		return errno;
	d->fd = fd_above_stdio(open(d->path, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC));
	if (d->fd != -1 && fstat(d->fd, &st) == 0 &&
	    st.st_uid == geteuid() && (st.st_mode & 07777) == 0700)
		return 0;
	error = d->fd == -1 ? errno : EPERM;
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
	(void)rmdir(d->path);
	return error;
}

/*
 * The kept directory: NAME in $XDG_RUNTIME_DIR, else NAME-UID in $TMPDIR
 * or else /tmp (as tmux keeps its sockets), the first safe base where it
 * can be opened: 0 or the last errno (ENOENT: no base was), d->fd -1.
 * One that another user made first is refused, and privdir_make() is
 * left: $TMPDIR is the user's word.  But a $TMPDIR where nothing can be
 * made (not writable, read-only, full) passes to /tmp, as privdir_make()
 * would, rather than have a directory made there for every attempt.
 */
int
privdir_open(struct privdir *d, const char *name)
{
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"),
	    "/tmp" };
	char own[64], digits[24];
	size_t i, n = strlen(name), nd = 0;
	unsigned long uid = (unsigned long)geteuid();
	int error = ENOENT;

	d->fd = -1;
	if (bases[0] != NULL && privdir_safe_base(bases[0]) &&
	    (error = open_in(d, bases[0], name)) == 0)
		return 0;
	if (n + sizeof(digits) + 1 > sizeof(own))
		return ENAMETOOLONG;
	/* No snprintf(3): every run pays for this. */
	do
		digits[nd++] = (char)('0' + uid % 10);
	while ((uid /= 10) != 0);
	memcpy(own, name, n);
	own[n++] = '-';
	while (nd > 0)
		own[n++] = digits[--nd];
	own[n] = '\0';
	for (i = 1; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (bases[i] == NULL || !privdir_safe_base(bases[i]))
			continue;
		error = open_in(d, bases[i], own);
		if (error != EACCES && error != EROFS && error != ENOSPC &&
		    error != EDQUOT)
			return error;
	}
	return error;
}

/*
 * A fresh NAME.XXXXXX in $TMPDIR or else /tmp, the first that is safe:
 * 0 or the last errno (ENOENT: no base was), d->fd -1.  Removed with
 * privdir_destroy().
 */
int
privdir_make(struct privdir *d, const char *name)
{
	const char *bases[] = { getenv("TMPDIR"), "/tmp" };
	size_t i;
	int error = ENOENT;

	d->fd = -1;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (bases[i] != NULL && privdir_safe_base(bases[i]) &&
		    (error = make_in(d, bases[i], name)) == 0)
			return 0;
	return error;
}

/*
 * Whether d is still there, after a command that could change it: when
 * it was removed, d is closed (false); when its mode was changed (open
 * to others, or closed to the user), it is 0700 again.
 */
bool
privdir_check(struct privdir *d)
{
	struct stat st;

	if (fstat(d->fd, &st) == 0 && st.st_nlink > 0) {
		if ((st.st_mode & 07777) != 0700)
			(void)fchmod(d->fd, 0700);
		return true;
	}
	close(d->fd);
	d->fd = -1;
	return false;
}

/*
 * Empties the directory fd, depth levels below d, of what the command
 * left: files, links, directories (DEPTH_MAX deep), ENTRIES_MAX entries
 * a level at most, never following a link.  Two passes, as readdir(3)
 * may skip an entry while others go.  Recursive, DEPTH_MAX deep at most.
 */
/* NOLINTBEGIN(misc-no-recursion) */
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
/* NOLINTEND(misc-no-recursion) */

/*
 * Removes name in d, whatever the command made it: a file, a link, or a
 * directory with what is in it.  False when something stays.
 */
bool
privdir_remove(const struct privdir *d, const char *name)
{
	int sub;

	if (unlinkat(d->fd, name, 0) == 0 || errno == ENOENT)
		return true;
	sub = openat(d->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (sub != -1) {
		empty_dir(sub, 1);
		close(sub);
	}
	return unlinkat(d->fd, name, AT_REMOVEDIR) == 0;
}

/*
 * Removes the directory privdir_make() made, name in it first (NULL:
 * known to be missing), then what else was left there.  False when
 * something stays.
 */
bool
privdir_destroy(struct privdir *d, const char *name)
{
	bool ok;

	if (d->fd == -1)
		return true;
	if (name != NULL)
		(void)unlinkat(d->fd, name, 0);
	ok = rmdir(d->path) == 0;
	if (!ok) {
		empty_dir(d->fd, 0);
		ok = rmdir(d->path) == 0;
	}
	close(d->fd);
	d->fd = -1;
	return ok;
}
