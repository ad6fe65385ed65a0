/*
 * parse.c: every conversion from a string to a value: counts, lists of
 * delays, factors, jitter modes, seeds, signals and log formats; a
 * DURATION is text/duration.c's, the SPEC of --budget and --breaker
 * guard/spec.c's, the LISTs of outcomes outcomes.c's.  Each converter
 * returns NULL on success or a short reason that options.c puts into its
 * error line; config_defaults() gives the values before any option.
 * Nothing here exits or prints, so the fuzz harnesses can
 * drive every function directly.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attempt/match.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "os/signals.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "text/duration.h"
#include "config.h"
#include "parse.h"

/*
 * An output condition: form is its option's place among the nine, kind
 * by kind (success, stop, retry), and within a kind both streams, stdout,
 * stderr.  Its ERE is compiled by match.c, when the run starts.  The
 * first rule of a kind in a pass (seen), whichever stream it names,
 * replaces those of the pass before (RETRY_OPTIONS'); the 16 of a kind
 * are shared by its three forms.
 */
const char *
parse_output_rule(const char *re, int form, struct match_rules *c,
    bool seen[MATCH_KINDS])
{
	static const unsigned char on[3] = { MATCH_ON_BOTH, MATCH_ON_STDOUT,
	    MATCH_ON_STDERR };
	int k = form / 3;

	if (!seen[k])
		c->noutput[k] = 0;
	seen[k] = true;
	if (c->noutput[k] == OUTPUT_RULES_MAX)
		return "too many, the limit is 16";
	c->on[k][c->noutput[k]] = on[form % 3];
	c->output[k][c->noutput[k]++] = re;
	return NULL;
}

/*
 * --delays: DURATIONs separated by commas, at most DELAYS_MAX, into
 * sched's list; why (len bytes) is room for a reason that names the
 * value at fault.
 */
const char *
parse_delays(const char *s, struct schedule *sched, char *why, size_t len)
{
	char item[64];
	const char *end, *bad;
	size_t n;
	int count = 0;

	for (;; s = end + 1) {
		end = s + strcspn(s, ",");
		n = (size_t)(end - s);
		if (count == DELAYS_MAX)
			return "more than 32 values";
		if (n == 0)
			return "an empty value";
		if (n >= sizeof(item))
			return "a value too long to be a duration";
		memcpy(item, s, n);
		item[n] = '\0';
		if ((bad = parse_duration(item, &sched->delays[count],
		    false)) != NULL) {
			snprintf(why, len, "value %d: %s%s", count + 1, bad,
			    strpbrk(item, " \t") != NULL ? " (spaces are not "
			    "allowed in a list)" : "");
			return why;
		}
		count++;
		if (*end == '\0')
			break;
	}
	sched->ndelays = count;
	return NULL;
}

const char *
parse_attempts(const char *s, long long *out)
{
	const char *errstr;
	long long n;

	if (strcmp(s, "inf") == 0) {
		*out = 0;
		return NULL;
	}
	/* strtonum() would take a sign or leading blanks. */
	n = strtonum(s, 1, LLONG_MAX, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*s))
		return "expected a whole number of at least 1, or inf";
	*out = n;
	return NULL;
}

/* An exit status, 0 to 255, in decimal digits alone. */
const char *
parse_status(const char *s, int *out)
{
	const char *errstr;
	long long n;

	n = strtonum(s, 0, 255, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*s))
		return "expected an exit status from 0 to 255";
	*out = (int)n;
	return NULL;
}

/* Decimal digits, an optional fraction and exponent: no sign, hex, inf. */
static const char *
parse_decimal(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (!isdigit((unsigned char)*p))
		return "expected a decimal number";
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return "expected digits after the decimal point";
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return "expected digits in the exponent";
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '\0')
		return "expected a decimal number";
	errno = 0;
	v = strtod(s, &end);
	if (!isfinite(v) || (errno == ERANGE && v != 0))
		return "number out of range";
	*out = v;
	return NULL;
}

const char *
parse_factor(const char *s, double *out)
{
	const char *why;
	double v;

	if ((why = parse_decimal(s, &v)) != NULL)
		return why;
	if (v < 1)
		return "the factor must be at least 1";
	*out = v;
	return NULL;
}

static const char *
parse_jitter_range(const char *s, const char *dots, struct jitter *j)
{
	char lo[64];
	size_t len = (size_t)(dots - s);
	const char *why;

	if (len >= sizeof(lo))
		return "expected A..B with decimal numbers";
	memcpy(lo, s, len);
	lo[len] = '\0';
	if ((why = parse_decimal(lo, &j->lo)) != NULL ||
	    (why = parse_decimal(dots + 2, &j->hi)) != NULL)
		return why;
	if (j->lo > j->hi)
		return "in A..B, A must not exceed B";
	j->kind = JITTER_RANGE;
	return NULL;
}

const char *
parse_jitter(const char *s, struct jitter *j)
{
	const char *dots, *why;
	char buf[32];

	memset(j, 0, sizeof(*j));
	for (j->kind = JITTER_NONE; j->kind <= JITTER_DECORRELATED; j->kind++)
		if (strcmp(s, jitter_format(j, buf, sizeof(buf))) == 0)
			return NULL;
	j->kind = JITTER_NONE;
	if (*s == '+') {
		if ((why = parse_duration(s + 1, &j->add, false)) != NULL)
			return why;
		j->kind = JITTER_ADD;
		return NULL;
	}
	if ((dots = strstr(s, "..")) != NULL)
		return parse_jitter_range(s, dots, j);
	return "expected none, full, equal, decorrelated, A..B or +DURATION";
}

const char *
parse_seed(const char *s, uint64_t *out)
{
	const char *errstr;
	long long n;

	n = strtonum(s, 0, LLONG_MAX, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*s))
		return "expected a whole number from 0 to 9223372036854775807";
	*out = (uint64_t)n;
	return NULL;
}

const char *
parse_signal(const char *s, int *out)
{
	const char *errstr;
	long long n;
	int sig;

	/* 0, the null signal, sends nothing, as in timeout(1). */
	if (isdigit((unsigned char)*s)) {
		n = strtonum(s, 0, NSIG - 1, &errstr);
		if (errstr != NULL)
			return "no such signal number";
		*out = (int)n;
		return NULL;
	}
	if ((sig = sig_number(s)) <= 0)
		return "unknown signal name";
	*out = sig;
	return NULL;
}

const char *
parse_log_format(const char *s, enum log_format *out)
{
	if (strcasecmp(s, "text") == 0)
		*out = LOG_TEXT;
	else if (strcasecmp(s, "json") == 0)
		*out = LOG_JSON;
	else if (strcasecmp(s, "github") == 0)
		*out = LOG_GITHUB;
	else
		return "expected text, json or github";
	return NULL;
}

/* The values of the command line before any option is read. */
void
config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->attempts = 5;
	cfg->sched.base = NSEC_PER_SEC;
	cfg->sched.cap = 60 * NSEC_PER_SEC;
	cfg->sched.factor = 2;
	cfg->sched.jitter.kind = JITTER_FULL;
	outcomes_default_retry(&cfg->retry_on);
	outcomes_add_exit(&cfg->success_on, 0);
	cfg->timeout_signal = SIGTERM;
	cfg->kill_after = 10 * NSEC_PER_SEC;
	cfg->log_format = LOG_TEXT;
	cfg->exhausted_status = -1;
}
