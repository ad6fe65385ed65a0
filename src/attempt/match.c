/*
 * match.c: the output conditions of --success-if-output, --stop-if-output
 * and --retry-if-output, and of their forms for one stream
 * (--retry-if-stderr...), as a line matcher.  The streams of an attempt
 * (streams.c) hand it the bytes of the command's stdout and stderr as
 * they pass; a rule sees only the streams it names, and each of them has
 * its own ere_run, the matching state that carries a line across reads,
 * so that a line is one line however long it is and memory stays
 * bounded.  It matches in slices and looks at the clock between them:
 * past the caller's time it stops and says how far it got, for the
 * caller to look at the signals and the timeout and come back.  A match
 * does not cut the attempt short: the decision comes when it ends.  -F
 * makes each condition the ERE of its literal (literal_ere()).
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ere/ere.h"
#include "os/clock.h"
#include "os/defs.h"
#include "match.h"

/*
 * Between two looks at the clock each ERE meets a slice of SLICE_WORK
 * bytes divided by the instructions of all the EREs (a byte can cost a
 * pass over an ERE's program), within these bounds.
 */
#define SLICE_WORK	((size_t)1 << 21)
#define SLICE_MIN	((size_t)256)
#define SLICE_MAX	((size_t)64 * 1024)

struct rule {
	struct ere	*re;
	const char	*text;		/* as the user gave it */
	int		 on;		/* MATCH_ON_* */
	struct ere_run	*run[2];	/* MATCH_STDOUT, MATCH_STDERR */
};

struct matcher {
	struct rule	*rules[MATCH_KINDS];
	int		 nrules[MATCH_KINDS];
	size_t		 size;		/* of all the EREs, in instructions */
	size_t		 slice;		/* bytes matched between looks */
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
		for (i = 0; i < m->nrules[k]; i++) {
			ere_free(m->rules[k][i].re);
			ere_run_free(m->rules[k][i].run[0]);
			ere_run_free(m->rules[k][i].run[1]);
		}
		free(m->rules[k]);
	}
	free(m);
}

/* The option that gives a rule of kind k on the streams on. */
const char *
match_option(int kind, int on)
{
	static const char names[MATCH_KINDS][3][18] = {
		{ "success-if-stdout", "success-if-stderr",
		    "success-if-output" },
		{ "stop-if-stdout", "stop-if-stderr", "stop-if-output" },
		{ "retry-if-stdout", "retry-if-stderr", "retry-if-output" },
	};

	return names[kind][on - 1];
}

#define ERE_SHOWN	100	/* bytes of an ERE quoted in an error */

/*
 * -F: the ERE that matches text, a literal string, and nothing else:
 * each byte that an ERE reads otherwise gets a backslash.  It compiles
 * to the very program that the same literal written as an ERE does, and
 * is searched for as fast (erelit.c finds its bytes).
 */
static char *
literal_ere(const char *text)
{
	static const char special[] = "\\.[]()*+?{}|^$";
	char *re, *p;

	if ((re = malloc(2 * strlen(text) + 1)) == NULL)
		err(EXIT_CANCELED, NULL);
	for (p = re; *text != '\0'; text++) {
		if (strchr(special, *text) != NULL)
			*p++ = '\\';
		*p++ = *text;
	}
	*p = '\0';
	return re;
}

/*
 * Compiles rule i of kind k of m from cfg, adding its size to m->size;
 * false, with the usage error in msg, when it cannot be or when
 * all the rules so far are together larger than one ERE may be: every
 * line is matched against every rule between two looks at the clock and
 * the signals, so it is their sum that bounds how late those looks can
 * be.
 */
static bool
compile_rule(struct matcher *m, int k, const struct match_rules *cfg, int i,
    char *msg, size_t len)
{
	struct rule *r = &m->rules[k][i];
	const char *why, *text = cfg->output[k][i];
	char *literal = NULL;
	const char *more = strlen(text) > ERE_SHOWN ? "..." : "";
	const char *name = match_option(k, cfg->on[k][i]);

	r->text = text;
	r->on = cfg->on[k][i];
	/* Lines are matched one at a time: none has one. */
	if (strchr(text, '\n') != NULL) {
		snprintf(msg, len, "invalid --%s: %s cannot contain a "
		    "newline", name, cfg->fixed ? "a fixed string" : "an ERE");
		return false;
	}
	/* The ERE is read into a tree: its text is not kept. */
	if (cfg->fixed)
		literal = literal_ere(text);
	r->re = ere_compile(cfg->fixed ? literal : text, &why);
	free(literal);
	if (r->re == NULL) {
		snprintf(msg, len, "invalid --%s '%.*s%s': %s", name,
		    ERE_SHOWN, text, more, why);
		return false;
	}
	if (((r->on & MATCH_ON_STDOUT) &&
	    (r->run[MATCH_STDOUT] = ere_run_new(r->re)) == NULL) ||
	    ((r->on & MATCH_ON_STDERR) &&
	    (r->run[MATCH_STDERR] = ere_run_new(r->re)) == NULL))
		err(EXIT_CANCELED, NULL);
	if ((m->size += ere_size(r->re)) > ERE_MAX_PROG) {
		snprintf(msg, len, "--%s '%.*s%s': the output conditions are "
		    "too complex together", name, ERE_SHOWN, text, more);
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
			ok = compile_rule(m, k, cfg, i, msg, len);
			if (m->rules[k][i].re != NULL)
				m->nrules[k]++;
			if (!ok) {
				matcher_free(m);
				return NULL;
			}
		}
	}
	m->slice = SLICE_WORK / (m->size + 1);
	m->slice = m->slice < SLICE_MIN ? SLICE_MIN : m->slice > SLICE_MAX ?
	    SLICE_MAX : m->slice;
	return m;
}

/*
 * Matches the n bytes at p of stream which.  Of the rules of the
 * strongest kind that match, the one whose match is seen first names the
 * condition; a weaker kind is not matched any more.
 */
static void
match_slice(struct matcher *m, int which, const char *p, size_t n)
{
	const struct rule *r;
	size_t at, first;
	int k, i;

	/* Success, then stop, then retry: only a stronger kind can win. */
	for (k = 0; k < MATCH_KINDS && (m->found == -1 || k < m->found);
	    k++) {
		first = SIZE_MAX;
		for (i = 0; i < m->nrules[k]; i++) {
			r = &m->rules[k][i];
			if (r->run[which] != NULL &&
			    ere_feed(r->re, r->run[which], p, n, &at) &&
			    at < first) {
				first = at;
				m->found = k;
				m->found_text = r->text;
			}
		}
	}
}

/* Whether a rule looks at stream which: else it need not pass by. */
bool
matcher_wants(const struct matcher *m, int which)
{
	int k, i;

	for (k = 0; m != NULL && k < MATCH_KINDS; k++)
		for (i = 0; i < m->nrules[k]; i++)
			if (m->rules[k][i].run[which] != NULL)
				return true;
	return false;
}

/* Sets up the next attempt: no condition matched yet, no line begun. */
void
matcher_begin(struct matcher *m)
{
	int k, i;

	m->found = -1;
	m->found_text = NULL;
	for (k = 0; k < MATCH_KINDS; k++)
		for (i = 0; i < m->nrules[k]; i++) {
			if (m->rules[k][i].run[0] != NULL)
				ere_run_reset(m->rules[k][i].run[0]);
			if (m->rules[k][i].run[1] != NULL)
				ere_run_reset(m->rules[k][i].run[1]);
		}
}

/*
 * The n bytes at p came through stream which (MATCH_STDOUT, ...): matches
 * them until the clock passes until, and returns how many it matched.
 * Once a success condition matched, nothing is left to match.
 */
size_t
matcher_scan(struct matcher *m, int which, const char *p, size_t n,
    nsec_t until)
{
	size_t off, len;

	for (off = 0; off < n && m->found != MATCH_SUCCESS; off += len) {
		len = n - off < m->slice ? n - off : m->slice;
		match_slice(m, which, p + off, len);
		if (off + len < n && mono_now() >= until)
			return off + len;
	}
	return n;
}

/* Stream which is at its end: its last line counts, newline or not. */
void
matcher_eof(struct matcher *m, int which)
{
	const struct rule *r;
	int k, i;

	for (k = 0; k < MATCH_KINDS && (m->found == -1 || k < m->found);
	    k++)
		for (i = 0; i < m->nrules[k]; i++) {
			r = &m->rules[k][i];
			if (r->run[which] != NULL &&
			    ere_feed_end(r->re, r->run[which]) &&
			    m->found != k) {
				m->found = k;
				m->found_text = r->text;
			}
		}
}

/* The attempt is over: the deciding kind, or -1, and its ERE in *text. */
int
matcher_end(const struct matcher *m, const char **text)
{
	*text = m->found_text;
	return m->found;
}
