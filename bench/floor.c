/*
 * floor: the cheapest possible wrapper, the floor for retry's start-up.
 * It costs what any wrapper must: one fork, one exec and one wait.
 *
 *	floor command [argument ...]
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	pid_t pid;
	int status;

	if (argc < 2) {
		fputs("usage: floor command [argument ...]\n", stderr);
		return 125;
	}
	if ((pid = fork()) == -1) {
		perror("floor: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == -1) {
		perror("floor: waitpid");
		return 125;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
