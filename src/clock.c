/*
 * clock.c: the clocks.  Every deadline, timeout and elapsed time in retry
 * is an absolute CLOCK_MONOTONIC time in integer nanoseconds, read here,
 * so that a change of the wall clock moves none of them.  The breaker's
 * times are shared between processes through a file and must go on
 * counting while the machine sleeps, a cooldown included: they come from
 * CLOCK_BOOTTIME where it exists.  The wall clock is read only to turn a
 * server's HTTP-date (Retry-After) into a delay,
 * and for the timestamps of the logs.
 */
#include <time.h>

#include "clock.h"
#include "defs.h"

static nsec_t
read_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (nsec_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

nsec_t
mono_now(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

nsec_t
boot_now(void)
{
#if defined(CLOCK_BOOTTIME) && !defined(RETRY_PORTABLE)
	return read_clock(CLOCK_BOOTTIME);
#else
	/* It may stop during a suspend: a cooldown lasts longer, no less. */
	return read_clock(CLOCK_MONOTONIC);
#endif
}

nsec_t
wall_now(void)
{
	return read_clock(CLOCK_REALTIME);
}
