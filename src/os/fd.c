/*
 * fd.c: the descriptors retry opens for itself: pipes, unlinked temporary
 * files, a terminal opened anew.  Each one is close-on-exec and above 2:
 * were retry started with stdin, stdout or stderr closed, a file or pipe
 * of its own would take that number, and what retry writes there
 * (messages, held output) or hands to the command as its stdio would land
 * in the wrong place.  Whole writes to them are here too, and the copies
 * between a stream and a file, without a pass through user space where
 * the kernel allows; and who serves a Unix socket retry connected to.
 */
#ifdef __linux__
#include <sys/sendfile.h>
#endif
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "defs.h"
#include "fd.h"


#define ERR_LINE_MAX	8192	/* a longer message takes more writes */

/*
 * err(3) and warn(3) write "retry: ", the text and the newline as three
 * write(2)s to an unbuffered stderr, and runs that share one stderr (a
 * cron log, a CI step, a herd) tear each other's lines.  stderr becomes
 * line-buffered: each message goes out in one write(2), whatever C
 * library formats it, up to the buffer's size.  glibc allocates that
 * buffer itself, as large as the file's block (4 KiB for a pipe or a
 * file, as much as a pipe takes at once), and owns it; elsewhere (musl
 * keeps stderr unbuffered without one) it is ERR_LINE_MAX bytes of
 * retry's, which stdio keeps until exit, never freed (NULL where there
 * is no memory: stderr stays as it was).
 */
char *
fd_stderr_lines(void)
{
	char *buf = NULL;

#ifdef __GLIBC__
	(void)setvbuf(stderr, NULL, _IOLBF, 0);
#else
	if ((buf = malloc(ERR_LINE_MAX)) != NULL &&
	    setvbuf(stderr, buf, _IOLBF, ERR_LINE_MAX) != 0) {
		free(buf);
		buf = NULL;
	}
#endif
	return buf;
}

/* fd itself, or a copy of it above 2; -1 stays -1. */
int
fd_above_stdio(int fd)
{
	int nfd;

	if (fd == -1 || fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return nfd;
}

/*
 * The terminal on fd opened anew, non-blocking, for retry's own writes:
 * a terminal nobody reads (Ctrl-S, a stalled ssh) would block a write to
 * fd, and with it the loop, -t, -m and the stop signals, while fd itself
 * is shared with the caller and cannot be made non-blocking in place.
 * -1 when fd is no terminal or cannot be opened again.
 */
int
fd_tty_nonblock(int fd)
{
	char name[PATH_MAX] = "";

	if (!isatty(fd) || ttyname_r(fd, name, sizeof(name)) != 0)
		return -1;
	return fd_above_stdio(open(name, O_WRONLY | O_NOCTTY | O_NONBLOCK |
	    O_CLOEXEC));
}

/* Whether fd is a regular file. */
bool
fd_is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Whether the regular file fd ends in the middle of a line: unknown (not
 * readable, not a regular file) is taken as no.
 */
bool
fd_ends_mid_line(int fd)
{
	struct stat st;
	char last;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

/*
 * path, a file the user named for retry's output (a log, held output),
 * opened to append, created 0666 if missing.  A FIFO is opened without
 * waiting: with no reader, open(2) would wait for one, deaf to -m, and
 * fails at once with ENXIO instead, which the caller words as
 * FD_NO_READER.  The descriptor is then blocking as any other open gives
 * it.  Where stat(2) sees no FIFO (a /dev/fd/N that is a dup(2) on some
 * systems), the open is the plain one, so that no flag of a description
 * shared with the caller is touched.
 */
int
fd_open_append(const char *path)
{
	struct stat st;
	int fd, fl, nb = 0;

	if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
		nb = O_NONBLOCK;
	fd = fd_above_stdio(open(path, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC | nb, 0666));
	if (fd != -1 && nb != 0 && (fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/*
 * The same for the pipe or FIFO that fd writes into: a non-blocking open
 * of it, which Linux gives through /proc; -1 elsewhere, where fd is not
 * such a writer, or where no reader is left (writes fail at once then).
 */
int
fd_pipe_nonblock(int fd)
{
#if defined(__linux__) && !defined(RETRY_PORTABLE)
	char path[32] = "/proc/self/fd/", digits[12];
	struct stat st;
	size_t at = strlen(path);
	unsigned u = (unsigned)fd;
	int fl, n = 0;

	if (fd < 0 || fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode) ||
	    (fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY)
		return -1;
	/* Not snprintf(): this runs at every start with stderr a pipe. */
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	while (n > 0)
		path[at++] = digits[--n];
	return fd_above_stdio(open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC));
#else
	(void)fd;
	return -1;
#endif
}

/*
 * Makes fd non-blocking where it is a FIFO or a terminal that retry
 * opened itself (a log), on Linux: there even an open of /dev/stdout or
 * /dev/fd/N opens the file anew, so the open file description is retry's
 * alone and no other process sees the flag.  Elsewhere such an open can
 * be a dup(2) of a descriptor the command inherits, which must stay
 * blocking: fd is left as it is.  Whether it was made non-blocking.
 */
bool
fd_own_nonblock(int fd)
{
#if defined(__linux__) && !defined(RETRY_PORTABLE)
	struct stat st;
	int fl;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || isatty(fd)) &&
	    (fl = fcntl(fd, F_GETFL)) != -1 &&
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) != -1;
#else
	(void)fd;
	return false;
#endif
}

#ifdef RETRY_PORTABLE
/*
 * pipe() and then FD_CLOEXEC, as pipe2() is not everywhere.  It gives up
 * nothing here: retry has one thread, so no fork() comes in between.
 */
static int
pipe_cloexec(int p[2])
{
	if (pipe(p) == -1)
		return -1;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	return 0;
}
#else
#define pipe_cloexec(p)	pipe2((p), O_CLOEXEC)
#endif

/* pipe2(p, O_CLOEXEC), with both ends above 2. */
int
fd_pipe(int p[2])
{
	if (pipe_cloexec(p) == -1)
		return -1;
	p[0] = fd_above_stdio(p[0]);
	p[1] = fd_above_stdio(p[1]);
	if (p[0] != -1 && p[1] != -1)
		return 0;
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	return -1;
}

#define COPY_BUF	16384

/*
 * Writes all of s, retrying after a signal; gives up silently on an
 * error, or when a non-blocking descriptor (a terminal nobody reads)
 * takes nothing for stall_ms, since the callers write messages and have
 * nowhere left to complain to.  Returns whether all of s was written.
 */
bool
fd_write_within(int fd, const char *s, size_t len, int stall_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, s, len)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && poll(&pfd, 1, stall_ms) == 1)
				continue;
			return false;
		}
		s += n;
		len -= (size_t)n;
	}
	return true;
}

/* fd_write_within() with the usual WRITE_STALL_MS. */
void
fd_write_all(int fd, const char *s, size_t len)
{
	(void)fd_write_within(fd, s, len, WRITE_STALL_MS);
}

/* An unlinked temporary file, mode 0600, in $TMPDIR or /tmp. */
int
fd_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
#ifdef O_TMPFILE
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) != -1)
		return fd_above_stdio(fd);
#endif
	if (snprintf(path, sizeof(path), "%s/retry.XXXXXXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
#ifdef RETRY_PORTABLE
	/* mkostemp() is not in POSIX 2008; one thread, so nothing is lost. */
	if ((fd = mkstemp(path)) == -1)
		return -1;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
#else
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		return -1;
#endif
	unlink(path);
	return fd_above_stdio(fd);
}

/*
 * Fewer, larger transfers: a pipe of 1 MiB where the kernel allows, never
 * a smaller one than it was (the pipe may be the caller's, made larger on
 * purpose).  Past the owner's pipe-user-pages-soft the kernel refuses,
 * and the pipe stays as it was.  A pipe that someone else reads grows
 * only once the passed bytes that retry wrote into it show that its
 * reader reads, more than twice what the pipe holds: a reader that takes
 * a little and goes away must still leave its writer a full pipe, and so
 * a write that fails (EPIPE), as it would without retry.  True once there
 * is no more to do: grown, large already, or not a pipe.
 */
bool
fd_grow_read_pipe(int fd, uint64_t passed)
{
#ifdef F_SETPIPE_SZ
	int size = fcntl(fd, F_GETPIPE_SZ);

	if (size == -1 || size >= (1 << 20))
		return true;
	if (passed <= 2 * (uint64_t)size)
		return false;
	fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
	(void)passed;
#endif
	return true;
}

/* The same for a pipe retry made, or reads: at once. */
void
fd_grow_pipe(int fd)
{
	fd_grow_read_pipe(fd, UINT64_MAX);
}

/* Whether errno says that a temporary file, not the stream, failed. */
bool
fd_file_full(void)
{
	return errno == ENOSPC || errno == EFBIG || errno == EDQUOT ||
	    errno == EIO;
}

/*
 * Up to len bytes of the file in, from *off on, to out, without a copy
 * through user space where the kernel allows.  Returns what write(2)
 * would.
 */
ssize_t
fd_send_file(int in, off_t *off, int out, size_t len)
{
	char buf[COPY_BUF];
	ssize_t n, w;

#ifdef __linux__
	n = sendfile(out, in, off, len);
	if (n != -1 || (errno != EINVAL && errno != ENOSYS))
		return n;
#endif
	if (len > sizeof(buf))
		len = sizeof(buf);
	if ((n = pread(in, buf, len, *off)) <= 0)
		return n;
	if ((w = write(out, buf, (size_t)n)) > 0)
		*off += w;
	return w;
}

/*
 * Up to len bytes from the stream in, appended to the file out at off.
 * Returns the count, 0 at end of input, or -1.
 */
ssize_t
fd_take_stream(int in, int out, off_t off, size_t len)
{
	char buf[COPY_BUF];
	ssize_t n;

#ifdef __linux__
	loff_t o = off;

	n = splice(in, NULL, out, &o, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n != -1 || (errno != EINVAL && errno != ENOSYS))
		return n;
#endif
	if (len > sizeof(buf))
		len = sizeof(buf);
	if ((n = read(in, buf, len)) <= 0)
		return n;
	for (ssize_t done = 0, w; done < n; done += w)
		if ((w = pwrite(out, buf + done, (size_t)(n - done),
		    off + done)) == -1)
			return -1;
	return n;
}

/*
 * The effective uid of the process that serves the Unix socket fd (as it
 * was when the server called listen(2)): 0, or -1 with errno (ENOSYS
 * where the system has no way to tell).
 */
int
fd_peer_uid(int fd, uid_t *uid)
{
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__) || defined(__DragonFly__)
	gid_t gid;

	return getpeereid(fd, uid, &gid);
#elif defined(SO_PEERCRED)
	/*
	 * Linux's, the portable build's there too: the kernel's struct
	 * ucred, which glibc names only under _GNU_SOURCE.
	 */
	struct {
		pid_t	pid;
		uid_t	uid;
		gid_t	gid;
	} cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		return -1;
	if (len != sizeof(cred)) {
		errno = EPROTO;
		return -1;
	}
	*uid = cred.uid;
	return 0;
#else
	(void)fd;
	(void)uid;
	errno = ENOSYS;
	return -1;
#endif
}
