/*
 * backoff.c: the schedule.  Windows, bounds and draws are pure arithmetic
 * on integer nanoseconds that saturates instead of overflowing, whatever
 * the inputs; floating point is used only for factors and multipliers, and
 * a result is converted back to an integer only once it is known to be in
 * range.  The random source lives here too: xoshiro256** seeded from
 * --seed, or from arc4random (getrandom underneath) on the first draw, so
 * a command that succeeds at once never asks the kernel for entropy.
 * --dry-run and the real run call the same functions in the same order, so
 * a seeded dry run shows exactly the sleeps a seeded run takes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "os/clock.h"
#include "os/defs.h"
#include "text/format.h"
#include "backoff.h"

static nsec_t
nsec_min(nsec_t a, nsec_t b)
{
	return a < b ? a : b;
}

/* x * m, clamped to [0, limit]; NaN and infinity land on a bound. */
static nsec_t
scale_clamped(nsec_t x, long double m, nsec_t limit)
{
	long double v = (long double)x * m;

	if (x == 0 || !(v > 0))
		return 0;
	if (!(v < (long double)limit))
		return limit;
	return (nsec_t)v;
}

/*
 * f^k by squaring: at most 126 multiplications, saturating to infinity,
 * and no libm to load at start-up.
 */
static long double
power(long double f, long long k)
{
	long double r = 1;

	for (; k > 0 && r < HUGE_VALL; k >>= 1) {
		if (k & 1)
			r *= f;
		f *= f;
	}
	return r;
}

/* The window before attempt k + 1: min(cap, base * factor^(k-1)). */
nsec_t
backoff_window(const struct schedule *s, long long k)
{
	long double f = s->jitter.kind == JITTER_DECORRELATED ? 3 :
	    s->factor;

	if (k < 1)
		return 0;
	/* --delays: the k-th retry waits the k-th, the last repeated. */
	if (s->ndelays > 0)
		return s->delays[k < s->ndelays ? k - 1 : s->ndelays - 1];
	/* Kubernetes restarts at once, then waits base, 2 base, ... */
	if (s->first_now && k-- == 1)
		return 0;
	/* Decorrelated: the k-th draw can reach base * 3^k, not 3^(k-1). */
	if (s->jitter.kind == JITTER_DECORRELATED)
		k++;
	return scale_clamped(s->base, power(f, k - 1), s->cap);
}

/*
 * What no sleep exceeds: the cap, or with cap_window, where the cap
 * bounds the window and the jitter may go past it, 100 years.
 */
static nsec_t
sleep_limit(const struct schedule *s)
{
	return s->cap_window || s->ndelays > 0 ? DURATION_MAX : s->cap;
}

/* How many whole steps of q the window w spans, a last partial one too. */
static nsec_t
steps_in(nsec_t w, nsec_t q)
{
	return q > 0 ? w / q + (w % q != 0) : 0;
}

/*
 * The first sleep that JITTER_STEPS can draw from a window of n steps:
 * with lo 0, none; with lo 1, the whole window rounded up to a step.
 */
static nsec_t
steps_first(const struct jitter *j, nsec_t n)
{
	if (j->lo == 0 || n == 0)
		return 0;
	return n > DURATION_MAX / j->add ? DURATION_MAX : n * j->add;
}

/* The least and the most the sleep before attempt k + 1 can be. */
void
backoff_bounds(const struct schedule *s, long long k, nsec_t *lo, nsec_t *hi)
{
	nsec_t w = backoff_window(s, k), n;

	switch (s->jitter.kind) {
	case JITTER_NONE:
		*lo = *hi = w;
		break;
	case JITTER_FULL:
		*lo = 0;
		*hi = w;
		break;
	case JITTER_EQUAL:
		*lo = w / 2;
		*hi = w;
		break;
	case JITTER_DECORRELATED:
		*lo = nsec_min(s->base, s->cap);
		*hi = w;
		break;
	case JITTER_RANGE:
		*lo = scale_clamped(w, s->jitter.lo, sleep_limit(s));
		*hi = scale_clamped(w, s->jitter.hi, sleep_limit(s));
		break;
	case JITTER_ADD:
		*lo = w;
		*hi = nsec_min(sleep_limit(s), nsec_add(w, s->jitter.add));
		break;
	case JITTER_STEPS:
		n = steps_in(w, s->jitter.add);
		*lo = nsec_min(sleep_limit(s), steps_first(&s->jitter, n));
		*hi = n == 0 ? *lo : nsec_min(sleep_limit(s), nsec_add(*lo,
		    (n - 1) * s->jitter.add));
		break;
	}
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t
rng_next(struct rng *r)
{
	uint64_t result, t;
	uint64_t x;
	int i;

	if (!r->ready) {
		if (r->seeded) {
			x = r->seed;
			for (i = 0; i < 4; i++)
				r->s[i] = splitmix64(&x);
		} else {
			do
				arc4random_buf(r->s, sizeof(r->s));
			while ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0);
		}
		r->ready = true;
	}
	result = rotl(r->s[1] * 5, 7) * 9;
	t = r->s[1] << 17;
	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = rotl(r->s[3], 45);
	return result;
}

/* Uniform in [0, n], without modulo bias. */
static nsec_t
uniform_upto(struct rng *r, nsec_t n)
{
	uint64_t span, limit, x;

	if (n <= 0)
		return 0;
	span = (uint64_t)n + 1;
	limit = UINT64_MAX - UINT64_MAX % span;
	do
		x = rng_next(r);
	while (x >= limit);
	return (nsec_t)(x % span);
}

/* Uniform in [0, 1) with 53 random bits. */
static long double
uniform_unit(struct rng *r)
{
	return (long double)(rng_next(r) >> 11) * 0x1.0p-53L;
}

void
backoff_init(struct backoff *b, const struct schedule *s, bool seeded,
    uint64_t seed)
{
	b->sched = s;
	b->rng.ready = false;
	b->rng.seeded = seeded;
	b->rng.seed = seed;
	b->prev = s->base;
}

/*
 * The schedule's step for the next sleep, *step the retries since it
 * began: an attempt that ran at least reset_after (0: never) before it
 * failed starts it over, decorrelated jitter again from base.
 */
long long
backoff_step(struct backoff *b, long long *step, nsec_t reset_after,
    nsec_t ran)
{
	if (reset_after != 0 && ran >= reset_after) {
		b->prev = b->sched->base;
		*step = 0;
	}
	return ++*step;
}

nsec_t
backoff_splay(struct backoff *b)
{
	return uniform_upto(&b->rng, b->sched->splay);
}

static nsec_t
draw_decorrelated(struct backoff *b)
{
	const struct schedule *s = b->sched;
	nsec_t hi = b->prev > INT64_MAX / 3 ? INT64_MAX : b->prev * 3;
	nsec_t v;

	v = s->base + uniform_upto(&b->rng, hi - s->base);
	return b->prev = nsec_min(s->cap, v);
}

/* The sleep before attempt k + 1; consumes randomness only when needed. */
nsec_t
backoff_next(struct backoff *b, long long k)
{
	const struct schedule *s = b->sched;
	nsec_t w = backoff_window(s, k), half, n;
	long double m;

	switch (s->jitter.kind) {
	case JITTER_NONE:
		return w;
	case JITTER_FULL:
		return uniform_upto(&b->rng, w);
	case JITTER_EQUAL:
		half = w / 2;
		return half + uniform_upto(&b->rng, w - half);
	case JITTER_DECORRELATED:
		return draw_decorrelated(b);
	case JITTER_RANGE:
		m = s->jitter.lo + (s->jitter.hi - s->jitter.lo) *
		    uniform_unit(&b->rng);
		if (!isfinite(m))
			m = s->jitter.hi;
		return scale_clamped(w, m, sleep_limit(s));
	case JITTER_ADD:
		return nsec_min(sleep_limit(s),
		    nsec_add(w, uniform_upto(&b->rng, s->jitter.add)));
	case JITTER_STEPS:
		if ((n = steps_in(w, s->jitter.add)) == 0)
			return 0;
		return nsec_min(sleep_limit(s), nsec_add(steps_first(
		    &s->jitter, n), uniform_upto(&b->rng, n - 1) *
		    s->jitter.add));
	}
	return w;
}

/* The jitter mode as --jitter spells it. */
const char *
jitter_format(const struct jitter *j, char *buf, size_t len)
{
	static const char *const names[] = {
		[JITTER_NONE] = "none",
		[JITTER_FULL] = "full",
		[JITTER_EQUAL] = "equal",
		[JITTER_DECORRELATED] = "decorrelated",
	};
	char d[32];

	switch (j->kind) {
	case JITTER_RANGE:
		snprintf(buf, len, "%g..%g", j->lo, j->hi);
		return buf;
	case JITTER_ADD:
		format_seconds(d, sizeof(d), j->add);
		snprintf(buf, len, "+%ss", d);
		return buf;
	case JITTER_STEPS:
		format_seconds(d, sizeof(d), j->add);
		if (j->lo == 0)
			snprintf(buf, len, "full, in steps of %ss", d);
		else
			snprintf(buf, len, "%g..%g, in steps of %ss", j->lo,
			    j->lo + 1, d);
		return buf;
	default:
		return names[j->kind];
	}
}
