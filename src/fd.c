/*
 * fd.c: the descriptors retry opens for itself.  Each one is close-on-exec
 * and above 2: were retry started with stdin, stdout or stderr closed, a
 * file or pipe of its own would take that number, and what retry writes
 * there (messages, held output) or hands to the command as its stdio
 * would land in the wrong place.  Whole writes to them are here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include "internal.h"

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

/* A non-blocking descriptor that takes nothing this long is given up on. */
#define WRITE_STALL_MS	1000

/*
 * Writes all of s, retrying after a signal; gives up silently on an
 * error, or when a non-blocking descriptor (a terminal nobody reads)
 * takes nothing for WRITE_STALL_MS, since the callers write messages and
 * have nowhere left to complain to.
 */
void
fd_write_all(int fd, const char *s, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, s, len)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN &&
			    poll(&pfd, 1, WRITE_STALL_MS) == 1)
				continue;
			return;
		}
		s += n;
		len -= (size_t)n;
	}
}
