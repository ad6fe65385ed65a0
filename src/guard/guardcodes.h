/*
 * guardcodes.h: the one table of the codes that the C rules (budget.c)
 * and the Lua script (guard.lua) exchange: a breaker's states, the
 * breaker's verdicts, the ways a run ends, and the numbers both sides
 * count with.  The C enums are made from it here; budget.c puts the same
 * names, as Lua locals, in front of the script that it embeds.  Change a
 * value here and both sides change together.
 */
#ifndef GUARDCODES_H
#define GUARDCODES_H

/* The breaker's state, as the record and the Redis hash keep it. */
#define GUARD_STATES(X) \
	X(BREAKER_CLOSED, 0) \
	X(BREAKER_OPEN, 1) \
	X(BREAKER_PROBING, 2)

/* breaker_admit()'s verdict, and the script's first answer to admit. */
#define GUARD_VERDICTS(X) \
	X(ADMIT_RUN, 0) \
	X(ADMIT_PROBE, 1) \
	X(ADMIT_REFUSED, 2)

/* How a run ended, for breaker_report() and the script's report. */
#define GUARD_ENDS(X) \
	X(RUN_SUCCEEDED, 0) \
	X(RUN_GAVE_UP, 1) \
	X(RUN_STOPPED, 2)	/* by a signal: counts as neither */

/* Numbers of both sides: thousandths in a token, a key's life in ms. */
#define GUARD_NUMBERS(X) \
	X(MILLI, 1000) \
	X(KEY_TTL_MS, 86400000)

#define GUARD_ENUM(name, value) name = (value),
enum breaker_state { GUARD_STATES(GUARD_ENUM) };
enum admit { GUARD_VERDICTS(GUARD_ENUM) };
enum run_end { GUARD_ENDS(GUARD_ENUM) };
enum { GUARD_NUMBERS(GUARD_ENUM) };
#undef GUARD_ENUM

#endif /* GUARDCODES_H */
