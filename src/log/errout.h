/*
 * errout.h: what errout.c offers its callers: retry's own lines into a
 * terminal or a pipe on stderr, or a FIFO or terminal that the log opened,
 * which wait for room no longer than the run allows.
 */
#ifndef ERROUT_H
#define ERROUT_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "text/escape.h"

struct sigstate;

struct errout {
	int		 tty[3];	/* non-blocking opens of terminals:
					   stderr's (or -1), then the log's, */
	int		 tty_wait[3];	/* ms a line may wait for each, */
	int		 ntty;		/* how many */
	int		 pipe;		/* a non-blocking open of the pipe
					   on stderr, or -1 */
	bool		 pipe_cut;	/* its last line was cut short */
	int		 fifo[2];	/* FIFOs the log opened, made
					   non-blocking, */
	int		 nfifo;		/* how many */
	bool		 fifo_cut[2];	/* their last lines cut short */
	struct errout_file {		/* --log-file's, --json-log's: */
		int		 fd;
		const char	*what, *path; /* as warnings name it */
		long long	 lines, lost;	/* written, and failed */
	}		 file[2];
	int		 nfile;
	int		 hold_fd;	/* --log-on-failure: lines for it */
	struct strbuf	 held;		/* are kept here, the last ones */
	long long	 dropped;	/* and how many older ones were not */
	const struct sigstate *ss;	/* what ends a wait for room, */
	nsec_t		 deadline;	/* and when (--max-time; 0: none) */
	nsec_t		 stop_until;	/* after a stop, the wait's end */
};
void		 errout_open(struct errout *eo, int tty);
void		 errout_bound_stderr(struct errout *eo);
void		 errout_own(struct errout *eo, int fd, const char *what,
		    const char *path);
void		 errout_hold(struct errout *eo, int fd);
void		 errout_end(struct errout *eo, bool failed);
void		 errout_stopped(struct errout *eo);
void		 errout_bound(struct errout *eo, const struct sigstate *ss,
		    nsec_t deadline);
void		 errout_write(struct errout *eo, int fd, const char *s,
		    size_t len);

#endif /* ERROUT_H */
