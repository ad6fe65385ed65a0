/*
 * store.h: what a store of --budget and --breaker offers guard.c: one
 * table of functions per kind of store (statefile.c: a local file;
 * redisstore.c: Redis), and struct guard, one guard on its store.  A
 * store keeps the guard's record and applies the rules to it, budget.c's
 * in C or the same rules as guard.lua on the server; guard.c picks the
 * table once, from the spec, and then calls through it.  A new kind of
 * store is one more file with one more table.
 */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/defs.h"
#include "os/signals.h"
#include "budget.h"

#define PATH_MAX_GUARD	4096	/* a state file's path, or a Redis URL */
/*
 * The most a store's waits take while its server is slow but moving
 * (redisconn.c): each exchange's, and all the guards' waits before
 * attempt 1 together.
 */
#define STORE_CEILING_MS	5000
/* Room for any reason a store gives: a path, a URL, and a few words. */
#define STORE_WHY_MAX	(PATH_MAX_GUARD + 128)

struct store_ops;
struct guard {
	const struct store_ops *store;	/* the table of its store */
	void		*state;		/* the store's own, set by its open */
	const struct guard_spec *spec;
	const char	*what;		/* "retry budget" or "circuit breaker" */
	bool		 on;		/* given, and its store answers */
	const struct sigstate *ss;	/* whose stop signals end a wait */
	const nsec_t	*limit;		/* no wait passes it (-m); 0: none */
	const nsec_t	*opening;	/* nor this, before attempt 1 */
	/*
	 * Last, and not cleared: guard_open() clears what precedes it, and
	 * a store's open writes it before anything reads it.  Clearing its
	 * 4 KiB twice per guard was 4 % of every run's start-up.
	 */
	char		 where[PATH_MAX_GUARD];	/* the file or the URL */
};

/*
 * How a store's call ended.  A store that fails costs the guard, not the
 * run: guard.c then goes on without it, after a warning with why, or
 * without a word when a stop signal ended the call (the run is about to
 * end).  A call's answer is the one the store came to before it failed,
 * if any; else the caller's default, left as it was.
 */
enum store_end {
	STORE_OK,
	STORE_FAILED,		/* why says why */
	STORE_STOPPED		/* a stop signal ended a wait */
};

/*
 * The breaker's question and its answer: whether run id may start
 * (verdict), claiming the probe for lease if it is the one; if refused,
 * wait is the time until the next probe, or -1 while a probe is under
 * way.  A stop after mark ends the store's wait.
 */
struct admission {
	nsec_t		 lease;
	uint32_t	 id;
	long		 mark;
	enum admit	 verdict;	/* out */
	nsec_t		 wait;		/* out */
};

/*
 * What --guard-status shows of a guard: its record as it stands at the
 * store's now, the budget's refill counted, nothing written.
 */
struct guard_view {
	long long	 tokens;	/* milli-tokens */
	enum breaker_state state;
	long long	 failures;	/* runs in a row that gave up */
	nsec_t		 wait;		/* open: to the next probe; probing:
					   to the lease's end; else 0 */
};

struct store_ops {
	/*
	 * Opens g's store, waits that a stop after mark ends; g->where
	 * names it for the messages.  why names the store itself.
	 */
	enum store_end	(*open)(struct guard *g, long mark, char *why,
			    size_t len);
	/* The budget: one attempt, and whether a retry is still allowed. */
	enum store_end	(*attempt)(struct guard *g, bool success,
			    bool *allowed, char *why, size_t len);
	/* The breaker: a's question answered in a. */
	enum store_end	(*admit)(struct guard *g, struct admission *a,
			    char *why, size_t len);
	/* The breaker: how the run ended, probe its id if it probed. */
	enum store_end	(*report)(struct guard *g, uint32_t probe,
			    enum run_end end, unsigned permille, char *why,
			    size_t len);
	/* --guard-status: g's record, unchanged. */
	enum store_end	(*peek)(struct guard *g, struct guard_view *v,
			    char *why, size_t len);
	/*
	 * --guard-reset: g's part of the record forgotten, a full bucket
	 * if budget, else a closed breaker; the other part is left as is.
	 */
	enum store_end	(*reset)(struct guard *g, bool budget, char *why,
			    size_t len);
	/* Lets go of what open took, for a caller that goes on. */
	void		(*close)(struct guard *g);
};

#endif /* STORE_H */
