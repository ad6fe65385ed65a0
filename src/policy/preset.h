/*
 * preset.h: what preset.c offers its callers: the schedules of known
 * systems, for --preset.
 */
#ifndef PRESET_H
#define PRESET_H

#include <stdio.h>

#include "os/defs.h"
#include "backoff.h"

const char	*preset_apply(const char *name, struct schedule *sched,
		    long long *attempts, nsec_t *max_time, nsec_t *reset_after);
int		 preset_list(FILE *out);

#endif /* PRESET_H */
