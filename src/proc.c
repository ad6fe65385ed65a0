/*
 * proc.c: one attempt as a process.  It starts the command, waits for it
 * while passing on the signals retry receives and servicing the extra
 * descriptors of an io_pump, times it out (--timeout, --max-time, then
 * SIGKILL after --kill-after), and classifies how it ended.  Between
 * attempts it sleeps and clears what the last attempt left running.
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define MAX_POLL_FDS	4
#define LEFTOVER_POLL	(20 * NSEC_PER_MSEC)

/*
 * Whether retry belongs to the foreground job of its terminal.  In
 * `producer | retry cmd` the shell makes the producer the job's leader;
 * a group of retry's own would then take the command off the terminal
 * (SIGTTIN) and out of the reach of Control-C.
 */
static bool
in_foreground_job(void)
{
	pid_t grp = getpgrp();
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (tcgetpgrp(fd) == grp)
			return true;
	return false;
}

void
proc_init(const struct config *cfg)
{
	if (!cfg->foreground && getpgrp() != getpid() && !in_foreground_job())
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
 * process of the attempt; see leftovers_signal().  Returns how many
 * processes it reached; with sig 0 it only counts them.
 */
static size_t
signal_attempt(const struct sigstate *ss, pid_t pid, int sig)
{
	size_t count = 0;

	if (pid > 0 && kill(pid, sig) == 0) {
		count++;
		if (sig != 0 && sig != SIGKILL && sig != SIGCONT)
			kill(pid, SIGCONT);
	}
	return count + leftovers_signal(ss->self, pid, sig);
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

	if (pipe2(ep, O_CLOEXEC) == -1)
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
	int	forwarded;	/* the first signal passed on, 0: none */
	long	seen;		/* signals_count() when last passed on */
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
 * Waits until the attempt's processes left in the group are gone, with
 * SIGKILL at kill_at (0: never).  When interruptible, a signal ends the
 * wait and is returned; otherwise it returns 0 once they are gone.
 */
static int
await_group(const struct sigstate *ss, nsec_t kill_at, bool interruptible)
{
	while (have_children() && signal_attempt(ss, 0, 0) > 0) {
		if (kill_at != 0 && mono_now() >= kill_at) {
			signal_attempt(ss, 0, SIGKILL);
			kill_at = 0;
		}
		signals_wait(ss, NULL, 0, earliest(kill_at,
		    mono_now() + LEFTOVER_POLL));
		reap(0, NULL);
		if (interruptible && signals_first() != 0)
			return signals_first();
	}
	return 0;
}

static void
escalate_later(struct watch *w, const struct config *cfg, nsec_t now)
{
	if (cfg->kill_after != NSEC_INF && w->kill_at == 0)
		w->kill_at = nsec_add(now, cfg->kill_after) | 1;
}

/*
 * Passes on every signal that came since the last call, as timeout(1)
 * does; the first one is the one retry dies by.  pid is 0 once reaped.
 */
static void
forward_signals(const struct sigstate *ss, struct watch *w,
    const struct config *cfg, nsec_t now)
{
	if (signals_count() == w->seen)
		return;
	w->seen = signals_count();
	if (w->forwarded == 0) {
		w->forwarded = signals_first();
		signal_attempt(ss, w->pid, w->forwarded);
		escalate_later(w, cfg, now);
		if (signals_latest() != w->forwarded)
			signal_attempt(ss, w->pid, signals_latest());
	} else
		signal_attempt(ss, w->pid, signals_latest());
}

/* One step of the watch: forward, time out or kill as due. */
static void
watch_step(const struct sigstate *ss, struct watch *w,
    const struct config *cfg)
{
	nsec_t now = mono_now();

	forward_signals(ss, w, cfg, now);
	if (!w->expired && w->limit != 0 && now >= w->limit) {
		w->expired = true;
		signal_attempt(ss, w->pid, cfg->timeout_signal);
		if (cfg->timeout_signal == SIGKILL)
			w->killed = true;
		else
			escalate_later(w, cfg, now);
	}
	if (w->kill_at != 0 && now >= w->kill_at) {
		signal_attempt(ss, w->pid, SIGKILL);
		w->killed = true;
		w->kill_at = 0;
	}
}

static void
classify(const struct watch *w, int status, struct outcome *o)
{
	o->stop_signal = w->forwarded;
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

/* Waits for the command, servicing the pump, until it is reaped. */
static int
watch_attempt(const struct sigstate *ss, struct watch *w,
    const struct config *cfg, const struct io_pump *pump)
{
	struct pollfd fds[MAX_POLL_FDS];
	int nfds, status = 0;

	/* Only a SIGCHLD, taken in ppoll(), can mean the command ended. */
	while (!signals_child_exited() || !reap(w->pid, &status)) {
		watch_step(ss, w, cfg);
		nfds = pump->fds != NULL ? pump->fds(pump->arg, fds,
		    MAX_POLL_FDS) : 0;
		if (signals_wait(ss, fds, nfds, earliest(w->expired ? 0 :
		    w->limit, w->kill_at)) > 0)
			pump->service(pump->arg, fds, nfds);
	}
	return status;
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
	if (io->in >= 0) {
		close(io->in);	/* the read end is the command's */
		io->in = -1;
	}
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
	/* A signal that came as the command ended still ends the run. */
	w.pid = 0;	/* reaped: never signalled again */
	signals_take_pending(ss);
	forward_signals(ss, &w, cfg, mono_now());
	if (w.forwarded != 0)
		await_group(ss, w.killed ? mono_now() : w.kill_at, false);
	o->deadline = o->deadline && w.expired;
	classify(&w, status, o);
}

/*
 * Sleeps until the absolute time until, calling tick about four times a
 * second when given.  Returns 0, or the signal that ended the sleep.
 */
int
proc_sleep(const struct sigstate *ss, nsec_t until,
    void (*tick)(nsec_t, void *), void *arg)
{
	nsec_t now, next;

	signals_take_pending(ss);	/* even a sleep of 0 ends on a signal */
	for (;;) {
		reap(0, NULL);
		if (signals_first() != 0)
			return signals_first();
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
 * group gets --signal, then SIGKILL after --kill-after.  Returns 0, or
 * the signal that interrupted the wait.
 */
int
proc_clear_leftovers(const struct sigstate *ss, const struct config *cfg)
{
	nsec_t kill_at = 0;
	int sig;

	reap(0, NULL);
	if (!have_children() || signal_attempt(ss, 0, cfg->timeout_signal) == 0)
		return 0;
	if (cfg->kill_after != NSEC_INF)
		kill_at = nsec_add(mono_now(), cfg->kill_after);
	if ((sig = await_group(ss, kill_at, true)) != 0) {
		/* The run stops: what is left gets the signal too. */
		signal_attempt(ss, 0, sig);
		await_group(ss, kill_at, false);
	}
	return sig;
}
