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
 * WRITE_STALL_MS after a stop signal, all lines together.  Elsewhere,
 * and for any other descriptor, a line is written as fd_write_all()
 * writes it: to a pipe, blocking as before.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "backoff.h"
#include "clock.h"
#include "defs.h"
#include "errout.h"
#include "fd.h"
#include "signals.h"

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
	eo->tty = tty;
	eo->tty_wait = WRITE_STALL_MS;
	eo->pipe = tty == -1 ? fd_pipe_nonblock(STDERR_FILENO) : -1;
}

/* After a stop signal, no line waits for the terminal any more. */
void
errout_stopped(struct errout *eo)
{
	eo->tty_wait = 0;
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
pipe_wait(struct errout *eo)
{
	nsec_t until = eo->deadline;

	if (signals_stop() != 0) {
		if (eo->stop_until == 0)
			eo->stop_until = nsec_add(mono_now(),
			    WRITE_STALL_MS * NSEC_PER_MSEC);
		if (until == 0 || eo->stop_until < until)
			until = eo->stop_until;
	}
	if (signals_wait_fd(eo->ss, eo->pipe, POLLOUT, until,
	    signals_stops()) == 0)
		return true;
	return errno == EINTR;	/* a stop: the wait is bounded now */
}

/* Writes s into the pipe; what pipe_wait() gives up on is lost. */
static void
pipe_put(struct errout *eo, const char *s, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(eo->pipe, s, len)) > 0) {
			s += n;
			len -= (size_t)n;
		} else if (n == 0 || (errno != EINTR &&
		    (errno != EAGAIN || !pipe_wait(eo))))
			return;
	}
}

/*
 * Writes the line s to fd: stderr's pipe through pipe_put(), once
 * errout_bound() has said what ends its waits; any other descriptor, and
 * stderr where it could not be opened again, as fd_write_all() does.
 */
void
errout_write(struct errout *eo, int fd, const char *s, size_t len)
{
	if (fd == eo->tty && fd != -1)
		eo->tty_wait = fd_write_within(fd, s, len, eo->tty_wait) ?
		    WRITE_STALL_MS : 0;
	else if (fd == STDERR_FILENO && eo->pipe != -1 && eo->ss != NULL)
		pipe_put(eo, s, len);
	else
		fd_write_all(fd, s, len);
}
