/*
 * summary.h: what summary.c offers its callers: the job summary that
 * --log-format=github appends to $GITHUB_STEP_SUMMARY.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include "os/defs.h"

struct summary;
struct summary	*summary_open(const char *path, char *const *argv);
void		 summary_attempt(struct summary *sm, long long k,
		    nsec_t start, nsec_t duration, const char *outcome);
void		 summary_wait(struct summary *sm, nsec_t wait);
void		 summary_close(struct summary *sm, int status,
		    const char *result);

#endif /* SUMMARY_H */
