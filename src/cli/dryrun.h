/*
 * dryrun.h: what dryrun.c offers its callers: --dry-run, the schedule as a
 * table on stdout, and the other modes that run no command.
 */
#ifndef DRYRUN_H
#define DRYRUN_H

#include "os/defs.h"

struct config;

#define DRYRUN_UNLIMITED_ROWS	20
#define DRYRUN_MAX_ROWS		1000	/* more is shown as the first this many */

int		 dry_run(const struct config *cfg);
int		 run_nothing(const struct config *cfg);

#endif /* DRYRUN_H */
