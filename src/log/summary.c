/*
 * summary.c: the GitHub job summary.  With --log-format=github and
 * $GITHUB_STEP_SUMMARY set, the run ends by appending a short Markdown
 * account of itself to that file, which GitHub shows on the run's page:
 * the command, a table of the attempts (when each started, how long it
 * ran, its outcome, the wait that followed) and the result.  Rows are
 * kept in memory as the run goes, the first and the last SUMMARY_ROWS
 * of them, and written in one append at the end, so that the file is
 * never truncated and no step of the run waits for it.
 *
 * Text from outside (the command's words, outcomes that quote an ERE,
 * reasons) could otherwise make markup: it is made visible (escape.c),
 * then each character that Markdown or HTML would read as syntax gets a
 * backslash, which CommonMark (GitHub's, GitLab's) shows as the
 * character, table cells and HTML tags included; the rest stays as it
 * is, so that the file reads as well in a terminal.
 *
 * A file that cannot be written gets one warning and no summary: a
 * directory, a FIFO (opened without blocking, never written), a
 * read-only file.  The file is opened only as the run ends.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "text/escape.h"
#include "text/format.h"
#include "summary.h"

#define SUMMARY_ROWS	50	/* rows kept at the start, and at the end */
#define SUMMARY_COMMAND	1024	/* bytes of the command line shown */

struct summary {
	const char	*path;
	struct strbuf	 command;	/* escaped already */
	struct strbuf	 head[SUMMARY_ROWS];	/* the first rows */
	struct strbuf	 tail[SUMMARY_ROWS];	/* a ring of the last ones */
	long long	 rows;		/* every row, shown or not */
	struct strbuf	*open;		/* the row that waits for its wait */
};

/*
 * Whether the character at p, in text, must be escaped to stay text:
 * what starts Markdown (emphasis, code, links, images, strikethrough,
 * GitHub's math and mentions), HTML (a tag, an entity), a table cell's
 * end, a heading's closing #, and a backslash that would escape what
 * follows.  An underscore inside a word, where it makes no emphasis,
 * and a backslash before a letter (\n, \e, \u202e, as sb_visible()
 * writes them) are text as they are.
 */
static bool
markdown_special(const unsigned char *start, const unsigned char *p)
{
	if (*p == '_')
		return p == start || !isalnum(p[-1]) || !isalnum(p[1]);
	if (*p == '\\')
		return !isalnum(p[1]);
	return *p != '\0' && strchr("`*[]<>|&#~$@", *p) != NULL;
}

/*
 * Appends s as inert text: control and invisible characters made
 * visible first, then what Markdown or HTML would read as syntax
 * (markdown_special()) escaped with a backslash, as CommonMark allows
 * for any ASCII punctuation; the rest (: ; / and the like) is left
 * alone, so that the file reads as well outside GitHub.
 */
static void
sb_markdown(struct strbuf *sb, const char *s)
{
	struct strbuf vis = { 0 };
	const unsigned char *p, *start;

	sb_visible(&vis, s);
	start = (const unsigned char *)sb_text(&vis);
	for (p = start; *p != '\0'; p++) {
		if (markdown_special(start, p))
			sb_add(sb, "\\", 1);
		sb_add(sb, p, 1);
	}
	sb_free(&vis);
}

/*
 * A word of the command, quoted as sh(1) would need it so that the
 * words can be told apart; sb_markdown() makes it inert after.
 */
static void
sb_word(struct strbuf *sb, const char *w)
{
	const char *p;

	if (*w != '\0' && w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789,._+:@%/=-")] == '\0') {
		sb_str(sb, w);
		return;
	}
	sb_str(sb, "'");
	for (p = w; *p != '\0'; p++)
		if (*p == '\'')
			sb_str(sb, "'\\''");
		else
			sb_add(sb, p, 1);
	sb_str(sb, "'");
}

/*
 * The summary of a run of argv, for the file path; NULL when path is
 * NULL or empty: no summary.
 */
struct summary *
summary_open(const char *path, char *const *argv)
{
	struct summary *sm;
	struct strbuf raw = { 0 };
	size_t n;

	if (path == NULL || *path == '\0')
		return NULL;
	if ((sm = calloc(1, sizeof(*sm))) == NULL)
		return NULL;
	sm->path = path;
	for (; argv != NULL && *argv != NULL; argv++) {
		if (raw.len > 0)
			sb_str(&raw, " ");
		sb_word(&raw, *argv);
	}
	/* GitHub takes 1 MiB of summary a step: a huge argv is cut. */
	if ((n = raw.len) > SUMMARY_COMMAND) {
		for (n = SUMMARY_COMMAND; n > 0 &&
		    ((unsigned char)raw.s[n] & 0xc0) == 0x80; n--)
			;
		raw.s[n] = '\0';
	}
	sb_markdown(&sm->command, sb_text(&raw));
	if (n < raw.len)
		sb_str(&sm->command, "\xe2\x80\xa6");	/* ... */
	sb_free(&raw);
	return sm;
}

/* Attempt k started start into the run and ran for duration. */
void
summary_attempt(struct summary *sm, long long k, nsec_t start,
    nsec_t duration, const char *outcome)
{
	struct strbuf *row;
	char at[32], d[32];

	if (sm == NULL)
		return;
	row = sm->rows < SUMMARY_ROWS ? &sm->head[sm->rows] :
	    &sm->tail[sm->rows % SUMMARY_ROWS];
	sb_free(row);
	format_ms(at, sizeof(at), start);
	format_ms(d, sizeof(d), duration);
	sb_printf(row, "| %lld | +%ss | %ss | ", k, at, d);
	sb_markdown(row, outcome);
	sb_str(row, " |");
	sm->rows++;
	sm->open = row;
}

/* The last attempt is followed by a wait of wait. */
void
summary_wait(struct summary *sm, nsec_t wait)
{
	char d[32];

	if (sm == NULL || sm->open == NULL)
		return;
	format_ms(d, sizeof(d), wait);
	sb_printf(sm->open, " %ss |", d);
	sm->open = NULL;
}

/* The Markdown, rows that were not kept counted in one line. */
static void
summary_text(struct summary *sm, struct strbuf *md, int status,
    const char *result)
{
	long long i, first_tail;

	sb_printf(md, "### retry: %s\n\n", sb_text(&sm->command));
	if (sm->rows > 0)
		sb_str(md, "| attempt | start | duration | outcome | then "
		    "waited |\n|---:|---:|---:|---|---:|\n");
	for (i = 0; i < sm->rows && i < SUMMARY_ROWS; i++)
		sb_printf(md, "%s%s\n", sb_text(&sm->head[i]),
		    &sm->head[i] == sm->open ? " |" : "");
	first_tail = sm->rows - SUMMARY_ROWS > SUMMARY_ROWS ?
	    sm->rows - SUMMARY_ROWS : SUMMARY_ROWS;
	if (first_tail > SUMMARY_ROWS)
		sb_printf(md, "| \xe2\x80\xa6 | | | %lld attempt%s not shown "
		    "| |\n", first_tail - SUMMARY_ROWS,
		    first_tail - SUMMARY_ROWS == 1 ? "" : "s");
	for (i = first_tail; i < sm->rows; i++)
		sb_printf(md, "%s%s\n", sb_text(&sm->tail[i % SUMMARY_ROWS]),
		    &sm->tail[i % SUMMARY_ROWS] == sm->open ? " |" : "");
	sb_str(md, "\n**Result:** ");
	sb_markdown(md, result);
	sb_printf(md, "; exit status %d\n", status);
}

/*
 * Opens the file to append to, never blocking; -1 with errno.  *empty
 * tells whether it holds nothing yet.
 */
static int
open_summary(const char *path, bool *empty)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC, 0666)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;	/* reported as "not a regular file" */
		return -1;
	}
	*empty = st.st_size == 0;
	return fd;
}

/* Writes s to the regular file fd: how much of it went. */
static size_t
append_all(int fd, const char *s, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		if ((n = write(fd, s + done, len - done)) > 0)
			done += (size_t)n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	return done;
}

/*
 * The run ended with status, for the reason result (outside text); the
 * summary is appended, or a warning says why it could not be.  Frees sm.
 */
void
summary_close(struct summary *sm, int status, const char *result)
{
	struct strbuf md = { 0 };
	size_t done;
	int fd, i;
	bool empty;

	if (sm == NULL)
		return;
	if ((fd = open_summary(sm->path, &empty)) != -1 && !empty)
		sb_str(&md, "\n");	/* after a step's last line, cut or not */
	summary_text(sm, &md, status, result);
	if (fd == -1)
		warnx_safe("GITHUB_STEP_SUMMARY %s: %s; no job summary written",
		    sm->path, errno == EINVAL ? "not a regular file" :
		    strerror(errno));
	else {
		if ((done = append_all(fd, md.s, md.len)) < md.len)
			warnx_safe("GITHUB_STEP_SUMMARY %s: %s; %s", sm->path,
			    strerror(errno), done == 0 ? "no job summary "
			    "written" : "the job summary is cut short");
		close(fd);
	}
	sb_free(&md);
	sb_free(&sm->command);
	for (i = 0; i < SUMMARY_ROWS; i++) {
		sb_free(&sm->head[i]);
		sb_free(&sm->tail[i]);
	}
	free(sm);
}
