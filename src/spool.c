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
 * attempt ends or closes its end.  The feeding runs inside the attempt's
 * wait, through the io_pump that spool_stdin_prepare() fills in.
 *
 * --hold-stdout points each attempt's stdout at an unlinked temporary
 * file; when the attempt ends, retry copies it to stdout (the final
 * attempt) or stderr (an attempt that is retried).
 */
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define PULL_SIZE	(1 << 20)
#define COPY_BUF	16384

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

/*
 * Moves fd above 2: were retry started with stdin, stdout or stderr
 * closed, the file would take that number, and what retry writes there
 * (messages, held output) would land in it.
 */
static int
above_stdio(int fd)
{
	int nfd;

	if (fd == -1 || fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return nfd;
}

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
		return above_stdio(fd);
#endif
	if (snprintf(path, sizeof(path), "%s/retry.XXXXXXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		return -1;
	unlink(path);
	return above_stdio(fd);
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
	if (pipe2(p, O_CLOEXEC) == -1)
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
 * that stops reading cannot keep retry from a signal.  A signal that came
 * before the copy began is the one retry is about to die by, after the
 * output: only a further one interrupts.  Returns 0, -1 with errno, or
 * the signal to die by.
 */
static int
copy_out(const struct sigstate *ss, int in, off_t size, int out)
{
	struct pollfd pfd = { .fd = out, .events = POLLOUT };
	long seen = signals_count();
	off_t off = 0;
	ssize_t n;
	bool is_pipe = true;

	while (off < size) {
		if (signals_count() != seen)
			return signals_first();
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
#endif
			n = send_file(in, &off, out, (size_t)(size - off));
		if (n == 0)
			return 0;	/* the file shrank */
		if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

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

static void
pull_stdin(struct spool *sp)
{
	ssize_t n;

	n = take_stream(STDIN_FILENO, sp->file, sp->len, PULL_SIZE);
	if (n > 0)
		sp->len += n;
	else if (n == -1 && (errno == ENOSPC || errno == EFBIG ||
	    errno == EDQUOT))	/* the spool is full: never cut the input */
		err(EXIT_CANCELED, "--replay-stdin: temporary file");
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		sp->eof = true;	/* a read error ends the input too */
}

/*
 * The io_pump's descriptors.  stdin is read only once the pipe has taken
 * everything spooled, so retry reads no faster than the attempt.
 */
static int
feed_fds(void *arg, struct pollfd *fds, int max)
{
	struct spool *sp = arg;

	if (sp->wfd == -1 || max < 1)
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

static void
feed_service(void *arg, const struct pollfd *fds, int nfds)
{
	struct spool *sp = arg;

	if (nfds < 1 || fds[0].revents == 0)
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

/*
 * Sets up stdin for the next attempt: returns the read end of its feed
 * pipe and fills in the pump, or returns -1 when the attempt inherits
 * retry's stdin (rewound, when it is a regular file).
 */
int
spool_stdin_prepare(struct spool *sp, struct io_pump *pump)
{
	int p[2];

	*pump = (struct io_pump){ NULL, NULL, NULL };
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
	*pump = (struct io_pump){ feed_fds, feed_service, sp };
	return p[0];
}

int
spool_stdout_open(void)
{
	int fd;

	if ((fd = open_tmpfile()) == -1)
		err(EXIT_CANCELED, "--hold-stdout: temporary file");
	return fd;
}

void
spool_stdout_reset(int fd)
{
	if (ftruncate(fd, 0) == -1 || lseek(fd, 0, SEEK_SET) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
}

/*
 * Copies the held output to out: 0, -1 with errno if out failed, or the
 * signal that interrupted the copy.
 */
int
spool_stdout_flush(const struct sigstate *ss, int fd, int out)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		err(EXIT_CANCELED, "--hold-stdout");
	return copy_out(ss, fd, st.st_size, out);
}
