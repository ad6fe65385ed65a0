/*
 * budget.c: the two rules that bound how hard retry leans on a failing
 * dependency, as pure functions on the record that a store keeps (see
 * store.h), with that record as text, and the same rules in Lua for
 * Redis (guard.lua, embedded here at build time).
 *
 * The retry budget is gRPC's retry throttling (gRFC A6): a bucket of at
 * most --budget's tokens, full at first; a failed attempt takes one token,
 * a successful one gives back the ratio, and a retry is allowed only while
 * the bucket holds more than half.  Tokens are counted in thousandths, as
 * gRPC counts them, so that a ratio of 0.1 adds up exactly.  Unlike
 * gRPC's, the bucket also refills with time, a whole token every refill
 * interval: a budget emptied by an outage is not left empty until enough
 * runs succeed, which for a cron job that runs hourly could take days.
 *
 * The circuit breaker counts whole runs: after --breaker's failures runs
 * in a row that gave up it opens, and no run starts until the cooldown
 * has passed; then one run, the probe, is let through.  Its success
 * closes the breaker; its failure reopens it for about twice as long, up
 * to an hour.  A probe that never reports (killed with SIGKILL, say) has
 * a lease: when that lapses, the next run becomes the probe.
 *
 * Nothing here reads a clock, a file or a random source: the caller
 * passes the time and the random draw, so that tests and fuzzers can
 * drive every rule directly.
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "os/clock.h"
#include "os/defs.h"
#include "budget.h"
#include "guard-lua.h"

#define RECORD_MAGIC	"retry-state 1"

static const char *const state_names[] = {
	[BREAKER_CLOSED] = "closed",
	[BREAKER_OPEN] = "open",
	[BREAKER_PROBING] = "probing",
};

void
record_init(struct guard_record *r)
{
	memset(r, 0, sizeof(*r));
	r->tokens = -1;
	r->state = BREAKER_CLOSED;
}

/* --- the record as text ------------------------------------------------ */

int
record_format(char *buf, size_t len, const struct guard_record *r)
{
	char tokens[24] = "full";

	char at[32] = "", boot[32] = "";

	if (r->tokens >= 0)
		snprintf(tokens, sizeof(tokens), "%lld", r->tokens);
	if (r->at != 0)
		snprintf(at, sizeof(at), " at=%" PRId64, r->at);
	if (r->boot != 0)
		snprintf(boot, sizeof(boot), " boot=%lld", r->boot);
	return snprintf(buf, len, RECORD_MAGIC " tokens=%s breaker=%s "
	    "failures=%lld until=%" PRId64 " cooldown=%" PRId64
	    " probe=%" PRIu32 "%s%s\n", tokens, state_names[r->state],
	    r->failures, r->until, r->cooldown, r->probe, at, boot);
}

/*
 * " KEY=" and a number from 0 to max: decimal digits with no sign and no
 * leading zero, so that a record has one spelling only.
 */
static bool
field_number(const char **sp, const char *key, long long max,
    long long *out)
{
	const char *s = *sp;
	size_t n = strlen(key);
	long long v = 0;

	if (*s++ != ' ' || strncmp(s, key, n) != 0 || s[n] != '=')
		return false;
	s += n + 1;
	if (!isdigit((unsigned char)*s) ||
	    (*s == '0' && isdigit((unsigned char)s[1])))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (max - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*sp = s;
	*out = v;
	return true;
}

/* " KEY=WORD" for one of the words, whose index goes to out. */
static bool
field_word(const char **sp, const char *key, const char *const *words,
    int nwords, int *out)
{
	const char *s = *sp;
	size_t n = strlen(key), len;
	int i;

	if (*s++ != ' ' || strncmp(s, key, n) != 0 || s[n] != '=')
		return false;
	s += n + 1;
	for (i = 0; i < nwords; i++) {
		len = strlen(words[i]);
		if (strncmp(s, words[i], len) == 0 && (s[len] == ' ' ||
		    s[len] == '\n')) {
			*sp = s + len;
			*out = i;
			return true;
		}
	}
	return false;
}

/*
 * The record exactly as record_format() writes it, or false: anything
 * else is corrupt or someone else's, and the caller starts afresh.
 */
bool
record_parse(const char *buf, size_t len, struct guard_record *r)
{
	static const char *const full[] = { "full" };
	char text[RECORD_MAX + 1];
	const char *s = text;
	long long tokens, failures, until, cooldown, probe, at, boot;
	int state, word;

	if (len >= sizeof(text) || memchr(buf, '\0', len) != NULL)
		return false;
	memcpy(text, buf, len);
	text[len] = '\0';
	if (strncmp(s, RECORD_MAGIC, strlen(RECORD_MAGIC)) != 0)
		return false;
	s += strlen(RECORD_MAGIC);
	if (field_word(&s, "tokens", full, 1, &word))
		tokens = -1;
	else if (!field_number(&s, "tokens", LLONG_MAX, &tokens))
		return false;
	if (!field_word(&s, "breaker", state_names, 3, &state) ||
	    !field_number(&s, "failures", LLONG_MAX, &failures) ||
	    !field_number(&s, "until", INT64_MAX, &until) ||
	    !field_number(&s, "cooldown", INT64_MAX, &cooldown) ||
	    !field_number(&s, "probe", UINT32_MAX, &probe))
		return false;
	/* No at: a record written before the budget refilled (or full). */
	at = 0;
	if (strncmp(s, " at=", 4) == 0 &&
	    (!field_number(&s, "at", INT64_MAX, &at) || at == 0))
		return false;
	/* No boot: a record of a retry that did not know the boot's id. */
	boot = 0;
	if (strcmp(s, "\n") != 0 && (!field_number(&s, "boot", LLONG_MAX,
	    &boot) || boot == 0 || strcmp(s, "\n") != 0))
		return false;
	r->tokens = tokens;
	r->state = (enum breaker_state)state;
	r->failures = failures;
	r->until = until;
	r->cooldown = cooldown;
	r->probe = (uint32_t)probe;
	r->at = at;
	r->boot = boot;
	return true;
}

/*
 * The record's times are on the clock of the boot it names: under
 * another boot (boot, now: this one's id and time) they mean nothing.
 * An open breaker may then probe at once, and a probe's claim has
 * lapsed, since its run did not outlive the reboot; the budget's tokens
 * came back for at least the time since this boot began, the least
 * that passed (1 ns into it: 0 means no time).  A record or a host that
 * knows no boot id (0) keeps its times, bounded by breaker_admit() and
 * budget_refill().
 */
void
record_rebase(struct guard_record *r, long long boot, nsec_t now)
{
	if (r->boot == 0 || boot == 0 || r->boot == boot)
		return;
	if (r->state != BREAKER_CLOSED)
		r->until = now;
	if (r->at != 0)
		r->at = 1;
}

/* Names the boot whose clock the record's times are on: none if none. */
void
record_stamp(struct guard_record *r, long long boot)
{
	r->boot = r->state == BREAKER_CLOSED && r->at == 0 ? 0 : boot;
}

/* --- the retry budget -------------------------------------------------- */

/*
 * The tokens that came back by now, one for each whole refill interval
 * since r->at, up to the bucket's size; r->at moves on by the intervals
 * counted, keeping the part of one that has passed.  A bucket that is
 * full, a record with no time (or one ahead of now: the clock went
 * back), and a budget that never refills start counting at now.  A
 * process that names a smaller bucket than the record's clips the
 * record to its own size.
 */
void
budget_refill(struct guard_record *r, const struct guard_spec *g,
    nsec_t now)
{
	long long max = g->tokens * MILLI, room, q;

	if (r->tokens < 0 || r->tokens > max)
		r->tokens = max;
	if (r->at == 0 || now <= r->at || r->tokens == max || g->refill <= 0) {
		r->at = now;
		return;
	}
	q = (now - r->at) / g->refill;
	room = (max - r->tokens + MILLI - 1) / MILLI;
	if (q >= room) {
		r->tokens = max;
		r->at = now;
	} else {
		r->tokens += q * MILLI;
		r->at += q * g->refill;
	}
}

/*
 * Records one attempt at now, after the refill; true if the bucket,
 * after it, still allows a retry.
 */
bool
budget_attempt(struct guard_record *r, const struct guard_spec *g,
    nsec_t now, bool success)
{
	long long max = g->tokens * MILLI;

	budget_refill(r, g, now);
	if (success)
		r->tokens = r->tokens > max - g->ratio ? max :
		    r->tokens + g->ratio;
	else
		r->tokens = r->tokens > MILLI ? r->tokens - MILLI : 0;
	return r->tokens * 2 > max;
}

/*
 * --guard-reset: the budget's part of r as a fresh record has it (a full
 * bucket), or the breaker's (closed); the other part is left alone,
 * since a budget and a breaker of one name share a record.
 */
void
record_forget(struct guard_record *r, bool budget)
{
	if (budget) {
		r->tokens = -1;
		r->at = 0;
	} else {
		r->state = BREAKER_CLOSED;
		r->failures = r->until = r->cooldown = 0;
		r->probe = 0;
	}
}

/* --- the circuit breaker ----------------------------------------------- */

static nsec_t
longest(nsec_t a, nsec_t b)
{
	return a > b ? a : b;
}

/* Cooldowns double up to an hour, or the cooldown given if longer. */
nsec_t
breaker_cap(const struct guard_spec *g)
{
	return longest(BREAKER_CAP, g->cooldown);
}

/*
 * Whether this run may start, at now: ADMIT_RUN while closed; when open,
 * ADMIT_REFUSED with *wait until the next probe, or ADMIT_PROBE for the
 * one run that probes, whose id the record keeps for lease (or the
 * cooldown, if longer).  A probe under way refuses the others with *wait
 * until its lease lapses.
 */
enum admit
breaker_admit(struct guard_record *r, const struct guard_spec *g, nsec_t now,
    nsec_t lease, uint32_t id, nsec_t *wait)
{
	nsec_t horizon;

	if (r->state == BREAKER_CLOSED)
		return ADMIT_RUN;
	/*
	 * No rule sets a time further ahead than this: one that is comes
	 * from before a reboot, when CLOCK_BOOTTIME started afresh.
	 */
	horizon = longest(breaker_cap(g), longest(lease, r->cooldown));
	if (r->until > now && r->until - now > horizon)
		r->until = now;
	if (now < r->until) {
		*wait = r->until - now;
		return ADMIT_REFUSED;
	}
	r->state = BREAKER_PROBING;
	r->probe = id;
	r->until = nsec_add(now, longest(lease, r->cooldown));
	return ADMIT_PROBE;
}

/*
 * --guard-status: how long until the next probe as a run would find it.
 * An open breaker's time further ahead than any rule sets is none, as in
 * breaker_admit(); a probe's claim, whose lease its run chose, is shown
 * as it is.
 */
nsec_t
breaker_wait(const struct guard_record *r, const struct guard_spec *g,
    nsec_t now)
{
	if (r->state == BREAKER_CLOSED || r->until <= now)
		return 0;
	if (r->state == BREAKER_OPEN &&
	    r->until - now > longest(breaker_cap(g), r->cooldown))
		return 0;
	return r->until - now;
}

/*
 * The cooldown after a failed probe: twice the last one, times a jitter
 * of permille/1000 (0.75 to 1.25), so that hosts that each keep their
 * own breaker do not probe in step; at most cap.
 */
static nsec_t
next_cooldown(nsec_t prev, nsec_t cap, unsigned permille)
{
	nsec_t c;

	if (prev >= cap / 2)
		return cap;
	c = 2 * prev;
	c = c / 1000 * permille + c % 1000 * permille / 1000;
	return c < cap ? c : cap;
}

static void
breaker_open(struct guard_record *r, nsec_t now, nsec_t cooldown)
{
	r->state = BREAKER_OPEN;
	r->cooldown = cooldown;
	r->until = nsec_add(now, cooldown);
}

/*
 * How a run ended, at now; true if it counted.  probe is the run's id if
 * it was the probe, else 0; only the probe that holds the claim decides
 * what its end means.  A run that started before the breaker opened
 * counts for nothing, nor does a run that a signal stopped.
 */
bool
breaker_report(struct guard_record *r, const struct guard_spec *g,
    nsec_t now, uint32_t probe, enum run_end end, unsigned permille)
{
	nsec_t cap = breaker_cap(g);

	if (probe != 0) {
		if (r->state != BREAKER_PROBING || r->probe != probe)
			return false;
		r->probe = 0;
		if (end == RUN_SUCCEEDED) {
			r->state = BREAKER_CLOSED;
			r->failures = r->until = r->cooldown = 0;
		} else if (end == RUN_GAVE_UP)
			breaker_open(r, now, next_cooldown(r->cooldown > 0 ?
			    r->cooldown : g->cooldown, cap, permille));
		else {	/* stopped: the next run probes at once */
			r->state = BREAKER_OPEN;
			r->until = now;
		}
		return true;
	}
	if (r->state != BREAKER_CLOSED || end == RUN_STOPPED)
		return false;
	if (end == RUN_SUCCEEDED) {
		r->failures = 0;
		return true;
	}
	if (r->failures < LLONG_MAX)
		r->failures++;
	if (r->failures >= g->failures)
		breaker_open(r, now, g->cooldown);
	return true;
}

/* --- the same rules in Redis ------------------------------------------- */

/*
 * The script that redisstore.c sends with EVAL: src/guard/guard.lua, which
 * the build turns into GUARD_LUA_TEXT, after the codes of guardcodes.h
 * as Lua locals.  It keeps the record in a
 * hash and reads the server's clock, so that hosts whose clocks disagree
 * still agree on a cooldown.  Change a rule above and the same rule
 * there: tests/rules.bats runs one table through both.
 */
#define GUARD_LUA_LOCAL(name, value) "local " #name " = " #value "\n"
const char guard_lua[] =
    GUARD_STATES(GUARD_LUA_LOCAL)
    GUARD_VERDICTS(GUARD_LUA_LOCAL)
    GUARD_ENDS(GUARD_LUA_LOCAL)
    GUARD_NUMBERS(GUARD_LUA_LOCAL)
    GUARD_LUA_TEXT;
