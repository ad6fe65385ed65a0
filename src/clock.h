/*
 * clock.h: what clock.c offers its callers: the one clock that every
 * deadline is measured on, and the wall.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include "defs.h"

nsec_t		 mono_now(void);
nsec_t		 wall_now(void);
nsec_t		 boot_now(void);

#endif /* CLOCK_H */
