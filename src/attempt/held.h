/*
 * held.h: what held.c offers its callers: --hold-stdout and
 * --hold-stderr, a held file from creation to drain.
 */
#ifndef HELD_H
#define HELD_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/signals.h"

struct held;
struct held	*held_open(const char *option);
void		 held_begin(struct held *h);
ssize_t		 held_take(struct held *h, int in, size_t len);
ssize_t		 held_write(struct held *h, const char *buf, size_t n);
int		 held_flush(const struct sigstate *ss, const struct held *h,
		    int out, nsec_t deadline);
/* Where a failed attempt's held output goes (--failed-output...). */
struct failed_sink {
	int		 fd;		/* -1: dropped */
	const char	*name;		/* as the user named it */
	const char	*option;	/* which option named it */
	bool		 told;		/* that writing there failed */
};

void		 held_failed_sinks(struct failed_sink fs[2], const char *out,
		    const char *err);

int		 held_flush_failed(const struct sigstate *ss, const struct held *h,
		    struct failed_sink *fs, nsec_t deadline);

#endif /* HELD_H */
