/*
 * config.h: struct config, the command line as options.c fills it in.
 * Only retry.c, options.c, checks.c and the dry run see it (and the
 * options fuzzer); retry.c hands every other module the few values it
 * needs.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attempt/match.h"
#include "guard/spec.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"

struct config {
	long long	attempts;	/* 0: unlimited */
	struct schedule	sched;
	bool		seeded;
	uint64_t	seed;
	struct outcome_set retry_on, stop_on, success_on;
	nsec_t		timeout;	/* 0: none */
	int		timeout_signal;
	nsec_t		kill_after;	/* NSEC_INF: never */
	nsec_t		max_time;	/* 0: none */
	nsec_t		stall;		/* --stall-timeout; 0: none */
	bool		foreground;
	bool		replay_stdin;
	bool		hold_stdout;
	bool		hold_stderr;	/* -E */
	const char	*failed_output;	/* -O's failed output; NULL */
	const char	*failed_stderr;	/* -E's failed output; NULL */
	bool		dry_run;
	bool		guard_status;	/* show the guards, run nothing */
	bool		guard_reset;	/* reset them, show, run nothing */
	bool		until_failure;	/* stop at the first failure */
	const char	*env_options;	/* RETRY_OPTIONS' words, or NULL */
	int		verbosity;	/* -1 quiet, 0 default, 1 verbose */
	enum log_format	log_format;
	const char	*log_file;
	const char	*json_log;	/* --json-log, or NULL */
	const char	*metrics_file;	/* --metrics-file, or NULL */
	bool		log_on_failure;	/* lines only on a failure */
	const char	*preset;	/* the --preset applied, or NULL */
	struct match_rules conds;	/* the output conditions */
	const char	*on_retry;	/* hook commands, or NULL */
	const char	*on_give_up;
	nsec_t		 reset_after;	/* 0: never */
	int		exhausted_status; /* when giving up; -1: none */
	const char	*http_file;	/* --http: the response head; or NULL */
	struct guard_spec budget;
	struct guard_spec breaker;
	char		**argv;		/* the command; NULL with --dry-run,
					   --guard-status or --guard-reset */
};

/* options.c: the command line, turned into a struct config. */
enum parse_result {
	PARSE_OK,
	PARSE_ERROR,
	PARSE_HELP,
	PARSE_VERSION,
	PARSE_PRESETS		/* --preset=list */
};
enum parse_result parse_options(char **envv, int argc, char **argv,
		    struct config *cfg, char *err, size_t len);
void		 config_defaults(struct config *cfg);

#endif /* CONFIG_H */
