/*
 * wstatus: a real parent for the tests.  Runs a command with every signal
 * at its default action and unblocked (a shell's background job would
 * start it with INT and QUIT ignored), waits for it, and writes how it
 * ended to a file: "exit N" or "signal N", which $? cannot tell apart.
 *
 * usage: wstatus [-i SIGNUM]... [-p PIDFILE] OUTFILE command [arg ...]
 *   -i SIGNUM   start the command with that signal ignored
 *   -p PIDFILE  write the command's pid there once it is started
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	sigset_t none;
	const char *pidfile = NULL;
	sigset_t ignore;
	FILE *f;
	pid_t pid;
	int c, st, sig;

	sigemptyset(&none);
	sigemptyset(&ignore);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	while ((c = getopt(argc, argv, "+i:p:")) != -1) {
		if (c == 'i')
			sigaddset(&ignore, atoi(optarg));
		else if (c == 'p')
			pidfile = optarg;
		else
			return 2;
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: wstatus [-i SIG] [-p PIDFILE] OUT cmd...\n");
		return 2;
	}
	if ((pid = fork()) == 0) {
		/* In the child only: an ignored SIGCHLD would break waitpid(). */
		for (sig = 1; sig < NSIG; sig++)
			if (sigismember(&ignore, sig) == 1)
				signal(sig, SIG_IGN);
		execvp(argv[optind + 1], argv + optind + 1);
		_exit(127);
	}
	if (pidfile != NULL && (f = fopen(pidfile, "w")) != NULL) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	/* The command's stop signals are not this parent's business. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &st, 0) == -1)
		continue;
	if ((f = fopen(argv[optind], "w")) == NULL)
		return 2;
	if (WIFSIGNALED(st))
		fprintf(f, "signal %d\n", WTERMSIG(st));
	else
		fprintf(f, "exit %d\n", WEXITSTATUS(st));
	fclose(f);
	return 0;
}
