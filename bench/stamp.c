/*
 * stamp: a command for retry that records when it ran and then fails.
 * It appends one line, "attempt start end", CLOCK_MONOTONIC nanoseconds
 * taken as early and as late in its life as it can, so that the gap from
 * one attempt's end to the next one's start is retry's sleep plus the
 * least possible overhead.  Linked statically where the toolchain allows,
 * to keep the dynamic loader out of that overhead.
 *
 *	stamp FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	long long start = now();
	const char *attempt = getenv("RETRY_ATTEMPT");
	char line[128];
	int fd, len;

	if (argc != 2 || attempt == NULL) {
		fputs("usage: RETRY_ATTEMPT=K stamp FILE\n", stderr);
		return 125;
	}
	if ((fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1) {
		perror(argv[1]);
		return 125;
	}
	/* The end stamp is the last thing before the write and exit. */
	len = snprintf(line, sizeof(line), "%s %lld %lld\n", attempt, start,
	    now());
	if (write(fd, line, (size_t)len) != len) {
		perror(argv[1]);
		return 125;
	}
	return 1;
}
