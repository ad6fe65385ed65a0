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
 * Writes never block retry for long: into a pipe retry writes only what
 * ppoll() said fits, and a reader that went away makes retry close the
 * command's end of that stream, so that the command meets the same end
 * of its pipe as it would have without retry.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define LINE_MAX_MATCH	(64 * 1024)
#define READ_SIZE	(64 * 1024)

struct rule {
	regex_t		 re;
	const char	*text;
};

struct stream {
	int	 src;		/* the command's pipe, -1 once at its end */
	int	 dst;		/* where the bytes go */
	bool	 dst_pipe;	/* write only what ppoll() said fits */
	off_t	 at;		/* the offset in dst, when it is the held file */
	bool	 held;
	char	*buf;		/* bytes read and not yet written */
	size_t	 head, tail;
	char	*line;		/* the line so far, up to LINE_MAX_MATCH */
	size_t	 linelen;
};

struct matcher {
	struct rule	*rules[MATCH_KINDS];
	int		 nrules[MATCH_KINDS];
	struct stream	 out, err;
	int		 found;		/* the deciding kind, or -1 */
	const char	*found_text;
};

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
	char why[128];
	int k, i, rc;

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
			rc = regcomp(&m->rules[k][i].re, cfg->output[k][i],
			    REG_EXTENDED | REG_NOSUB);
			if (rc != 0) {
				regerror(rc, &m->rules[k][i].re, why,
				    sizeof(why));
				snprintf(msg, len, "invalid --%s '%s': %s",
				    names[k], cfg->output[k][i], why);
				return NULL;
			}
			m->nrules[k]++;
		}
	}
	return m;
}

static void
match_line(struct matcher *m, struct stream *s)
{
	int k, i;

	s->line[s->linelen] = '\0';
	/* Success, then stop, then retry: only a stronger kind can win. */
	for (k = 0; k < MATCH_KINDS && (m->found == -1 || k < m->found);
	    k++)
		for (i = 0; i < m->nrules[k]; i++)
			if (regexec(&m->rules[k][i].re, s->line, 0, NULL,
			    0) == 0) {
				m->found = k;
				m->found_text = m->rules[k][i].text;
				return;
			}
}

/* Feeds bytes to the line assembler; a line is matched at its end. */
static void
scan_bytes(struct matcher *m, struct stream *s, const char *p, size_t n)
{
	const char *nl;
	size_t take;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		take = nl != NULL ? (size_t)(nl - p) : n;
		if (s->linelen < LINE_MAX_MATCH) {
			size_t room = LINE_MAX_MATCH - s->linelen;

			memcpy(s->line + s->linelen, p, take < room ? take :
			    room);
			s->linelen += take < room ? take : room;
		}
		if (nl == NULL)
			return;
		match_line(m, s);
		s->linelen = 0;
		p = nl + 1;
		n -= take + 1;
	}
}

static void
stream_eof(struct matcher *m, struct stream *s)
{
	if (s->linelen > 0)
		match_line(m, s);	/* a last line without a newline */
	s->linelen = 0;
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

/* Writes what it can; 0, or the errno of a held file that is full. */
static int
stream_write(struct stream *s)
{
	size_t n = s->tail - s->head;
	ssize_t w;

	if (s->dst_pipe && n > PIPE_BUF)
		n = PIPE_BUF;	/* what ppoll()'s POLLOUT promises room for */
	w = s->held ? pwrite(s->dst, s->buf + s->head, n, s->at) :
	    write(s->dst, s->buf + s->head, n);
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
		return stream_write(s);
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		stream_eof(m, s);
	return 0;
}

static int
stream_fd(const struct stream *s, struct pollfd *pfd)
{
	if (s->tail > s->head) {
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
	if (p->fd == s->src)
		return stream_read(m, s);
	return 0;
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

static int
stream_begin(struct stream *s, int dst, bool held)
{
	struct stat st;
	int p[2];

	if (s->buf == NULL && ((s->buf = malloc(READ_SIZE)) == NULL ||
	    (s->line = malloc(LINE_MAX_MATCH + 1)) == NULL))
		err(EXIT_CANCELED, NULL);
	if (fd_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	s->src = p[0];
	s->dst = dst;
	s->held = held;
	s->dst_pipe = !held && fstat(dst, &st) == 0 && S_ISFIFO(st.st_mode);
	s->at = 0;
	s->head = s->tail = s->linelen = 0;
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
