/*
 * streams.h: what streams.c offers its callers: the command's streams
 * during an attempt.
 */
#ifndef STREAMS_H
#define STREAMS_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "os/defs.h"
#include "os/signals.h"
#include "held.h"

struct matcher;

#define STREAMS_FDS	3	/* descriptors to wait for, at most */
struct streams;
struct streams	*streams_open(bool replay_stdin, const bool hold[2],
		    struct matcher *m, bool watch);
void		 streams_begin(struct streams *st, int fd[3]);
int		 streams_fds(struct streams *st, struct pollfd *fds);
int		 streams_service(struct streams *st, const struct pollfd *fds,
		    int nfds);
bool		 streams_done(const struct streams *st);
uint64_t	 streams_taken(const struct streams *st);
bool		 streams_backed_up(const struct streams *st);
bool		 streams_busy(const struct streams *st);
_Noreturn void	 streams_fail(const struct streams *st, int error);
int		 streams_end(struct streams *st, const char **text);
struct held	*streams_held(const struct streams *st, int which);

#endif /* STREAMS_H */
