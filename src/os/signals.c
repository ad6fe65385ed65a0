/*
 * signals.c: the signals retry catches and the one wait in which they
 * arrive; signal names both ways; dying by a signal.
 *
 * Handlers only set flags.  Every signal retry handles stays blocked
 * except inside ppoll(), which unblocks them atomically, so no wake-up is
 * lost (a portable build: poll() and a self-pipe, the same); deadlines are absolute CLOCK_MONOTONIC times.  The command starts
 * with the signal mask and the ignored signals that retry was started
 * with: signals_restore() gives them back in the child.
 */
#include <sys/resource.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "defs.h"
#include "fd.h"
#include "signals.h"

#define SIGNALS_WAIT_FDS	64	/* a portable build's poll() set */

struct sigstate {
	sigset_t	start_mask;	/* the inherited signal mask */
	sigset_t	handled;	/* signals retry catches */
	sigset_t	wait_mask;	/* the mask inside ppoll() */
	sigset_t	start_ignored;	/* signals ignored at start */
#ifdef RETRY_PORTABLE
	int		wake_rfd;	/* the self-pipe's read end */
#endif
	pid_t		self;
};

static volatile sig_atomic_t got_child;
static volatile sig_atomic_t stop_signal;	/* the first INT TERM HUP QUIT */
static volatile sig_atomic_t to_forward[NSIG];	/* arrivals not passed on */
static volatile sig_atomic_t stops;		/* how many of those came */
#ifdef RETRY_PORTABLE
static volatile sig_atomic_t wake_fd = -1;	/* the self-pipe's write end */
#endif

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
#ifdef SIGINFO
	{ "INFO", SIGINFO },
#endif
	{ "SYS", SIGSYS },
};

/*
 * The signals retry catches to pass them on: every catchable one but
 * CHLD, the job-control signals, and the faults (ILL, SEGV, BUS, FPE,
 * TRAP, SYS, XCPU, XFSZ), which the kernel raises for a process's own
 * doing and which no one sends to make a command do something.
 */
static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
	SIGVTALRM, SIGPROF, SIGWINCH, SIGURG,
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPOLL
	SIGPOLL,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGINFO
	SIGINFO,
#endif
};

const char *
sig_name(int sig, char *buf, size_t len)
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
rt_sig_number(const char *s)
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
sig_number(const char *s)
{
	size_t i;

	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (strcasecmp(s, signames[i].name) == 0)
			return signames[i].sig;
#ifdef SIGRTMIN
	return rt_sig_number(s);
#else
	return -1;
#endif
}

#ifdef RETRY_PORTABLE
/* The self-pipe trick: a handler's byte makes poll() in signals_wait return. */
static void
signals_wake(void)
{
	int saved = errno;

	if (wake_fd != -1)
		(void)write(wake_fd, "", 1);	/* full: a byte is there already */
	errno = saved;
}
#else
#define signals_wake()	((void)0)
#endif

static void
on_child(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	got_child = 1;
	signals_wake();
}

/* The signals after which no further attempt starts. */
bool
sig_is_stop(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
	    sig == SIGQUIT;
}

/*
 * Whether the terminal sent sig to its whole foreground job: the command,
 * in retry's process group, has it already.  Linux tells by si_code;
 * elsewhere every signal is passed on.
 */
static bool
from_terminal(int sig, const siginfo_t *si)
{
#if defined(SI_KERNEL) && !defined(RETRY_PORTABLE)
	return si != NULL && si->si_code == SI_KERNEL && (sig == SIGINT ||
	    sig == SIGQUIT || sig == SIGHUP || sig == SIGWINCH);
#else
	(void)sig;
	(void)si;
	return false;
#endif
}

static void
on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sig_is_stop(sig)) {
		if (stop_signal == 0)
			stop_signal = sig;
		stops++;
	}
	if (!from_terminal(sig, si))
		to_forward[sig]++;
	signals_wake();
}

bool
signals_child_exited(void)
{
	return got_child != 0;
}

/* Called before reaping, so that a later exit raises the flag again. */
void
signals_child_seen(void)
{
	got_child = 0;
}

/* The first stop signal that came (INT, TERM, HUP, QUIT), or 0. */
int
signals_stop(void)
{
	return stop_signal;
}

/*
 * The next signal to pass on, once for each time it came, or 0.  The
 * handlers run only inside ppoll(), so nothing changes under this.
 */
int
signals_next_forward(void)
{
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		if (to_forward[sig] > 0) {
			to_forward[sig]--;
			return sig;
		}
	return 0;
}

/* Between attempts there is no one to pass signals on to. */
void
signals_drop_forwards(void)
{
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		to_forward[sig] = 0;
}

/* How many stop signals came so far: a change means another one came. */
long
signals_stops(void)
{
	return stops;
}

static void
handle(struct sigstate *ss, int sig, void (*fn)(int, siginfo_t *, void *),
    bool always)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	/* Install first and look back: one system call in the usual case. */
	if (sigaction(sig, &sa, &old) == -1)
		return;
	if (old.sa_handler == SIG_IGN) {
		sigaddset(&ss->start_ignored, sig);
		if (!always) {
			sigaction(sig, &old, NULL);
			return;
		}
	}
	sigaddset(&ss->handled, sig);
}

static void
install_handlers(struct sigstate *ss)
{
	size_t i;
	int sig;

	sigemptyset(&ss->handled);
	sigemptyset(&ss->start_ignored);
	/* A trap '' CHLD from the caller would make waitpid() fail. */
	handle(ss, SIGCHLD, on_child, true);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		handle(ss, forwarded[i], on_signal, false);
#ifdef SIGRTMIN
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		handle(ss, sig, on_signal, false);
#else
	(void)sig;
#endif
}

/*
 * Signals retry ignores for its own sake, remembering which were ignored
 * already: a write to a closed pipe must become EPIPE for retry, never
 * its death, and a background job's read or write of the terminal must
 * not stop retry with it (the kernel stops the whole job).  The command
 * gets the dispositions retry was started with.
 */
static void
ignore_for_self(struct sigstate *ss)
{
	static const int sigs[] = { SIGPIPE, SIGTTIN, SIGTTOU };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			sigaddset(&ss->start_ignored, sigs[i]);
}

bool
signals_sigpipe_default(const struct sigstate *ss)
{
	return !sigismember(&ss->start_ignored, SIGPIPE);
}

#ifdef RETRY_PORTABLE
/* The self-pipe, both ends non-blocking and closed on exec. */
static void
wake_open(struct sigstate *ss)
{
	int p[2];

	if (fd_pipe(p) == -1)
		err(EXIT_CANCELED, "pipe");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	ss->wake_rfd = p[0];
	wake_fd = p[1];
}
#else
#define wake_open(ss)	((void)(ss))
#endif

/* Installs the handlers; the state they leave, for every call below. */
struct sigstate *
signals_init(void)
{
	struct sigstate *ss;
	sigset_t all;
	int sig;

	if ((ss = calloc(1, sizeof(*ss))) == NULL)
		err(EXIT_CANCELED, NULL);
	ss->self = getpid();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &ss->start_mask);
	install_handlers(ss);
	ignore_for_self(ss);
	/* Keep blocked what retry handles; unblock it only in ppoll(). */
	sigprocmask(SIG_SETMASK, &ss->start_mask, NULL);
	sigprocmask(SIG_BLOCK, &ss->handled, NULL);
	sigprocmask(SIG_BLOCK, NULL, &ss->wait_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&ss->handled, sig))
			sigdelset(&ss->wait_mask, sig);
	wake_open(ss);
	return ss;
}

/* retry's own pid, as it was at start. */
pid_t
signals_self(const struct sigstate *ss)
{
	return ss->self;
}

#ifdef RETRY_PORTABLE
/* Empties the self-pipe; whether a handler had written to it. */
static int
wake_drain(const struct sigstate *ss)
{
	char buf[64];
	int woken = 0;

	while (read(ss->wake_rfd, buf, sizeof(buf)) > 0)
		woken = 1;
	return woken;
}

/*
 * Without ppoll() (the portable build): the handled signals are unblocked
 * around a plain poll() that also watches the self-pipe, so a signal that
 * comes between the unblocking and poll() still ends the wait; pselect()
 * is not used, as macOS's is not atomic.  What it gives up: two more
 * sigprocmask() calls per wait, and deadlines are rounded up to the next
 * millisecond (poll()'s unit), so a wait may end up to 1 ms late, never
 * early.  Returns as ppoll() would: -1 with EINTR after a signal.
 */
int
signals_wait(const struct sigstate *ss, struct pollfd *fds, int nfds,
    nsec_t deadline)
{
	struct pollfd all[SIGNALS_WAIT_FDS + 1];
	sigset_t old;
	nsec_t left;
	int i, n, ms = -1, saved, woken;

	if (nfds < 0 || nfds > SIGNALS_WAIT_FDS) {
		errno = EINVAL;
		return -1;
	}
	if (deadline > 0) {
		left = deadline - mono_now();
		if (left < 0)
			left = 0;
		left = (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
		ms = left > INT_MAX ? INT_MAX : (int)left;
	}
	for (i = 0; i < nfds; i++)
		all[i] = fds[i];
	all[nfds] = (struct pollfd){ .fd = ss->wake_rfd, .events = POLLIN };
	sigprocmask(SIG_SETMASK, &ss->wait_mask, &old);
	n = poll(all, (nfds_t)nfds + 1, ms);
	sigprocmask(SIG_SETMASK, &old, NULL);
	saved = errno;
	woken = wake_drain(ss);
	for (i = 0; i < nfds; i++)
		fds[i].revents = all[i].revents;
	errno = woken ? EINTR : saved;
	return woken ? -1 : n;
}

/* Lets pending signals' handlers run (sigprocmask() delivers them). */
void
signals_take_pending(const struct sigstate *ss)
{
	sigset_t old;

	sigprocmask(SIG_SETMASK, &ss->wait_mask, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	wake_drain(ss);
}
#else
/*
 * Waits until a signal, a ready descriptor or the absolute deadline
 * (0: none).  The flags can change only in here, where ppoll() unblocks
 * the signals, so a signal that came earlier is pending and ends the
 * wait at once: no wake-up is lost.
 */
int
signals_wait(const struct sigstate *ss, struct pollfd *fds, int nfds,
    nsec_t deadline)
{
	struct timespec ts, *tp = NULL;
	nsec_t left;
	int n;

	if (deadline > 0) {
		left = deadline - mono_now();
		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)(left / NSEC_PER_SEC);
		ts.tv_nsec = (long)(left % NSEC_PER_SEC);
		tp = &ts;
	}
	/*
	 * With a descriptor ready, ppoll() returns without taking a pending
	 * signal: a command that keeps its pipe full would hold off TERM
	 * for as long as it writes.  The handlers get their turn here.
	 */
	if ((n = ppoll(fds, (nfds_t)nfds, tp, &ss->wait_mask)) > 0)
		signals_take_pending(ss);
	return n;
}

/*
 * Lets the handlers of pending signals run without waiting: a signal
 * that came while they were blocked must count before retry decides to
 * start another attempt or to exit with a status.
 */
void
signals_take_pending(const struct sigstate *ss)
{
	struct timespec zero = { 0, 0 };

	ppoll(NULL, 0, &zero, &ss->wait_mask);
}

#endif

/*
 * The one wait on a single descriptor, for every caller that waits for a
 * peer, a lock or a reader.  It returns 0 as soon as fd (-1: none) is
 * ready for events; -1 with errno EINTR once a stop signal has come after
 * mark (a value of signals_stops() that the caller took when its wait
 * began, so that a stop that came before does not end it); -1 with
 * ETIMEDOUT once the absolute deadline (0: none) has passed; -1 with the
 * errno of a wait that failed.  A stop is looked at before readiness, so
 * a peer that is always ready cannot hold one off.  The deadline is
 * looked at after fd: a deadline that has passed already still gives fd
 * one look without waiting, so that a caller who may not wait (a stop
 * came before its copy began) still takes what is ready at once.
 */
int
signals_wait_fd(const struct sigstate *ss, int fd, short events,
    nsec_t deadline, long mark)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	bool looked = false;
	int n;

	for (;;) {
		if (signals_stops() != mark) {
			errno = EINTR;
			return -1;
		}
		if (looked && deadline > 0 && mono_now() >= deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.revents = 0;
		n = signals_wait(ss, &pfd, fd < 0 ? 0 : 1, deadline);
		if (n > 0)
			return 0;
		if (n == -1 && errno != EINTR && errno != EAGAIN)
			return -1;
		looked = true;
	}
}

/*
 * In the child, before execve(): every signal gets the disposition retry
 * found at start, and then the mask.  execve() would reset the handlers
 * itself, but the child may share retry's memory until then (spawn.c),
 * so no handler of retry's may run in it once the mask is lifted.
 */
void
signals_restore(const struct sigstate *ss)
{
	struct sigaction sa;
	int sig;

	memset(&sa, 0, sizeof(sa));
	for (sig = 1; sig < NSIG; sig++) {
		if (!sigismember(&ss->handled, sig) && sig != SIGPIPE &&
		    sig != SIGTTIN && sig != SIGTTOU)
			continue;
		sa.sa_handler = sigismember(&ss->start_ignored, sig) ?
		    SIG_IGN : SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &ss->start_mask, NULL);
}

_Noreturn void
die_by_signal(int sig)
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
