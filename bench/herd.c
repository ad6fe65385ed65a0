/*
 * herd: one client of the thundering-herd benchmark, run under retry.
 * The first attempt waits for a common start time, so that every client
 * fires at the same instant.  Each attempt then tries to take an
 * exclusive lock without waiting: it fails (exit 1) when another client
 * holds it, or holds it for HOLD nanoseconds, appends "attempts start end"
 * to LOG and succeeds.
 *
 * With DOWN, the dependency has an outage: until the CLOCK_MONOTONIC
 * time DOWN every attempt fails at once.  Then each attempt, whatever its
 * outcome, appends "ATTEMPT TIME down|busy|ok" to LOG instead, so that
 * the attempts of clients that gave up are counted too.
 *
 *	herd now
 *	herd LOCK HOLD START LOG [DOWN]
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
	long long start, got, down = 0;
	char line[128];
	int fd;

	if (argc == 2 && strcmp(argv[1], "now") == 0)
		return printf("%lld\n", now()) < 0;
	if ((argc != 5 && argc != 6) || attempt == NULL) {
		fputs("usage: herd now | RETRY_ATTEMPT=K herd LOCK HOLD START "
		    "LOG [DOWN]\n", stderr);
		return 125;
	}
	start = atoll(argv[3]);
	if (argc == 6)
		down = atoll(argv[5]);
	/*
	 * A client that starts after the common instant spoils the herd.
	 * In an outage, a client's later runs start after it, as they should.
	 */
	if (strcmp(attempt, "1") == 0) {
		if (down == 0 && now() > start &&
		    record(argv[4], "late\n") == -1)
			return 125;
		sleep_until(start);
	}
	if ((fd = open(argv[1], O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		perror(argv[1]);
		return 125;
	}
	if (down != 0 && now() < down) {
		snprintf(line, sizeof(line), "%s %lld down\n", attempt, now());
		return record(argv[4], line) == -1 ? 125 : 1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK)
			return 125;
		snprintf(line, sizeof(line), "%s %lld busy\n", attempt, now());
		return down != 0 && record(argv[4], line) == -1 ? 125 : 1;
	}
	got = now();
	sleep_until(got + atoll(argv[2]));
	if (down != 0)
		snprintf(line, sizeof(line), "%s %lld ok\n", attempt, now());
	else
		snprintf(line, sizeof(line), "%s %lld %lld\n", attempt, got,
		    now());
	return record(argv[4], line) == -1 ? 125 : 0;
}
