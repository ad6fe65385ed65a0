/*
 * status.c: the wait before the next attempt, as the text sink shows it.
 * On a terminal that can take carriage returns it is a status line that
 * counts down in place, redrawn at each tick of the sleep, and then
 * leaves the plain line behind, so that the command's own output never
 * lands in the middle of it; elsewhere it is the plain line alone.
 * log.c makes both lines; this file draws them, through errout.c, which
 * bounds the wait for a terminal nobody reads.
 */
#include <sys/ioctl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "text/escape.h"
#include "errout.h"
#include "status.h"

/* Whether a terminal can take the status line's carriage returns. */
static bool
can_count_down(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && term != NULL && *term != '\0' &&
	    strcmp(term, "dumb") != 0;
}

/*
 * The line is drawn on fd, through err, when it is wanted (text at the
 * default verbosity or above) and fd can take it.
 */
void
status_open(struct status_line *sl, struct errout *err, int fd, bool wanted)
{
	sl->err = err;
	sl->fd = fd;
	sl->on = wanted && can_count_down(fd);
}

/*
 * A wait begins: status is what the status line says before the time
 * left, plain the line it leaves behind, which is taken over; without a
 * status line, plain is written now.
 */
void
status_wait(struct status_line *sl, const char *status, struct strbuf *plain)
{
	sb_free(&sl->status);
	sb_visible(&sl->status, getprogname());
	sb_str(&sl->status, ": ");
	sb_visible(&sl->status, status);
	sb_free(&sl->plain);
	sl->plain = *plain;
	*plain = (struct strbuf){ 0 };
	if (!sl->on)
		errout_write(sl->err, sl->fd, sl->plain.s, sl->plain.len);
}

/* The columns that the UTF-8 text s takes: one for each character. */
static size_t
columns(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	return c;
}

/* The bytes of s that hold its first c characters. */
static size_t
bytes_of(const char *s, size_t c)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c-- == 0)
			break;
	return i;
}

/*
 * Appends the status to line in at most room columns: whole when it fits,
 * else its start and its end around "...", else nothing.
 */
static void
status_fit(struct strbuf *line, const struct strbuf *status, size_t room)
{
	const char *s = sb_text(status);
	size_t cols = columns(s, status->len), head, tail, skip;

	if (cols <= room) {
		sb_add(line, s, status->len);
		return;
	}
	if (room < 12)
		return;
	head = (room - 3 + 1) / 2;
	tail = room - 3 - head;
	sb_add(line, s, bytes_of(s, head));
	sb_str(line, "...");
	skip = bytes_of(s, cols - tail);
	sb_add(line, s + skip, status->len - skip);
}

/*
 * Redraws the status line: the attempt_sleep() tick on a terminal.  The line
 * must not wrap, or it could not be redrawn in place, and the time left
 * is what matters: on a narrow terminal the status gives way first.  A
 * terminal made narrower since the last tick may have wrapped the line
 * drawn then: the rows it took are cleared first.
 */
void
status_draw(struct status_line *sl, nsec_t left)
{
	struct strbuf line = { 0 }, vis = { 0 };
	struct winsize ws;
	char t[48];
	size_t width = 80, tcols, rows;

	if (ioctl(sl->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		width = ws.ws_col;
	/* Round up, so that the line never shows 0.0s while waiting. */
	left = (left + 99999999) / 100000000;
	snprintf(t, sizeof(t), "next in %lld.%llds", (long long)(left / 10),
	    (long long)(left % 10));
	tcols = strlen(t);
	sb_str(&line, "\r\033[K");
	for (rows = sl->drawn > 0 ? ((size_t)sl->drawn - 1) / width : 0;
	    rows > 0; rows--)
		sb_str(&line, "\033[A\r\033[K");
	if (width - 1 >= tcols + 2 + 12 || width - 1 >=
	    tcols + 2 + columns(sb_text(&sl->status), sl->status.len)) {
		status_fit(&vis, &sl->status, width - 1 - tcols - 2);
		sb_str(&vis, ", ");
	}
	if (tcols > width - 1)
		tcols = width - 1;
	sb_add(&vis, t, tcols);
	sl->drawn = (int)columns(vis.s, vis.len);
	sb_add(&line, vis.s, vis.len);
	errout_write(sl->err, sl->fd, line.s, line.len);
	sb_free(&line);
	sb_free(&vis);
	sl->open = true;
}

/* The wait is over: the status line gives way to the plain line. */
void
status_done(struct status_line *sl)
{
	if (sl->open)
		errout_write(sl->err, sl->fd, "\r\033[K", 4);
	/* Also after a sleep too short for a single redraw. */
	if (sl->on)
		errout_write(sl->err, sl->fd, sl->plain.s, sl->plain.len);
	sl->open = false;
	sl->drawn = 0;
}
