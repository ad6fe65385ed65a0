/*
 * status.h: what status.c offers log.c: the wait before the next
 * attempt, as a status line that counts down in place on a terminal and
 * then leaves its plain line behind, or as the plain line alone.
 */
#ifndef STATUS_H
#define STATUS_H

#include <stdbool.h>

#include "os/defs.h"
#include "text/escape.h"
#include "errout.h"

struct status_line {
	struct errout	*err;		/* what bounds the writes to fd */
	int		 fd;		/* the text sink */
	bool		 on;		/* redraw a status line on a terminal */
	bool		 open;		/* the status line is showing */
	struct strbuf	 status;	/* the status line, less the time */
	struct strbuf	 plain;		/* the line it leaves behind */
	int		 drawn;		/* columns of the status line shown */
};
void		 status_open(struct status_line *sl, struct errout *err,
		    int fd, bool wanted);
void		 status_wait(struct status_line *sl, const char *status,
		    struct strbuf *plain);
void		 status_draw(struct status_line *sl, nsec_t left);
void		 status_done(struct status_line *sl);

#endif /* STATUS_H */
