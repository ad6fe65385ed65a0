/*
 * feed.c: --replay-stdin, the source of every attempt's standard input.
 *
 * A regular file is rewound to where retry found it.  Anything else that
 * is not a terminal is spooled: retry reads its stdin into an unlinked
 * temporary file only as fast as the running attempt takes it, and feeds
 * each attempt through a pipe, first what is spooled, then what is still
 * to come.  Memory stays bounded and no attempt can deadlock retry,
 * whatever it does with its input: retry never blocks on the pipe and
 * stops feeding when the attempt ends or closes its end.  A spool that
 * cannot be written (a full disk) is an error the caller reports after
 * it killed the attempt, so that no process sees a clean end of file on
 * input that was cut short.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "os/defs.h"
#include "os/fd.h"
#include "feed.h"

#define PULL_SIZE	(1 << 20)

struct feed {
	bool	rewind;		/* stdin is a regular file */
	off_t	start;		/* where it was found */
	int	file;		/* the spool, or -1 */
	off_t	len;		/* bytes spooled so far */
	bool	eof;		/* stdin is exhausted */
	int	wfd;		/* this attempt's pipe, -1 when done with */
	off_t	sent;		/* spooled bytes sent to this attempt */
	bool	writable;	/* the pipe took all it was last offered */
	bool	no_tee;		/* stdin is not a pipe: tee(2) cannot help */
};

/* A pipe for the command's stdin: large, and non-blocking for retry. */
static int
open_feed_pipe(int p[2])
{
	if (fd_pipe(p) == -1)
		return -1;
	fd_grow_pipe(p[1]);
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	return 0;
}

/* NULL when stdin is inherited as it is (a terminal, or closed). */
struct feed *
feed_open(void)
{
	struct feed *sp;
	struct stat st;

	if (fstat(STDIN_FILENO, &st) == -1)
		return NULL;
	if (isatty(STDIN_FILENO)) {
		warnx("--replay-stdin: standard input is a terminal; "
		    "every attempt reads it directly");
		return NULL;
	}
	if ((sp = calloc(1, sizeof(*sp))) == NULL)
		err(EXIT_CANCELED, NULL);
	sp->file = sp->wfd = -1;
	if (S_ISREG(st.st_mode) &&
	    (sp->start = lseek(STDIN_FILENO, 0, SEEK_CUR)) != -1) {
		sp->rewind = true;
		return sp;
	}
	if ((sp->file = fd_tmpfile()) == -1)
		err(EXIT_CANCELED, "--replay-stdin: temporary file");
	if (S_ISFIFO(st.st_mode))
		fd_grow_pipe(STDIN_FILENO);
	return sp;
}

/* The attempt ended: whatever it did not take waits for the next one. */
void
feed_end(struct feed *sp)
{
	if (sp == NULL || sp->wfd == -1)
		return;
	close(sp->wfd);
	sp->wfd = -1;
}

/*
 * Sends spooled bytes until the pipe is full; false if it is closed.
 * With nothing to send it learns nothing about room in the pipe, and
 * leaves writable alone: a tee(2) that found the pipe full must wait for
 * POLLOUT, not spin on a stdin that stays readable.
 */
static bool
send_spooled(struct feed *sp)
{
	ssize_t n;

	if (sp->sent == sp->len)
		return true;
	while (sp->sent < sp->len) {
		n = fd_send_file(sp->file, &sp->sent, sp->wfd,
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

/*
 * Where stdin is a pipe and the attempt has taken all that is spooled,
 * the next bytes go to the attempt's pipe by tee(2), without a copy, and
 * then into the spool: the attempt does not wait for them to be read
 * back.  Returns what tee(2) did (0 at end of input), or -1 with errno,
 * EINVAL where stdin is not a pipe.
 */
static ssize_t
tee_stdin(struct feed *sp)
{
#ifdef __linux__
	ssize_t n, m, done;

	if ((n = tee(STDIN_FILENO, sp->wfd, PULL_SIZE, SPLICE_F_NONBLOCK)) <= 0)
		return n;
	for (done = 0; done < n; done += m)
		if ((m = fd_take_stream(STDIN_FILENO, sp->file, sp->len + done,
		    (size_t)(n - done))) <= 0)
			return -1;	/* what was teed must be spooled */
	sp->len += n;
	sp->sent += n;
	return n;
#else
	(void)sp;
	errno = EINVAL;
	return -1;
#endif
}

/* Takes more of stdin; 0, or the errno of a spool that cannot grow. */
static int
pull_stdin(struct feed *sp)
{
	ssize_t n;

	if (!sp->no_tee && sp->sent == sp->len) {
		if ((n = tee_stdin(sp)) > 0 || (n == -1 && errno == EAGAIN)) {
			sp->writable = n > 0;
			return 0;
		}
		if (n == -1 && fd_file_full())
			return errno;
		if (n == -1)
			sp->no_tee = true;	/* not a pipe, or no tee(2) */
	}
	n = fd_take_stream(STDIN_FILENO, sp->file, sp->len, PULL_SIZE);
	if (n > 0)
		sp->len += n;
	else if (n == -1 && fd_file_full())
		return errno;	/* never cut the input short */
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		sp->eof = true;	/* a read error ends the input too */
	return 0;
}

/*
 * The feed's descriptor to wait for, if any: 1 and *pfd, or 0.  stdin is
 * read only once the pipe has taken everything spooled, so retry reads
 * no faster than the attempt.
 */
int
feed_poll_fd(struct feed *sp, struct pollfd *pfd)
{
	if (sp == NULL || sp->wfd == -1)
		return 0;
	if (sp->sent == sp->len && sp->eof) {
		feed_end(sp);	/* all sent: the attempt sees EOF */
		return 0;
	}
	if (sp->sent == sp->len && sp->writable)
		*pfd = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	else
		*pfd = (struct pollfd){ .fd = sp->wfd, .events = POLLOUT };
	return 1;
}

/* Acts on what the wait said of *pfd: 0, or the errno of a full spool. */
int
feed_service(struct feed *sp, const struct pollfd *pfd)
{
	int e;

	if (pfd->fd == STDIN_FILENO) {
		if ((e = pull_stdin(sp)) != 0)
			return e;
	} else if (pfd->revents & (POLLERR | POLLNVAL)) {
		feed_end(sp);	/* the attempt closed its stdin */
		return 0;
	} else
		sp->writable = true;	/* POLLOUT: the pipe has room */
	if (!send_spooled(sp))
		feed_end(sp);
	return 0;
}

/*
 * Sets up stdin for the next attempt: returns the read end of its feed
 * pipe, or -1 when the attempt inherits retry's stdin (rewound, when it
 * is a regular file).
 */
int
feed_begin(struct feed *sp)
{
	int p[2];

	if (sp == NULL)
		return -1;
	if (sp->rewind) {
		if (lseek(STDIN_FILENO, sp->start, SEEK_SET) == -1)
			err(EXIT_CANCELED, "--replay-stdin: rewind");
		return -1;
	}
	if (open_feed_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	sp->wfd = p[1];
	sp->sent = 0;
	sp->writable = false;
	return p[0];
}
