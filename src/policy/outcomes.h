/*
 * outcomes.h: how an attempt ended (struct outcome), the sets of outcomes
 * that --retry-on, --stop-on and --success-on name, and outcomes.c, which
 * parses their LISTs.
 */
#ifndef OUTCOMES_H
#define OUTCOMES_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/defs.h"

/*
 * Sets of outcomes: exit codes 0-255, signals 1-127 and "timeout", and
 * the HTTP statuses of --http (200-599, as bits 0-639).
 */
#define HTTP_STATUS_MIN	200	/* a final status: 1xx are interim */
#define HTTP_STATUS_MAX	599
struct outcome_set {
	uint64_t	exits[4];
	uint64_t	signals[2];
	bool		timeout;
	uint64_t	http[10];
};

enum outcome_kind {
	OUT_EXIT,		/* value: exit code */
	OUT_SIGNAL,		/* value: signal number */
	OUT_TIMEOUT,		/* value: 124, or 137 when KILL was needed */
	OUT_NOEXEC		/* value: 126 or 127; error: errno */
};

struct outcome {
	enum outcome_kind kind;
	int		value;
	int		error;
	nsec_t		duration;
	bool		deadline;	/* the --max-time deadline ended it */
	nsec_t		stalled;	/* --stall-timeout ended it: the
					   timeout; 0: it did not */
	nsec_t		timeout;	/* -t, when it ended the attempt; 0:
					   it did not */
	int		stop_signal;	/* a signal retry received: forwarded */
	int		matched;	/* the output condition, or -1 */
	const char	*matched_text;	/* its ERE */
	int		http_status;	/* --http: 200-599; 0: no response */
	pid_t		group;		/* the group it led; 0: retry's */
};

/* The status as the shell's $? would show it. */
static inline int
outcome_status(const struct outcome *o)
{
	return o->kind == OUT_SIGNAL ? 128 + o->value : o->value;
}

/* outcomes.c: the LISTs of outcomes and the sets they become. */
const char	*parse_outcomes(const char *s, struct outcome_set *set,
		    const struct outcome_set *dflt, char *why, size_t whylen);
void		 outcomes_default_retry(struct outcome_set *set);
void		 outcomes_add_exit(struct outcome_set *set, int code);
bool		 outcome_in(const struct outcome_set *set,
		    const struct outcome *o);
bool		 outcome_http_in(const struct outcome_set *set, int status);
bool		 outcomes_have_http(const struct outcome_set *set);
int		 outcome_format(char *buf, size_t len, const struct outcome *o);
_Noreturn void	 outcome_exit(const struct outcome *o);

#endif /* OUTCOMES_H */
