/*
 * guard.h: what guard.c offers its callers: --budget and --breaker as the
 * attempt loop sees them, on a local state file or in Redis.
 */
#ifndef GUARD_H
#define GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "os/defs.h"
#include "os/signals.h"
#include "budget.h"
#include "store.h"

struct guards {
	struct guard	 budget;
	struct guard	 breaker;
	uint32_t	 probe;		/* this run is the breaker's probe */
	nsec_t		 lease;		/* how long a probe's claim lasts */
	long		 mark;		/* signals_stops() before attempt 1 */
	nsec_t		 limit;		/* the run's deadline (-m), 0: none */
	nsec_t		 opening;	/* the waits before attempt 1 end by
					   then; 0: they are over */
};
/* The run's limits, which bound how long a breaker's probe can last. */
struct guard_limits {
	long long	 attempts;	/* 0: unlimited */
	nsec_t		 timeout;	/* of each attempt, 0: none */
	nsec_t		 kill_after;	/* NSEC_INF: never */
	nsec_t		 cap;		/* the longest sleep */
	nsec_t		 max_time;	/* 0: none */
};
void		 guards_open(struct guards *gs, const struct guard_spec *budget,
		    const struct guard_spec *breaker,
		    const struct guard_limits *lim, const struct sigstate *ss);
void		 guards_limit(struct guards *gs, nsec_t deadline);
bool		 guards_admit(struct guards *gs, nsec_t *wait);
bool		 guards_attempt(struct guards *gs, bool success);
void		 guards_end(struct guards *gs, enum run_end end);
int		 guards_tool(const struct guard_spec *budget,
		    const struct guard_spec *breaker, bool reset,
		    nsec_t max_time, const struct sigstate *ss);

#endif /* GUARD_H */
