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
 * blocking as before.  A line that --log-file or --json-log cannot take
 * (a full disk) is said once on stderr and counted (errout_lost()), and
 * with --log-on-failure the text sink's lines are kept in memory until
 * the run's end says whether they are to be written (errout_end()).
 * With glibc, stdio's stderr itself, where err(3) writes, becomes a
 * stream whose lines wait as these do (errout_bound_stderr()).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "text/escape.h"
#include "errout.h"

#define HOLD_MAX	((size_t)1 << 20)	/* kept by --log-on-failure */

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
	eo->hold_fd = -1;
	eo->tty[0] = tty;
	eo->tty_wait[0] = WRITE_STALL_MS;
	eo->ntty = 1;
	eo->pipe = tty == -1 ? fd_pipe_nonblock(STDERR_FILENO) : -1;
}

/* fopencookie() is glibc's, outside POSIX: not in the portable build. */
#if defined(__GLIBC__) && !defined(RETRY_PORTABLE)
#define BOUNDED_STDERR
#endif

static void	put(struct errout *, int, const char *, size_t);

#ifdef BOUNDED_STDERR
/* Never kept by --log-on-failure: errors and warnings always go out. */
static ssize_t
bounded_write(void *cookie, const char *buf, size_t len)
{
	struct errout *eo = cookie;

	put(eo, eo->tty[0] != -1 ? eo->tty[0] : STDERR_FILENO, buf, len);
	return (ssize_t)len;
}
#endif

/*
 * err(3) and warn(3) write to stdio's stderr, which blocks on a terminal
 * that nobody reads (Ctrl-S, a stalled ssh) or a pipe whose reader
 * stopped reading, with retry's signals blocked: an error or a warning
 * would hang it for good, past -m and deaf to TERM.  Where the C library
 * lets stderr be replaced (glibc), it becomes a stream whose writes go to
 * the terminal or the pipe eo opened, bounded as the messages are; eo
 * lives as long as the run, to the exit(3) that flushes the stream.
 * Elsewhere (and in the portable build) errors are written as the C
 * library writes them.
 */
void
errout_bound_stderr(struct errout *eo)
{
#ifdef BOUNDED_STDERR
	cookie_io_functions_t io = { .write = bounded_write };
	FILE *f;

	if (eo->tty[0] == -1 && eo->pipe == -1)
		return;
	if ((f = fopencookie(eo, "w", io)) == NULL)
		return;
	setvbuf(f, NULL, _IOLBF, BUFSIZ);
	fflush(stderr);
	stderr = f;
#else
	(void)eo;
#endif
}

/*
 * fd, a file the log opened itself, the option what's path: a write to
 * it that fails is reported (errout_lost()).  If it is a FIFO or a
 * terminal, it is made non-blocking, and its lines wait for room as the
 * pipe's or the terminal's on stderr do.
 */
void
errout_own(struct errout *eo, int fd, const char *what, const char *path)
{
	if (eo->nfile < (int)(sizeof(eo->file) / sizeof(eo->file[0])))
		eo->file[eo->nfile++] = (struct errout_file){ fd, what, path,
		    0, 0 };
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
	if (errno == EINTR)
		return true;	/* a stop: the wait is bounded now */
	errno = EAGAIN;		/* the reader did not read in time */
	return false;
}

/* The named file whose descriptor is fd, or NULL. */
static struct errout_file *
file_for(struct errout *eo, int fd)
{
	int i;

	for (i = 0; i < eo->nfile; i++)
		if (eo->file[i].fd == fd)
			return &eo->file[i];
	return NULL;
}

/*
 * The n lines to the named file f were written (ok) or not, errno saying
 * why; n is more than 1 where --log-on-failure writes its held lines at
 * once.  The first failure (a full disk, EIO) says so on stderr at once,
 * once; the lines after it are still tried, and counted for errout_end().
 * A reader of a FIFO that does not read in time (EAGAIN) or that went
 * away (EPIPE) is no failure of the file: errout.c gives up on such a
 * reader by design.
 */
static void
errout_lost(struct errout_file *f, bool ok, long long n)
{
	f->lines += n;
	if (ok || errno == EAGAIN || errno == EPIPE)
		return;
	if (f->lost == 0)
		warnx_safe("%s %s: %s", f->what, f->path, strerror(errno));
	f->lost += n;
}

/* The lines in s, a line cut short counted as one. */
static long long
count_lines(const char *s, size_t len)
{
	const char *p, *end = s + len;
	long long n = 0;

	for (p = s; p < end && (p = memchr(p, '\n', (size_t)(end - p))) !=
	    NULL; p++)
		n++;
	return len > 0 && s[len - 1] != '\n' ? n + 1 : n;
}

/*
 * --log-on-failure: from here on, the lines for fd are kept, and written
 * only if the run ends on a failure (errout_end()).
 */
void
errout_hold(struct errout *eo, int fd)
{
	eo->hold_fd = fd;
}

/*
 * Keeps the line s for the held sink.  Past HOLD_MAX bytes the older
 * half goes, whole lines of it, counted: a run that goes on for days
 * keeps its last part, the one that tells how it ended.
 */
static void
hold_line(struct errout *eo, const char *s, size_t len)
{
	struct strbuf *h = &eo->held;
	const char *p, *cut;

	if (h->len + len > HOLD_MAX && h->len > 0) {
		p = memchr(h->s + h->len / 2, '\n', h->len - h->len / 2);
		cut = p != NULL ? p + 1 : h->s + h->len;
		for (p = h->s; (p = memchr(p, '\n', (size_t)(cut - p))) !=
		    NULL; p++)
			eo->dropped++;
		h->len -= (size_t)(cut - h->s);
		memmove(h->s, cut, h->len);
	}
	sb_add(h, s, len);
}

/*
 * The run ends, on a failure or not: the held lines are written on a
 * failure, the older ones that were not kept counted in a line of their
 * own, and dropped otherwise.  Then a named file that lost lines says
 * how many, so that a reader of it knows what it misses.
 */
void
errout_end(struct errout *eo, bool failed)
{
	struct strbuf note = { 0 };
	int i, fd = eo->hold_fd;

	eo->hold_fd = -1;
	if (failed && eo->dropped > 0) {
		sb_visible(&note, getprogname());
		sb_printf(&note, ": %lld earlier line%s not kept\n",
		    eo->dropped, eo->dropped == 1 ? "" : "s");
		errout_write(eo, fd, note.s, note.len);
	}
	if (failed && eo->held.len > 0)
		errout_write(eo, fd, eo->held.s, eo->held.len);
	sb_free(&note);
	sb_free(&eo->held);

	for (i = 0; i < eo->nfile; i++)
		if (eo->file[i].lost > 0)
			warnx_safe("%s %s: %lld of %lld line%s not written",
			    eo->file[i].what, eo->file[i].path,
			    eo->file[i].lost, eo->file[i].lines,
			    eo->file[i].lines == 1 ? "" : "s");
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
static bool
pipe_line(struct errout *eo, int fd, bool *cut, const char *s, size_t len)
{
	size_t n;

	if (*cut) {
		if (pipe_put(eo, fd, "\n", 1) == 0)
			return false;
		*cut = false;
	}
	n = pipe_put(eo, fd, s, len);
	*cut = n > 0 && n < len;
	return n == len;
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
 * Writes s to fd: a terminal within its wait; stderr's pipe and the log's
 * FIFOs through pipe_put(), once errout_bound() has said what ends its
 * waits; any other descriptor, and stderr where it could not be opened
 * again, as fd_write_all() does.
 */
static void
put(struct errout *eo, int fd, const char *s, size_t len)
{
	bool *cut, ok;
	int pipe = pipe_for(eo, fd, &cut), t = tty_index(eo, fd);
	struct errout_file *f;

	if (t != -1) {
		ok = fd_write_within(fd, s, len, eo->tty_wait[t]);
		eo->tty_wait[t] = ok ? WRITE_STALL_MS : 0;
	} else if (pipe != -1 && eo->ss != NULL)
		ok = pipe_line(eo, pipe, cut, s, len);
	else
		ok = fd_write_within(fd, s, len, WRITE_STALL_MS);
	if ((f = file_for(eo, fd)) != NULL)
		errout_lost(f, ok, count_lines(s, len));
}

/* Writes the line s to fd, or keeps it for --log-on-failure. */
void
errout_write(struct errout *eo, int fd, const char *s, size_t len)
{
	if (fd == eo->hold_fd)
		hold_line(eo, s, len);
	else
		put(eo, fd, s, len);
}
