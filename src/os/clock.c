/*
 * clock.c: the clocks.  Every deadline, timeout and elapsed time in retry
 * is an absolute CLOCK_MONOTONIC time in integer nanoseconds, read here,
 * so that a change of the wall clock moves none of them.  The breaker's
 * times are shared between processes through a file and must go on
 * counting while the machine sleeps, a cooldown included: they come from
 * CLOCK_BOOTTIME where it exists, with the id of the boot it counts
 * from.  The wall clock is read only to turn a
 * server's HTTP-date (Retry-After) into a delay,
 * and for the timestamps of the logs.
 */
#include <ctype.h>
#include <stdio.h>
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

/*
 * The boot whose clock boot_now() reads, as a number (Linux's boot_id,
 * its first 60 bits), or 0 where there is none to tell: the portable
 * build promises no /proc, and there a breaker's record from before a
 * reboot is caught only by breaker_admit()'s horizon (budget.c).
 */
long long
boot_id(void)
{
	long long id = 0;
#if defined(__linux__) && !defined(RETRY_PORTABLE)
	char buf[64], *p;
	int digits = 0;
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re")) == NULL)
		return id;
	if (fgets(buf, sizeof(buf), f) != NULL) {
		for (p = buf; *p != '\0' && digits < 15; p++) {
			if (!isxdigit((unsigned char)*p))
				continue;
			id = id * 16 + (isdigit((unsigned char)*p) ? *p - '0' :
			    tolower((unsigned char)*p) - 'a' + 10);
			digits++;
		}
	}
	fclose(f);
#endif
	return id;
}

nsec_t
wall_now(void)
{
	return read_clock(CLOCK_REALTIME);
}
