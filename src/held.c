/*
 * held.c: the held output of --hold-stdout, from its creation to its
 * drain.  It is an unlinked temporary file, emptied before each attempt
 * and written only through held_take() and held_write(): the attempt's
 * stdout is a pipe, never a file it could seek in or reopen, and its
 * bytes land here in order.  When the attempt ends, held_flush() copies
 * them to stdout (the final attempt) or stderr (an attempt that is
 * retried).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "defs.h"
#include "fd.h"
#include "held.h"
#include "signals.h"

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

/*
 * Copies size bytes of the file in to out.  Where out is a pipe, the copy
 * does not block and retry waits for room in ppoll(), so that a reader
 * that stops reading cannot keep retry from a stop signal.  One that came
 * before the copy began ended the attempt whose output this is: only a
 * further one interrupts.  Returns 0, -1 with errno, or the signal to die
 * by.
 */
static int
copy_out(const struct sigstate *ss, int in, off_t size, int out)
{
	struct pollfd pfd = { .fd = out, .events = POLLOUT };
	long seen = signals_stops();
	off_t off = 0;
	ssize_t n;
	bool is_pipe = true;

	while (off < size) {
		if (signals_stops() != seen)
			return signals_stop();
#ifdef __linux__
		if (is_pipe) {
			n = splice(in, &off, out, NULL, (size_t)(size - off),
			    SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EAGAIN) {
				signals_wait(ss, &pfd, 1, 0);
				continue;
			}
			if (n == -1 && errno == EINVAL) {
				is_pipe = false;
				continue;
			}
		} else
			n = fd_send_file(in, &off, out, (size_t)(size - off));
#else
		/* Room for PIPE_BUF bytes, which then cannot block. */
		(void)is_pipe;
		if (signals_wait(ss, &pfd, 1, 0) <= 0)
			continue;
		n = fd_send_file(in, &off, out, size - off < PIPE_BUF ?
		    (size_t)(size - off) : PIPE_BUF);
#endif
		if (n == 0)
			return 0;	/* the file shrank */
		if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * Copies the held output to out: 0, -1 with errno if out failed, or the
 * stop signal that interrupted the copy.
 */
int
held_flush(const struct sigstate *ss, const struct held *h, int out)
{
	struct stat st;

	if (fstat(h->file, &st) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	return copy_out(ss, h->file, st.st_size, out);
}
