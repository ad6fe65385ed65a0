/*
 * clock.c: the clocks.  Every deadline, timeout and elapsed time in retry
 * is an absolute CLOCK_MONOTONIC time in integer nanoseconds, read here,
 * so that a change of the wall clock moves none of them.  The wall clock
 * is read only to turn a server's HTTP-date (Retry-After) into a delay,
 * and for the timestamps of the logs.
 */
#include <time.h>

#include "internal.h"

nsec_t
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (nsec_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

nsec_t
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (nsec_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}
