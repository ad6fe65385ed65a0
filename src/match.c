/*
 * match.c: the output conditions of --success-if-output, --stop-if-output
 * and --retry-if-output, as a line matcher.  The streams of an attempt
 * (streams.c) hand it the bytes of the command's stdout and stderr as
 * they pass; it cuts them into lines, each stream on its own, and matches
 * every line against the EREs.  A line longer than LINE_MAX_MATCH is
 * matched on its first LINE_MAX_MATCH bytes; memory stays bounded.  A
 * match does not cut the attempt short: the decision comes when it ends.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defs.h"
#include "ere.h"
#include "match.h"

#define LINE_MAX_MATCH	((size_t)64 * 1024)
#define BLOCK_SIZE	(4 * LINE_MAX_MATCH)	/* lines matched at once */

struct rule {
	struct ere	*re;
	const char	*text;
};

/* The lines of one stream, as they are gathered. */
struct stream {
	char	*block;		/* whole lines, then the one being read */
	size_t	 len;		/* bytes in block */
	size_t	 start;		/* where the line being read starts */
	bool	 cut;		/* that line is cut: a NUL, or too long */
};

struct matcher {
	struct rule	*rules[MATCH_KINDS];
	int		 nrules[MATCH_KINDS];
	struct stream	 out, err;	/* MATCH_STDOUT, MATCH_STDERR */
	int		 found;		/* the deciding kind, or -1 */
	const char	*found_text;
};

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
	free(m->out.block);
	free(m->err.block);
	free(m);
}

static const char *const kind_names[] = { "success-if-output",
    "stop-if-output", "retry-if-output" };

#define ERE_SHOWN	100	/* bytes of an ERE quoted in an error */

/*
 * Compiles r, a rule of kind k, from the ERE text, adding its size to
 * *total; false, with the usage error in msg, when it cannot be or when
 * all the rules so far are together larger than one ERE may be: every
 * line is matched against every rule between two looks at the clock and
 * the signals, so it is their sum that bounds how late those looks can
 * be.
 */
static bool
compile_rule(struct rule *r, int k, const char *text, size_t *total,
    char *msg, size_t len)
{
	const char *why, *more = strlen(text) > ERE_SHOWN ? "..." : "";

	r->text = text;
	/* Lines are matched one at a time: none has one. */
	if (strchr(text, '\n') != NULL) {
		snprintf(msg, len, "invalid --%s: an ERE cannot contain a "
		    "newline", kind_names[k]);
		return false;
	}
	if ((r->re = ere_compile(text, &why)) == NULL) {
		snprintf(msg, len, "invalid --%s '%.*s%s': %s", kind_names[k],
		    ERE_SHOWN, text, more, why);
		return false;
	}
	if ((*total += ere_size(r->re)) > ERE_MAX_PROG) {
		snprintf(msg, len, "--%s '%.*s%s': the output conditions are "
		    "too complex together", kind_names[k], ERE_SHOWN, text,
		    more);
		return false;
	}
	return true;
}

/*
 * Compiles the conditions cfg (as the command line gave them); NULL
 * without any.  A bad ERE is a usage error, told in msg, with NULL
 * returned.
 */
struct matcher *
matcher_open(const struct match_rules *cfg, char *msg, size_t len)
{
	struct matcher *m;
	size_t total = 0;
	bool ok;
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
			ok = compile_rule(&m->rules[k][i], k,
			    cfg->output[k][i], &total, msg, len);
			if (m->rules[k][i].re != NULL)
				m->nrules[k]++;
			if (!ok) {
				matcher_free(m);
				return NULL;
			}
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

/*
 * Sets up the next attempt: no condition matched yet, no line begun.
 * The blocks are allocated with the first attempt, once.
 */
void
matcher_begin(struct matcher *m)
{
	struct stream *s[2] = { &m->out, &m->err };
	int i;

	m->found = -1;
	m->found_text = NULL;
	for (i = 0; i < 2; i++) {
		if (s[i]->block == NULL &&
		    (s[i]->block = malloc(BLOCK_SIZE + 1)) == NULL)
			err(EXIT_CANCELED, NULL);
		s[i]->len = s[i]->start = 0;
		s[i]->cut = false;
	}
}

/* The n bytes at p came through stream which (MATCH_STDOUT, ...). */
void
matcher_scan(struct matcher *m, int which, const char *p, size_t n)
{
	scan_bytes(m, which == MATCH_STDERR ? &m->err : &m->out, p, n);
}

/* Stream which is at its end: its last line counts, newline or not. */
void
matcher_eof(struct matcher *m, int which)
{
	struct stream *s = which == MATCH_STDERR ? &m->err : &m->out;

	flush_lines(m, s);
	if (s->len > 0 || s->cut)
		match_block(m, s, s->len);	/* a last line, no newline */
	s->len = s->start = 0;
	s->cut = false;
}

/* The attempt is over: the deciding kind, or -1, and its ERE in *text. */
int
matcher_end(const struct matcher *m, const char **text)
{
	*text = m->found_text;
	return m->found;
}
