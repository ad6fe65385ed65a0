/*
 * nap: the machine's own wake-up latency, the floor for retry's sleep
 * accuracy.  For each duration read from stdin (nanoseconds, one a line)
 * it sleeps that long in ppoll(), as retry does, and prints by how many
 * nanoseconds the wake-up came late.
 *
 *	nap < DURATIONS
 */
#include <poll.h>
#include <stdio.h>
#include <time.h>

static long long
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleeps d nanoseconds; returns how late it woke. */
static long long
late(long long d)
{
	struct timespec ts;
	long long t0;

	ts.tv_sec = d / 1000000000LL;
	ts.tv_nsec = d % 1000000000LL;
	t0 = now();
	ppoll(NULL, 0, &ts, NULL);
	return now() - t0 - d;
}

int
main(void)
{
	long long d;

	while (scanf("%lld", &d) == 1)
		printf("%lld\n", late(d));
	return ferror(stdin) || fflush(stdout) == EOF;
}
