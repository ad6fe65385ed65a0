/*
 * held.c: the held output of --hold-stdout, from its creation to its
 * drain.  It is an unlinked temporary file, emptied before each attempt
 * and written only through held_take() and held_write(): the attempt's
 * stdout is a pipe, never a file it could seek in or reopen, and its
 * bytes land here in order.  When the attempt ends, held_flush() copies
 * them to stdout (the final attempt) or, for an attempt that is retried,
 * where --failed-output says (held_failed_sink()): stderr, a file, or
 * nowhere.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "text/escape.h"
#include "held.h"

struct held {
	int	file;		/* the held output */
	off_t	len;		/* bytes held so far */
};

struct held *
held_open(void)
{
	struct held *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		err(EXIT_CANCELED, NULL);
	if ((h->file = fd_tmpfile()) == -1)
		err(EXIT_CANCELED, "--hold-stdout: temporary file");
	return h;
}

/* Empties the held file for the next attempt. */
void
held_begin(struct held *h)
{
	if (ftruncate(h->file, 0) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	h->len = 0;
}

/*
 * Up to len bytes from the stream in, appended without a copy where the
 * kernel allows: the count, 0 at its end, or -1 with errno.
 */
ssize_t
held_take(struct held *h, int in, size_t len)
{
	ssize_t n = fd_take_stream(in, h->file, h->len, len);

	if (n > 0)
		h->len += n;
	return n;
}

/* Appends the n bytes at buf: what pwrite(2) returns. */
ssize_t
held_write(struct held *h, const char *buf, size_t n)
{
	ssize_t w = pwrite(h->file, buf, n, h->len);

	if (w > 0)
		h->len += w;
	return w;
}

/* A copy of the held file to its reader, and where waiting for it ends. */
struct copy {
	const struct sigstate *ss;
	int		 in;		/* the held file */
	off_t		 size;		/* the bytes to copy */
	nsec_t		 deadline;	/* 0: none */
	long		 mark;		/* signals_stops() as the copy began */
	bool		 stopping;	/* a stop signal came before it */
};

/*
 * Waits for room on out, the reader's end.  A stop signal that came
 * before the copy began ended the attempt whose output this is: what the
 * reader takes at once is passed on, and a reader with no room is not
 * waited for (-1, EAGAIN); a further stop signal ends the wait, and so
 * does the deadline.  Returns as copy_out() does.
 */
static int
wait_room(const struct copy *c, int out)
{
	if (signals_wait_fd(c->ss, out, POLLOUT, c->stopping ? mono_now() :
	    c->deadline, c->mark) == 0)
		return 0;
	if (errno == EINTR)
		return signals_stop();
	if (errno == ETIMEDOUT && c->stopping)
		errno = EAGAIN;
	return -1;
}

/*
 * Copies the held file to tty, retry's own non-blocking open of the
 * terminal on out: a terminal that is not read (Ctrl-S, a stalled ssh)
 * holds retry until a further stop signal or the deadline, never in a
 * write(2) that cannot end.  Returns as copy_out() does.
 */
static int
copy_to_tty(const struct copy *c, int tty)
{
	char buf[PIPE_BUF];
	off_t off = 0;
	size_t at = 0, have = 0;
	ssize_t n;
	int rc;

	while (off < c->size || at < have) {
		if (at == have) {
			n = pread(c->in, buf, c->size - off <
			    (off_t)sizeof(buf) ? (size_t)(c->size - off) :
			    sizeof(buf), off);
			if (n == 0)
				return 0;	/* the file shrank */
			if (n == -1 && errno != EINTR)
				return -1;
			if (n > 0) {
				off += n;
				have = (size_t)n;
				at = 0;
			}
			continue;
		}
		n = write(tty, buf + at, have - at);
		if (n > 0)
			at += (size_t)n;
		else if (n == -1 && errno == EAGAIN) {
			if ((rc = wait_room(c, tty)) != 0)
				return rc;
		} else if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * Copies the held file to out.  Where out is a pipe, the copy does not
 * block and retry waits for room in wait_room(), so that a reader that
 * stops reading cannot keep retry from a stop signal; a terminal gets the
 * same through copy_to_tty().  Returns 0, -1 with errno (ETIMEDOUT: the
 * deadline), or the signal to die by.
 */
static int
copy_out(const struct copy *c, int out)
{
	off_t off = 0;
	ssize_t n;
	int tty, rc;
	bool is_pipe = true, grown = false;

	if ((tty = fd_tty_nonblock(out)) != -1) {
		rc = copy_to_tty(c, tty);
		close(tty);
		return rc;
	}
	while (off < c->size) {
		/* A reader that reads: fewer turns with it. */
		if (!grown)
			grown = fd_grow_read_pipe(out, (uint64_t)off);
#ifdef __linux__
		if (is_pipe) {
			n = splice(c->in, &off, out, NULL,
			    (size_t)(c->size - off), SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EAGAIN) {
				if ((rc = wait_room(c, out)) != 0)
					return rc;
				continue;
			}
			if (n == -1 && errno == EINVAL) {
				is_pipe = false;
				continue;
			}
		} else
			n = fd_send_file(c->in, &off, out,
			    (size_t)(c->size - off));
#else
		/* Room for PIPE_BUF bytes, which then cannot block. */
		(void)is_pipe;
		if ((rc = wait_room(c, out)) != 0)
			return rc;
		n = fd_send_file(c->in, &off, out, c->size - off < PIPE_BUF ?
		    (size_t)(c->size - off) : PIPE_BUF);
#endif
		if (n == 0)
			return 0;	/* the file shrank */
		if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * Copies the held output to out by the deadline (0: none): 0, -1 with
 * errno if out failed (ETIMEDOUT: the deadline passed first; EAGAIN: a
 * stop signal came before, and out had no room), or the stop signal that
 * interrupted the copy.
 */
int
held_flush(const struct sigstate *ss, const struct held *h, int out,
    nsec_t deadline)
{
	struct copy c = { ss, h->file, 0, deadline, signals_stops(),
	    signals_stop() != 0 };
	struct stat st;

	if (fstat(h->file, &st) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	c.size = st.st_size;
	return copy_out(&c, out);
}

/*
 * Where -O sends a failed attempt's held output: stderr (the default,
 * as Debian's retry does), nowhere (-1), or a file appended to, opened
 * before the first attempt so that a bad path stops the run at once.
 */
int
held_failed_sink(const char *where)
{
	int fd;

	if (where == NULL || strcmp(where, "stderr") == 0)
		return STDERR_FILENO;
	if (strcmp(where, "drop") == 0)
		return -1;
	if ((fd = fd_open_append(where)) == -1 && errno == ENXIO)
		err_safe(EXIT_CANCELED, false, "--failed-output %s: %s", where,
		    FD_NO_READER);
	if (fd == -1)
		err_safe(EXIT_CANCELED, true, "--failed-output %s", where);
	return fd;
}

/*
 * A failed attempt's held output to its sink: dropped, or copied, a
 * failure of the user's file said once (stderr's own is not retry's to
 * report).  The stop signal that interrupted the copy, or 0.
 */
int
held_flush_failed(const struct sigstate *ss, const struct held *h,
    struct failed_sink *fs, nsec_t deadline)
{
	int rc;

	if (fs->fd == -1)
		return 0;
	rc = held_flush(ss, h, fs->fd, deadline);
	if (rc < 0 && fs->fd != STDERR_FILENO && errno != EAGAIN &&
	    !fs->told) {
		warnx_safe("--failed-output %s: %s", fs->name,
		    strerror(errno));
		fs->told = true;
	}
	return rc > 0 ? rc : 0;
}
