/*
 * statefile.c: the local store of --budget and --breaker.  Each NAME is
 * one small text file, budget.c's record, in a directory of the user's
 * own: $XDG_RUNTIME_DIR/retry, or /tmp/retry-UID where that variable is
 * not set.  Every retry of the user that names the same budget or breaker
 * shares the file, with no daemon.
 *
 * An update is a read-modify-write under an exclusive lock on the open
 * file description (F_OFD_SETLKW; flock(2) where the kernel has no such
 * locks), taken for that update only, never across an attempt or a
 * sleep: no retry ever waits for another one's command.  The state must
 * be out of other users' reach, since a record planted by one of them
 * could stop the user's retries or the breaker's runs: the directory is
 * created 0700, the file is opened without following a symbolic link and
 * created 0600, and both must belong to the user and give others no
 * access, or retry refuses to start.  Errors here exit 125 before the
 * first attempt; a failed update later is the caller's to report.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static _Noreturn void
refuse(const char *what, const char *path, const char *why)
{
	errx(EXIT_CANCELED, "%s %s %s: refusing it", what, path, why);
}

/* O_NOFOLLOW met a symbolic link: ELOOP, or EMLINK on FreeBSD. */
static bool
is_link_error(int e)
{
	return e == ELOOP || e == EMLINK;
}

/* fd is what path names: of the type, the user's, and no one else's. */
static void
check_owned(int fd, const char *what, const char *path, mode_t type)
{
	struct stat st;
	char why[96];

	if (fstat(fd, &st) == -1)
		err(EXIT_CANCELED, "%s %s", what, path);
	if ((st.st_mode & S_IFMT) != type)
		refuse(what, path, type == S_IFDIR ? "is not a directory" :
		    "is not a regular file");
	if (st.st_uid != geteuid()) {
		snprintf(why, sizeof(why), "belongs to uid %lu, not to uid %lu",
		    (unsigned long)st.st_uid, (unsigned long)geteuid());
		refuse(what, path, why);
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		snprintf(why, sizeof(why), "is open to other users (mode %04o)",
		    (unsigned)(st.st_mode & 07777));
		refuse(what, path, why);
	}
}

/* The state directory, created if need be, checked, and opened. */
static int
open_dir(char *path, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n, dfd;

	/* The XDG base directory spec: a relative path is to be ignored. */
	if (xdg != NULL && *xdg == '/')
		n = snprintf(path, len, "%s/retry", xdg);
	else
		n = snprintf(path, len, "/tmp/retry-%lu",
		    (unsigned long)geteuid());
	if (n < 0 || (size_t)n >= len)
		errx(EXIT_CANCELED, "state directory %s/retry: path too long",
		    xdg);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		err(EXIT_CANCELED, "state directory %s", path);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* With O_DIRECTORY, a symbolic link may fail as ENOTDIR. */
	if (dfd == -1 && (is_link_error(errno) || errno == ENOTDIR) &&
	    lstat(path, &st) == 0)
		refuse("state directory", path, S_ISLNK(st.st_mode) ?
		    "is a symbolic link" : "is not a directory");
	if (dfd == -1)
		err(EXIT_CANCELED, "state directory %s", path);
	check_owned(dfd, "state directory", path, S_IFDIR);
	return dfd;
}

/*
 * Opens g's state file, creating it empty, or exits: g->where gets its
 * path.  O_NONBLOCK keeps a FIFO planted there from blocking the open.
 */
void
statefile_open(struct guard *g)
{
	char dir[PATH_MAX_GUARD];
	int dfd, n, fd;

	dfd = open_dir(dir, sizeof(dir));
	n = snprintf(g->where, sizeof(g->where), "%s/%s", dir, g->spec->name);
	if (n < 0 || (size_t)n >= sizeof(g->where))
		errx(EXIT_CANCELED, "state file %s/%s: path too long", dir,
		    g->spec->name);
	fd = openat(dfd, g->spec->name, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd == -1 && is_link_error(errno))
		refuse("state file", g->where, "is a symbolic link");
	if ((g->fd = fd_above_stdio(fd)) == -1)
		err(EXIT_CANCELED, "state file %s", g->where);
	close(dfd);
	check_owned(g->fd, "state file", g->where, S_IFREG);
}

static int
take_lock(struct guard *g)
{
	int rc;
#ifdef F_OFD_SETLKW
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	while ((rc = fcntl(g->fd, F_OFD_SETLKW, &fl)) == -1 && errno == EINTR)
		continue;
	g->flocked = false;
	/* EINVAL: a kernel before Linux 3.15 has no OFD locks. */
	if (rc == 0 || errno != EINVAL)
		return rc;
#endif
	g->flocked = true;
	while ((rc = flock(g->fd, LOCK_EX)) == -1 && errno == EINTR)
		continue;
	return rc;
}

static void
release_lock(struct guard *g)
{
	int e = errno;
#ifdef F_OFD_SETLK
	struct flock fl;

	if (!g->flocked) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_UNLCK;
		fl.l_whence = SEEK_SET;
		fcntl(g->fd, F_OFD_SETLK, &fl);
		errno = e;
		return;
	}
#endif
	flock(g->fd, LOCK_UN);
	errno = e;
}

/*
 * Locks g's file and reads up to len bytes of it: how many, or -1 with
 * errno and the lock released.  statefile_commit() must follow.
 */
ssize_t
statefile_begin(struct guard *g, char *buf, size_t len)
{
	ssize_t n;

	if (take_lock(g) == -1)
		return -1;
	while ((n = pread(g->fd, buf, len, 0)) == -1 && errno == EINTR)
		continue;
	if (n == -1)
		release_lock(g);
	return n;
}

/*
 * Replaces the record and releases the lock: 0, or -1 with errno.  The
 * file is truncated after the write, not before: a crash in between
 * leaves a record that reads as corrupt, which the next retry reports,
 * rather than an empty file that would pass for a fresh start.
 */
int
statefile_commit(struct guard *g, const char *buf, size_t len)
{
	ssize_t n;
	int rc = -1;

	while ((n = pwrite(g->fd, buf, len, 0)) == -1 && errno == EINTR)
		continue;
	if (n >= 0 && (size_t)n != len)
		errno = EIO;
	else if (n >= 0 && ftruncate(g->fd, (off_t)len) == 0)
		rc = 0;
	release_lock(g);
	return rc;
}
