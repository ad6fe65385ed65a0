/*
 * spool.c: pipelines without data loss, and every copy between
 * descriptors.
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
 * --hold-stdout gives each attempt a pipe for its stdout, never a file
 * it could seek in or reopen, and drains it into an unlinked temporary
 * file; the attempt's output is complete when the pipe reaches end of
 * file, as for a pipeline's reader.  When the attempt ends, retry copies
 * it to stdout (the final attempt) or stderr (an attempt that is
 * retried).
 *
 * Both run inside the attempt's wait, through the io_pump that
 * spools_begin() fills in.  A spool that cannot be written (a full disk)
 * fails the pump: the attempt is killed before retry reports it, so that
 * no process sees a clean end of file on input that was cut short.
 */
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define PULL_SIZE	(1 << 20)
#define COPY_BUF	16384

struct stdin_spool {
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

struct stdout_spool {
	int	file;		/* the held output */
	off_t	len;		/* bytes held so far */
	int	rfd;		/* this attempt's pipe, -1 at end of file */
};

struct spools {
	struct stdin_spool  *in;	/* --replay-stdin, or NULL */
	struct stdout_spool *out;	/* --hold-stdout, or NULL */
	const char	    *failed;	/* what could not be written */
};

/* An unlinked temporary file, mode 0600, in $TMPDIR or /tmp. */
static int
open_tmpfile(void)
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

/* Fewer, larger transfers: a pipe of 1 MiB where the kernel allows. */
static void
grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

/* A pipe for the command's stdin: large, and non-blocking for retry. */
static int
open_feed_pipe(int p[2])
{
	if (fd_pipe(p) == -1)
		return -1;
	grow_pipe(p[1]);
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	return 0;
}

/*
 * Up to len bytes of the file in, from *off on, to out, without a copy
 * through user space where the kernel allows.  Returns what write(2)
 * would.
 */
static ssize_t
send_file(int in, off_t *off, int out, size_t len)
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
static ssize_t
take_stream(int in, int out, off_t off, size_t len)
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
			n = send_file(in, &off, out, (size_t)(size - off));
#else
		/* Room for PIPE_BUF bytes, which then cannot block. */
		(void)is_pipe;
		if (signals_wait(ss, &pfd, 1, 0) <= 0)
			continue;
		n = send_file(in, &off, out, size - off < PIPE_BUF ?
		    (size_t)(size - off) : PIPE_BUF);
#endif
		if (n == 0)
			return 0;	/* the file shrank */
		if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* NULL when stdin is inherited as it is (a terminal, or closed). */
static struct stdin_spool *
stdin_open(void)
{
	struct stdin_spool *sp;
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
	if ((sp->file = open_tmpfile()) == -1)
		err(EXIT_CANCELED, "--replay-stdin: temporary file");
	if (S_ISFIFO(st.st_mode))
		grow_pipe(STDIN_FILENO);
	return sp;
}

/* The attempt ended: whatever it did not take waits for the next one. */
static void
stdin_finish(struct stdin_spool *sp)
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
send_spooled(struct stdin_spool *sp)
{
	ssize_t n;

	if (sp->sent == sp->len)
		return true;
	while (sp->sent < sp->len) {
		n = send_file(sp->file, &sp->sent, sp->wfd,
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

/* Whether errno says that a spool file, not the stream, failed. */
static bool
spool_full(void)
{
	return errno == ENOSPC || errno == EFBIG || errno == EDQUOT ||
	    errno == EIO;
}

/*
 * Where stdin is a pipe and the attempt has taken all that is spooled,
 * the next bytes go to the attempt's pipe by tee(2), without a copy, and
 * then into the spool: the attempt does not wait for them to be read
 * back.  Returns what tee(2) did (0 at end of input), or -1 with errno,
 * EINVAL where stdin is not a pipe.
 */
static ssize_t
tee_stdin(struct stdin_spool *sp)
{
#ifdef __linux__
	ssize_t n, m, done;

	if ((n = tee(STDIN_FILENO, sp->wfd, PULL_SIZE, SPLICE_F_NONBLOCK)) <= 0)
		return n;
	for (done = 0; done < n; done += m)
		if ((m = take_stream(STDIN_FILENO, sp->file, sp->len + done,
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
pull_stdin(struct stdin_spool *sp)
{
	ssize_t n;

	if (!sp->no_tee && sp->sent == sp->len) {
		if ((n = tee_stdin(sp)) > 0 || (n == -1 && errno == EAGAIN)) {
			sp->writable = n > 0;
			return 0;
		}
		if (n == -1 && spool_full())
			return errno;
		if (n == -1)
			sp->no_tee = true;	/* not a pipe, or no tee(2) */
	}
	n = take_stream(STDIN_FILENO, sp->file, sp->len, PULL_SIZE);
	if (n > 0)
		sp->len += n;
	else if (n == -1 && spool_full())
		return errno;	/* never cut the input short */
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		sp->eof = true;	/* a read error ends the input too */
	return 0;
}

/*
 * The feed's descriptor, if any.  stdin is read only once the pipe has
 * taken everything spooled, so retry reads no faster than the attempt.
 */
static int
feed_fd(struct stdin_spool *sp, struct pollfd *pfd)
{
	if (sp == NULL || sp->wfd == -1)
		return 0;
	if (sp->sent == sp->len && sp->eof) {
		stdin_finish(sp);	/* all sent: the attempt sees EOF */
		return 0;
	}
	if (sp->sent == sp->len && sp->writable)
		*pfd = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	else
		*pfd = (struct pollfd){ .fd = sp->wfd, .events = POLLOUT };
	return 1;
}

static int
feed_service(struct stdin_spool *sp, const struct pollfd *pfd)
{
	int e;

	if (pfd->fd == STDIN_FILENO) {
		if ((e = pull_stdin(sp)) != 0)
			return e;
	} else if (pfd->revents & (POLLERR | POLLNVAL)) {
		stdin_finish(sp);	/* the attempt closed its stdin */
		return 0;
	} else
		sp->writable = true;	/* POLLOUT: the pipe has room */
	if (!send_spooled(sp))
		stdin_finish(sp);
	return 0;
}

/*
 * Drains the attempt's stdout pipe into the held file, a few large
 * chunks at a time so that the feed gets its turn; 0, or the errno of a
 * held file that cannot grow.
 */
static int
drain_service(struct stdout_spool *hp)
{
	ssize_t n;
	int i;

	for (i = 0; i < 4; i++) {
		n = take_stream(hp->rfd, hp->file, hp->len, PULL_SIZE);
		if (n > 0) {
			hp->len += n;
			continue;
		}
		if (n == -1 && spool_full())
			return errno;
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(hp->rfd);	/* end of file: the output is whole */
			hp->rfd = -1;
		}
		break;
	}
	return 0;
}

static int
pump_fds(void *arg, struct pollfd *fds, int max)
{
	struct spools *sps = arg;
	int n = 0;

	if (max >= 2)
		n = feed_fd(sps->in, &fds[0]);
	if (sps->out != NULL && sps->out->rfd != -1 && n < max)
		fds[n++] = (struct pollfd){ .fd = sps->out->rfd,
		    .events = POLLIN };
	return n;
}

static int
pump_service(void *arg, const struct pollfd *fds, int nfds)
{
	struct spools *sps = arg;
	int i, e = 0;

	for (i = 0; i < nfds && e == 0; i++) {
		if (fds[i].revents == 0)
			continue;
		if (sps->out != NULL && fds[i].fd == sps->out->rfd) {
			if ((e = drain_service(sps->out)) != 0)
				sps->failed = "--hold-stdout: temporary file";
		} else if ((e = feed_service(sps->in, &fds[i])) != 0)
			sps->failed = "--replay-stdin: temporary file";
	}
	return e;
}

/* The attempt's output is complete once its stdout pipe is at its end. */
static bool
pump_done(void *arg)
{
	struct spools *sps = arg;

	return sps->out == NULL || sps->out->rfd == -1;
}

static _Noreturn void
pump_fail(void *arg, int error)
{
	struct spools *sps = arg;

	errc(EXIT_CANCELED, error, "%s", sps->failed);
}

/*
 * Sets up stdin for the next attempt: returns the read end of its feed
 * pipe, or -1 when the attempt inherits retry's stdin (rewound, when it
 * is a regular file).
 */
static int
stdin_begin(struct stdin_spool *sp)
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

/* Empties the held file; returns the write end of the attempt's pipe. */
static int
stdout_begin(struct stdout_spool *hp)
{
	int p[2];

	if (hp == NULL)
		return -1;
	if (ftruncate(hp->file, 0) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	hp->len = 0;
	if (fd_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	grow_pipe(p[0]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	hp->rfd = p[0];
	return p[1];
}

static struct stdout_spool *
stdout_open(void)
{
	struct stdout_spool *hp;

	if ((hp = calloc(1, sizeof(*hp))) == NULL)
		err(EXIT_CANCELED, NULL);
	if ((hp->file = open_tmpfile()) == -1)
		err(EXIT_CANCELED, "--hold-stdout: temporary file");
	hp->rfd = -1;
	return hp;
}

/* The spools of --replay-stdin and --hold-stdout, or NULL for neither. */
struct spools *
spools_open(bool replay_stdin, bool hold_stdout)
{
	struct spools *sps;

	if (!replay_stdin && !hold_stdout)
		return NULL;
	if ((sps = calloc(1, sizeof(*sps))) == NULL)
		err(EXIT_CANCELED, NULL);
	if (replay_stdin)
		sps->in = stdin_open();
	if (hold_stdout)
		sps->out = stdout_open();
	return sps;
}

/*
 * Gives the next attempt its stdin and, when drain is set, its stdout,
 * and fills in the pump for them.  Without drain the held file is only
 * emptied: another pump writes it (see spools_held_fd()).
 */
void
spools_begin(struct spools *sps, struct attempt_io *io, bool drain)
{
	io->in = io->out = -1;
	io->pump[0] = (struct io_pump){ NULL, NULL, NULL, NULL, NULL };
	if (sps == NULL)
		return;
	io->in = stdin_begin(sps->in);
	if (drain)
		io->out = stdout_begin(sps->out);
	else if (sps->out != NULL && ftruncate(sps->out->file, 0) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	io->pump[0] = (struct io_pump){ pump_fds, pump_service, pump_done,
	    pump_fail, sps };
}

/* The --hold-stdout file, or -1. */
int
spools_held_fd(const struct spools *sps)
{
	return sps != NULL && sps->out != NULL ? sps->out->file : -1;
}

/* The attempt ended: its pipes are closed, what it did not read waits. */
void
spools_end(struct spools *sps)
{
	if (sps == NULL)
		return;
	stdin_finish(sps->in);
	if (sps->out != NULL && sps->out->rfd != -1) {
		close(sps->out->rfd);
		sps->out->rfd = -1;
	}
}

/*
 * Copies the held output to out: 0, -1 with errno if out failed, or the
 * stop signal that interrupted the copy.  Without --hold-stdout, 0.
 */
int
spools_flush(const struct sigstate *ss, const struct spools *sps, int out)
{
	struct stat st;

	if (sps == NULL || sps->out == NULL)
		return 0;
	if (fstat(sps->out->file, &st) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	return copy_out(ss, sps->out->file, st.st_size, out);
}
