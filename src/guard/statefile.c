/*
 * statefile.c: the local store of --budget and --breaker.  Each NAME is
 * one small text file, budget.c's record, in a directory of the user's
 * own: $XDG_RUNTIME_DIR/retry, or /tmp/retry-UID where that variable is
 * not set.  Every retry of the user that names the same budget or breaker
 * shares the file, with no daemon.
 *
 * An update is a read-modify-write under an exclusive lock on the open
 * file description (F_OFD_SETLK; flock(2) where the kernel has no such
 * locks), taken for that update only, never across an attempt or a
 * sleep: no retry ever waits for another one's command.  The lock is
 * taken without blocking, retried for at most LOCK_WAIT_MS, and a stop
 * signal ends that wait: a process that holds the lock for ever stalls
 * no one.  The state must be out of other users' reach, since a record
 * planted by one of them could stop the user's retries or the breaker's
 * runs: the directory is created 0700, the file is opened without
 * following a symbolic link and created 0600, and both must belong to
 * the user and give others no access.  A state that cannot be trusted
 * or used is not an error: the caller is told why and goes on without
 * the guard, so that no other user, and no unusable directory, can keep
 * the command from running.
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

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "statefile.h"

#define LOCK_POLL_MS	5

/* Fills why with "WHAT PATH REASON" and returns false. */
static bool
refuse(char *why, size_t len, const char *what, const char *path,
    const char *reason)
{
	snprintf(why, len, "%s %s %s", what, path, reason);
	return false;
}

/* Fills why with "WHAT PATH: the errno's text" and returns false. */
static bool
failed(char *why, size_t len, const char *what, const char *path)
{
	snprintf(why, len, "%s %s: %s", what, path, strerror(errno));
	return false;
}

/* O_NOFOLLOW met a symbolic link: ELOOP, or EMLINK on FreeBSD. */
static bool
is_link_error(int e)
{
	return e == ELOOP || e == EMLINK;
}

/* fd is what path names: of the type, the user's, and no one else's. */
static bool
check_owned(int fd, const char *what, const char *path, mode_t type,
    char *why, size_t len)
{
	struct stat st;
	char reason[96];

	if (fstat(fd, &st) == -1)
		return failed(why, len, what, path);
	if ((st.st_mode & S_IFMT) != type)
		return refuse(why, len, what, path, type == S_IFDIR ?
		    "is not a directory" : "is not a regular file");
	if (st.st_uid != geteuid()) {
		snprintf(reason, sizeof(reason),
		    "belongs to uid %lu, not to uid %lu",
		    (unsigned long)st.st_uid, (unsigned long)geteuid());
		return refuse(why, len, what, path, reason);
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		snprintf(reason, sizeof(reason),
		    "is open to other users (mode %04o)",
		    (unsigned)(st.st_mode & 07777));
		return refuse(why, len, what, path, reason);
	}
	return true;
}

/* The state directory's path: false if too long. */
static bool
dir_path(char *path, size_t len, char *why, size_t wlen)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	size_t end;
	int n;

	/* The XDG base directory spec: a relative path is to be ignored. */
	if (xdg != NULL && *xdg == '/') {
		/* Shown in warnings: "/run/user/1000/" gives no "//". */
		for (end = strlen(xdg); end > 1 && xdg[end - 1] == '/'; end--)
			;
		n = snprintf(path, len, "%.*s/retry", end > 1 ? (int)end :
		    0, xdg);
	} else
		n = snprintf(path, len, "/tmp/retry-%lu",
		    (unsigned long)geteuid());
	if (n < 0 || (size_t)n >= len)
		return refuse(why, wlen, "state directory", xdg,
		    "/retry: path too long");
	return true;
}

/* The state directory, created if need be, checked, and opened; or -1. */
static int
open_dir(char *path, size_t len, char *why, size_t wlen)
{
	struct stat st;
	int dfd;

	if (!dir_path(path, len, why, wlen))
		return -1;
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		failed(why, wlen, "state directory", path);
		return -1;
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* With O_DIRECTORY, a symbolic link may fail as ENOTDIR. */
	if (dfd == -1 && (is_link_error(errno) || errno == ENOTDIR) &&
	    lstat(path, &st) == 0)
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
	if (dfd == -1) {
		if (is_link_error(errno) || errno == ENOTDIR)
			refuse(why, wlen, "state directory", path,
			    errno == ENOTDIR ? "is not a directory" :
			    "is a symbolic link");
		else
			failed(why, wlen, "state directory", path);
		return -1;
	}
	if (!check_owned(dfd, "state directory", path, S_IFDIR, why, wlen)) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * Opens g's state file, creating it empty: false with why if the state
 * cannot be used or trusted.  g->where gets its path.  O_NONBLOCK keeps
 * a FIFO planted there from blocking the open.
 */
bool
statefile_open(struct guard *g, char *why, size_t len)
{
	char dir[PATH_MAX_GUARD];
	int dfd, n, fd;

	if ((dfd = open_dir(dir, sizeof(dir), why, len)) == -1)
		return false;
	n = snprintf(g->where, sizeof(g->where), "%s/%s", dir, g->spec->name);
	if (n < 0 || (size_t)n >= sizeof(g->where)) {
		close(dfd);
		return refuse(why, len, "state file", dir, "/NAME: path too long");
	}
	fd = openat(dfd, g->spec->name, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0600);
	close(dfd);
	if (fd == -1 && is_link_error(errno))
		return refuse(why, len, "state file", g->where,
		    "is a symbolic link");
	if ((g->fd = fd_above_stdio(fd)) == -1)
		return failed(why, len, "state file", g->where);
	if (!check_owned(g->fd, "state file", g->where, S_IFREG, why, len)) {
		close(g->fd);
		g->fd = -1;
		return false;
	}
	return true;
}

/* One try at the lock, without waiting: 0, or -1 with errno (EAGAIN). */
static int
try_lock(struct guard *g)
{
#ifdef F_OFD_SETLK
	struct flock fl;

	if (!g->flocked) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(g->fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno == EACCES)
			errno = EAGAIN;
		/* EINVAL: a kernel before Linux 3.15 has no OFD locks. */
		if (errno != EINVAL)
			return -1;
		g->flocked = true;
	}
#endif
	if (flock(g->fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		errno = EAGAIN;
	return -1;
}

/*
 * The lock, tried every LOCK_POLL_MS until LOCK_WAIT_MS have passed
 * (ETIMEDOUT, after one last try) or a stop signal comes (EINTR).  A stop
 * that came before is no reason to give up: the run's end must still be
 * recorded.  A lock has no descriptor to wait on: the waits are for time.
 */
static int
take_lock(struct guard *g)
{
	nsec_t end, tick = 0;
	long mark = signals_stops();

	end = nsec_add(mono_now(), (nsec_t)LOCK_WAIT_MS * NSEC_PER_MSEC);
	while (try_lock(g) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		if (tick == end) {
			errno = ETIMEDOUT;
			return -1;
		}
		tick = nsec_add(mono_now(), (nsec_t)LOCK_POLL_MS *
		    NSEC_PER_MSEC);
		if (tick > end)
			tick = end;
		if (signals_wait_fd(g->ss, -1, 0, tick, mark) == -1 &&
		    errno != ETIMEDOUT)
			return -1;
	}
	return 0;
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
 * errno and the lock released: ETIMEDOUT if another process held the
 * lock for LOCK_WAIT_MS, EINTR if a stop signal came meanwhile.  statefile_commit() must follow.
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
