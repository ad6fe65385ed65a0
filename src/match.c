/*
 * match.c: output conditions.  With --success-if-output, --stop-if-output
 * or --retry-if-output, each attempt's stdout and stderr are pipes that
 * retry reads; every line is matched against the EREs as the bytes
 * stream through, and the bytes go on to their destination unchanged and
 * at once, each stream in its own order: retry's stdout and stderr, or
 * the held output of --hold-stdout.  A line longer than LINE_MAX is
 * matched on its first LINE_MAX bytes; memory stays bounded.  A match
 * does not cut the attempt short: the decision comes when it ends.
 * Without a condition nothing here runs, and the command writes to
 * retry's own descriptors directly.
 *
 * Writes never block retry: into a pipe retry writes only what ppoll()
 * said fits, a terminal it opens anew without blocking, and a reader that went away makes retry close the
 * command's end of that stream, so that the command meets the same end
 * of its pipe as it would have without retry.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ere.h"
#include "internal.h"

#ifndef MSG_NOSIGNAL
/* Where send() lacks it (older macOS): retry ignores SIGPIPE anyway. */
#define MSG_NOSIGNAL	0
#endif

#define LINE_MAX_MATCH	((size_t)64 * 1024)
#define READ_SIZE	((size_t)64 * 1024)
#define BLOCK_SIZE	(4 * LINE_MAX_MATCH)	/* lines matched at once */

struct rule {
	struct ere	*re;
	const char	*text;
};

struct stream {
	int	 src;		/* the command's pipe, -1 once at its end */
	int	 dst;		/* where the bytes go */
	bool	 dst_pipe;	/* a pipe: tee(2) into it, never blocking */
	bool	 dst_sock;	/* a socket: send(2) without blocking */
	bool	 dst_own;	/* dst is retry's own non-blocking open */
	bool	 dst_file;	/* a file or /dev/null: writes never block */
	bool	 full;		/* dst had no room at the last try */
	off_t	 at;		/* the offset in dst, when it is the held file */
	bool	 held;
	char	*buf;		/* bytes read and not yet written */
	size_t	 head, tail;
	char	*block;		/* whole lines, then the one being read */
	size_t	 len;		/* bytes in block */
	size_t	 start;		/* where the line being read starts */
	bool	 cut;		/* that line is cut: a NUL, or too long */
};

struct matcher {
	struct rule	*rules[MATCH_KINDS];
	int		 nrules[MATCH_KINDS];
	struct stream	 out, err;
	int		 found;		/* the deciding kind, or -1 */
	const char	*found_text;
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

void
matcher_free(struct matcher *m)
{
	int k, i;

	if (m == NULL)
		return;
	for (k = 0; k < MATCH_KINDS; k++) {
		for (i = 0; i < m->nrules[k]; i++)
			ere_free(m->rules[k][i].re);
		free(m->rules[k]);
	}
	stream_close_dst(&m->out);
	stream_close_dst(&m->err);
	free(m->out.buf);
	free(m->out.block);
	free(m->err.buf);
	free(m->err.block);
	free(m);
}

/*
 * Compiles the conditions of cfg; NULL without any.  A bad ERE is a
 * usage error, told in err, with NULL returned.
 */
struct matcher *
matcher_open(const struct config *cfg, char *msg, size_t len)
{
	static const char *const names[] = { "success-if-output",
	    "stop-if-output", "retry-if-output" };
	struct matcher *m;
	const char *why;
	int k, i;

	*msg = '\0';
	if (cfg->noutput[0] + cfg->noutput[1] + cfg->noutput[2] == 0)
		return NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		err(EXIT_CANCELED, NULL);
	for (k = 0; k < MATCH_KINDS; k++) {
		if ((m->rules[k] = calloc((size_t)cfg->noutput[k] + 1,
		    sizeof(struct rule))) == NULL)
			err(EXIT_CANCELED, NULL);
		for (i = 0; i < cfg->noutput[k]; i++) {
			m->rules[k][i].text = cfg->output[k][i];
			/* Lines are matched one at a time: none has one. */
			if (strchr(cfg->output[k][i], '\n') != NULL) {
				snprintf(msg, len, "invalid --%s: an ERE "
				    "cannot contain a newline", names[k]);
				matcher_free(m);
				return NULL;
			}
			m->rules[k][i].re = ere_compile(cfg->output[k][i],
			    &why);
			if (m->rules[k][i].re == NULL) {
				snprintf(msg, len, "invalid --%s '%s': %s",
				    names[k], cfg->output[k][i], why);
				matcher_free(m);
				return NULL;
			}
			m->nrules[k]++;
		}
	}
	return m;
}

/*
 * Matches the first n bytes of the block: whole lines, the newline of the
 * last one left out, or a last line that has none.  One ere_exec() call
 * serves many lines: it matches each on its own, in time linear in its
 * length.  Of the rules of the strongest kind that match, the one whose
 * match comes first names the condition.
 */
static void
match_block(struct matcher *m, struct stream *s, size_t n)
{
	size_t so, first;
	int k, i;

	/* Success, then stop, then retry: only a stronger kind can win. */
	for (k = 0; k < MATCH_KINDS && (m->found == -1 || k < m->found);
	    k++) {
		first = SIZE_MAX;
		for (i = 0; i < m->nrules[k]; i++)
			if (ere_exec(m->rules[k][i].re, s->block, n, &so) &&
			    so < first) {
				first = so;
				m->found = k;
				m->found_text = m->rules[k][i].text;
			}
		if (first != SIZE_MAX)
			break;
	}
}

/* Matches the whole lines gathered, and keeps the one being read. */
static void
flush_lines(struct matcher *m, struct stream *s)
{
	if (s->start == 0)
		return;
	match_block(m, s, s->start - 1);
	memmove(s->block, s->block + s->start, s->len - s->start);
	s->len -= s->start;
	s->start = 0;
}

/*
 * Feeds bytes to the line assembler.  A line is kept up to its first NUL
 * byte (as when regexec() matched it: the man page says so) and up to
 * LINE_MAX_MATCH bytes; whole lines are matched when the block is full
 * and at the end of each read.
 */
static void
scan_bytes(struct matcher *m, struct stream *s, const char *p, size_t n)
{
	const char *nl, *nul;
	size_t take, keep;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		take = nl != NULL ? (size_t)(nl - p) : n;
		keep = s->cut ? 0 : take;
		if ((nul = memchr(p, '\0', keep)) != NULL) {
			keep = (size_t)(nul - p);
			s->cut = true;
		}
		if (keep > LINE_MAX_MATCH - (s->len - s->start)) {
			keep = LINE_MAX_MATCH - (s->len - s->start);
			s->cut = true;
		}
		memcpy(s->block + s->len, p, keep);
		s->len += keep;
		if (nl == NULL)
			break;
		s->block[s->len++] = '\n';
		s->start = s->len;
		s->cut = false;
		if (BLOCK_SIZE - s->len < LINE_MAX_MATCH + 2)
			flush_lines(m, s);
		p = nl + 1;
		n -= take + 1;
	}
	flush_lines(m, s);
}

static void
stream_eof(struct matcher *m, struct stream *s)
{
	flush_lines(m, s);
	if (s->len > 0 || s->cut)
		match_block(m, s, s->len);	/* a last line, no newline */
	s->len = s->start = 0;
	s->cut = false;
	close(s->src);
	s->src = -1;
}

/* The reader of dst went away: the command finds its pipe closed too. */
static void
stream_orphan(struct stream *s)
{
	s->head = s->tail = 0;
	if (s->src != -1) {
		close(s->src);
		s->src = -1;
	}
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

	if (!s->held && !s->dst_sock && !s->dst_own && !s->dst_file &&
	    n > PIPE_BUF)
		n = PIPE_BUF;	/* after POLLOUT, a pipe takes that much */
	if (s->held)
		w = pwrite(s->dst, s->buf + s->head, n, s->at);
	else if (s->dst_sock)
		w = send(s->dst, s->buf + s->head, n, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	else
		w = write(s->dst, s->buf + s->head, n);
	if (w > 0) {
		s->head += (size_t)w;
		s->at += w;
		if (s->head == s->tail)
			s->head = s->tail = 0;
	} else if (w == -1 && s->held)
		return errno == EINTR ? 0 : errno;
	else if (w == -1 && errno != EAGAIN && errno != EINTR)
		stream_orphan(s);
	return 0;
}

static int
stream_read(struct matcher *m, struct stream *s)
{
	ssize_t n;

	n = read(s->src, s->buf, READ_SIZE);
	if (n > 0) {
		scan_bytes(m, s, s->buf, (size_t)n);
		s->head = 0;
		s->tail = (size_t)n;
		/* Elsewhere the loop waits for POLLOUT: no write blocks. */
		if (s->held || s->dst_sock || s->dst_own || s->dst_file)
			return stream_write(s);
		return 0;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		stream_eof(m, s);
	return 0;
}

#ifdef __linux__
/*
 * Into a pipe the bytes go by tee(2), without a copy and without
 * blocking, and only what it took is then read back for matching.
 */
static int
stream_tee(struct matcher *m, struct stream *s)
{
	ssize_t n, r, done;

	n = tee(s->src, s->dst, READ_SIZE, SPLICE_F_NONBLOCK);
	if (n == -1 && errno == EAGAIN)
		s->full = true;	/* src is readable: dst has no room */
	else if (n == -1 && errno == EINVAL) {
		s->dst_pipe = false;	/* no tee(2) here after all */
		return stream_read(m, s);
	} else if (n == -1 && errno != EINTR)
		stream_orphan(s);
	else if (n == 0)
		stream_eof(m, s);
	for (done = 0; done < n; done += r) {
		r = read(s->src, s->buf, (size_t)(n - done) < READ_SIZE ?
		    (size_t)(n - done) : READ_SIZE);
		if (r <= 0)
			break;
		scan_bytes(m, s, s->buf, (size_t)r);
	}
	return 0;
}
#endif

static int
stream_fd(const struct stream *s, struct pollfd *pfd)
{
	if (s->tail > s->head || s->full) {
		*pfd = (struct pollfd){ .fd = s->dst, .events = POLLOUT };
		return 1;
	}
	if (s->src == -1)
		return 0;
	*pfd = (struct pollfd){ .fd = s->src, .events = POLLIN };
	return 1;
}

static int
pump_fds(void *arg, struct pollfd *fds, int max)
{
	struct matcher *m = arg;
	int n = 0;

	if (max >= 2) {
		n += stream_fd(&m->out, &fds[n]);
		n += stream_fd(&m->err, &fds[n]);
	}
	return n;
}

static int
stream_service(struct matcher *m, struct stream *s, const struct pollfd *p)
{
	if (p->revents == 0)
		return 0;
	if (p->fd == s->dst && s->tail > s->head)
		return stream_write(s);
	s->full = false;
#ifdef __linux__
	if (s->dst_pipe)
		return stream_tee(m, s);
#endif
	return stream_read(m, s);
}

static int
pump_service(void *arg, const struct pollfd *fds, int nfds)
{
	struct matcher *m = arg;
	int i, e = 0;

	for (i = 0; i < nfds && e == 0; i++) {
		if (fds[i].fd == m->out.src || fds[i].fd == m->out.dst)
			e = stream_service(m, &m->out, &fds[i]);
		else
			e = stream_service(m, &m->err, &fds[i]);
	}
	/* The held file takes every byte at once; a pipe waits for room. */
	while (e == 0 && m->out.held && m->out.tail > m->out.head)
		e = stream_write(&m->out);
	return e;
}

static _Noreturn void
pump_fail(void *arg, int error)
{
	(void)arg;
	errc(EXIT_CANCELED, error, "--hold-stdout: temporary file");
}

static bool
pump_done(void *arg)
{
	const struct matcher *m = arg;

	return m->out.src == -1 && m->err.src == -1 &&
	    m->out.tail == m->out.head && m->err.tail == m->err.head;
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

static int
stream_begin(struct stream *s, int dst, bool held)
{
	struct stat st;
	int p[2];

	if (s->buf == NULL && ((s->buf = malloc(READ_SIZE)) == NULL ||
	    (s->block = malloc(BLOCK_SIZE + 1)) == NULL))
		err(EXIT_CANCELED, NULL);
	if (fd_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	stream_close_dst(s);
	s->src = p[0];
	s->dst = dst;
	s->held = held;
	s->dst_pipe = s->dst_sock = s->dst_file = s->full = false;
	if (!held && fstat(dst, &st) == 0) {
		s->dst_pipe = S_ISFIFO(st.st_mode);
		s->dst_sock = S_ISSOCK(st.st_mode);
		s->dst_file = S_ISREG(st.st_mode) ||
		    (S_ISCHR(st.st_mode) && !isatty(dst));
	}
	if (!held && !s->dst_pipe && !s->dst_sock && !s->dst_file)
		stream_open_tty(s);
	s->at = 0;
	s->head = s->tail = s->len = s->start = 0;
	s->cut = false;
	return p[1];
}

/*
 * Sets up the next attempt: its stdout and stderr become pipes, whose
 * write ends it returns in io, and the pump that reads them.  held is
 * the --hold-stdout file, or -1 for retry's stdout.
 */
void
matcher_begin(struct matcher *m, int held, struct attempt_io *io,
    struct io_pump *pump)
{
	m->found = -1;
	m->found_text = NULL;
	io->out = stream_begin(&m->out, held != -1 ? held : STDOUT_FILENO,
	    held != -1);
	io->err = stream_begin(&m->err, STDERR_FILENO, false);
	*pump = (struct io_pump){ pump_fds, pump_service, pump_done,
	    pump_fail, m };
}

/* The attempt is over: its pipes close; returns the deciding kind. */
int
matcher_end(struct matcher *m, const char **text)
{
	struct stream *s[2] = { &m->out, &m->err };
	int i;

	for (i = 0; i < 2; i++)
		if (s[i]->src != -1) {
			close(s[i]->src);
			s[i]->src = -1;
		}
	*text = m->found_text;
	return m->found;
}
