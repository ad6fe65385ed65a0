/*
 * held.c: the held output of --hold-stdout or of --hold-stderr, from its
 * creation to its drain.  It is an unlinked temporary file, a new one
 * for each attempt after one that wrote, written only through held_take()
 * and held_write(): the attempt's stream is a pipe, never a file it could
 * seek in or reopen, and its bytes land here in order.  When the attempt
 * ends, held_flush() copies them to stdout or stderr (the final attempt)
 * or, for an attempt that is retried, where --failed-output or
 * --failed-stderr says (held_failed_sink()): stderr, a file, or nowhere.
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
	int		 file;		/* the held output */
	off_t		 len;		/* bytes held so far */
	const char	*option;	/* --hold-stdout or --hold-stderr */
};

/* The held file of option (--hold-stdout...), which its errors name. */
struct held *
held_open(const char *option)
{
	struct held *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		err(EXIT_CANCELED, NULL);
	h->option = option;
	if ((h->file = fd_tmpfile()) == -1)
		err(EXIT_CANCELED, "%s: temporary file", option);
	return h;
}

/*
 * An empty held file for the next attempt: a new one where the last
 * attempt wrote.  Not ftruncate(2), unless no new file can be had: ext4
 * takes a file cut to nothing and written again for one being replaced,
 * and writes it out to disk when it is closed (auto_da_alloc), which made
 * the end of a run that held 1 GiB cost 0.5 s where dropping it costs
 * 0.05 s.
 */
void
held_begin(struct held *h)
{
	int fd;

	if (h->len == 0)
		return;
	if ((fd = fd_tmpfile()) != -1) {
		close(h->file);
		h->file = fd;
	} else if (ftruncate(h->file, 0) == -1)
		err(EXIT_CANCELED, "%s", h->option);
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
 * interrupted the copy.  No held file (h NULL): 0.
 */
int
held_flush(const struct sigstate *ss, const struct held *h, int out,
    nsec_t deadline)
{
	struct copy c = { ss, -1, 0, deadline, signals_stops(),
	    signals_stop() != 0 };
	struct stat st;

	if (h == NULL)
		return 0;
	c.in = h->file;
	if (fstat(h->file, &st) == -1)
		err(EXIT_CANCELED, "%s", h->option);
	c.size = st.st_size;
	return copy_out(&c, out);
}

/*
 * Where a failed attempt's held output goes, as fs->option names it in
 * fs->name, fs->fd set here: stderr, nowhere (-1), or a file appended
 * to, opened before the first attempt so that a bad path stops the run
 * at once.
 */
static void
failed_sink_open(struct failed_sink *fs)
{
	const char *where = fs->name;

	if (strcmp(where, "stderr") == 0)
		fs->fd = STDERR_FILENO;
	else if (strcmp(where, "drop") == 0)
		fs->fd = -1;
	else if ((fs->fd = fd_open_append(where)) == -1 && errno == ENXIO)
		err_safe(EXIT_CANCELED, false, "%s %s: %s", fs->option, where,
		    FD_NO_READER);
	else if (fs->fd == -1)
		err_safe(EXIT_CANCELED, true, "%s %s", fs->option, where);
}

/*
 * The sinks of a failed attempt's held stdout (-O) and stderr (-E), as
 * --failed-output (out) and --failed-stderr (err) name them, or NULL:
 * stdout's goes to stderr, as Debian's retry sends it, and stderr's is
 * dropped, since -E is there to keep it from stderr.
 */
void
held_failed_sinks(struct failed_sink fs[2], const char *out,
    const char *err)
{
	fs[0] = (struct failed_sink){ -1, out != NULL ? out : "stderr",
	    "--failed-output", false };
	fs[1] = (struct failed_sink){ -1, err != NULL ? err : "drop",
	    "--failed-stderr", false };
	failed_sink_open(&fs[0]);
	failed_sink_open(&fs[1]);
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

	if (fs->fd == -1 || h == NULL)
		return 0;
	rc = held_flush(ss, h, fs->fd, deadline);
	if (rc < 0 && fs->fd != STDERR_FILENO && errno != EAGAIN &&
	    !fs->told) {
		warnx_safe("%s %s: %s", fs->option, fs->name,
		    strerror(errno));
		fs->told = true;
	}
	return rc > 0 ? rc : 0;
}
