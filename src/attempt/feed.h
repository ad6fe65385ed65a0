/*
 * feed.h: what feed.c offers its callers: --replay-stdin, every attempt's
 * stdin from one spool.
 */
#ifndef FEED_H
#define FEED_H

#include <poll.h>

#include "os/defs.h"

struct feed;
struct feed	*feed_open(void);
int		 feed_begin(struct feed *sp);
int		 feed_poll_fd(struct feed *sp, struct pollfd *pfd);
int		 feed_service(struct feed *sp, const struct pollfd *pfd);
void		 feed_end(struct feed *sp);

#endif /* FEED_H */
