/*
 * attempt.h: what attempt.c offers its callers: running one command to its
 * end, timing it out.
 */
#ifndef ATTEMPT_H
#define ATTEMPT_H

#include <stdbool.h>

#include "os/defs.h"
#include "os/signals.h"
#include "policy/outcomes.h"

struct attempt_spec {
	char		**argv;		/* the command */
	char		**envp;		/* its environment */
	nsec_t		 timeout;	/* 0: none */
	int		 signal;	/* sent when it runs out of time */
	nsec_t		 kill_after;	/* then SIGKILL; NSEC_INF: never */
	nsec_t		 deadline;	/* absolute; 0: none */
	int		 fd[3];		/* its stdin, stdout, stderr; -1:
					   retry's own; closed once given */
	bool		 own_group;	/* a process group of its own: a
					   hook, or LEFTOVERS_GROUP */
	struct streams	*streams;	/* or NULL; they give fd[] */
	nsec_t		 stall;		/* no output this long ends it, as
					   the timeout does; 0: none; needs
					   streams opened to watch */
};
/* What attempt_init() found about finding an attempt's leftovers. */
enum leftovers_mode {
	LEFTOVERS_FOUND,	/* by scanning retry's group */
	LEFTOVERS_GROUP,	/* no scan: each attempt leads its own group */
	LEFTOVERS_UNSEEN	/* no scan, and the terminal's job is shared */
};
enum leftovers_mode attempt_init(bool foreground);
void		 attempt_run(const struct sigstate *ss,
		    const struct attempt_spec *sp, struct outcome *o);
int		 attempt_sleep(const struct sigstate *ss, nsec_t until,
		    void (*tick)(nsec_t, void *), void *arg);
int		 attempt_clear_leftovers(const struct sigstate *ss,
		    pid_t group, int sig, nsec_t kill_after, nsec_t deadline);

#endif /* ATTEMPT_H */
