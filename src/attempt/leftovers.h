/*
 * leftovers.h: what leftovers.c offers its callers: the processes an
 * attempt left behind, per platform.
 */
#ifndef LEFTOVERS_H
#define LEFTOVERS_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"

#define LEFTOVER_WATCH	32
struct leftovers {
	int		 pidfd[LEFTOVER_WATCH];	/* readable when one ends */
	int		 npidfd;
	bool		 watched;	/* every one found has a pidfd */
};
bool		 leftovers_init(void);
size_t		 leftovers_signal(pid_t self, pid_t skip, int sig, bool cont);
size_t		 leftovers_signal_group(pid_t group, int sig, bool cont);
size_t		 leftovers_watch(struct leftovers *lw, pid_t self, int sig,
		    bool cont);
void		 leftovers_unwatch(struct leftovers *lw);

#endif /* LEFTOVERS_H */
