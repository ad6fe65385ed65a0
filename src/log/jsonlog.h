/*
 * jsonlog.h: what jsonlog.c offers its callers: the JSON log's events, for
 * log.c.
 */
#ifndef JSONLOG_H
#define JSONLOG_H

#include <stdbool.h>

#include "os/defs.h"
#include "policy/backoff.h"
#include "policy/outcomes.h"

enum log_format {
	LOG_TEXT,
	LOG_JSON,
	LOG_GITHUB		/* GitHub Actions workflow commands */
};

struct errout;
struct trace;

struct jsonlog {
	int		 fd[2];		/* where the JSON lines go */
	struct errout	*out;		/* how they go there */
	int		 nfd;		/* 0: no JSON log */
	nsec_t		 t0;		/* what "time" counts from */
	bool		 http;		/* --http: events carry its fields */
	const struct trace *trace;	/* TRACEPARENT's, or NULL */
};
/* The run as log_start() shows it. */
struct log_run {
	char		**argv;		/* the command */
	long long	 attempts;	/* 0: unlimited */
	const struct schedule *sched;
	nsec_t		 timeout;	/* 0: none */
	nsec_t		 max_time;	/* 0: none */
	const char	*env_options;	/* RETRY_OPTIONS' words, or NULL */
	nsec_t		 stall;		/* --stall-timeout; 0: none */
	nsec_t		 splay;		/* drawn, up to sched->splay */
};
void		 jsonlog_start(const struct jsonlog *jl,
		    const struct log_run *run);
void		 jsonlog_attempt_start(const struct jsonlog *jl, long long k);
void		 jsonlog_attempt_end(const struct jsonlog *jl, long long k,
		    const struct outcome *o);
void		 jsonlog_sleep(const struct jsonlog *jl, long long k,
		    nsec_t sleep, nsec_t window, const struct jitter *jitter,
		    nsec_t server);
void		 jsonlog_summary(const struct jsonlog *jl, long long k,
		    nsec_t elapsed, int status, int exit, const char *reason);
void		 jsonlog_breaker_open(const struct jsonlog *jl,
		    const char *reason, nsec_t wait, int status);

#endif /* JSONLOG_H */
