/*
 * proc.c: everything that touches processes and signals, and every
 * operating-system-specific #ifdef of the program.
 *
 * Signal handlers only set flags.  Every signal retry handles stays
 * blocked except inside ppoll(), which unblocks them atomically, so no
 * wake-up is lost; deadlines are absolute CLOCK_MONOTONIC times.  retry
 * reaps every child itself, so it never signals a pid it has reaped, and
 * as a Linux child subreaper it also reaps what an attempt orphans.  The
 * command starts with the signal mask and the ignored signals retry was
 * started with.
 *
 * An attempt's processes are those that descend from retry and share its
 * process group.  Without --foreground retry leads a group of its own, as
 * timeout(1) does.  Signals go to each such process by pid, found through
 * /proc, never to the whole group: in an interactive pipeline the shell
 * puts the other commands of the pipeline into retry's group too.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/sendfile.h>
#endif

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "retry.h"

#define MAX_POLL_FDS	4
#define LEFTOVER_POLL	(20 * NSEC_PER_MSEC)

static volatile sig_atomic_t got_child;
static volatile sig_atomic_t got_signal;	/* the first one */
static volatile sig_atomic_t last_signal;	/* the latest one */
static volatile sig_atomic_t signal_count;	/* how many came */


struct signame {
	const char	*name;
	int		 sig;
};

static const struct signame signames[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
	{ "IOT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV },
	{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM },
	{ "TERM", SIGTERM },
#ifdef SIGSTKFLT
	{ "STKFLT", SIGSTKFLT },
#endif
	{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
	{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
	{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
#ifdef SIGIO
	{ "IO", SIGIO },
#endif
#ifdef SIGPOLL
	{ "POLL", SIGPOLL },
#endif
#ifdef SIGPWR
	{ "PWR", SIGPWR },
#endif
	{ "SYS", SIGSYS },
};

/* Signals whose default action ends retry and that it forwards. */
static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
	SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
	SIGPOLL,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
};

const char *
proc_signame(int sig, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
#ifdef SIGRTMIN
	if (sig == SIGRTMIN)
		return "RTMIN";
	if (sig > SIGRTMIN && sig <= SIGRTMAX) {
		snprintf(buf, len, "RTMIN+%d", sig - SIGRTMIN);
		return buf;
	}
#endif
	snprintf(buf, len, "%d", sig);
	return buf;
}

#ifdef SIGRTMIN
static int
rt_sigbyname(const char *s)
{
	const char *errstr;
	long long n;

	if (strncasecmp(s, "RTMIN", 5) == 0 || strncasecmp(s, "RTMAX", 5) == 0) {
		if (s[5] == '\0')
			return toupper((unsigned char)s[3]) == 'I' ? SIGRTMIN :
			    SIGRTMAX;
		if ((s[5] != '+' || toupper((unsigned char)s[3]) != 'I') &&
		    (s[5] != '-' || toupper((unsigned char)s[3]) != 'A'))
			return -1;
		n = strtonum(s + 6, 1, SIGRTMAX - SIGRTMIN, &errstr);
		if (errstr != NULL || !isdigit((unsigned char)s[6]))
			return -1;
		return s[5] == '+' ? SIGRTMIN + (int)n : SIGRTMAX - (int)n;
	}
	return -1;
}
#endif

/* A signal name, any case, with or without SIG; -1 if unknown. */
int
proc_sigbyname(const char *s)
{
	size_t i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (strcasecmp(s, signames[i].name) == 0)
			return signames[i].sig;
#ifdef SIGRTMIN
	return rt_sigbyname(s);
#else
	return -1;
#endif
}

static void
on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

static void
on_signal(int sig)
{
	if (got_signal == 0)
		got_signal = sig;
	last_signal = sig;
	signal_count++;
}

static void
handle(struct proc *ps, int sig, void (*fn)(int), bool always)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigfillset(&sa.sa_mask);
	/* Install first and look back: one system call in the usual case. */
	if (sigaction(sig, &sa, &old) == -1)
		return;
	if (old.sa_handler == SIG_IGN) {
		sigaddset(&ps->start_ignored, sig);
		if (!always) {
			sigaction(sig, &old, NULL);
			return;
		}
	}
	sigaddset(&ps->handled, sig);
}

static void
install_handlers(struct proc *ps)
{
	size_t i;
	int sig;

	sigemptyset(&ps->handled);
	sigemptyset(&ps->start_ignored);
	/* A trap '' CHLD from the caller would make waitpid() fail. */
	handle(ps, SIGCHLD, on_child, true);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		handle(ps, forwarded[i], on_signal, false);
#ifdef SIGRTMIN
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		handle(ps, sig, on_signal, false);
#else
	(void)sig;
#endif
}

/*
 * A write to a closed pipe must become EPIPE for retry, never its death;
 * the command gets the disposition retry was started with.
 */
static void
ignore_sigpipe(struct proc *ps)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, &old) == 0 && old.sa_handler == SIG_IGN)
		sigaddset(&ps->start_ignored, SIGPIPE);
}

int
proc_sigpipe_default(const struct proc *ps)
{
	return !sigismember(&ps->start_ignored, SIGPIPE);
}

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
proc_init(struct proc *ps, const struct config *cfg)
{
	sigset_t all;
	int sig;

	ps->self = getpid();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &ps->start_mask);
	install_handlers(ps);
	ignore_sigpipe(ps);
	/* Keep blocked what retry handles; unblock it only in ppoll(). */
	sigprocmask(SIG_SETMASK, &ps->start_mask, NULL);
	sigprocmask(SIG_BLOCK, &ps->handled, NULL);
	sigprocmask(SIG_BLOCK, NULL, &ps->wait_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&ps->handled, sig))
			sigdelset(&ps->wait_mask, sig);
	if (!cfg->foreground && getpgrp() != ps->self && !in_foreground_job())
		setpgid(0, 0);
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

nsec_t
proc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (nsec_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Waits until a signal, a ready descriptor or the absolute deadline
 * (0: none).  The flags can change only in here, where ppoll() unblocks
 * the signals, so a signal that came earlier is pending and ends the
 * wait at once: no wake-up is lost.
 */
static int
wait_event(const struct proc *ps, struct pollfd *fds, int nfds,
    nsec_t deadline)
{
	struct timespec ts, *tp = NULL;
	nsec_t left;

	if (deadline > 0) {
		left = deadline - proc_now();
		if (left < 0)
			left = 0;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		tp = &ts;
	}
	return ppoll(fds, (nfds_t)nfds, tp, &ps->wait_mask);
}

/*
 * Lets the handlers of pending signals run without waiting: a signal
 * that came while they were blocked must count before retry decides to
 * start another attempt or to exit with a status.
 */
static void
take_pending(const struct proc *ps)
{
	struct timespec zero = { 0, 0 };

	ppoll(NULL, 0, &zero, &ps->wait_mask);
}

/* Reaps every child that has ended; records the status of pid. */
static bool
reap(pid_t pid, int *status)
{
	pid_t p;
	int st;
	bool found = false;

	got_child = 0;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == pid) {
			*status = st;
			found = true;
		}
	return found;
}

void
proc_die(int sig)
{
	struct rlimit nocore = { 0, 0 };
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(sig, &sa, NULL);
	setrlimit(RLIMIT_CORE, &nocore);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* The signal was ignored after all, or cannot kill. */
	_exit(128 + sig);
}

struct member {
	pid_t	pid;
	pid_t	ppid;
	bool	zombie;
};

#ifdef __linux__
/* Reads "pid (comm) state ppid pgrp" from /proc/PID/stat. */
static bool
read_stat(const char *pid, struct member *m, pid_t *pgrp)
{
	char path[64], buf[512], *p, state;
	ssize_t n;
	int fd, ppid, grp;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %d %d", &state, &ppid, &grp) != 3)
		return false;
	m->pid = (pid_t)atoi(buf);
	m->ppid = (pid_t)ppid;
	m->zombie = state == 'Z' || state == 'X';
	*pgrp = (pid_t)grp;
	return true;
}

/* Every process of retry's process group but retry itself. */
static size_t
scan_group(pid_t self, struct member **out)
{
	struct member *v = NULL, m, *nv;
	struct dirent *d;
	size_t n = 0, cap = 0;
	pid_t grp, mine = getpgrp();
	DIR *dir;

	if ((dir = opendir("/proc")) == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		if (!isdigit((unsigned char)d->d_name[0]) ||
		    !read_stat(d->d_name, &m, &grp) || grp != mine ||
		    m.pid == self)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				break;
			v = nv;
		}
		v[n++] = m;
	}
	closedir(dir);
	*out = v;
	return n;
}
#else
static size_t
scan_group(pid_t self, struct member **out)
{
	(void)self;
	*out = NULL;
	return 0;
}
#endif

/* Whether v[i] descends from retry through members of its group. */
static bool
descends(const struct member *v, size_t n, size_t i, pid_t self)
{
	pid_t p = v[i].ppid;
	size_t hops, j;

	for (hops = 0; hops < n + 1; hops++) {
		if (p == self)
			return true;
		for (j = 0; j < n && v[j].pid != p; j++)
			continue;
		if (j == n)
			return false;
		p = v[j].ppid;
	}
	return false;
}

/*
 * Sends sig to the command (pid, while not reaped) and to every living
 * process of the attempt; a stopped process also gets SIGCONT so that it
 * can act on the signal.  Returns how many processes it reached; with
 * sig 0 it only counts them.
 */
static size_t
signal_attempt(const struct proc *ps, pid_t pid, int sig)
{
	struct member *v = NULL;
	size_t n, i, count = 0;

	bool cont = sig != 0 && sig != SIGKILL && sig != SIGCONT;

	if (pid > 0 && kill(pid, sig) == 0) {
		count++;
		if (cont)
			kill(pid, SIGCONT);
	}
	n = scan_group(ps->self, &v);
	for (i = 0; i < n; i++) {
		if (v[i].pid == pid || v[i].zombie || !descends(v, n, i, ps->self))
			continue;
		if (kill(v[i].pid, sig) == 0)
			count++;
		if (cont)
			kill(v[i].pid, SIGCONT);
	}
	free(v);
	return count;
}

/* Whether retry has children at all: without any, no leftover exists. */
static bool
have_children(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
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

/*
 * execve() gives caught signals their default action again; what needs
 * restoring is SIGPIPE, which retry ignores, and a signal that was
 * ignored at start but that retry catches anyway (SIGCHLD).
 */
static void
restore_signals(const struct proc *ps)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (!sigismember(&ps->start_ignored, SIGPIPE)) {
		sa.sa_handler = SIG_DFL;
		sigaction(SIGPIPE, &sa, NULL);
	}
	if (sigismember(&ps->start_ignored, SIGCHLD)) {
		sa.sa_handler = SIG_IGN;
		sigaction(SIGCHLD, &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &ps->start_mask, NULL);
}

static void __attribute__((__noreturn__))
exec_child(const struct proc *ps, char **argv, char **envp,
    const struct attempt_io *io, int errfd)
{
	extern char **environ;
	int e;

#ifdef __linux__
	/* If retry is SIGKILLed, the command must not run on unwatched. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ps->self)
		_exit(EXIT_RETRY);
#endif
	move_fd(io->in, STDIN_FILENO);
	move_fd(io->out, STDOUT_FILENO);
	restore_signals(ps);
	environ = envp;
	execvp(argv[0], argv);
	e = errno;
	(void)!write(errfd, &e, sizeof(e));
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

/*
 * Starts the command; 0 and the pid, or the errno of a failed exec, told
 * by a close-on-exec pipe so that a command that exits 127 by itself is
 * not taken for one that was not found.
 */
static int
spawn(const struct proc *ps, char **argv, char **envp,
    const struct attempt_io *io, pid_t *pidp)
{
	pid_t pid;
	int ep[2], e = 0, st;

	if (pipe2(ep, O_CLOEXEC) == -1)
		err(EXIT_RETRY, "pipe");
	if ((pid = fork()) == -1)
		err(EXIT_RETRY, "fork");
	if (pid == 0)
		exec_child(ps, argv, envp, io, ep[1]);
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
	sig_atomic_t seen;	/* signal_count when last passed on */
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
await_group(const struct proc *ps, nsec_t kill_at, bool interruptible)
{
	while (have_children() && signal_attempt(ps, 0, 0) > 0) {
		if (kill_at != 0 && proc_now() >= kill_at) {
			signal_attempt(ps, 0, SIGKILL);
			kill_at = 0;
		}
		wait_event(ps, NULL, 0, earliest(kill_at,
		    proc_now() + LEFTOVER_POLL));
		reap(0, NULL);
		if (interruptible && got_signal != 0)
			return got_signal;
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
forward_signals(const struct proc *ps, struct watch *w,
    const struct config *cfg, nsec_t now)
{
	if (signal_count == w->seen)
		return;
	w->seen = signal_count;
	if (w->forwarded == 0) {
		w->forwarded = got_signal;
		signal_attempt(ps, w->pid, got_signal);
		escalate_later(w, cfg, now);
		if (last_signal != got_signal)
			signal_attempt(ps, w->pid, last_signal);
	} else
		signal_attempt(ps, w->pid, last_signal);
}

/* One step of the watch: forward, time out or kill as due. */
static void
watch_step(const struct proc *ps, struct watch *w, const struct config *cfg)
{
	nsec_t now = proc_now();

	forward_signals(ps, w, cfg, now);
	if (!w->expired && w->limit != 0 && now >= w->limit) {
		w->expired = true;
		signal_attempt(ps, w->pid, cfg->timeout_signal);
		if (cfg->timeout_signal == SIGKILL)
			w->killed = true;
		else
			escalate_later(w, cfg, now);
	}
	if (w->kill_at != 0 && now >= w->kill_at) {
		signal_attempt(ps, w->pid, SIGKILL);
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

/*
 * Runs one attempt to its end.  It ends early at the absolute deadline
 * (0: none) or after --timeout; a signal retry receives is passed on.
 */
void
proc_run(const struct proc *ps, const struct config *cfg, char **envp,
    struct attempt_io *io, nsec_t deadline, struct outcome *o)
{
	struct pollfd fds[MAX_POLL_FDS];
	struct watch w;
	nsec_t start = proc_now();
	int e, nfds, status = 0;

	memset(o, 0, sizeof(*o));
	memset(&w, 0, sizeof(w));
	e = spawn(ps, cfg->argv, envp, io, &w.pid);
	if (io->feed != NULL && io->in >= 0) {
		close(io->in);	/* the read end is the command's */
		io->in = -1;
	}
	if (e != 0) {
		o->kind = OUT_NOEXEC;
		o->value = e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
		o->error = e;
		o->duration = proc_now() - start;
		return;
	}
	w.limit = cfg->timeout != 0 ? nsec_add(start, cfg->timeout) : 0;
	if (deadline != 0 && (w.limit == 0 || deadline <= w.limit)) {
		w.limit = deadline;
		o->deadline = true;
	}
	/* Only a SIGCHLD, taken in ppoll(), can mean the command ended. */
	while (got_child == 0 || !reap(w.pid, &status)) {
		watch_step(ps, &w, cfg);
		nfds = spool_poll_fds(io->feed, fds, MAX_POLL_FDS);
		if (wait_event(ps, fds, nfds, earliest(w.expired ? 0 : w.limit,
		    w.kill_at)) > 0)
			spool_poll_service(io->feed, fds, nfds);
	}
	o->duration = proc_now() - start;
	/* A signal that came as the command ended still ends the run. */
	w.pid = 0;	/* reaped: never signalled again */
	take_pending(ps);
	forward_signals(ps, &w, cfg, proc_now());
	if (w.forwarded != 0)
		await_group(ps, w.killed ? proc_now() : w.kill_at, false);
	o->deadline = o->deadline && w.expired;
	classify(&w, status, o);
}

/*
 * Sleeps until the absolute time until, calling tick about four times a
 * second when given.  Returns 0, or the signal that ended the sleep.
 */
int
proc_sleep(const struct proc *ps, nsec_t until, void (*tick)(nsec_t, void *),
    void *arg)
{
	nsec_t now, next;

	take_pending(ps);	/* even a sleep of 0 ends on a signal */
	for (;;) {
		reap(0, NULL);
		if (got_signal != 0)
			return got_signal;
		if ((now = proc_now()) >= until)
			return 0;
		next = until;
		if (tick != NULL) {
			tick(until - now, arg);
			next = earliest(until, now + 250 * NSEC_PER_MSEC);
		}
		wait_event(ps, NULL, 0, next);
	}
}

/*
 * Before the next attempt: what the last one left running in retry's
 * group gets --signal, then SIGKILL after --kill-after.  Returns 0, or
 * the signal that interrupted the wait.
 */
int
proc_clear_leftovers(const struct proc *ps, const struct config *cfg)
{
	nsec_t kill_at = 0;
	int sig;

	reap(0, NULL);
	if (!have_children() || signal_attempt(ps, 0, cfg->timeout_signal) == 0)
		return 0;
	if (cfg->kill_after != NSEC_INF)
		kill_at = nsec_add(proc_now(), cfg->kill_after);
	if ((sig = await_group(ps, kill_at, true)) != 0) {
		/* The run stops: what is left gets the signal too. */
		signal_attempt(ps, 0, sig);
		await_group(ps, kill_at, false);
	}
	return sig;
}

/*
 * Moves fd above 2: were retry started with stdin, stdout or stderr
 * closed, the file would take that number, and what retry writes there
 * (messages, held output) would land in it.
 */
static int
above_stdio(int fd)
{
	int nfd;

	if (fd == -1 || fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return nfd;
}

/* An unlinked temporary file, mode 0600, in $TMPDIR or /tmp. */
int
proc_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
#ifdef O_TMPFILE
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) != -1)
		return above_stdio(fd);
#endif
	if (snprintf(path, sizeof(path), "%s/retry.XXXXXXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		return -1;
	unlink(path);
	return above_stdio(fd);
}

/* Fewer, larger transfers: a pipe of 1 MiB where the kernel allows. */
void
proc_pipe_grow(int fd)
{
#ifdef F_SETPIPE_SZ
	fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
	(void)fd;
#endif
}

/* A pipe for the command's stdin: large, and non-blocking for retry. */
int
proc_pipe(int p[2])
{
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	proc_pipe_grow(p[1]);
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	return 0;
}

/*
 * Up to len bytes of the file in, from *off on, to out, without a copy
 * through user space where the kernel allows.  Returns what write(2)
 * would.
 */
ssize_t
proc_send_file(int in, off_t *off, int out, size_t len)
{
	char buf[16384];
	ssize_t n, w;

#ifdef __linux__
	n = sendfile(out, in, off, len);
	if (n != -1 || (errno != EINVAL && errno != ENOSYS))
		return n;
#endif
	if (len > sizeof(buf))
		len = sizeof(buf);
	if ((n = pread(in, buf, len, *off)) <= 0)
		return n;
	if ((w = write(out, buf, (size_t)n)) > 0)
		*off += w;
	return w;
}

/*
 * Up to len bytes from the stream in, appended to the file out at off.
 * Returns the count, 0 at end of input, or -1.
 */
ssize_t
proc_take_stream(int in, int out, off_t off, size_t len)
{
	char buf[16384];
	ssize_t n;

#ifdef __linux__
	loff_t o = off;

	n = splice(in, NULL, out, &o, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n != -1 || (errno != EINVAL && errno != ENOSYS))
		return n;
#endif
	if (len > sizeof(buf))
		len = sizeof(buf);
	if ((n = read(in, buf, len)) <= 0)
		return n;
	for (ssize_t done = 0, w; done < n; done += w)
		if ((w = pwrite(out, buf + done, (size_t)(n - done),
		    off + done)) == -1)
			return -1;
	return n;
}

/*
 * Copies size bytes of the file in to out.  Where out is a pipe, the copy
 * does not block and retry waits for room in ppoll(), so that a reader
 * that stops reading cannot keep retry from a signal.  A signal that came
 * before the copy began is the one retry is about to die by, after the
 * output: only a further one interrupts.  Returns 0, -1 with errno, or
 * the signal to die by.
 */
int
proc_copy_out(const struct proc *ps, int in, off_t size, int out)
{
	struct pollfd pfd = { .fd = out, .events = POLLOUT };
	sig_atomic_t seen = signal_count;
	off_t off = 0;
	ssize_t n;
	bool is_pipe = true;

	while (off < size) {
		if (signal_count != seen)
			return got_signal;
#ifdef __linux__
		if (is_pipe) {
			n = splice(in, &off, out, NULL, (size_t)(size - off),
			    SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EAGAIN) {
				wait_event(ps, &pfd, 1, 0);
				continue;
			}
			if (n == -1 && errno == EINVAL) {
				is_pipe = false;
				continue;
			}
		} else
#endif
			n = proc_send_file(in, &off, out, (size_t)(size - off));
		if (n == 0)
			return 0;	/* the file shrank */
		if (n == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}
