/*
 * signals.h: what signals.c offers its callers: names, handlers, masks,
 * and the one wait for events.
 */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <sys/types.h>

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "defs.h"

/*
 * What retry found at start and what it handles: one for the process,
 * made by signals_init(), its layout signals.c's own.  It travels as a
 * parameter because it holds signal sets, which no handler-safe flag
 * can (the house keeps no other globals).
 */
struct sigstate;
struct sigstate	*signals_init(void);
pid_t		 signals_self(const struct sigstate *ss);
int		 signals_wait(const struct sigstate *ss, struct pollfd *fds,
		    int nfds, nsec_t deadline);
int		 signals_wait_fd(const struct sigstate *ss, int fd,
		    short events, nsec_t deadline, long mark);
void		 signals_take_pending(const struct sigstate *ss);
void		 signals_restore(const struct sigstate *ss);
bool		 signals_sigpipe_default(const struct sigstate *ss);
bool		 signals_child_exited(void);
void		 signals_child_seen(void);
bool		 sig_is_stop(int sig);
int		 signals_stop(void);
int		 signals_next_forward(void);
void		 signals_drop_forwards(void);
long		 signals_stops(void);
_Noreturn void	 die_by_signal(int sig);
const char	*sig_name(int sig, char *buf, size_t len);
int		 sig_number(const char *s);

#endif /* SIGNALS_H */
