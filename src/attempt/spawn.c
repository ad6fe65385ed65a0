/*
 * spawn.c: starting the command.  The child gets the attempt's stdin and
 * stdout, the signal dispositions and mask that retry was started with,
 * the environment retry built, and, on Linux, SIGKILL should retry die
 * unwatched.  A failed exec is told apart from a command that exits 126
 * or 127 by itself: the child sends its errno through a close-on-exec
 * pipe.
 *
 * On Linux the child shares retry's memory until it execs (clone with
 * CLONE_VM and CLONE_VFORK, as posix_spawn does), so no page table is
 * copied.  That is safe because retry has one thread, keeps the signals
 * it handles blocked outside its waits, and the child resets every
 * handler before it unblocks them: nothing in the child writes retry's
 * memory.  Elsewhere, and in a sanitized build, it is fork().
 *
 * When the command cannot be started, it says so, and whether a word
 * that holds blanks was a command line meant for a shell or a word was
 * a unit that a space cut from an option's number ("-b 5 sec").
 */
#include <sys/types.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sched.h>
#endif

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "text/escape.h"
#include "spawn.h"

extern char **environ;

/*
 * AddressSanitizer cannot follow a child onto a stack of its own: a
 * sanitized build forks, and so tests the other path.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SPAWN_FORK
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPAWN_FORK
#endif
#endif

/* Room for execvp's PATH search, which builds each candidate on it. */
#define CHILD_STACK	((size_t)64 * 1024)

struct child {
	const struct sigstate	*ss;
	char			**argv;
	char			**envp;
	const int		*fd;	/* stdin, stdout, stderr, or -1 */
	bool			 own_group;
	int			 error;	/* the exec's errno, 0 if it ran */
	int			 errfd;	/* where the child sends it */
};

static void
move_fd(int from, int to)
{
	if (from < 0)
		return;
	if (from == to)
		fcntl(to, F_SETFD, 0);
	else
		dup2(from, to);
}

/* The child: everything between the fork and the command. */
static int
child_main(void *arg)
{
	struct child *c = arg;
	int e;

#ifdef __linux__
	/* If retry is SIGKILLed, the command must not run on unwatched. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != signals_self(c->ss))
		_exit(EXIT_CANCELED);
#endif
	/* A hook's background jobs are no attempt's leftovers. */
	if (c->own_group)
		setpgid(0, 0);
	move_fd(c->fd[0], STDIN_FILENO);
	move_fd(c->fd[1], STDOUT_FILENO);
	move_fd(c->fd[2], STDERR_FILENO);
	signals_restore(c->ss);
#ifdef __linux__
	/* environ is retry's own memory: execvpe() leaves it alone. */
	execvpe(c->argv[0], c->argv, c->envp);
#else
	environ = c->envp;
	execvp(c->argv[0], c->argv);
#endif
	e = errno;
	(void)!write(c->errfd, &e, sizeof(e));
	_exit(e == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE);
}

#if defined(__linux__) && !defined(SPAWN_FORK)
/* The child runs on a stack of its own until it execs or exits. */
static pid_t
start_clone(struct child *c)
{
	char *stack;
	pid_t pid;

	if ((stack = malloc(CHILD_STACK)) == NULL)
		err(EXIT_CANCELED, NULL);
	/* The stack grows down on every architecture Debian builds for. */
	pid = clone(child_main, stack + CHILD_STACK, CLONE_VM | CLONE_VFORK |
	    SIGCHLD, c);
	free(stack);
	if (pid == -1)
		err(EXIT_CANCELED, "clone");
	return pid;
}
#else
static pid_t
start_clone(struct child *c)
{
	pid_t pid;

	if ((pid = fork()) == -1)
		err(EXIT_CANCELED, "fork");
	if (pid == 0)
		child_main(c);
	return pid;
}
#endif

/*
 * Starts the child; a failed exec's errno comes back through a
 * close-on-exec pipe, also where the memory is shared: valgrind, for
 * one, runs a CLONE_VM child as a fork.  Without descriptors for that
 * pipe (ulimit -n), nothing starts: -1, and c->error says why, so that
 * a hook is skipped instead of ending the run.
 */
static pid_t
start_child(struct child *c)
{
	pid_t pid;
	int ep[2], e;

	if (fd_pipe(ep) == -1) {
		c->error = errno;
		return -1;
	}
	c->errfd = ep[1];
	pid = start_clone(c);
	close(ep[1]);
	if (read(ep[0], &e, sizeof(e)) == (ssize_t)sizeof(e))
		c->error = e;
	close(ep[0]);
	return pid;
}

/*
 * Starts the command argv with the environment envp, its stdin, stdout
 * and stderr moved from fd (-1: retry's own), in a process group of its
 * own if own_group; 0 and the pid, or the errno of a failed exec, after
 * which the child is reaped here.
 */
int
spawn_command(const struct sigstate *ss, char **argv, char **envp,
    const int fd[3], bool own_group, pid_t *pidp)
{
	struct child c = { ss, argv, envp, fd, own_group, 0, -1 };
	pid_t pid;
	int st;

	pid = start_child(&c);
	if (c.error != 0 && pid != -1)
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			continue;
	*pidp = pid;
	return c.error;
}

/*
 * Whether the part of word before its first blank names a program, as a
 * path or on PATH as execvp(3) searches it: "curl -fsS URL" as one word.
 */
static bool
first_part_runs(const char *word)
{
	char part[PATH_MAX], path[PATH_MAX];
	const char *dirs = getenv("PATH"), *colon;
	size_t n = strcspn(word, " \t");
	int dlen;

	if (n == 0 || word[n] == '\0' || n >= sizeof(part))
		return false;
	memcpy(part, word, n);
	part[n] = '\0';
	if (strchr(part, '/') != NULL)
		return access(part, X_OK) == 0;
	for (dirs = dirs != NULL ? dirs : "/usr/bin:/bin";; dirs = colon + 1) {
		colon = strchr(dirs, ':');
		dlen = (int)(colon != NULL ? (size_t)(colon - dirs) :
		    strlen(dirs));
		/* An empty entry is the current directory. */
		if (snprintf(path, sizeof(path), "%.*s/%s", dlen > 0 ? dlen : 1,
		    dlen > 0 ? dirs : ".", part) < (int)sizeof(path) &&
		    access(path, X_OK) == 0)
			return true;
		if (colon == NULL)
			return false;
	}
}

/* A unit, as a user of sleep(1) or Debian's retry might spell it. */
static bool
looks_like_unit(const char *w)
{
	/* Arrays, not pointers: no relocation for each at every start. */
	static const char units[][8] = { "ns", "us", "ms", "s", "sec",
	    "secs", "second", "seconds", "m", "min", "mins", "minute",
	    "minutes", "h", "hr", "hrs", "hour", "hours", "d", "day", "days" };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(w, units[i]) == 0)
			return true;
	return false;
}

/* The command cmd could not be started for error: say why. */
void
spawn_cannot_run(const char *cmd, int error)
{
	const char *hint = "";

	if (error == ENOENT && first_part_runs(cmd))
		hint = " (the command is not run through a shell: give it and "
		    "its arguments as separate words)";
	else if (error == ENOENT && looks_like_unit(cmd))
		hint = " (a unit apart from its number? a duration is one "
		    "word, as in -b 5s: ns, us, ms, s, m, h or d)";
	warnx_safe("cannot run %s: %s%s", cmd, strerror(error), hint);
}
