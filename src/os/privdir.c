/*
 * privdir.c: a directory of the user's, mode 0700, for files that a
 * command and retry share: NAME in $XDG_RUNTIME_DIR, else NAME-UID in
 * $TMPDIR, else in /tmp.  It is made once and kept, as the guards' state
 * directory is: a directory made and removed for each run cost half a
 * millisecond on an ext4 /tmp, a sixth of a whole run of /bin/true.
 *
 * A base directory is taken only when it is absolute, fits, and is the
 * user's or root's, and others who may write to it cannot rename what is
 * in it (the sticky bit): elsewhere another user could swap the
 * directory for one of theirs under the command's feet.  The directory
 * is then checked through its own descriptor, which retry keeps: it must
 * be the user's and closed to others, or it is refused (another user may
 * have made NAME-UID in /tmp first).  Every later access is relative to
 * that descriptor and never follows a link.
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

/* Appends the decimal digits of v at p; the end. */
static char *
put_number(char *p, unsigned long v)
{
	char digits[24];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/*
 * base/name (uid: -UID after it), made if missing, checked; 0 or an
 * errno.  No snprintf(3): every run pays for this.
 */
static int
open_in(struct privdir *d, const char *base, const char *name, bool uid)
{
	struct stat st;
	size_t b = strlen(base), n = strlen(name);
	char *p;

	while (b > 1 && base[b - 1] == '/')
		b--;
	if (b + n + 26 > sizeof(d->path))
		return ENAMETOOLONG;
	memcpy(d->path, base, b);
	p = d->path + b + (b > 1);
	p[-1] = '/';
	memcpy(p, name, n);
	p += n;
	if (uid) {
		*p++ = '-';
		p = put_number(p, (unsigned long)geteuid());
	}
	*p = '\0';
	if (mkdir(d->path, 0700) == -1 && errno != EEXIST)
		return errno;
	d->fd = fd_above_stdio(open(d->path, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC));
	if (d->fd == -1)
		return errno;
	if (fstat(d->fd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & 077) == 0)
		return 0;
	close(d->fd);
	d->fd = -1;
	return EPERM;
}

/*
 * The directory in the first base that is safe: 0, or the last errno
 * (ENOENT: no base was safe), d->fd -1.
 */
int
privdir_open(struct privdir *d, const char *name)
{
	const char *bases[] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"),
	    "/tmp" };
	size_t i;
	int error = ENOENT;

	d->fd = -1;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (safe_base(bases[i]) &&
		    (error = open_in(d, bases[i], name, i > 0)) == 0)
			return 0;
	return error;
}

/*
 * Whether d is still there, after a command that could change it: when
 * it was removed, d is closed (false); when it was opened to others,
 * it is closed to them again.
 */
bool
privdir_check(struct privdir *d)
{
	struct stat st;

	if (fstat(d->fd, &st) == 0 && st.st_nlink > 0) {
		if ((st.st_mode & 077) != 0)
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
