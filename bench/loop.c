/*
 * loop: a bare fork/exec/wait loop, the floor for retry's attempt loop.
 * It runs the command N times, one after the other, and exits with the
 * last status.  With -s, it sleeps between runs as retry would: the k-th
 * duration of FILE (nanoseconds, one a line) before run k + 1, in ppoll()
 * from the moment the previous run was reaped.
 *
 *	loop [-s FILE] N command [argument ...]
 */
#include <sys/wait.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
usage(void)
{
	fputs("usage: loop [-s FILE] N command [argument ...]\n", stderr);
	return 125;
}

/* Sleeps the next duration of the file, if there is a file. */
static int
nap(FILE *sleeps)
{
	struct timespec ts;
	long long d;

	if (sleeps == NULL)
		return 0;
	if (fscanf(sleeps, "%lld", &d) != 1) {
		fputs("loop: too few durations\n", stderr);
		return -1;
	}
	ts.tv_sec = d / 1000000000LL;
	ts.tv_nsec = d % 1000000000LL;
	ppoll(NULL, 0, &ts, NULL);
	return 0;
}

static int
run(char **argv, int *status)
{
	pid_t pid;

	if ((pid = fork()) == -1) {
		perror("loop: fork");
		return -1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, status, 0) == -1) {
		perror("loop: waitpid");
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	FILE *sleeps = NULL;
	long i, n;
	int status = 0;

	if (argc > 2 && strcmp(argv[1], "-s") == 0) {
		if ((sleeps = fopen(argv[2], "r")) == NULL) {
			perror(argv[2]);
			return 125;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) < 1)
		return usage();
	for (i = 0; i < n; i++)
		if ((i > 0 && nap(sleeps) == -1) || run(argv + 2, &status) == -1)
			return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}
