/*
 * backoff.h: what backoff.c offers its callers: the schedule, pure and
 * saturating, and the random source.
 */
#ifndef BACKOFF_H
#define BACKOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/defs.h"

enum jitter_kind {
	JITTER_NONE,
	JITTER_FULL,
	JITTER_EQUAL,
	JITTER_DECORRELATED,
	JITTER_RANGE,		/* w * U(lo, hi) */
	JITTER_ADD,		/* w + U(0, add) */
	JITTER_STEPS		/* w * U(lo, lo + 1) in whole steps of add */
};

struct jitter {
	enum jitter_kind kind;
	double		lo, hi;
	nsec_t		add;
};

#define DELAYS_MAX	32	/* values in a --delays LIST */

struct schedule {
	nsec_t		base;
	nsec_t		cap;
	double		factor;
	struct jitter	jitter;
	nsec_t		splay;
	bool		cap_window;	/* cap the window only, not the jitter */
	bool		first_now;	/* the first retry comes at once */
	int		ndelays;	/* --delays: the windows, the last
					   repeated; 0: computed from base */
	nsec_t		delays[DELAYS_MAX];
};

/* xoshiro256** state; seeded from --seed or, lazily, from arc4random. */
struct rng {
	uint64_t	s[4];
	bool		ready;
	bool		seeded;
	uint64_t	seed;
};

struct backoff {
	const struct schedule *sched;
	struct rng	rng;
	nsec_t		prev;	/* previous draw, for decorrelated jitter */
};

nsec_t		 backoff_window(const struct schedule *s, long long k);
void		 backoff_bounds(const struct schedule *s, long long k,
		    nsec_t *lo, nsec_t *hi);
void		 backoff_init(struct backoff *b, const struct schedule *s,
		    bool seeded, uint64_t seed);
nsec_t		 backoff_splay(struct backoff *b);
long long	 backoff_step(struct backoff *b, long long *step,
		    nsec_t reset_after, nsec_t ran);
nsec_t		 backoff_next(struct backoff *b, long long k);

const char	*jitter_format(const struct jitter *j, char *buf, size_t len);

#endif /* BACKOFF_H */
