/*
 * budget.h: what budget.c offers its callers: the rules of the budget and
 * the breaker, pure functions on the record that the store keeps, and the
 * same rules for Redis in Lua.
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/defs.h"
#include "spec.h"

#include "guardcodes.h"	/* enum run_end, breaker_state, admit */

struct guard_record {
	long long	 tokens;	/* milli-tokens; -1: full */
	enum breaker_state state;
	long long	 failures;	/* runs in a row that gave up */
	nsec_t		 until;		/* open: next probe; probing: lease end */
	nsec_t		 cooldown;	/* the current cooldown, when open */
	uint32_t	 probe;		/* the probing run's id */
	long long	 boot;		/* the boot whose clock until is on; 0 */
	nsec_t		 at;		/* tokens counted up to; 0: unknown */
};
#define BREAKER_CAP	(3600 * NSEC_PER_SEC)	/* cooldowns double up to */
#define RECORD_MAX	256	/* a record as text, its newline included */
void		 record_init(struct guard_record *r);
bool		 record_parse(const char *buf, size_t len,
		    struct guard_record *r);
int		 record_format(char *buf, size_t len,
		    const struct guard_record *r);
void		 record_rebase(struct guard_record *r, long long boot,
		    nsec_t now);
void		 record_stamp(struct guard_record *r, long long boot);
void		 budget_refill(struct guard_record *r,
		    const struct guard_spec *g, nsec_t now);
bool		 budget_attempt(struct guard_record *r,
		    const struct guard_spec *g, nsec_t now, bool success);
void		 record_forget(struct guard_record *r, bool budget);
nsec_t		 breaker_cap(const struct guard_spec *g);
enum admit	 breaker_admit(struct guard_record *r,
		    const struct guard_spec *g, nsec_t now, nsec_t lease,
		    uint32_t id, nsec_t *wait);
nsec_t		 breaker_wait(const struct guard_record *r,
		    const struct guard_spec *g, nsec_t now);
bool		 breaker_report(struct guard_record *r,
		    const struct guard_spec *g, nsec_t now, uint32_t probe,
		    enum run_end end, unsigned permille);
extern const char guard_lua[];

#endif /* BUDGET_H */
