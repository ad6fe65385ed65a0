/*
 * streams.c: the command's streams during one attempt.  Each has one
 * source, an optional line matcher and one sink:
 *
 *	stdin	retry's stdin, spooled by feed.c (-I); else the command
 *		reads retry's stdin itself
 *	stdout	a pipe, through the matcher (match.c) when an output
 *		condition looks at it, into the held file (held.c, -O) or
 *		retry's stdout
 *	stderr	the same, with -E's held file, into retry's stderr
 *
 * With --stall-timeout both are pipes, whatever else is given, so that
 * retry sees every byte the attempt writes: streams_taken() counts them,
 * and without a matcher they are spliced on to their sink as they come.
 * Otherwise a stream that has neither a matcher nor the held file as its
 * sink is no pipe: the command writes to retry's descriptor directly.  Through a
 * matcher the bytes go on to their sink unchanged and at once, each
 * stream in its own order.  Matching a read can take long against a
 * costly ERE: it stops when its time (MATCH_TIME a service) is up and
 * goes on at the next service, so that the caller's wait, which does not
 * wait while a stream is busy (streams_busy()), looks at the signals and
 * the clock in between; meanwhile that stream reads nothing more.
 *
 * attempt.c services them inside the attempt's wait.  Writes never block
 * retry: into a pipe retry writes only what ppoll() said fits, a terminal
 * it opens anew without blocking, and a reader that went away (EPIPE)
 * makes retry close the command's end of that stream, so that the
 * command meets the same end of its pipe as it would have without
 * retry.  A temporary file or a stdout that cannot be written (a full
 * disk, EIO) fails the streams: the caller
 * kills the attempt before it reports, so that no process sees a clean
 * end of file on input that was cut short.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "feed.h"
#include "held.h"
#include "match.h"
#include "streams.h"

#ifndef MSG_NOSIGNAL
/* Where send() lacks it (older macOS): retry ignores SIGPIPE anyway. */
#define MSG_NOSIGNAL	0
#endif

#define READ_SIZE	((size_t)64 * 1024)
#define PULL_SIZE	(1 << 20)
#define MATCH_TIME	(50 * NSEC_PER_MSEC)	/* matching, a service */

/* The command's stdout or stderr, as retry reads it. */
struct stream {
	int	 which;		/* MATCH_STDOUT or MATCH_STDERR */
	int	 src;		/* the command's pipe, -1 once at its end */
	struct matcher *matcher;	/* or NULL */
	struct held *held;	/* the sink: the held file, or */
	int	 dst;		/* a descriptor of retry's */
	bool	 dst_pipe;	/* a pipe: tee(2) into it, never blocking */
	bool	 dst_sock;	/* a socket: send(2) without blocking */
	bool	 dst_own;	/* dst is retry's own non-blocking open */
	bool	 dst_file;	/* a file or /dev/null: writes never block */
	bool	 full;		/* dst had no room at the last try */
	bool	 wide;		/* its pipes were made large (stream_widen) */
	bool	 dropping;	/* dst failed: what is read is dropped */
	char	*buf;		/* bytes read and not yet written */
	size_t	 head, tail;
	uint64_t taken;		/* bytes read from src, for the stall watch */
	size_t	 mpos, mlen;	/* of buf: matched, to match */
	size_t	 owed;		/* teed to dst, still to read and match */
};

struct streams {
	struct feed	*feed;		/* -I, or NULL */
	struct held	*held[2];	/* -O, -E; or NULL */
	struct matcher	*matcher;	/* output conditions, or NULL */
	struct stream	 out, err;
	bool		 watch;		/* --stall-timeout: both are pipes */
	const char	*failed;	/* what could not be written */
};

/* Closes the terminal that stream_begin() opened for itself, if any. */
static void
stream_close_dst(struct stream *s)
{
	if (s->dst_own) {
		close(s->dst);
		s->dst_own = false;
	}
}

static void
stream_close_src(struct stream *s)
{
	if (s->src != -1) {
		close(s->src);
		s->src = -1;
	}
	s->owed = 0;
}

static void
stream_eof(struct stream *s)
{
	if (s->matcher != NULL && signals_stop() == 0)
		matcher_eof(s->matcher, s->which);
	stream_close_src(s);
}

/*
 * Writing to dst failed with e.  Only EPIPE (ECONNRESET on a socket)
 * means that its reader went away: the command then finds its pipe
 * closed too, as it would have without retry.  Any other error (a full
 * disk, EIO) on stdout is returned, for the caller to report: the output
 * was not delivered.  On stderr the bytes are dropped from then on and
 * the command goes on, as it would with a full stderr of its own.
 */
static int
stream_lost(struct stream *s, int e)
{
	s->head = s->tail = 0;
	if (e == EPIPE || (e == ECONNRESET && s->dst_sock))
		stream_close_src(s);
	else if (s->which == MATCH_STDOUT)
		return e;
	else
		s->dropping = true;
	return 0;
}

/* Whether bytes read wait to be matched: then nothing more is read. */
static bool
stream_busy(const struct stream *s)
{
	return s->mpos < s->mlen;
}

/*
 * Matches what waits in buf until the clock passes until.  After a stop
 * signal nothing is decided by the output any more, and the backlog a
 * pipe holds (up to 1 MiB) is passed on unmatched.
 */
static void
stream_match(struct stream *s, nsec_t until)
{
	if (s->matcher == NULL || signals_stop() != 0)
		s->mpos = s->mlen;
	else
		s->mpos += matcher_scan(s->matcher, s->which, s->buf + s->mpos,
		    s->mlen - s->mpos, until);
}

/* The n bytes just read into buf are to be matched. */
static void
stream_scan(struct stream *s, size_t n, nsec_t until)
{
	s->mpos = 0;
	s->mlen = n;
	stream_match(s, until);
}

/*
 * Writes what it can of the buffer: all of it into a file, what fits into
 * a socket or retry's own non-blocking open of a terminal, at most
 * PIPE_BUF bytes into a pipe where there is no tee(2) (or a terminal that
 * could not be opened anew), which ppoll()'s POLLOUT promises room for.
 * Returns 0, or the errno of a held file that is full.
 */
static int
stream_write(struct stream *s)
{
	size_t n = s->tail - s->head;
	ssize_t w;

	if (s->dropping) {
		s->head = s->tail = 0;
		return 0;
	}
	if (s->held == NULL && !s->dst_sock && !s->dst_own && !s->dst_file &&
	    n > PIPE_BUF)
		n = PIPE_BUF;	/* after POLLOUT, a pipe takes that much */
	if (s->held != NULL)
		w = held_write(s->held, s->buf + s->head, n);
	else if (s->dst_sock)
		w = send(s->dst, s->buf + s->head, n, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	else
		w = write(s->dst, s->buf + s->head, n);
	if (w > 0) {
		s->head += (size_t)w;
		if (s->head == s->tail)
			s->head = s->tail = 0;
	} else if (w == -1 && s->held != NULL)
		return errno == EINTR ? 0 : errno;
	else if (w == -1 && errno != EAGAIN && errno != EINTR)
		return stream_lost(s, errno);
	return 0;
}

/*
 * A transfer that took all it asked for found the command's pipe full:
 * the command writes in bulk.  Larger pipes on both sides of retry then
 * cut the turns the three processes take (64 KiB pipes made a condition
 * cost 1.5 to 2.5 times `cat | cat`, 1 MiB pipes about as much as it,
 * bench/results.md).  Into a pipe, only once its reader has shown that
 * it reads (fd_grow_read_pipe()), and the command's pipe with it, so
 * that a reader that goes away early still costs the command its
 * SIGPIPE.  A command that writes little keeps the default pipes.
 */
static void
stream_widen(struct stream *s, ssize_t took)
{
	if (s->wide || took < (ssize_t)READ_SIZE)
		return;
	if (s->dst_pipe &&
	    !fd_grow_read_pipe(s->dst, s->taken + (uint64_t)took))
		return;
	s->wide = true;
	fd_grow_pipe(s->src);
}

static int
stream_read(struct stream *s, nsec_t until)
{
	ssize_t n;

	n = read(s->src, s->buf, READ_SIZE);
	stream_widen(s, n);
	if (n > 0) {
		s->taken += (uint64_t)n;
		stream_scan(s, (size_t)n, until);
		s->head = 0;
		s->tail = (size_t)n;
		/* Elsewhere the loop waits for POLLOUT: no write blocks. */
		if (s->held != NULL || s->dst_sock || s->dst_own ||
		    s->dst_file || s->dropping)
			return stream_write(s);
		return 0;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		stream_eof(s);
	return 0;
}

/*
 * Reads back and matches what tee(2) passed on, until it is all matched
 * or the time is up: the rest stays in the pipe, owed, for the next turn.
 */
static void
stream_take_owed(struct stream *s, nsec_t until)
{
	ssize_t r;

	while (s->owed > 0 && !stream_busy(s)) {
		r = read(s->src, s->buf, s->owed < READ_SIZE ? s->owed :
		    READ_SIZE);
		if (r <= 0) {
			s->owed = 0;
			break;
		}
		s->owed -= (size_t)r;
		stream_scan(s, (size_t)r, until);
	}
}

#ifdef __linux__
/*
 * Into a pipe the bytes go by tee(2), without a copy and without
 * blocking, and only what it took is then read back for matching.
 */
static int
stream_tee(struct stream *s, nsec_t until)
{
	ssize_t n;

	n = tee(s->src, s->dst, s->wide ? PULL_SIZE : READ_SIZE,
	    SPLICE_F_NONBLOCK);
	stream_widen(s, n);
	if (n == -1 && errno == EAGAIN)
		s->full = true;	/* src is readable: dst has no room */
	else if (n == -1 && errno == EINVAL) {
		s->dst_pipe = false;	/* no tee(2) here after all */
		return stream_read(s, until);
	} else if (n == -1 && errno != EINTR)
		return stream_lost(s, errno);
	else if (n == 0)
		stream_eof(s);
	if (n > 0)
		s->taken += (uint64_t)n;
	s->owed = n > 0 ? (size_t)n : 0;
	stream_take_owed(s, until);
	return 0;
}
#endif

#ifdef __linux__
/*
 * --stall-timeout without a matcher, into a pipe: splice(2) moves the
 * bytes without a copy and without blocking, as many as fit.
 */
static int
stream_splice(struct stream *s, nsec_t until)
{
	ssize_t n;

	n = splice(s->src, NULL, s->dst, NULL, s->wide ? PULL_SIZE :
	    READ_SIZE, SPLICE_F_NONBLOCK);
	stream_widen(s, n);
	if (n > 0)
		s->taken += (uint64_t)n;
	else if (n == -1 && errno == EAGAIN)
		s->full = true;	/* src is readable: dst has no room */
	else if (n == -1 && errno == EINVAL) {
		s->dst_pipe = false;	/* no splice(2) here after all */
		return stream_read(s, until);
	} else if (n == -1 && errno != EINTR)
		return stream_lost(s, errno);
	else if (n == 0)
		stream_eof(s);
	return 0;
}
#endif

/*
 * With no matcher, into the held file without a copy, a few large chunks
 * at a time so that the feed gets its turn; 0, or the errno of a held
 * file that cannot grow.
 */
static int
stream_drain(struct stream *s)
{
	ssize_t n;
	int i;

	for (i = 0; i < 4; i++) {
		if ((n = held_take(s->held, s->src, PULL_SIZE)) > 0) {
			s->taken += (uint64_t)n;
			continue;
		}
		if (n == -1 && fd_file_full())
			return errno;
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			stream_close_src(s);	/* the output is whole */
		break;
	}
	return 0;
}

static int
stream_fd(const struct stream *s, struct pollfd *pfd)
{
	if (s->tail > s->head || (s->full && !stream_busy(s))) {
		*pfd = (struct pollfd){ .fd = s->dst, .events = POLLOUT };
		return 1;
	}
	if (s->src == -1 || stream_busy(s))
		return 0;
	*pfd = (struct pollfd){ .fd = s->src, .events = POLLIN };
	return 1;
}

static int
stream_service(struct stream *s, const struct pollfd *p, nsec_t until)
{
	if (p->revents == 0)
		return 0;
	if (s->matcher == NULL && s->held != NULL)
		return stream_drain(s);
	if (p->fd == s->dst && s->tail > s->head)
		return stream_write(s);
	if (stream_busy(s))
		return 0;
	s->full = false;
	if (s->owed > 0) {
		stream_take_owed(s, until);
		return 0;
	}
#ifdef __linux__
	if (s->dst_pipe && s->matcher == NULL)
		return stream_splice(s, until);
	if (s->dst_pipe)
		return stream_tee(s, until);
#endif
	return stream_read(s, until);
}

/*
 * A terminal that nobody reads (Ctrl-S, a stalled ssh) would block a
 * write(2) and with it the loop, the timeout and the stop signals.  Its
 * descriptor is shared with the caller, so it cannot be made non-blocking
 * in place: retry opens the terminal anew, non-blocking, for itself.
 * Where that fails, writes wait for POLLOUT and take PIPE_BUF at most.
 */
static void
stream_open_tty(struct stream *s)
{
	int fd = fd_tty_nonblock(s->dst);

	if (fd == -1)
		return;
	s->dst = fd;
	s->dst_own = true;
}

/* The sink dst, a descriptor of retry's: how to write to it. */
static void
stream_sink_fd(struct stream *s, int dst)
{
	struct stat st;

	s->dst = dst;
	if (fstat(dst, &st) == 0) {
		s->dst_pipe = S_ISFIFO(st.st_mode);
		s->dst_sock = S_ISSOCK(st.st_mode);
		s->dst_file = S_ISREG(st.st_mode) ||
		    (S_ISCHR(st.st_mode) && !isatty(dst));
	}
	if (!s->dst_pipe && !s->dst_sock && !s->dst_file)
		stream_open_tty(s);
}

/*
 * Sets up the stream for the next attempt, into the held file h or, when
 * h is NULL, into dst; returns the write end of its pipe, the command's.
 */
static int
stream_begin(struct stream *s, struct matcher *m, struct held *h, int dst)
{
	int p[2];

	if ((m != NULL || h == NULL) && s->buf == NULL &&
	    (s->buf = malloc(READ_SIZE)) == NULL)
		err(EXIT_CANCELED, NULL);
	if (fd_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	if (m == NULL)
		fd_grow_pipe(p[0]);	/* spliced: fewer, larger moves */
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	stream_close_dst(s);
	s->src = p[0];
	s->matcher = m;
	s->held = h;
	s->dst = -1;
	s->dst_pipe = s->dst_sock = s->dst_file = s->full = s->wide = false;
	s->dropping = false;
	if (h == NULL)
		stream_sink_fd(s, dst);
	s->head = s->tail = s->mpos = s->mlen = s->owed = 0;
	return p[1];
}

/*
 * The streams of -I (replay_stdin), -O and -E (hold[0], hold[1]), the
 * output conditions of m and --stall-timeout (watch), or NULL for none:
 * the command then has retry's.
 */
struct streams *
streams_open(bool replay_stdin, const bool hold[2], struct matcher *m,
    bool watch)
{
	struct streams *st;

	if (!replay_stdin && !hold[0] && !hold[1] && m == NULL && !watch)
		return NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		err(EXIT_CANCELED, NULL);
	if (replay_stdin)
		st->feed = feed_open();
	if (hold[0])
		st->held[0] = held_open("--hold-stdout");
	if (hold[1])
		st->held[1] = held_open("--hold-stderr");
	st->matcher = m;
	st->watch = watch;
	st->out = (struct stream){ .which = MATCH_STDOUT, .src = -1,
	    .dst = -1 };
	st->err = (struct stream){ .which = MATCH_STDERR, .src = -1,
	    .dst = -1 };
	return st;
}

/*
 * Sets up the streams for the next attempt; fd gets the command's stdin,
 * stdout and stderr, each -1 where the command has retry's own.
 */
void
streams_begin(struct streams *st, int fd[3])
{
	struct stream *s[2] = { &st->out, &st->err };
	struct matcher *m;
	int i;

	fd[0] = feed_begin(st->feed);
	if (st->matcher != NULL)
		matcher_begin(st->matcher);
	/* A stream that none of these needs is the command's own. */
	for (i = 0; i < 2; i++) {
		m = matcher_wants(st->matcher, i) ? st->matcher : NULL;
		fd[i + 1] = -1;
		if (st->held[i] != NULL)
			held_begin(st->held[i]);
		if (m != NULL || st->held[i] != NULL || st->watch)
			fd[i + 1] = stream_begin(s[i], m, st->held[i],
			    STDOUT_FILENO + i);
	}
}

/* Fills in up to STREAMS_FDS descriptors to wait for; returns how many. */
int
streams_fds(struct streams *st, struct pollfd *fds)
{
	int n = feed_poll_fd(st->feed, &fds[0]);

	n += stream_fd(&st->out, &fds[n]);
	n += stream_fd(&st->err, &fds[n]);
	return n;
}

/* What stream s could not write, for streams_fail(). */
static void
stream_failed(struct streams *st, const struct stream *s)
{
	if (s->held != NULL)
		st->failed = s->which == MATCH_STDOUT ?
		    "--hold-stdout: temporary file" :
		    "--hold-stderr: temporary file";
	else
		st->failed = "standard output";
}

/*
 * Acts on what the wait said of the nfds descriptors that streams_fds()
 * filled in: 0, or the errno of a temporary file that cannot grow.
 */
int
streams_service(struct streams *st, const struct pollfd *fds, int nfds)
{
	nsec_t until = mono_now() + MATCH_TIME;
	struct stream *s;
	int i, e = 0;

	if (stream_busy(&st->out))
		stream_match(&st->out, until);
	if (stream_busy(&st->err))
		stream_match(&st->err, until);
	for (i = 0; i < nfds && e == 0; i++) {
		if (fds[i].fd == st->out.src || fds[i].fd == st->out.dst)
			s = &st->out;
		else if (fds[i].fd == st->err.src || fds[i].fd == st->err.dst)
			s = &st->err;
		else {
			if ((e = feed_service(st->feed, &fds[i])) != 0)
				st->failed = "--replay-stdin: temporary file";
			continue;
		}
		if ((e = stream_service(s, &fds[i], until)) != 0)
			stream_failed(st, s);
	}
	/* The held file takes every byte at once; a pipe waits for room. */
	for (i = 0, s = &st->out; i < 2; i++, s = &st->err)
		while (e == 0 && s->held != NULL && s->tail > s->head)
			if ((e = stream_write(s)) != 0)
				stream_failed(st, s);
	return e;
}

/*
 * The bytes the attempt has written so far, to stdout and stderr
 * together, held or passed on.
 */
uint64_t
streams_taken(const struct streams *st)
{
	return st->out.taken + st->err.taken;
}

/*
 * Whether output waits for a sink that takes nothing (a full pipe, a
 * terminal under Ctrl-S): the attempt is then not silent, its reader is.
 */
bool
streams_backed_up(const struct streams *st)
{
	return st->out.full || st->err.full || st->out.tail > st->out.head ||
	    st->err.tail > st->err.head;
}

/* Whether the command's output is complete: every pipe at its end. */
bool
streams_done(const struct streams *st)
{
	return st->out.src == -1 && st->err.src == -1 &&
	    st->out.tail == st->out.head && st->err.tail == st->err.head &&
	    !streams_busy(st);
}

/* Whether matching waits to go on: the caller's wait must not wait. */
bool
streams_busy(const struct streams *st)
{
	return stream_busy(&st->out) || stream_busy(&st->err);
}

/* Reports what streams_service() failed at, error, and exits. */
_Noreturn void
streams_fail(const struct streams *st, int error)
{
	errc(EXIT_CANCELED, error, "%s", st->failed);
}

/*
 * The attempt ended: its pipes close, what it did not read waits for the
 * next one.  Returns the deciding output condition, or -1, and its ERE
 * in *text.
 */
int
streams_end(struct streams *st, const char **text)
{
	feed_end(st->feed);
	stream_close_src(&st->out);
	stream_close_src(&st->err);
	*text = NULL;
	return st->matcher != NULL ? matcher_end(st->matcher, text) : -1;
}

/* The held file of stream which (MATCH_STDOUT: -O, else -E), or NULL. */
struct held *
streams_held(const struct streams *st, int which)
{
	return st != NULL ? st->held[which] : NULL;
}
