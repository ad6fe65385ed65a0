/*
 * options.c: libFuzzer harness for parse_options(), fed argv: the input
 * split on NUL bytes into words after the program name.
 *
 * Properties: the result is one of the five, with a message of a known
 * form on an error; parsing is deterministic even after another
 * argv has left getopt_long() in the middle of a word; an accepted
 * configuration is consistent (durations within 100 years, --cap not
 * below --base, a factor of at least 1, a command unless --dry-run);
 * and its schedule, as --dry-run draws it, stays inside its bounds.  The
 * same words as RETRY_OPTIONS are accepted alike, or refused with an
 * error that says so.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz.h"

#define MAX_WORDS	64
#define ERR_LEN		512	/* as main() passes */
#define DRAW_ROWS	40

static bool
duration_ok(nsec_t d)
{
	return d >= 0 && d <= DURATION_MAX;
}

static bool
config_equal(const struct config *a, const struct config *b)
{
	const struct schedule *s = &a->sched, *t = &b->sched;

	return a->attempts == b->attempts && s->base == t->base &&
	    s->cap == t->cap && s->factor == t->factor &&
	    s->splay == t->splay && s->jitter.kind == t->jitter.kind &&
	    s->jitter.lo == t->jitter.lo && s->jitter.hi == t->jitter.hi &&
	    s->jitter.add == t->jitter.add && s->cap_window == t->cap_window &&
	    a->seeded == b->seeded &&
	    a->seed == b->seed &&
	    memcmp(&a->retry_on, &b->retry_on, sizeof(a->retry_on)) == 0 &&
	    memcmp(&a->stop_on, &b->stop_on, sizeof(a->stop_on)) == 0 &&
	    memcmp(&a->success_on, &b->success_on,
	    sizeof(a->success_on)) == 0 &&
	    a->timeout == b->timeout &&
	    a->timeout_signal == b->timeout_signal &&
	    a->kill_after == b->kill_after && a->max_time == b->max_time &&
	    a->foreground == b->foreground &&
	    a->replay_stdin == b->replay_stdin &&
	    a->hold_stdout == b->hold_stdout && a->dry_run == b->dry_run &&
	    a->verbosity == b->verbosity && a->log_format == b->log_format &&
	    a->log_file == b->log_file && a->http_file == b->http_file &&
	    a->json_log == b->json_log && a->preset == b->preset &&
	    a->reset_after == b->reset_after &&
	    a->argv == b->argv;
}

static void
check_accepted(const struct config *c, char **argv, int argc)
{
	const struct schedule *s = &c->sched;

	CHECK(c->attempts >= 0);
	CHECK(duration_ok(s->base) && duration_ok(s->cap));
	CHECK(duration_ok(s->splay) && duration_ok(s->jitter.add));
	CHECK(s->cap >= s->base);
	CHECK(isfinite(s->factor) && s->factor >= 1);
	CHECK(duration_ok(c->timeout) && duration_ok(c->max_time));
	CHECK(duration_ok(c->kill_after) || c->kill_after == NSEC_INF);
	CHECK(c->timeout_signal >= 0 && c->timeout_signal < NSIG);
	CHECK(c->verbosity >= -1 && c->verbosity <= 1);
	CHECK(c->log_file == NULL || *c->log_file != '\0');
	CHECK(c->http_file == NULL || *c->http_file != '\0');
	CHECK(c->json_log == NULL || *c->json_log != '\0');
	CHECK(c->log_format == LOG_TEXT || c->log_format == LOG_JSON ||
	    c->log_format == LOG_GITHUB);
	CHECK(c->argv != NULL || c->dry_run);
	CHECK(c->argv == NULL || (c->argv > argv && c->argv < argv + argc));
}

/* The schedule of an accepted configuration, drawn as --dry-run does. */
static void
check_schedule(const struct config *c)
{
	const struct schedule *s = &c->sched;
	struct backoff b;
	nsec_t lo, hi, d, w;
	long long k;

	backoff_init(&b, s, true, c->seed);
	d = backoff_splay(&b);
	CHECK(d >= 0 && d <= s->splay);
	for (k = 1; k < DRAW_ROWS && (c->attempts == 0 || k < c->attempts);
	    k++) {
		w = backoff_window(s, k);
		backoff_bounds(s, k, &lo, &hi);
		d = backoff_next(&b, k);
		CHECK(w >= 0 && w <= s->cap);
		/*
		 * A preset's cap_window lets the jitter past the cap, and so
		 * does --delays, whose cap is only its longest value.
		 */
		CHECK(0 <= lo && lo <= hi && hi <= (s->cap_window ||
		    s->ndelays > 0 ? DURATION_MAX : s->cap));
		CHECK(lo <= d && d <= hi);
	}
}

/* An error message is one of the forms main() prints after "retry: ". */
static bool
message_ok(const char *err)
{
	static const char *const forms[] = {
		"invalid --", "unknown option '", "option '",
		"no command given", "--until-failure",
		"--retry-on names HTTP", "--stop-on names HTTP",
		"--success-on names HTTP", "--delays and --", "RETRY_OPTIONS: ",
		"--preset=list prints", "--guard-status ", "--guard-reset "
	};
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (strncmp(err, forms[i], strlen(forms[i])) == 0)
			return true;
	return false;
}

/* Leaves getopt_long() in the middle of a cluster of short options. */
static void
disturb(void)
{
	char a0[] = "retry", a1[] = "-qvh", a2[] = "-qvn";
	char *argv[] = { a0, a1, a2, NULL };
	struct config c;
	char err[ERR_LEN];

	(void)parse_options(NULL, 3, argv, &c, err, sizeof(err));
}

/*
 * buf, size bytes and a NUL, as the words after argv[0], at most
 * MAX_WORDS of them; returns argc.
 */
static int
split_words(char *buf, size_t size, char **argv)
{
	static char name[] = "retry";
	char *p, *end = buf + size;
	int argc = 1;

	argv[0] = name;
	for (p = buf; argc <= MAX_WORDS; p += strlen(p) + 1) {
		argv[argc++] = p;
		if (p + strlen(p) >= end)
			break;
	}
	argv[argc] = NULL;
	return argc;
}

/*
 * The same words as RETRY_OPTIONS before a command line of one command:
 * accepted as they would be in argv, or an error that names the variable
 * (or one of a known form when an option of the command line is in it).
 */
static void
check_as_env(char **words)
{
	char a0[] = "retry", a1[] = "true";
	char *argv[] = { a0, a1, NULL };
	char err[ERR_LEN];
	struct config c;
	enum parse_result r;

	memset(err, 'x', sizeof(err));
	r = parse_options(words, 2, argv, &c, err, sizeof(err));
	CHECK(r == PARSE_OK || r == PARSE_ERROR);
	CHECK(r != PARSE_ERROR || (memchr(err, '\0', sizeof(err)) != NULL &&
	    message_ok(err)));
	if (r == PARSE_OK)
		check_accepted(&c, argv, 2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_WORDS + 2], *buf;
	char err[ERR_LEN], err2[ERR_LEN];
	struct config c, c2;
	enum parse_result r, r2;
	int argc;

	if ((buf = malloc(size + 1)) == NULL)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = split_words(buf, size, argv);

	memset(err, 'x', sizeof(err));
	r = parse_options(NULL, argc, argv, &c, err, sizeof(err));
	CHECK(r == PARSE_OK || r == PARSE_ERROR || r == PARSE_HELP ||
	    r == PARSE_VERSION || r == PARSE_PRESETS);
	CHECK(r != PARSE_ERROR || (memchr(err, '\0', sizeof(err)) != NULL &&
	    message_ok(err)));
	if (r == PARSE_OK) {
		check_accepted(&c, argv, argc);
		check_schedule(&c);
	}

	check_as_env(argv);

	disturb();
	memset(err2, 'x', sizeof(err2));
	r2 = parse_options(NULL, argc, argv, &c2, err2, sizeof(err2));
	CHECK(r2 == r);
	CHECK(r != PARSE_OK || config_equal(&c, &c2));
	CHECK(r != PARSE_ERROR || strcmp(err, err2) == 0);
	free(buf);
	return 0;
}
