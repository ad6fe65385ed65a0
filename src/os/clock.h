/*
 * clock.h: what clock.c offers its callers: the one clock that every
 * deadline is measured on, the wall, and the boot-time clock that
 * processes share, with the id of its boot.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include "defs.h"

nsec_t		 mono_now(void);
nsec_t		 wall_now(void);
nsec_t		 boot_now(void);
long long	 boot_id(void);

/* a + b, saturating at "never": a deadline that far off never comes. */
static inline nsec_t
nsec_add(nsec_t a, nsec_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

#endif /* CLOCK_H */
