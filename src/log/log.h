/*
 * log.h: what log.c offers its callers: progress messages, as text,
 * workflow commands or JSON lines.
 */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

#include "os/defs.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"
#include "text/escape.h"
#include "errout.h"
#include "jsonlog.h"
#include "metrics.h"
#include "status.h"
#include "summary.h"

struct log {
	int		 fd;		/* the text sink: stderr or --log-file */
	int		 tty;		/* a non-blocking open of the terminal
					   on stderr, or -1: errors go there */
	struct errout	 err;		/* stderr, a terminal or a pipe */
	enum log_format	 format;	/* LOG_JSON: fd is a JSON sink too */
	bool		 stamp;		/* lines start with the local time */
	int		 gh_output;	/* $GITHUB_OUTPUT, or -1 */
	struct jsonlog	 json;
	int		 verbosity;
	struct status_line line;	/* the wait before the next attempt */
	long long	 max;		/* --attempts, 0: unlimited */
	bool		 until_failure;	/* the sleeps follow successes */
	struct summary	*summary;	/* $GITHUB_STEP_SUMMARY's, or NULL */
	nsec_t		 attempt_at;	/* when the attempt started, from t0 */
	char		 title[80];	/* github: retry and the command, cut */
	const char	*metrics_file;	/* --metrics-file, or NULL */
};
/* What log_open() needs of the command line. */
struct log_options {
	enum log_format	 format;
	int		 verbosity;	/* -1 quiet, 0 default, 1 verbose */
	const char	*log_file;	/* or NULL: stderr */
	const char	*json_log;	/* or NULL */
	long long	 attempts;	/* 0: unlimited */
	bool		 http;		/* --http: events carry the status */
	bool		 until_failure;	/* the sleeps follow successes */
	bool		 on_failure;	/* --log-on-failure */
	const char	*metrics_file;	/* or NULL */
	const struct trace *trace;	/* TRACEPARENT's, or NULL */
};
void		 log_open(struct log *lg, const struct log_options *lo);
struct sigstate;
void		 log_bound_waits(struct log *lg, const struct sigstate *ss,
		    nsec_t deadline);
void		 log_start(struct log *lg, const struct log_run *run,
		    nsec_t t0);
void		 log_splay(struct log *lg, nsec_t drawn, nsec_t max);
void		 log_attempt_start(struct log *lg, long long k);
void		 log_attempt_end(struct log *lg, long long k,
		    const struct outcome *o);
/* A sleep before the next attempt, as log_retrying() reports it. */
struct log_sleep {
	nsec_t		 sleep;		/* the whole sleep */
	nsec_t		 window;	/* the window it was drawn from */
	const struct jitter *jitter;	/* how it was drawn */
	nsec_t		 server;	/* --http: the server's part; -1 */
	const char	*retry_after;	/* the value that asked, or NULL */
};
void		 log_retrying(struct log *lg, long long k,
		    const struct outcome *o, const struct log_sleep *sl);
void		 log_all_succeeded(struct log *lg, long long k, const char *why,
		    nsec_t elapsed);
bool		 log_counts_down(const struct log *lg);
void		 log_countdown(nsec_t left, void *arg);
void		 log_sleep_done(struct log *lg);
void		 log_finish(struct log *lg, long long k,
		    const struct outcome *o, const char *reason, int exit,
		    nsec_t elapsed);
void		 log_note(struct log *lg, long long k, const char *fmt,
		    ...) __printflike(3, 4);
void		 log_stopped(struct log *lg, long long k, bool during, int sig,
		    int status, nsec_t elapsed);
void		 log_breaker_open(struct log *lg, const char *name,
		    nsec_t wait, int status);

#endif /* LOG_H */
