/*
 * spool.c: pipelines without data loss.
 *
 * --replay-stdin gives every attempt the same input.  A regular file is
 * rewound to where retry found it.  Anything else that is not a terminal
 * is spooled: retry reads its stdin into an unlinked temporary file only
 * as fast as the running attempt takes it, and feeds each attempt through
 * a pipe, first what is spooled, then what is still to come.  Memory stays
 * bounded and no attempt can deadlock retry, whatever it does with its
 * input: retry never blocks on the pipe and stops feeding when the
 * attempt ends or closes its end.
 *
 * --hold-stdout points each attempt's stdout at an unlinked temporary
 * file; when the attempt ends, retry copies it to stdout (the final
 * attempt) or stderr (an attempt that is retried).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "retry.h"

#define PULL_SIZE	(1 << 20)

struct spool {
	bool	rewind;		/* stdin is a regular file */
	off_t	start;		/* where it was found */
	int	file;		/* the spool, or -1 */
	off_t	len;		/* bytes spooled so far */
	bool	eof;		/* stdin is exhausted */
	int	wfd;		/* this attempt's pipe, -1 when done with */
	off_t	sent;		/* spooled bytes sent to this attempt */
	bool	writable;	/* the pipe took all it was last offered */
};

/* NULL when stdin is inherited as it is (a terminal, or closed). */
struct spool *
spool_stdin_open(void)
{
	struct spool *sp;
	struct stat st;

	if (fstat(STDIN_FILENO, &st) == -1)
		return NULL;
	if (isatty(STDIN_FILENO)) {
		warnx("--replay-stdin: standard input is a terminal; "
		    "every attempt reads it directly");
		return NULL;
	}
	if ((sp = calloc(1, sizeof(*sp))) == NULL)
		err(EXIT_RETRY, NULL);
	sp->file = sp->wfd = -1;
	if (S_ISREG(st.st_mode) &&
	    (sp->start = lseek(STDIN_FILENO, 0, SEEK_CUR)) != -1) {
		sp->rewind = true;
		return sp;
	}
	if ((sp->file = proc_tmpfile()) == -1)
		err(EXIT_RETRY, "--replay-stdin: temporary file");
	if (S_ISFIFO(st.st_mode))
		proc_pipe_grow(STDIN_FILENO);
	return sp;
}

/* Sets up stdin for the next attempt. */
int
spool_stdin_prepare(struct spool *sp, struct attempt_io *io)
{
	int p[2];

	io->in = -1;
	io->feed = NULL;
	if (sp == NULL)
		return 0;
	if (sp->rewind) {
		if (lseek(STDIN_FILENO, sp->start, SEEK_SET) == -1)
			err(EXIT_RETRY, "--replay-stdin: rewind");
		return 0;
	}
	if (proc_pipe(p) == -1)
		err(EXIT_RETRY, "pipe");
	io->in = p[0];
	io->feed = sp;
	sp->wfd = p[1];
	sp->sent = 0;
	sp->writable = false;
	return 0;
}

/* The attempt ended: whatever it did not take waits for the next one. */
void
spool_stdin_finish(struct spool *sp)
{
	if (sp == NULL || sp->wfd == -1)
		return;
	close(sp->wfd);
	sp->wfd = -1;
}

/* Sends spooled bytes until the pipe is full; false if it is closed. */
static bool
send_spooled(struct spool *sp)
{
	ssize_t n;

	while (sp->sent < sp->len) {
		n = proc_send_file(sp->file, &sp->sent, sp->wfd,
		    (size_t)(sp->len - sp->sent));
		if (n == -1 && errno == EAGAIN) {
			sp->writable = false;
			return true;
		}
		if (n <= 0 && errno != EINTR)
			return false;
	}
	sp->writable = true;
	return true;
}

static void
pull_stdin(struct spool *sp)
{
	ssize_t n;

	n = proc_take_stream(STDIN_FILENO, sp->file, sp->len, PULL_SIZE);
	if (n > 0)
		sp->len += n;
	else if (n == -1 && (errno == ENOSPC || errno == EFBIG ||
	    errno == EDQUOT))	/* the spool is full: never cut the input */
		err(EXIT_RETRY, "--replay-stdin: temporary file");
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		sp->eof = true;	/* a read error ends the input too */
}

/*
 * The descriptors to wait for.  stdin is read only once the pipe has
 * taken everything spooled, so retry reads no faster than the attempt.
 */
int
spool_poll_fds(struct spool *sp, void *v, int max)
{
	struct pollfd *fds = v;

	if (sp == NULL || sp->wfd == -1 || max < 1)
		return 0;
	if (sp->sent == sp->len && sp->eof) {
		spool_stdin_finish(sp);	/* all sent: the attempt sees EOF */
		return 0;
	}
	if (sp->sent == sp->len && sp->writable)
		fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	else
		fds[0] = (struct pollfd){ .fd = sp->wfd, .events = POLLOUT };
	return 1;
}

void
spool_poll_service(struct spool *sp, const void *v, int nfds)
{
	const struct pollfd *fds = v;

	if (sp == NULL || nfds < 1 || fds[0].revents == 0)
		return;
	if (fds[0].fd == STDIN_FILENO)
		pull_stdin(sp);
	else if (fds[0].revents & (POLLERR | POLLNVAL)) {
		spool_stdin_finish(sp);	/* the attempt closed its stdin */
		return;
	}
	if (!send_spooled(sp))
		spool_stdin_finish(sp);
}

int
spool_stdout_open(void)
{
	int fd;

	if ((fd = proc_tmpfile()) == -1)
		err(EXIT_RETRY, "--hold-stdout: temporary file");
	return fd;
}

void
spool_stdout_reset(int fd)
{
	if (ftruncate(fd, 0) == -1 || lseek(fd, 0, SEEK_SET) == -1)
		err(EXIT_RETRY, "--hold-stdout");
}

/*
 * Copies the held output to out: 0, -1 with errno if out failed, or the
 * signal that interrupted the copy.
 */
int
spool_stdout_flush(const struct proc *ps, int fd, int out)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		err(EXIT_RETRY, "--hold-stdout");
	return proc_copy_out(ps, fd, st.st_size, out);
}
