/*
 * parse.c: every conversion from a string to a value.  Each converter
 * returns NULL on success or a short reason; parse_options() turns argv
 * into a struct config and, on a bad value, writes one line that names
 * the option and the value.  Nothing here exits or prints, so the fuzz
 * harnesses can drive every function directly.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retry.h"

#define MAX_FRACTION_DIGITS 24	/* 10^24 * 86400e9 still fits in 128 bits */
#define VALUE_SHOWN	100	/* bytes of a bad value quoted in an error */

__extension__ typedef unsigned __int128 u128;

struct unit {
	const char	*name;
	nsec_t		 ns;
};

static const struct unit units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
	{ "d", 86400 * NSEC_PER_SEC },
};

static const struct unit *
unit_lookup(const char **sp)
{
	const char *s = *sp;
	size_t len = 0, i;

	while (isalpha((unsigned char)s[len]))
		len++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].name) == len &&
		    strncmp(units[i].name, s, len) == 0) {
			*sp = s + len;
			return &units[i];
		}
	}
	return NULL;
}

/*
 * Rounds 0.<digits> * unit to the nearest nanosecond, halfway up, with
 * integer arithmetic only.  Digits past the 24th are dropped: with a unit
 * below 10^14 ns they weigh less than 10^-10 ns.
 */
static nsec_t
fraction_ns(const char *digits, size_t n, nsec_t unit)
{
	u128 num = 0, den = 1, q, r;
	size_t i, used = n < MAX_FRACTION_DIGITS ? n : MAX_FRACTION_DIGITS;

	for (i = 0; i < used; i++) {
		num = num * 10 + (unsigned)(digits[i] - '0');
		den *= 10;
	}
	num *= (u128)unit;
	q = num / den;
	r = num % den;
	if (r * 2 >= den)	/* halfway goes up */
		q++;
	return (nsec_t)q;
}

/* One number+unit term; *unitless tells whether the unit was omitted. */
static const char *
duration_term(const char **sp, nsec_t *out, bool *unitless)
{
	const char *s = *sp, *frac = NULL;
	const struct unit *u;
	unsigned long long whole = 0;
	size_t nfrac = 0;
	nsec_t ns;

	if (!isdigit((unsigned char)*s))
		return "expected a number";
	for (; isdigit((unsigned char)*s); s++) {
		/* Checked before the multiplication, which must not wrap. */
		if (whole > (unsigned long long)DURATION_MAX / 10)
			return "too large (the limit is 100 years)";
		whole = whole * 10 + (unsigned)(*s - '0');
	}
	if (*s == '.') {
		frac = ++s;
		while (isdigit((unsigned char)*s))
			s++;
		nfrac = (size_t)(s - frac);
		if (nfrac == 0)
			return "expected digits after the decimal point";
	}
	*unitless = (*s == '\0');
	if (*unitless)
		u = &units[3];
	else if ((u = unit_lookup(&s)) == NULL)
		return "unknown unit (use ns, us, ms, s, m, h or d)";
	if (whole > (unsigned long long)(DURATION_MAX / u->ns))
		return "too large (the limit is 100 years)";
	ns = (nsec_t)whole * u->ns;
	if (frac != NULL)
		ns += fraction_ns(frac, nfrac, u->ns);
	*out = ns;
	*sp = s;
	return NULL;
}

/*
 * DURATION: a number with an optional unit, or a sequence of number+unit
 * terms such as 1m30s.  With allow_inf, "inf" means never (NSEC_INF).
 */
const char *
parse_duration(const char *s, nsec_t *out, bool allow_inf)
{
	const char *why;
	nsec_t total = 0, term;
	bool unitless, first = true;

	if (allow_inf && strcmp(s, "inf") == 0) {
		*out = NSEC_INF;
		return NULL;
	}
	if (*s == '\0')
		return "empty duration";
	if (*s == '-')
		return "negative duration";
	while (*s != '\0') {
		if ((why = duration_term(&s, &term, &unitless)) != NULL)
			return why;
		if (unitless && !first)
			return "a number inside a compound needs a unit";
		total += term;
		if (total > DURATION_MAX)
			return "too large (the limit is 100 years)";
		first = false;
	}
	*out = total;
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

static const char *const jitter_names[] = {
	[JITTER_NONE] = "none",
	[JITTER_FULL] = "full",
	[JITTER_EQUAL] = "equal",
	[JITTER_DECORRELATED] = "decorrelated",
};

const char *
parse_jitter(const char *s, struct jitter *j)
{
	const char *dots, *why;
	size_t i;

	memset(j, 0, sizeof(*j));
	for (i = 0; i < sizeof(jitter_names) / sizeof(jitter_names[0]); i++) {
		if (strcmp(s, jitter_names[i]) == 0) {
			j->kind = (enum jitter_kind)i;
			return NULL;
		}
	}
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
jitter_name(const struct jitter *j, char *buf, size_t len)
{
	char d[32];

	switch (j->kind) {
	case JITTER_RANGE:
		snprintf(buf, len, "%g..%g", j->lo, j->hi);
		return buf;
	case JITTER_ADD:
		format_seconds(d, sizeof(d), j->add);
		snprintf(buf, len, "+%ss", d);
		return buf;
	default:
		return jitter_names[j->kind];
	}
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

	if (isdigit((unsigned char)*s)) {
		n = strtonum(s, 1, NSIG - 1, &errstr);
		if (errstr != NULL)
			return "no such signal number";
		*out = (int)n;
		return NULL;
	}
	if ((sig = proc_sigbyname(s)) <= 0)
		return "unknown signal name";
	*out = sig;
	return NULL;
}

const char *
parse_log_format(const char *s, enum log_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = LOG_TEXT;
	else if (strcmp(s, "json") == 0)
		*out = LOG_JSON;
	else
		return "expected text or json";
	return NULL;
}

static void
set_bit(uint64_t *words, int n)
{
	words[n / 64] |= UINT64_C(1) << (n % 64);
}

static bool
has_bit(const uint64_t *words, int n)
{
	return (words[n / 64] >> (n % 64)) & 1;
}

/* One LIST item: an exit code, a range, a signal name or "timeout". */
static const char *
parse_outcome_item(const char *item, struct outcome_set *set)
{
	const char *errstr, *dash;
	char lo[64];	/* as long as an item: leading zeros are allowed */
	long long a, b;
	int sig;

	if (strcmp(item, "timeout") == 0) {
		set->timeout = true;
		return NULL;
	}
	if (!isdigit((unsigned char)*item)) {
		if ((sig = proc_sigbyname(item)) <= 0)
			return "unknown item (expected exit codes 0-255, "
			    "ranges such as 1-125, signal names or timeout)";
		set_bit(set->signals, sig);
		return NULL;
	}
	if ((dash = strchr(item, '-')) == NULL) {
		a = strtonum(item, 0, 255, &errstr);
		if (errstr != NULL)
			return "exit codes go from 0 to 255";
		b = a;
	} else {
		if ((size_t)(dash - item) >= sizeof(lo))
			return "exit codes go from 0 to 255";
		memcpy(lo, item, (size_t)(dash - item));
		lo[dash - item] = '\0';
		a = strtonum(lo, 0, 255, &errstr);
		if (errstr == NULL)
			b = strtonum(dash + 1, 0, 255, &errstr);
		if (errstr != NULL || !isdigit((unsigned char)dash[1]))
			return "a range is two exit codes from 0 to 255, "
			    "such as 1-125";
		if (a > b)
			return "a range must not go downwards";
	}
	for (; a <= b; a++)
		set_bit(set->exits, (int)a);
	return NULL;
}

const char *
parse_outcomes(const char *s, struct outcome_set *set)
{
	char item[64];
	const char *why, *comma;
	size_t len;

	memset(set, 0, sizeof(*set));
	if (*s == '\0')
		return "empty list";
	for (;;) {
		comma = strchr(s, ',');
		len = comma != NULL ? (size_t)(comma - s) : strlen(s);
		if (len == 0)
			return "empty item in list";
		if (len >= sizeof(item))
			return "item too long";
		memcpy(item, s, len);
		item[len] = '\0';
		if ((why = parse_outcome_item(item, set)) != NULL)
			return why;
		if (comma == NULL)
			return NULL;
		s = comma + 1;
	}
}

bool
outcome_in(const struct outcome_set *set, const struct outcome *o)
{
	switch (o->kind) {
	case OUT_TIMEOUT:
		return set->timeout;
	case OUT_SIGNAL:
		return o->value > 0 && o->value < 128 &&
		    has_bit(set->signals, o->value);
	default:
		return has_bit(set->exits, o->value & 255);
	}
}

/* The status as the shell's $? would show it. */
int
outcome_status(const struct outcome *o)
{
	return o->kind == OUT_SIGNAL ? 128 + o->value : o->value;
}

static void
default_retry_on(struct outcome_set *set)
{
	static const int spared[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	    SIGPIPE };
	size_t i;
	int n;

	memset(set, 0, sizeof(*set));
	for (n = 1; n <= 255; n++)
		if (n != EXIT_NOEXEC && n != EXIT_NOTFOUND)
			set_bit(set->exits, n);
	for (n = 1; n < 128; n++)
		set_bit(set->signals, n);
	for (i = 0; i < sizeof(spared) / sizeof(spared[0]); i++)
		set->signals[spared[i] / 64] &=
		    ~(UINT64_C(1) << (spared[i] % 64));
	set->timeout = true;
}

void
config_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->attempts = 5;
	cfg->sched.base = NSEC_PER_SEC;
	cfg->sched.cap = 60 * NSEC_PER_SEC;
	cfg->sched.factor = 2;
	cfg->sched.jitter.kind = JITTER_FULL;
	default_retry_on(&cfg->retry_on);
	set_bit(cfg->success_on.exits, 0);
	cfg->timeout_signal = SIGTERM;
	cfg->kill_after = 10 * NSEC_PER_SEC;
	cfg->log_format = LOG_TEXT;
}

enum {
	OPT_SPLAY = 256,
	OPT_SEED,
	OPT_SUCCESS_ON,
	OPT_FOREGROUND,
	OPT_DRY_RUN,
	OPT_LOG_FORMAT,
	OPT_LOG_FILE
};

static const char shortopts[] = "+:n:b:f:c:j:r:x:t:s:k:m:IOqvhV";

static const struct option longopts[] = {
	{ "attempts",		required_argument,	NULL, 'n' },
	{ "base",		required_argument,	NULL, 'b' },
	{ "factor",		required_argument,	NULL, 'f' },
	{ "cap",		required_argument,	NULL, 'c' },
	{ "jitter",		required_argument,	NULL, 'j' },
	{ "splay",		required_argument,	NULL, OPT_SPLAY },
	{ "seed",		required_argument,	NULL, OPT_SEED },
	{ "retry-on",		required_argument,	NULL, 'r' },
	{ "stop-on",		required_argument,	NULL, 'x' },
	{ "success-on",		required_argument,	NULL, OPT_SUCCESS_ON },
	{ "timeout",		required_argument,	NULL, 't' },
	{ "signal",		required_argument,	NULL, 's' },
	{ "kill-after",		required_argument,	NULL, 'k' },
	{ "max-time",		required_argument,	NULL, 'm' },
	{ "foreground",		no_argument,		NULL, OPT_FOREGROUND },
	{ "replay-stdin",	no_argument,		NULL, 'I' },
	{ "hold-stdout",	no_argument,		NULL, 'O' },
	{ "log-format",		required_argument,	NULL, OPT_LOG_FORMAT },
	{ "log-file",		required_argument,	NULL, OPT_LOG_FILE },
	{ "dry-run",		no_argument,		NULL, OPT_DRY_RUN },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, 'V' },
	{ NULL,			0,			NULL, 0 }
};

static const char *
long_name(int val)
{
	const struct option *o;

	for (o = longopts; o->name != NULL; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* The value of one option that takes an argument; NULL or a reason. */
static const char *
parse_value(int opt, const char *arg, struct config *cfg)
{
	struct schedule *s = &cfg->sched;

	switch (opt) {
	case 'n':
		return parse_attempts(arg, &cfg->attempts);
	case 'b':
		return parse_duration(arg, &s->base, false);
	case 'f':
		return parse_factor(arg, &s->factor);
	case 'c':
		return parse_duration(arg, &s->cap, false);
	case 'j':
		return parse_jitter(arg, &s->jitter);
	case OPT_SPLAY:
		return parse_duration(arg, &s->splay, false);
	case OPT_SEED:
		cfg->seeded = true;
		return parse_seed(arg, &cfg->seed);
	case 'r':
		return parse_outcomes(arg, &cfg->retry_on);
	case 'x':
		return parse_outcomes(arg, &cfg->stop_on);
	case OPT_SUCCESS_ON:
		return parse_outcomes(arg, &cfg->success_on);
	case 't':
		return parse_duration(arg, &cfg->timeout, false);
	case 's':
		return parse_signal(arg, &cfg->timeout_signal);
	case 'k':
		return parse_duration(arg, &cfg->kill_after, true);
	case 'm':
		return parse_duration(arg, &cfg->max_time, false);
	case OPT_LOG_FORMAT:
		return parse_log_format(arg, &cfg->log_format);
	case OPT_LOG_FILE:
		cfg->log_file = arg;
		return *arg == '\0' ? "empty file name" : NULL;
	default:
		return NULL;
	}
}

static bool
parse_flag(int opt, struct config *cfg)
{
	switch (opt) {
	case OPT_FOREGROUND:
		cfg->foreground = true;
		return true;
	case 'I':
		cfg->replay_stdin = true;
		return true;
	case 'O':
		cfg->hold_stdout = true;
		return true;
	case OPT_DRY_RUN:
		cfg->dry_run = true;
		return true;
	case 'q':
		cfg->verbosity = -1;
		return true;
	case 'v':
		cfg->verbosity = 1;
		return true;
	default:
		return false;
	}
}

/*
 * What getopt rejected: an unknown option or a missing value.  word is
 * the argument getopt was working on: argv[optind - 1] would be the one
 * before it when the bad letter starts a cluster such as -Zq.
 */
static void
describe_bad_option(int opt, const char *word, char *err, size_t len)
{
	bool is_long = strncmp(word, "--", 2) == 0;

	if (opt == ':') {
		if (is_long)
			snprintf(err, len, "option '%s' needs a value", word);
		else
			snprintf(err, len, "option '-%c' needs a value",
			    optopt);
	} else if (is_long && optopt != 0)	/* known, but --flag=value */
		snprintf(err, len, "option '--%s' takes no value",
		    long_name(optopt));
	else if (!is_long)
		snprintf(err, len, "unknown option '-%c'", optopt);
	else
		snprintf(err, len, "unknown option '%s'", word);
}

/* What no single option can check; false with err filled in. */
static bool
check_config(struct config *cfg, const char *cap_arg, const char *base_arg,
    char *err, size_t len)
{
	struct schedule *s = &cfg->sched;

	if (cap_arg != NULL && s->cap < s->base) {
		snprintf(err, len, "invalid --cap '%.*s': below --base '%.*s'",
		    VALUE_SHOWN, cap_arg, VALUE_SHOWN, base_arg);
		return false;
	}
	if (s->cap < s->base)
		s->cap = s->base;
	if (!cfg->dry_run && cfg->argv == NULL) {
		snprintf(err, len, "no command given");
		return false;
	}
	return true;
}

/*
 * Fills cfg from argv.  On PARSE_ERROR, err holds one line without the
 * program name or the --help hint, which the caller adds.
 */
enum parse_result
parse_options(int argc, char **argv, struct config *cfg, char *err,
    size_t len)
{
	const char *why, *cap_arg = NULL, *base_arg = "1s";
	int opt, at;

	config_defaults(cfg);
	optind = 0;
	opterr = 0;
	while ((at = optind > 0 ? optind : 1, opt = getopt_long(argc, argv,
	    shortopts, longopts, NULL)) != -1) {
		if (opt == 'h')
			return PARSE_HELP;
		if (opt == 'V')
			return PARSE_VERSION;
		if (opt == '?' || opt == ':') {
			describe_bad_option(opt, argv[at], err, len);
			return PARSE_ERROR;
		}
		if (parse_flag(opt, cfg))
			continue;
		if (opt == 'c')
			cap_arg = optarg;
		else if (opt == 'b')
			base_arg = optarg;
		if ((why = parse_value(opt, optarg, cfg)) != NULL) {
			/* A huge value must not push the reason out. */
			snprintf(err, len, "invalid --%s '%.*s%s': %s",
			    long_name(opt), VALUE_SHOWN, optarg,
			    strlen(optarg) > VALUE_SHOWN ? "..." : "", why);
			return PARSE_ERROR;
		}
	}
	cfg->argv = optind < argc ? argv + optind : NULL;
	return check_config(cfg, cap_arg, base_arg, err, len) ? PARSE_OK :
	    PARSE_ERROR;
}
