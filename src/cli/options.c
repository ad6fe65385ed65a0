/*
 * options.c: the command line.  parse_options() turns argv into a struct
 * config, with the defaults first, then --preset's schedule, then the
 * options in their order, and on a bad option or value writes one line
 * that names the option and the value; the values themselves are
 * parse.c's to convert, and what several options decide together is
 * checks.c's to check.  It parses the words of RETRY_OPTIONS (envopts.c
 * splits them) before argv, in the same way: argv wins where both set
 * something, and a LIST in argv replaces the variable's unless it starts
 * with +; every word of the variable is checked all the same, and every
 * error it causes says so.  Nothing here exits or prints, so the fuzz
 * harnesses can drive it directly.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "guard/spec.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "policy/preset.h"
#include "checks.h"
#include "config.h"
#include "debian.h"
#include "parse.h"

enum {
	OPT_SPLAY = 256,
	OPT_SEED,
	OPT_SUCCESS_ON,
	OPT_FOREGROUND,
	OPT_DRY_RUN,
	OPT_GUARD_STATUS,
	OPT_GUARD_RESET,
	OPT_SUCCESS_IF_OUTPUT,	/* nine, in parse_output_rule()'s order */
	OPT_SUCCESS_IF_STDOUT,
	OPT_SUCCESS_IF_STDERR,
	OPT_STOP_IF_OUTPUT,
	OPT_STOP_IF_STDOUT,
	OPT_STOP_IF_STDERR,
	OPT_RETRY_IF_OUTPUT,
	OPT_RETRY_IF_STDOUT,
	OPT_RETRY_IF_STDERR,
	OPT_FAILED_STDERR,
	OPT_ON_RETRY,
	OPT_ON_GIVE_UP,
	OPT_RESET_AFTER,
	OPT_LOG_FORMAT,
	OPT_LOG_FILE,
	OPT_HTTP,
	OPT_BUDGET,
	OPT_BREAKER,
	OPT_JSON_LOG,
	OPT_LOG_ON_FAILURE,
	OPT_FAILED_OUTPUT,
	OPT_PRESET,
	OPT_UNTIL_FAILURE,
	OPT_DELAYS,
	OPT_METRICS_FILE,
	OPT_EXHAUSTED_STATUS,
	OPT_DEBIAN_UNTIL	/* not an option: see debian_hint() */
};

static const char shortopts[] = "+:n:b:f:c:j:r:x:t:s:k:m:S:EFIOqvhV";

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
	{ "stall-timeout",	required_argument,	NULL, 'S' },
	{ "foreground",		no_argument,		NULL, OPT_FOREGROUND },
	{ "budget",		required_argument,	NULL, OPT_BUDGET },
	{ "breaker",		required_argument,	NULL, OPT_BREAKER },
	{ "guard-status",	no_argument,		NULL, OPT_GUARD_STATUS },
	{ "guard-reset",	no_argument,		NULL, OPT_GUARD_RESET },
	{ "replay-stdin",	no_argument,		NULL, 'I' },
	{ "hold-stdout",	no_argument,		NULL, 'O' },
	{ "failed-output",	required_argument,	NULL,
	    OPT_FAILED_OUTPUT },
	{ "hold-stderr",	no_argument,		NULL, 'E' },
	{ "failed-stderr",	required_argument,	NULL, OPT_FAILED_STDERR },
	{ "log-format",		required_argument,	NULL, OPT_LOG_FORMAT },
	{ "log-file",		required_argument,	NULL, OPT_LOG_FILE },
	{ "http",		required_argument,	NULL, OPT_HTTP },
	{ "json-log",		required_argument,	NULL, OPT_JSON_LOG },
	{ "metrics-file",	required_argument,	NULL, OPT_METRICS_FILE },
	{ "log-on-failure",	no_argument,		NULL,
	    OPT_LOG_ON_FAILURE },
	{ "preset",		required_argument,	NULL, OPT_PRESET },
	{ "dry-run",		no_argument,		NULL, OPT_DRY_RUN },
	{ "success-if-output",	required_argument,	NULL,
	    OPT_SUCCESS_IF_OUTPUT },
	{ "stop-if-output",	required_argument,	NULL, OPT_STOP_IF_OUTPUT },
	{ "retry-if-output",	required_argument,	NULL,
	    OPT_RETRY_IF_OUTPUT },
	{ "success-if-stdout",	required_argument,	NULL,
	    OPT_SUCCESS_IF_STDOUT },
	{ "success-if-stderr",	required_argument,	NULL,
	    OPT_SUCCESS_IF_STDERR },
	{ "stop-if-stdout",	required_argument,	NULL, OPT_STOP_IF_STDOUT },
	{ "stop-if-stderr",	required_argument,	NULL, OPT_STOP_IF_STDERR },
	{ "retry-if-stdout",	required_argument,	NULL,
	    OPT_RETRY_IF_STDOUT },
	{ "retry-if-stderr",	required_argument,	NULL,
	    OPT_RETRY_IF_STDERR },
	{ "fixed-strings",	no_argument,		NULL, 'F' },
	{ "on-retry",		required_argument,	NULL, OPT_ON_RETRY },
	{ "on-give-up",		required_argument,	NULL, OPT_ON_GIVE_UP },
	{ "reset-after",	required_argument,	NULL, OPT_RESET_AFTER },
	{ "until-failure",	no_argument,		NULL, OPT_UNTIL_FAILURE },
	/* Else --until would abbreviate --until-failure and eat its value. */
	{ "until",		required_argument,	NULL, OPT_DEBIAN_UNTIL },
	{ "delays",		required_argument,	NULL, OPT_DELAYS },
	{ "exhausted-status",	required_argument,	NULL,
	    OPT_EXHAUSTED_STATUS },
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

/* The value of a log option: where the messages go, in which form. */
static const char *
parse_log_value(int opt, const char *arg, struct config *cfg)
{
	switch (opt) {
	case OPT_LOG_FORMAT:
		return parse_log_format(arg, &cfg->log_format);
	case OPT_LOG_FILE:
		cfg->log_file = arg;
		return *arg == '\0' ? "empty file name" : NULL;
	case OPT_JSON_LOG:
		cfg->json_log = arg;
		return *arg == '\0' ? "empty file name" : NULL;
	case OPT_METRICS_FILE:
		cfg->metrics_file = arg;
		return *arg == '\0' ? "empty file name" : NULL;
	case OPT_FAILED_OUTPUT:	/* where -O's other output goes */
		cfg->failed_output = arg;
		cfg->hold_stdout = true;
		return *arg == '\0' ? "empty file name" : NULL;
	case OPT_FAILED_STDERR:	/* and -E's */
		cfg->failed_stderr = arg;
		cfg->hold_stderr = true;
		return *arg == '\0' ? "empty file name" : NULL;
	default:
		return NULL;
	}
}

/*
 * A LIST of --retry-on, --stop-on or --success-on over what that option
 * was before this pass: its default, or what RETRY_OPTIONS made it; why
 * (len bytes) is room for the reason.
 */
static const char *
parse_list(int opt, const char *arg, struct config *cfg,
    const struct pass *p, char *why, size_t len)
{
	switch (opt) {
	case 'r':
		return parse_outcomes(arg, &cfg->retry_on, &p->lists[0], why,
		    len);
	case 'x':
		return parse_outcomes(arg, &cfg->stop_on, &p->lists[1], why,
		    len);
	default:
		return parse_outcomes(arg, &cfg->success_on, &p->lists[2], why,
		    len);
	}
}

/*
 * The field that an option taking a duration sets, or NULL: eight
 * options, one parser, of which only -k takes "inf".
 */
static nsec_t *
duration_option(int opt, struct config *cfg)
{
	switch (opt) {
	case 'b':
		return &cfg->sched.base;
	case 'c':
		return &cfg->sched.cap;
	case OPT_SPLAY:
		return &cfg->sched.splay;
	case 't':
		return &cfg->timeout;
	case 'k':
		return &cfg->kill_after;
	case 'm':
		return &cfg->max_time;
	case 'S':
		return &cfg->stall;
	case OPT_RESET_AFTER:
		return &cfg->reset_after;
	default:
		return NULL;
	}
}

/*
 * The value of one option that takes an argument; NULL or a reason,
 * which may be written to why (len bytes).
 */
static const char *
parse_value(int opt, const char *arg, struct config *cfg, struct pass *p,
    char *why, size_t len)
{
	nsec_t *d;

	if ((d = duration_option(opt, cfg)) != NULL)
		return parse_duration(arg, d, opt == 'k');
	if (opt >= OPT_SUCCESS_IF_OUTPUT && opt <= OPT_RETRY_IF_STDERR)
		return parse_output_rule(arg, opt - OPT_SUCCESS_IF_OUTPUT,
		    &cfg->conds, p->seen);
	switch (opt) {
	case 'n':
		return parse_attempts(arg, &cfg->attempts);
	case 'f':
		return parse_factor(arg, &cfg->sched.factor);
	case 'j':
		return parse_jitter(arg, &cfg->sched.jitter);
	case OPT_SEED:
		cfg->seeded = true;
		return parse_seed(arg, &cfg->seed);
	case OPT_DELAYS:
		return parse_delays(arg, &cfg->sched, why, len);
	case OPT_EXHAUSTED_STATUS:
		return parse_status(arg, &cfg->exhausted_status);
	case 'r':
	case 'x':
	case OPT_SUCCESS_ON:
		return parse_list(opt, arg, cfg, p, why, len);
	case 's':
		return parse_signal(arg, &cfg->timeout_signal);
	case OPT_PRESET:
		/* Applied before the other options, by parse_options(). */
		return preset_apply(arg, NULL, NULL, NULL, NULL);
	case OPT_HTTP:
		cfg->http_file = arg;
		return *arg == '\0' ? "empty file name" : NULL;
	case OPT_ON_RETRY:
		cfg->on_retry = arg;
		return *arg == '\0' ? "empty command" : NULL;
	case OPT_ON_GIVE_UP:
		cfg->on_give_up = arg;
		return *arg == '\0' ? "empty command" : NULL;
	case OPT_BUDGET:
		return parse_budget(arg, &cfg->budget);
	case OPT_BREAKER:
		return parse_breaker(arg, &cfg->breaker);
	default:
		return parse_log_value(opt, arg, cfg);
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
	case 'E':
		cfg->hold_stderr = true;
		return true;
	case 'F':
		cfg->conds.fixed = true;
		return true;
	case OPT_DRY_RUN:
		cfg->dry_run = true;
		return true;
	case OPT_GUARD_STATUS:
		cfg->guard_status = true;
		return true;
	case OPT_GUARD_RESET:
		cfg->guard_reset = true;
		return true;
	case OPT_UNTIL_FAILURE:
		cfg->until_failure = true;
		return true;
	case OPT_LOG_ON_FAILURE:
		cfg->log_on_failure = true;
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
 * The value a refused option was given, as Debian's retry(1) would take
 * it: after '=' or the letter in word, or the next word; or NULL.
 */
static const char *
refused_value(const char *word, int letter, const char *next)
{
	const char *v;

	if (strncmp(word, "--", 2) == 0)
		v = strchr(word, '=') != NULL ? strchr(word, '=') + 1 : "";
	else
		v = strchr(word + 1, letter) != NULL ?
		    strchr(word + 1, letter) + 1 : "";
	if (*v == '\0' && next != NULL && next[0] != '-')
		v = next;
	return *v != '\0' ? v : NULL;
}

/*
 * What getopt rejected: an unknown option or a missing value.  word is
 * the argument getopt was working on: argv[optind - 1] would be the one
 * before it when the bad letter starts a cluster such as -Zq.
 */
static void
describe_bad_option(int opt, const char *word, const char *next, char *err,
    size_t len)
{
	bool is_long = strncmp(word, "--", 2) == 0;
	char bad[VALUE_SHOWN + 8], name[VALUE_SHOWN + 8];
	char hint[DEBIAN_HINT_MAX];
	bool known;

	if (opt == ':') {
		if (is_long)
			snprintf(err, len, "option '%s' needs a value", word);
		else
			snprintf(err, len, "option '-%c' needs a value",
			    optopt);
	} else if (is_long && opt == '?' && optopt != 0) {
		/* known, but --flag=value (--until matched: optopt is stale) */
		snprintf(err, len, "option '--%s' takes no value",
		    long_name(optopt));
	} else {
		if (!is_long)
			snprintf(bad, sizeof(bad), "-%c", optopt);
		else
			snprintf(bad, sizeof(bad), "%.*s", VALUE_SHOWN, word);
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad, "="),
		    bad);
		known = debian_hint(name, refused_value(word, optopt, next),
		    hint, sizeof(hint));
		snprintf(err, len, "unknown option '%s'%s%s%s", bad,
		    known ? " (Debian's retry? here: " : "",
		    known ? hint : "", known ? ")" : "");
	}
}

/* The last --preset of argv, or NULL; errors are left to parse_vector(). */
static const char *
find_preset(int argc, char **argv)
{
	const char *preset = NULL;
	int opt;

	optind = 0;	/* a full reset, for glibc and the BSDs alike */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, longopts,
	    NULL)) != -1)
		if (opt == OPT_PRESET)
			preset = optarg;
	return preset;
}

/*
 * What RETRY_OPTIONS may not hold: what is no setting for every run, and
 * --dry-run, --guard-status and --guard-reset, which would make every
 * run do nothing.  NULL or the reason.
 */
static const char *
refused_from_env(int opt, const char *arg)
{
	switch (opt) {
	case 'h':
		return "--help";
	case 'V':
		return "--version";
	case OPT_DRY_RUN:
		return "--dry-run";
	case OPT_GUARD_STATUS:
		return "--guard-status";
	case OPT_GUARD_RESET:
		return "--guard-reset";
	case OPT_PRESET:
		return arg != NULL && strcmp(arg, "list") == 0 ?
		    "--preset=list" : NULL;
	default:
		return NULL;
	}
}

/* What --delays replaces, or goes with, as this pass gives it. */
static void
note_schedule_option(int opt, struct pass *p)
{
	switch (opt) {
	case 'b':
	case 'f':
	case 'c':
	case OPT_PRESET:
		if (p->computed == NULL)
			p->computed = long_name(opt);
		break;
	case OPT_DELAYS:
		p->delays = true;
		break;
	case 'j':
		p->jitter = true;
		break;
	default:
		break;
	}
}

/*
 * Whether the options that the checks across options name came from
 * RETRY_OPTIONS: the last pass to give one decides.
 */
static void
note_origin(int opt, struct pass *p)
{
	switch (opt) {
	case 'c':
		p->env.cap = p->from_env;
		break;
	case 'b':
		p->env.base = p->from_env;
		break;
	case OPT_UNTIL_FAILURE:
		p->env.until = p->from_env;
		break;
	case OPT_BUDGET:
		p->env.budget = p->from_env;
		break;
	case OPT_BREAKER:
		p->env.breaker = p->from_env;
		break;
	default:
		break;
	}
}

/* One option of a pass: a flag, or one that takes a value. */
static enum parse_result
parse_one(int opt, struct config *cfg, struct pass *p, char *err,
    size_t len)
{
	const char *why, *arg = optarg != NULL ? optarg : "";
	char whybuf[160];

	note_origin(opt, p);
	if (parse_flag(opt, cfg))
		return PARSE_OK;
	if (opt == 'c')
		p->cap_arg = arg;
	else if (opt == 'b')
		p->base_arg = arg;
	note_schedule_option(opt, p);
	if ((why = parse_value(opt, arg, cfg, p, whybuf,
	    sizeof(whybuf))) != NULL) {
		/* A huge value must not push the reason out. */
		snprintf(err, len, "invalid --%s '%.*s%s': %s",
		    long_name(opt), VALUE_SHOWN, arg,
		    strlen(arg) > VALUE_SHOWN ? "..." : "", why);
		return PARSE_ERROR;
	}
	return PARSE_OK;
}

/* --preset=list prints the presets: a command after it is a mistake. */
static enum parse_result
presets_only(bool command, char *err, size_t len)
{
	if (!command)
		return PARSE_PRESETS;
	snprintf(err, len, "--preset=list prints the presets: it runs no "
	    "command");
	return PARSE_ERROR;
}

/*
 * The options of one vector into cfg; p->end is the index of its first
 * word that is no option.  last_arg catches a "--" that ended the
 * options, which RETRY_OPTIONS may not hold.
 */
static enum parse_result
parse_vector(int argc, char **argv, struct config *cfg, struct pass *p,
    char *err, size_t len)
{
	enum parse_result r;
	const char *refused, *last_arg = NULL;
	bool list = false;
	int opt, at;

	p->lists[0] = cfg->retry_on;
	p->lists[1] = cfg->stop_on;
	p->lists[2] = cfg->success_on;
	memset(p->seen, 0, sizeof(p->seen));
	p->computed = NULL;
	p->delays = false;
	optind = 0;
	opterr = 0;
	while ((at = optind > 0 ? optind : 1, opt = getopt_long(argc, argv,
	    shortopts, longopts, NULL)) != -1) {
		if (p->from_env && (refused = refused_from_env(opt,
		    optarg)) != NULL) {
			snprintf(err, len, "%s is not allowed there", refused);
			return PARSE_ERROR;
		}
		if (opt == 'h')
			return PARSE_HELP;
		if (opt == 'V')
			return PARSE_VERSION;
		if (opt == OPT_PRESET && optarg != NULL &&
		    strcmp(optarg, "list") == 0) {
			list = true;
			continue;
		}
		if (opt == '?' || opt == ':' || opt == OPT_DEBIAN_UNTIL) {
			describe_bad_option(opt, argv[at], at + 1 < argc ?
			    argv[at + 1] : NULL, err, len);
			return PARSE_ERROR;
		}
		if ((r = parse_one(opt, cfg, p, err, len)) != PARSE_OK)
			return r;
		last_arg = optarg;
	}
	p->end = optind;
	if (list)
		return presets_only(optind < argc, err, len);
	if (!check_delays(cfg, p, err, len))
		return PARSE_ERROR;
	if (p->from_env && optind > 1 && strcmp(argv[optind - 1], "--") ==
	    0 && argv[optind - 1] != last_arg) {
		snprintf(err, len, "'--' is not allowed there: the command "
		    "goes on the command line");
		return PARSE_ERROR;
	}
	if (p->from_env && optind < argc) {
		snprintf(err, len, "'%.*s' is not an option: the command "
		    "goes on the command line", VALUE_SHOWN, argv[optind]);
		return PARSE_ERROR;
	}
	return PARSE_OK;
}

/*
 * The words of RETRY_OPTIONS: their errors say where they came from.
 * What argv may still replace is checked here, on the variable's own.
 */
static enum parse_result
parse_env_words(int envc, char **envv, struct config *cfg,
    struct pass *p, char *err, size_t len)
{
	enum parse_result r;
	char why[400];

	p->from_env = true;
	if ((r = parse_vector(envc, envv, cfg, p, why, sizeof(why))) ==
	    PARSE_OK && !check_env_eres(&cfg->conds, why, sizeof(why)))
		r = PARSE_ERROR;
	if (r == PARSE_ERROR)
		snprintf(err, len, "RETRY_OPTIONS: %s", why);
	p->from_env = false;
	/* Without --http in RETRY_OPTIONS, argv may still give one. */
	p->env.http[0] = outcomes_have_http(&cfg->retry_on);
	p->env.http[1] = outcomes_have_http(&cfg->stop_on);
	p->env.http[2] = outcomes_have_http(&cfg->success_on);
	return r;
}

/*
 * Fills cfg from the words of RETRY_OPTIONS (envv, NULL-terminated, the
 * first standing for the program; NULL: none), then argv.  On
 * PARSE_ERROR, err holds one line without the program name or the
 * --help hint, which the caller adds.
 */
enum parse_result
parse_options(char **envv, int argc, char **argv, struct config *cfg,
    char *err, size_t len)
{
	enum parse_result r;
	struct pass p;
	const char *preset = NULL, *argv_preset;
	int envc = 0;

	config_defaults(cfg);
	memset(&p, 0, sizeof(p));
	while (envv != NULL && envv[envc] != NULL)
		envc++;
	/* A --preset goes first, whichever vector names it; argv's wins. */
	if (envc > 1 && envv != NULL)
		preset = find_preset(envc, envv);
	if ((argv_preset = find_preset(argc, argv)) != NULL)
		preset = argv_preset;
	p.env.preset = preset != NULL && argv_preset == NULL;
	if (preset != NULL && preset_apply(preset, &cfg->sched,
	    &cfg->attempts, &cfg->max_time, &cfg->reset_after) == NULL)
		cfg->preset = preset;
	if (envc > 1 && envv != NULL && (r = parse_env_words(envc, envv, cfg,
	    &p, err, len)) != PARSE_OK)
		return r;
	if ((r = parse_vector(argc, argv, cfg, &p, err, len)) != PARSE_OK)
		return r;
	cfg->argv = p.end < argc ? argv + p.end : NULL;
	return check_config(cfg, &p, err, len) ?
	    PARSE_OK : PARSE_ERROR;
}
