/*
 * attempt.c: running one command, an attempt or a hook, to its end.  It
 * takes a struct attempt_spec: the command, its environment, its time
 * limits and its streams.  It starts the command, waits for it while
 * passing on the signals retry receives and servicing its streams, times
 * it out (the spec's timeout and deadline, then SIGKILL after its
 * kill-after), and classifies how it ended.  Between attempts it sleeps
 * and clears what the last attempt left running.
 *
 * retry reaps every child itself, so it never signals a pid it has
 * reaped; which processes belong to an attempt is leftovers.c's to say.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/signals.h"
#include "policy/outcomes.h"
#include "attempt.h"
#include "leftovers.h"
#include "spawn.h"
#include "streams.h"

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
		/*
		 * ENXIO: none.  Without /dev/tty (an empty root) the
		 * terminal is found where it is also stdin, out or err.
		 */
		return errno != ENXIO && (tcgetpgrp(STDIN_FILENO) != -1 ||
		    tcgetpgrp(STDOUT_FILENO) != -1 ||
		    tcgetpgrp(STDERR_FILENO) != -1);
	close(fd);
	return true;
}

/*
 * Away from a terminal (cron, CI, setsid) retry leads a process group of
 * its own, as timeout(1) does, so that what the command starts there is
 * told from the caller's other processes.  Where that group's members
 * cannot be listed (Linux without /proc), each attempt there leads a
 * group of its own instead, signalled whole; in the terminal's job it
 * cannot, and its leftovers go unseen.
 */
enum leftovers_mode
attempt_init(bool foreground)
{
	bool alone = !foreground && !has_terminal();

	if (alone && getpgrp() != getpid())
		setpgid(0, 0);
	if (leftovers_init())
		return LEFTOVERS_FOUND;
	return alone ? LEFTOVERS_GROUP : LEFTOVERS_UNSEEN;
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
	return count + leftovers_signal(signals_self(ss), pid, sig, cont);
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

struct watch {
	const struct attempt_spec *spec;
	pid_t	pid;
	pid_t	group;		/* the group a hook leads, 0: none */
	nsec_t	limit;		/* timeout or deadline, 0: none */
	nsec_t	kill_at;	/* when to send SIGKILL, 0: not yet */
	nsec_t	stall_at;	/* no output until then ends it; 0: none */
	uint64_t taken;		/* the output seen when stall_at was set */
	bool	expired;
	bool	stalled;	/* by the stall timeout, not the limit */
	bool	killed;
	bool	stop_sent;	/* the hook's group has had the stop signal */
};

static nsec_t
earliest(nsec_t a, nsec_t b)
{
	if (a == 0)
		return b;
	return b == 0 || a < b ? a : b;
}

/*
 * Sends the attempt's leftovers sig, then waits until they are gone,
 * passing on every signal retry receives, with SIGKILL at kill_at (0:
 * never).  It wakes when one of them ends, when a signal comes, or at
 * kill_at, and only then reads /proc again, signalling and watching in
 * the same pass; only where the kernel cannot tell it when they end does
 * it look more often, less and less so.  Returns 0 once they are gone,
 * or the stop signal that ended the wait.
 */
static int
await_leftovers(const struct sigstate *ss, pid_t group, int sig,
    nsec_t kill_at)
{
	struct leftovers lw = { .npidfd = 0 };
	struct pollfd fds[LEFTOVER_WATCH];
	nsec_t poll = LEFTOVER_POLL, wake;
	int i, stop = 0;

	while (stop == 0 && have_children()) {
		if (kill_at != 0 && mono_now() >= kill_at) {
			sig = SIGKILL;
			kill_at = 0;
		}
		if ((group > 0 ? leftovers_signal_group(group, sig, sig != 0 &&
		    sig != SIGKILL && sig != SIGCONT) : leftovers_watch(&lw,
		    signals_self(ss), sig, sig != 0 && sig != SIGKILL &&
		    sig != SIGCONT)) == 0)
			break;
		sig = 0;
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
		stop = signals_stop();
	}
	leftovers_unwatch(&lw);
	return stop;
}

/*
 * signal_attempt(), and for a hook, which leads a process group of its
 * own, its whole group too: the timeout ends all of the hook.
 */
static size_t
signal_watched(const struct sigstate *ss, const struct watch *w, int sig,
    bool cont)
{
	size_t count = signal_attempt(ss, w->pid, sig, cont);

	if (w->group > 0 && kill(-w->group, sig) == 0) {
		count++;
		if (cont)
			kill(-w->group, SIGCONT);
	}
	return count;
}

/*
 * pass_on() for what is watched.  A hook leads a group of its own, out of
 * reach of the terminal's signals to retry's job, and retry passes on no
 * signal the terminal sent: a stop signal reaches the hook's group here
 * in any case, else retry would wait for all of the hook after Ctrl-C.
 */
static void
pass_on_watched(const struct sigstate *ss, struct watch *w)
{
	int sig;

	while ((sig = signals_next_forward()) != 0) {
		signal_watched(ss, w, sig, sig_is_stop(sig));
		w->stop_sent = w->stop_sent || sig_is_stop(sig);
	}
	if (w->group > 0 && !w->stop_sent && (sig = signals_stop()) != 0) {
		w->stop_sent = true;
		signal_watched(ss, w, sig, true);
	}
}

static void
escalate_later(struct watch *w, nsec_t now)
{
	if (w->spec->kill_after != NSEC_INF && w->kill_at == 0)
		w->kill_at = nsec_add(now, w->spec->kill_after) | 1;
}

/*
 * --stall-timeout: output since the last look, or output that waits for
 * its reader, moves the stall deadline on; once it passes, the attempt
 * has been silent that long and is timed out.
 */
static bool
stall_due(struct watch *w, const struct streams *st, nsec_t now)
{
	uint64_t taken;

	if (w->stall_at == 0 || w->expired)
		return false;
	taken = streams_taken(st);
	if (taken != w->taken || streams_backed_up(st)) {
		w->taken = taken;
		w->stall_at = nsec_add(now, w->spec->stall);
		return false;
	}
	return now >= w->stall_at;
}

/* One step of the watch: forward, time out or kill as due. */
static void
watch_step(const struct sigstate *ss, struct watch *w,
    const struct streams *st)
{
	int sig = w->spec->signal;
	nsec_t now = mono_now();

	pass_on_watched(ss, w);
	if (stall_due(w, st, now))
		w->stalled = true;
	if (!w->expired && (w->stalled || (w->limit != 0 &&
	    now >= w->limit))) {
		w->expired = true;
		/* -s 0 sends nothing: the attempt runs on to its KILL. */
		if (sig != 0)
			signal_watched(ss, w, sig, sig != SIGKILL);
		if (sig == SIGKILL)
			w->killed = true;
		else
			escalate_later(w, now);
	}
	if (w->kill_at != 0 && now >= w->kill_at) {
		/* Only a KILL that reached something was needed. */
		if (signal_watched(ss, w, SIGKILL, false) > 0)
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

/* Why watch_attempt() ends: all but WATCH_GOES_ON once it is reaped. */
enum watch_end {
	WATCH_GOES_ON,
	WATCH_FAILED,		/* its streams failed */
	WATCH_NO_STREAMS,	/* nothing but the command was watched */
	WATCH_COMPLETE,		/* its output is complete */
	WATCH_CUT,		/* past the limit: the output is taken as is */
	WATCH_STOPPED		/* a stop came, and nothing more is ready */
};

/*
 * Whether anything of the reaped attempt is alive: signal 0 reaches it,
 * in retry's group or in the group the attempt led.
 */
static bool
attempt_alive(const struct sigstate *ss, const struct watch *w)
{
	struct watch reaped = { .group = w->group };

	return signal_watched(ss, &reaped, 0, false) > 0;
}

/*
 * Whether the watch ends with the command reaped.  Past the limit, once
 * no KILL is to follow or nothing of the attempt is left alive to write
 * more, the output is taken as it is: a stalled reader of it would
 * otherwise hold retry until the KILL.
 */
static enum watch_end
watch_ended(const struct sigstate *ss, const struct watch *w,
    struct streams *st, int failed)
{
	if (w->pid != 0)
		return WATCH_GOES_ON;
	if (failed != 0)
		return WATCH_FAILED;
	if (st == NULL)
		return WATCH_NO_STREAMS;
	if (streams_done(st))
		return WATCH_COMPLETE;
	if (w->expired && (w->kill_at == 0 || !attempt_alive(ss, w)))
		return WATCH_CUT;
	return WATCH_GOES_ON;
}

/*
 * Waits for a signal, the next time limit or the streams st (or NULL),
 * and services those that are ready, or a stream still matching a read
 * (streams_busy()); streams that fail (*failed) kill the attempt.  Once
 * a stop signal came and the command is reaped, what is ready is passed
 * on and nothing waits: a stalled reader is not waited for
 * (WATCH_STOPPED).
 */
static enum watch_end
watch_wait(const struct sigstate *ss, struct watch *w, struct streams *st,
    int *failed)
{
	struct pollfd fds[STREAMS_FDS];
	bool stopping = w->pid == 0 && signals_stop() != 0;
	bool busy = *failed == 0 && st != NULL && streams_busy(st);
	int nfds = *failed == 0 && st != NULL ? streams_fds(st, fds) : 0;
	int ready;

	/*
	 * While matching is to go on, the wait only lets the signals in and
	 * the loop looks at the clock, then the matching goes on.
	 */
	ready = signals_wait(ss, fds, nfds, stopping || busy ? mono_now() :
	    earliest(w->expired ? 0 : earliest(w->limit, w->stall_at),
	    w->kill_at));
	if (ready <= 0 && stopping)
		return WATCH_STOPPED;
	if (((ready > 0 && nfds > 0) || busy) &&
	    (*failed = streams_service(st, fds, ready > 0 ? nfds : 0)) != 0)
		signal_attempt(ss, w->pid, SIGKILL, false);
	return WATCH_GOES_ON;
}

/*
 * Waits for the command, servicing its streams st (or NULL), until it is
 * reaped and its output is complete, the limit cut it short, a stop
 * signal came or the streams failed (see watch_ended()); returns its wait
 * status.  Streams that fail kill the attempt first, then report.
 */
static int
watch_attempt(const struct sigstate *ss, struct watch *w,
    struct streams *st)
{
	int status = 0, failed = 0;

	for (;;) {
		/* Only a SIGCHLD, taken in ppoll(), can mean it ended. */
		if (w->pid != 0 && signals_child_exited() &&
		    reap(w->pid, &status))
			w->pid = 0;	/* reaped: never signalled again */
		watch_step(ss, w, st);
		if (watch_ended(ss, w, st, failed) != WATCH_GOES_ON ||
		    watch_wait(ss, w, st, &failed) != WATCH_GOES_ON)
			break;
	}
	if (failed != 0)
		streams_fail(st, failed);
	return status;
}

/* The descriptors that are the command's now: retry's copies go. */
static void
close_handed_over(const int fd[3])
{
	int i;

	for (i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* The attempt ended: its streams close, and say what output matched. */
static void
end_streams(struct streams *st, struct outcome *o)
{
	o->matched = -1;
	if (st != NULL)
		o->matched = streams_end(st, &o->matched_text);
}

/*
 * Runs the command of sp to its end.  It ends early at the spec's
 * absolute deadline or after its timeout; a signal retry receives is
 * passed on.
 */
void
attempt_run(const struct sigstate *ss, const struct attempt_spec *sp,
    struct outcome *o)
{
	struct watch w;
	nsec_t start = mono_now(), deadline = sp->deadline;
	int fd[3] = { sp->fd[0], sp->fd[1], sp->fd[2] }, e, status;

	memset(o, 0, sizeof(*o));
	memset(&w, 0, sizeof(w));
	w.spec = sp;
	if (sp->streams != NULL)
		streams_begin(sp->streams, fd);
	e = spawn_command(ss, sp->argv, sp->envp, fd, sp->own_group, &w.pid);
	close_handed_over(fd);
	if (e != 0) {
		o->kind = OUT_NOEXEC;
		o->value = e == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE;
		o->error = e;
		o->duration = mono_now() - start;
		end_streams(sp->streams, o);
		return;
	}
	w.group = o->group = sp->own_group ? w.pid : 0;
	w.limit = sp->timeout != 0 ? nsec_add(start, sp->timeout) : 0;
	if (deadline != 0 && (w.limit == 0 || deadline <= w.limit)) {
		w.limit = deadline;
		o->deadline = true;
	}
	if (sp->stall != 0 && sp->streams != NULL)
		w.stall_at = nsec_add(start, sp->stall);
	status = watch_attempt(ss, &w, sp->streams);
	o->duration = mono_now() - start;
	end_streams(sp->streams, o);
	/* A signal that came as the command ended still counts. */
	signals_take_pending(ss);
	pass_on(ss, 0);
	o->stop_signal = signals_stop();
	o->deadline = o->deadline && w.expired && !w.stalled;
	o->stalled = w.stalled ? sp->stall : 0;
	o->timeout = w.expired && !w.stalled && !o->deadline ? sp->timeout :
	    0;
	classify(&w, status, o);
}

/*
 * Sleeps until the absolute time until, calling tick about four times a
 * second when given.  Returns 0, or the stop signal that ended the sleep;
 * other signals find no attempt to pass them on to, and are dropped.
 */
int
attempt_sleep(const struct sigstate *ss, nsec_t until,
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
 * group, or in the group it led (0: none), gets sig, then SIGKILL after
 * kill_after (NSEC_INF: never) or at the absolute deadline (0: none),
 * whichever comes first.  Returns 0, or the stop signal that interrupted
 * the wait.
 */
int
attempt_clear_leftovers(const struct sigstate *ss, pid_t group, int sig,
    nsec_t kill_after, nsec_t deadline)
{
	nsec_t kill_at = 0;

	reap(0, NULL);
	if (kill_after != NSEC_INF)
		kill_at = nsec_add(mono_now(), kill_after);
	return await_leftovers(ss, group, sig, earliest(kill_at, deadline));
}
