/*
 * hooks.h: what hooks.c offers its callers: --on-retry and --on-give-up.
 */
#ifndef HOOKS_H
#define HOOKS_H

#include "os/defs.h"
#include "os/signals.h"

struct hook {
	const char	*name;		/* the option, for messages */
	const char	*cmd;
	char		**envp;		/* the command's environment */
	int		 status;	/* of the attempt that just ended */
	nsec_t		 next_sleep;	/* -1: no attempt follows */
	nsec_t		 deadline;	/* 0: none */
	nsec_t		 kill_after;	/* then SIGKILL; NSEC_INF: never */
};
int		 hook_run(const struct sigstate *ss, const struct hook *h);
nsec_t		 hook_give_up_deadline(nsec_t deadline, nsec_t kill_after);

#endif /* HOOKS_H */
