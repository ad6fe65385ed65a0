/*
 * proc.c: one attempt as a process.  It starts the command, waits for it
 * while passing on the signals retry receives and servicing the extra
 * descriptors of an io_pump, times it out (--timeout, --max-time, then
 * SIGKILL after --kill-after), and classifies how it ended.  Between
 * attempts it sleeps and clears what the last attempt left running.
 * When the command cannot be started, it can tell whether a word that
 * holds blanks was a command line meant for a shell.
 *
 * retry reaps every child itself, so it never signals a pid it has
 * reaped; which processes belong to an attempt is leftovers.c's to say.
 */
#include <sys/types.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define MAX_POLL_FDS	4
/* Where no pidfd tells when a leftover ends: look again this often. */
#define LEFTOVER_POLL		(20 * NSEC_PER_MSEC)
#define LEFTOVER_POLL_MAX	NSEC_PER_SEC

/*
 * Whether retry has a controlling terminal.  With one, job control is
 * the shell's: retry stays in the job it was started in, so that the
 * terminal's signals reach the command, the command can read the
 * terminal once the job is in the foreground, and `fg` finds them both.
 */
static bool
has_terminal(void)
{
	int fd;

	if ((fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC)) == -1)
		return false;
	close(fd);
	return true;
}

/*
 * Away from a terminal (cron, CI, setsid) retry leads a process group of
 * its own, as timeout(1) does, so that what the command starts there is
 * told from the caller's other processes.
 */
void
proc_init(const struct config *cfg)
{
	if (!cfg->foreground && getpgrp() != getpid() && !has_terminal())
		setpgid(0, 0);
	leftovers_init();
}

/* Reaps every child that has ended; records the status of pid. */
static bool
reap(pid_t pid, int *status)
{
	pid_t p;
	int st;
	bool found = false;

	signals_child_seen();
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == pid) {
			*status = st;
			found = true;
		}
	return found;
}

/* Whether retry has children at all: without any, no leftover exists. */
static bool
have_children(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/*
 * Sends sig to the command (pid, while not reaped) and to every living
 * process of the attempt, then SIGCONT when cont is set; see
 * leftovers_signal().  Returns how many processes it reached.
 */
static size_t
signal_attempt(const struct sigstate *ss, pid_t pid, int sig, bool cont)
{
	size_t count = 0;

	if (pid > 0 && kill(pid, sig) == 0) {
		count++;
		if (cont)
			kill(pid, SIGCONT);
	}
	return count + leftovers_signal(ss->self, pid, sig, cont);
}

/*
 * Passes on every signal that came since the last call, once for each
 * time it came; pid is 0 once the command is reaped.  A stop signal also
 * wakes a stopped process, so that it can act on it; other signals leave
 * a stopped process stopped, as they would without retry.
 */
static void
pass_on(const struct sigstate *ss, pid_t pid)
{
	int sig;

	while ((sig = signals_next_forward()) != 0)
		signal_attempt(ss, pid, sig, sig_is_stop(sig));
}

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

static _Noreturn void
exec_child(const struct sigstate *ss, char **argv, char **envp,
    const struct attempt_io *io, int errfd)
{
	extern char **environ;
	int e;

#ifdef __linux__
	/* If retry is SIGKILLed, the command must not run on unwatched. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ss->self)
		_exit(EXIT_CANCELED);
#endif
	move_fd(io->in, STDIN_FILENO);
	move_fd(io->out, STDOUT_FILENO);
	signals_restore(ss);
	environ = envp;
	execvp(argv[0], argv);
	e = errno;
	(void)!write(errfd, &e, sizeof(e));
	_exit(e == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE);
}

/*
 * Whether the part of word before its first blank names a program, as a
 * path or on PATH as execvp(3) searches it: "curl -fsS URL" as one word.
 */
bool
proc_first_part_runs(const char *word)
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

/*
 * Starts the command; 0 and the pid, or the errno of a failed exec, told
 * by a close-on-exec pipe so that a command that exits 127 by itself is
 * not taken for one that was not found.
 */
static int
spawn(const struct sigstate *ss, char **argv, char **envp,
    const struct attempt_io *io, pid_t *pidp)
{
	pid_t pid;
	int ep[2], e = 0, st;

	if (fd_pipe(ep) == -1)
		err(EXIT_CANCELED, "pipe");
	if ((pid = fork()) == -1)
		err(EXIT_CANCELED, "fork");
	if (pid == 0)
		exec_child(ss, argv, envp, io, ep[1]);
	close(ep[1]);
	if (read(ep[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;
	close(ep[0]);
	if (e != 0)
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			continue;
	*pidp = pid;
	return e;
}

struct watch {
	pid_t	pid;
	nsec_t	limit;		/* timeout or deadline, 0: none */
	nsec_t	kill_at;	/* when to send SIGKILL, 0: not yet */
	bool	expired;
	bool	killed;
};

static nsec_t
earliest(nsec_t a, nsec_t b)
{
	if (a == 0)
		return b;
	return b == 0 || a < b ? a : b;
}

/*
 * Waits until the attempt's leftovers are gone, passing on every signal
 * retry receives, with SIGKILL at kill_at (0: never).  It wakes when one
 * of them ends, when a signal comes, or at kill_at; only where the kernel
 * cannot tell it when they end does it look again, less and less often.
 * Returns 0 once they are gone, or the stop signal that ended the wait.
 */
static int
await_leftovers(const struct sigstate *ss, nsec_t kill_at)
{
	struct leftovers lw = { .npidfd = 0 };
	struct pollfd fds[LEFTOVER_WATCH];
	nsec_t poll = LEFTOVER_POLL, wake;
	int i, sig = 0;

	while (sig == 0 && have_children() &&
	    leftovers_watch(&lw, ss->self) > 0) {
		if (kill_at != 0 && mono_now() >= kill_at) {
			leftovers_signal(ss->self, 0, SIGKILL, false);
			kill_at = 0;
		}
		for (i = 0; i < lw.npidfd; i++)
			fds[i] = (struct pollfd){ .fd = lw.pidfd[i],
			    .events = POLLIN };
		wake = kill_at;
		if (!lw.watched) {
			wake = earliest(kill_at, mono_now() + poll);
			poll = poll < LEFTOVER_POLL_MAX / 2 ? poll * 2 :
			    LEFTOVER_POLL_MAX;
		}
		signals_wait(ss, fds, lw.npidfd, wake);
		reap(0, NULL);
		pass_on(ss, 0);
		sig = signals_stop();
	}
	leftovers_unwatch(&lw);
	return sig;
}

static void
escalate_later(struct watch *w, const struct config *cfg, nsec_t now)
{
	if (cfg->kill_after != NSEC_INF && w->kill_at == 0)
		w->kill_at = nsec_add(now, cfg->kill_after) | 1;
}

/* One step of the watch: forward, time out or kill as due. */
static void
watch_step(const struct sigstate *ss, struct watch *w,
    const struct config *cfg)
{
	nsec_t now = mono_now();

	pass_on(ss, w->pid);
	if (!w->expired && w->limit != 0 && now >= w->limit) {
		w->expired = true;
		signal_attempt(ss, w->pid, cfg->timeout_signal,
		    cfg->timeout_signal != SIGKILL);
		if (cfg->timeout_signal == SIGKILL)
			w->killed = true;
		else
			escalate_later(w, cfg, now);
	}
	if (w->kill_at != 0 && now >= w->kill_at) {
		signal_attempt(ss, w->pid, SIGKILL, false);
		w->killed = true;
		w->kill_at = 0;
	}
}

static void
classify(const struct watch *w, int status, struct outcome *o)
{
	if (w->expired) {
		o->kind = OUT_TIMEOUT;
		o->value = w->killed ? EXIT_KILLED : EXIT_TIMEDOUT;
	} else if (WIFSIGNALED(status)) {
		o->kind = OUT_SIGNAL;
		o->value = WTERMSIG(status);
	} else {
		o->kind = OUT_EXIT;
		o->value = WEXITSTATUS(status);
	}
}

/*
 * Waits for the command, servicing the pump, until it is reaped and its
 * output is complete; returns its wait status.  The limit bounds both:
 * once it passed and no KILL is to follow, the output is taken as it is.
 * A pump that fails kills the attempt first, then reports.
 */
static int
watch_attempt(const struct sigstate *ss, struct watch *w,
    const struct config *cfg, const struct io_pump *pump)
{
	struct pollfd fds[MAX_POLL_FDS];
	int nfds, status = 0, failed = 0;

	for (;;) {
		/* Only a SIGCHLD, taken in ppoll(), can mean it ended. */
		if (w->pid != 0 && signals_child_exited() &&
		    reap(w->pid, &status))
			w->pid = 0;	/* reaped: never signalled again */
		if (w->pid == 0 && (failed != 0 || pump->done == NULL ||
		    pump->done(pump->arg) || (w->expired && w->kill_at == 0)))
			break;
		watch_step(ss, w, cfg);
		nfds = failed == 0 && pump->fds != NULL ?
		    pump->fds(pump->arg, fds, MAX_POLL_FDS) : 0;
		if (signals_wait(ss, fds, nfds, earliest(w->expired ? 0 :
		    w->limit, w->kill_at)) > 0 && nfds > 0 &&
		    (failed = pump->service(pump->arg, fds, nfds)) != 0)
			signal_attempt(ss, w->pid, SIGKILL, false);
	}
	if (failed != 0)
		pump->fail(pump->arg, failed);
	return status;
}

/* The descriptors that are the command's now: retry's copies go. */
static void
close_handed_over(struct attempt_io *io)
{
	if (io->in >= 0)
		close(io->in);
	if (io->out >= 0)
		close(io->out);
	io->in = io->out = -1;
}

/*
 * Runs one attempt to its end.  It ends early at the absolute deadline
 * (0: none) or after --timeout; a signal retry receives is passed on.
 */
void
proc_run(const struct sigstate *ss, const struct config *cfg, char **envp,
    struct attempt_io *io, nsec_t deadline, struct outcome *o)
{
	struct watch w;
	nsec_t start = mono_now();
	int e, status;

	memset(o, 0, sizeof(*o));
	memset(&w, 0, sizeof(w));
	e = spawn(ss, cfg->argv, envp, io, &w.pid);
	close_handed_over(io);
	if (e != 0) {
		o->kind = OUT_NOEXEC;
		o->value = e == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE;
		o->error = e;
		o->duration = mono_now() - start;
		return;
	}
	w.limit = cfg->timeout != 0 ? nsec_add(start, cfg->timeout) : 0;
	if (deadline != 0 && (w.limit == 0 || deadline <= w.limit)) {
		w.limit = deadline;
		o->deadline = true;
	}
	status = watch_attempt(ss, &w, cfg, &io->pump);
	o->duration = mono_now() - start;
	/* A signal that came as the command ended still counts. */
	signals_take_pending(ss);
	pass_on(ss, 0);
	o->stop_signal = signals_stop();
	o->deadline = o->deadline && w.expired;
	classify(&w, status, o);
}

/*
 * Sleeps until the absolute time until, calling tick about four times a
 * second when given.  Returns 0, or the stop signal that ended the sleep;
 * other signals find no attempt to pass them on to, and are dropped.
 */
int
proc_sleep(const struct sigstate *ss, nsec_t until,
    void (*tick)(nsec_t, void *), void *arg)
{
	nsec_t now, next;

	signals_take_pending(ss);	/* even a sleep of 0 ends on a signal */
	for (;;) {
		reap(0, NULL);
		signals_drop_forwards();
		if (signals_stop() != 0)
			return signals_stop();
		if ((now = mono_now()) >= until)
			return 0;
		next = until;
		if (tick != NULL) {
			tick(until - now, arg);
			next = earliest(until, now + 250 * NSEC_PER_MSEC);
		}
		signals_wait(ss, NULL, 0, next);
	}
}

/*
 * Before the next attempt: what the last one left running in retry's
 * group gets --signal, then SIGKILL after --kill-after or at the absolute
 * deadline (0: none), whichever comes first.  Returns 0, or the stop
 * signal that interrupted the wait.
 */
int
proc_clear_leftovers(const struct sigstate *ss, const struct config *cfg,
    nsec_t deadline)
{
	nsec_t kill_at = 0;

	reap(0, NULL);
	if (!have_children() || signal_attempt(ss, 0, cfg->timeout_signal,
	    cfg->timeout_signal != SIGKILL) == 0)
		return 0;
	if (cfg->kill_after != NSEC_INF)
		kill_at = nsec_add(mono_now(), cfg->kill_after);
	return await_leftovers(ss, earliest(kill_at, deadline));
}
