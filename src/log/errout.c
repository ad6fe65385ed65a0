/*
 * errout.c: retry's own lines (the text log's and the JSON log's) on
 * their way into a terminal or a pipe on stderr.  A terminal nobody
 * reads (Ctrl-S, a stalled ssh) or a reader of the pipe that stops
 * reading (SIGSTOP, a pager's full screen) would otherwise keep retry in
 * write(2), with its signals blocked, deaf to TERM and past --max-time.
 * A terminal, opened anew non-blocking by the log, is waited for once,
 * WRITE_STALL_MS, and after that, or after a stop signal, not at all
 * until it takes a line whole again: no line may add its own second to
 * -t, -m and TERM.  Where fd.c can open the pipe again non-blocking
 * (Linux), a line waits for room in signals_wait_fd(), as a writer
 * waits, but not past the deadline the run gives, nor past
 * WRITE_STALL_MS after a stop signal, all lines together.  A FIFO or a
 * terminal named by --log-file or --json-log, whose open is the log's
 * own, is made non-blocking there too (fd.c), and its lines wait as the
 * pipe's or the terminal's on stderr do.  Elsewhere, and for any other
 * descriptor, a line is written as fd_write_all() writes it: to a pipe,
 * blocking as before.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "errout.h"

/*
 * Sets eo up for stderr: tty is the caller's non-blocking open of the
 * terminal there, or -1, and then a pipe there is opened again,
 * non-blocking.  Until errout_bound(), lines to the pipe are written as
 * to any descriptor.
 */
void
errout_open(struct errout *eo, int tty)
{
	memset(eo, 0, sizeof(*eo));
	eo->tty[0] = tty;
	eo->tty_wait[0] = WRITE_STALL_MS;
	eo->ntty = 1;
	eo->pipe = tty == -1 ? fd_pipe_nonblock(STDERR_FILENO) : -1;
}

/*
 * fd, a file the log opened itself: if it is a FIFO or a terminal, it is
 * made non-blocking, and its lines wait for room as the pipe's or the
 * terminal's on stderr do.
 */
void
errout_own(struct errout *eo, int fd)
{
	if (eo->nfifo == (int)(sizeof(eo->fifo) / sizeof(eo->fifo[0])) ||
	    eo->ntty == (int)(sizeof(eo->tty) / sizeof(eo->tty[0])) ||
	    !fd_own_nonblock(fd))
		return;
	if (isatty(fd)) {
		eo->tty[eo->ntty] = fd;
		eo->tty_wait[eo->ntty++] = WRITE_STALL_MS;
	} else
		eo->fifo[eo->nfifo++] = fd;
}

/* After a stop signal, no line waits for a terminal any more. */
void
errout_stopped(struct errout *eo)
{
	int i;

	for (i = 0; i < eo->ntty; i++)
		eo->tty_wait[i] = 0;
}

/*
 * From here on, a line waits for room in the pipe only until a stop
 * signal that ss sees, or until deadline (0: none).
 */
void
errout_bound(struct errout *eo, const struct sigstate *ss, nsec_t deadline)
{
	eo->ss = ss;
	eo->deadline = deadline;
}

/*
 * Waits for room in the pipe.  Its reader is waited for as long as it
 * takes, but not past the deadline, and after a stop signal for
 * WRITE_STALL_MS at most, all lines together: a reader that reads takes
 * retry's last lines, and one that has stopped reading cannot hold
 * retry.  Whether to write again.
 */
static bool
pipe_wait(struct errout *eo, int fd)
{
	nsec_t until = eo->deadline;

	if (signals_stop() != 0) {
		if (eo->stop_until == 0)
			eo->stop_until = nsec_add(mono_now(),
			    WRITE_STALL_MS * NSEC_PER_MSEC);
		if (until == 0 || eo->stop_until < until)
			until = eo->stop_until;
	}
	if (signals_wait_fd(eo->ss, fd, POLLOUT, until,
	    signals_stops()) == 0)
		return true;
	return errno == EINTR;	/* a stop: the wait is bounded now */
}

/*
 * Writes s into the pipe fd; what pipe_wait() gives up on is lost.
 * Returns how much was written.
 */
static size_t
pipe_put(struct errout *eo, int fd, const char *s, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		if ((n = write(fd, s + done, len - done)) > 0)
			done += (size_t)n;
		else if (n == 0 || (errno != EINTR &&
		    (errno != EAGAIN || !pipe_wait(eo, fd))))
			break;
	}
	return done;
}

/*
 * Writes the line s into the pipe fd.  A line longer than the pipe's
 * atomic write can be cut short (*cut); the next line first ends it,
 * or is dropped too, so that no line runs on in the cut one's remains,
 * where a reader of the JSON log would lose both.
 */
static void
pipe_line(struct errout *eo, int fd, bool *cut, const char *s, size_t len)
{
	size_t n;

	if (*cut) {
		if (pipe_put(eo, fd, "\n", 1) == 0)
			return;
		*cut = false;
	}
	n = pipe_put(eo, fd, s, len);
	*cut = n > 0 && n < len;
}

/* Which of the terminals fd is, or -1. */
static int
tty_index(const struct errout *eo, int fd)
{
	int i;

	for (i = 0; i < eo->ntty && fd != -1; i++)
		if (eo->tty[i] == fd)
			return i;
	return -1;
}

/*
 * The non-blocking pipe that lines for fd go into, or -1; *cut is whether
 * its last line was cut short.
 */
static int
pipe_for(struct errout *eo, int fd, bool **cut)
{
	int i;

	*cut = &eo->pipe_cut;
	if (fd == STDERR_FILENO)
		return eo->pipe;
	for (i = 0; i < eo->nfifo; i++)
		if (eo->fifo[i] == fd) {
			*cut = &eo->fifo_cut[i];
			return fd;
		}
	return -1;
}

/*
 * Writes the line s to fd: a terminal within its wait; stderr's pipe and
 * the log's FIFOs through pipe_put(), once errout_bound() has said what
 * ends its waits; any other descriptor, and stderr where it could not be
 * opened again, as fd_write_all() does.
 */
void
errout_write(struct errout *eo, int fd, const char *s, size_t len)
{
	bool *cut;
	int pipe = pipe_for(eo, fd, &cut), t = tty_index(eo, fd);

	if (t != -1)
		eo->tty_wait[t] = fd_write_within(fd, s, len,
		    eo->tty_wait[t]) ? WRITE_STALL_MS : 0;
	else if (pipe != -1 && eo->ss != NULL)
		pipe_line(eo, pipe, cut, s, len);
	else
		fd_write_all(fd, s, len);
}
