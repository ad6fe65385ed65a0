/*
 * herd: one client of the thundering-herd benchmark, run under retry.
 * The first attempt waits for a common start time, so that every client
 * fires at the same instant.  Each attempt then tries to take an
 * exclusive lock without waiting: it fails (exit 1) when another client
 * holds it, or holds it for HOLD nanoseconds, appends "attempts start end"
 * to LOG and succeeds.
 *
 *	herd now
 *	herd LOCK HOLD START LOG
 *
 * "herd now" prints CLOCK_MONOTONIC in nanoseconds, to compute START.
 */
#include <sys/file.h>

#include <errno.h>
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

static void
sleep_until(long long t)
{
	struct timespec ts;
	int e;

	ts.tv_sec = t / 1000000000LL;
	ts.tv_nsec = t % 1000000000LL;
	do
		e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	while (e == EINTR);
}

/* Appends one line to a log shared by every client (O_APPEND). */
static int
record(const char *path, const char *line)
{
	int fd, len = (int)strlen(line);

	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1 ||
	    write(fd, line, (size_t)len) != len) {
		perror(path);
		return -1;
	}
	return close(fd);
}

int
main(int argc, char *argv[])
{
	const char *attempt = getenv("RETRY_ATTEMPT");
	long long start, got;
	char line[128];
	int fd;

	if (argc == 2 && strcmp(argv[1], "now") == 0)
		return printf("%lld\n", now()) < 0;
	if (argc != 5 || attempt == NULL) {
		fputs("usage: herd now | RETRY_ATTEMPT=K herd LOCK HOLD START "
		    "LOG\n", stderr);
		return 125;
	}
	start = atoll(argv[3]);
	/* A client that starts after the common instant spoils the herd. */
	if (strcmp(attempt, "1") == 0) {
		if (now() > start && record(argv[4], "late\n") == -1)
			return 125;
		sleep_until(start);
	}
	if ((fd = open(argv[1], O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		perror(argv[1]);
		return 125;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1)
		return errno == EWOULDBLOCK ? 1 : 125;
	got = now();
	sleep_until(got + atoll(argv[2]));
	snprintf(line, sizeof(line), "%s %lld %lld\n", attempt, got, now());
	return record(argv[4], line) == -1 ? 125 : 0;
}
