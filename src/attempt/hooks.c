/*
 * hooks.c: --on-retry and --on-give-up.  A hook is a command line for
 * /bin/sh -c, run between attempts with the command's environment plus
 * RETRY_STATUS (the status of the attempt that just ended, whose number
 * is RETRY_ATTEMPT) and, before a retry, RETRY_NEXT_SLEEP in seconds.
 * Its stdin is /dev/null and its stdout goes to retry's stderr, so that
 * the command's stdout stays clean.  Where /dev/null cannot be opened (an
 * empty root, a FROM scratch image), a pipe whose writing end is closed
 * is an empty stdin as good, and with stderr closed too, the stdout that
 * goes nowhere is that pipe's reading end, where every write fails
 * (EBADF) at once, as it does on the closed stderr: nothing blocks and
 * no signal comes.  Only a hook that cannot get even that is not run,
 * with a warning.  Its time counts against --max-time:
 * at the deadline it gets TERM, then KILL after --kill-after.  A hook
 * that fails is a warning and changes nothing.  It leads a process group
 * of its own: what it leaves running in the background is its own, not
 * an attempt's leftover to be cleared before the next attempt.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/env.h"
#include "os/fd.h"
#include "os/signals.h"
#include "policy/outcomes.h"
#include "text/format.h"
#include "attempt.h"
#include "hooks.h"

#define HOOK_ENV	64

/*
 * /dev/null opened with flags, or where it cannot be, the reading end of
 * a pipe whose writing end is closed: reads find end of file, writes
 * fail.  -1 with errno when there is not even a pipe.
 */
static int
open_nothing(int flags)
{
	int fd, p[2];

	if ((fd = fd_above_stdio(open("/dev/null", flags | O_CLOEXEC))) != -1)
		return fd;
	if (pipe(p) == -1)
		return -1;
	close(p[1]);
	if (fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1) {
		close(p[0]);
		return -1;
	}
	return fd_above_stdio(p[0]);
}

/*
 * The hook's stdin and stdout; its stderr is retry's.  false, with fd[]
 * closed and errno set, when they cannot be had.
 */
static bool
hook_fds(int fd[3])
{
	int e;

	fd[2] = -1;
	if ((fd[0] = open_nothing(O_RDONLY)) == -1)
		return false;
	/* With stderr closed, the hook's output has nowhere to go. */
	if ((fd[1] = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC,
	    STDERR_FILENO + 1)) == -1 && (errno != EBADF ||
	    (fd[1] = open_nothing(O_WRONLY)) == -1)) {
		e = errno;
		close(fd[0]);
		errno = e;
		return false;
	}
	return true;
}

static void
report(const char *name, const struct outcome *o)
{
	char what[64];

	if (o->kind == OUT_NOEXEC)
		warnx("%s: cannot run /bin/sh: %s", name, strerror(o->error));
	else if (o->kind != OUT_EXIT || o->value != 0) {
		outcome_format(what, sizeof(what), o);
		warnx("%s failed (%s)", name, what);
	}
}

/*
 * Runs the hook cmd (named name in messages) after an attempt that ended
 * with o, before a sleep of next (-1: none).  Returns 0, or the stop
 * signal that came while it ran.
 */
int
hook_run(const struct sigstate *ss, const struct hook *h)
{
	char sh[] = "/bin/sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, NULL, NULL };
	char status[HOOK_ENV], next[HOOK_ENV], secs[32], **env;
	struct attempt_spec spec = { argv, NULL, 0, SIGTERM, h->kill_after,
	    h->deadline, { -1, -1, -1 }, true, NULL, 0 };
	struct outcome o;

	if ((argv[2] = strdup(h->cmd)) == NULL)
		err(EXIT_CANCELED, NULL);
	snprintf(status, sizeof(status), "RETRY_STATUS=%d", h->status);
	snprintf(next, sizeof(next), "RETRY_NEXT_SLEEP=");
	if (h->next_sleep >= 0) {
		format_seconds(secs, sizeof(secs), h->next_sleep);
		strlcat(next, secs, sizeof(next));
	}
	/* Without a next sleep, only the name: the variable goes. */
	env = env_with(h->envp, (char *[]){ status, next }, 2,
	    h->next_sleep >= 0 ? 2 : 1);
	spec.envp = env;
	/* Without them, the hook is not run: it changes nothing anyway. */
	if (hook_fds(spec.fd)) {
		attempt_run(ss, &spec, &o);
		report(h->name, &o);
	} else {
		warn("%s: not run", h->name);
		memset(&o, 0, sizeof(o));
	}
	free(argv[2]);
	free(env);
	return o.stop_signal;
}

/*
 * The give-up hook's deadline.  It comes after the run, when --max-time
 * (deadline, 0: none) may have passed: it gets what is left of it, and
 * at least kill_after (no limit with NSEC_INF), so that a run that ran
 * out of time can still tell someone.
 */
nsec_t
hook_give_up_deadline(nsec_t deadline, nsec_t kill_after)
{
	nsec_t now = mono_now(), grace;

	if (deadline == 0)
		return 0;
	if (kill_after == NSEC_INF)
		return now < deadline ? deadline : 0;
	grace = nsec_add(now, kill_after);
	return grace > deadline ? grace : deadline;
}
