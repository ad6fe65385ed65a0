/*
 * metrics.h: what metrics.c offers its callers: --metrics-file, the
 * run's end in the Prometheus text format, for log.c.
 */
#ifndef METRICS_H
#define METRICS_H

#include "os/defs.h"

/* How the run ended: the values of retry_outcome's label. */
enum metrics_outcome {
	METRICS_SUCCESS,
	METRICS_GAVE_UP,
	METRICS_STOPPED,
	METRICS_BREAKER_OPEN
};

struct metrics_run {
	long long	 attempts;	/* those that started */
	int		 status;	/* what retry exits with */
	enum metrics_outcome outcome;
	nsec_t		 elapsed;	/* from the first attempt's start */
};

struct strbuf;
void		 metrics_name(struct strbuf *sb, const char *path);
void		 metrics_write(const char *path, const struct metrics_run *m);

#endif /* METRICS_H */
