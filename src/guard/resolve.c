/*
 * resolve.c: a host name turned into its addresses within a deadline,
 * for the Redis store.  getaddrinfo() blocks for as long as the resolver
 * likes (two tries of five seconds against a nameserver that never
 * answers), and no stop signal ends it.  So the lookup runs in a child
 * process of its own, which writes the addresses it found to a pipe: the
 * parent waits on that pipe with signals_wait_fd(), like any other wait
 * on a peer, and kills the child when the deadline passes or a stop
 * signal comes.  A child rather than c-ares or glibc's getaddrinfo_a():
 * it resolves exactly as redis-cli and every other program of the host
 * do (nsswitch.conf, /etc/hosts, search domains, mDNS), it is the same
 * in the portable and the static builds, it links nothing new, and it
 * costs a run that names no host (or a numeric address) nothing, not
 * even the fork.  Every address is kept, in the resolver's order (RFC
 * 6724's), up to RESOLVE_ADDRS_MAX, as hiredis and redis-cli try them:
 * a name such as localhost that gives ::1 first, on a host whose Redis
 * listens on 127.0.0.1 only, must still reach it.
 *
 * The child holds nothing of retry's but its pipe: stdin, stdout and
 * stderr become /dev/null and every other descriptor is closed, so that
 * a reader of retry's output sees its end when retry ends, not when a
 * lookup gives up.  On Linux it also dies with retry (a parent-death
 * signal); elsewhere a child whose retry was killed with KILL finishes
 * its lookup alone (at most the resolver's own timeout), holding nothing.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "os/fd.h"
#include "os/signals.h"
#include "resolve.h"

/* Whether addr is among the n addresses that out holds. */
static bool
listed(const struct resolved *out, const char *addr)
{
	int i;

	for (i = 0; i < out->n; i++)
		if (strcmp(out->addr[i], addr) == 0)
			return true;
	return false;
}

/*
 * host's addresses, numeric, into out, in order, each once (a name
 * listed twice in /etc/hosts would take two shares of the deadline) and
 * at most RESOLVE_ADDRS_MAX: 0, or an EAI_ code.
 */
static int
addresses(const char *host, int flags, struct resolved *out)
{
	struct addrinfo hints, *res, *ai;
	char *a;
	int e;

	memset(out, 0, sizeof(*out));
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = flags;
	if ((e = getaddrinfo(host, NULL, &hints, &res)) != 0)
		return e;
	for (ai = res; ai != NULL && out->n < RESOLVE_ADDRS_MAX;
	    ai = ai->ai_next) {
		a = out->addr[out->n];
		if ((e = getnameinfo(ai->ai_addr, ai->ai_addrlen, a,
		    RESOLVE_ADDR_LEN, NULL, 0, NI_NUMERICHOST)) == 0 &&
		    !listed(out, a))
			out->n++;
	}
	freeaddrinfo(res);
	return out->n > 0 ? 0 : e;
}

/* Descriptors the fallback closes, when the system has no close_range. */
#define CHILD_FDS_MAX	4096

/*
 * The child's descriptors: fd moved to 3, /dev/null on 0, 1 and 2 (or
 * none, if it cannot be opened: 3 is taken, so no library's write to
 * stdout or stderr lands on the pipe), every other one closed.  Where
 * close_range (Linux 5.9) is missing, the descriptors below
 * CHILD_FDS_MAX are closed one by one: what retry opens is low, but a
 * descriptor above it that retry was started with stays open in the
 * child.  The pipe, 3.
 */
static int
child_fds(int fd, pid_t parent)
{
	long max;
	int i, null;

#ifdef __linux__
	/* It dies with retry; a retry already gone left it reparented. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
#else
	(void)parent;
#endif
	if (fd != 3 && (dup2(fd, 3) == -1 || close(fd) == -1))
		_exit(1);
	null = open("/dev/null", O_RDWR);
	for (i = 0; i < 3; i++)
		if (null == -1)
			close(i);
		else if (null != i)
			dup2(null, i);
	if (null > 3)
		close(null);
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 4U, ~0U, 0U) == 0)
		return 3;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > CHILD_FDS_MAX)
		max = CHILD_FDS_MAX;
	for (i = 4; i < max; i++)
		close(i);
	return 3;
}

/*
 * The child: the lookup, and its answer on fd, a struct resolved whose
 * why is the resolver's reason if it found none (same program, same
 * layout).  It leaves by _exit(): nothing of retry's (atexit handlers,
 * buffered output) is the child's to run.
 */
static _Noreturn void
lookup_child(const char *host, int fd)
{
	struct resolved res;
	int e;

	if ((e = addresses(host, AI_ADDRCONFIG, &res)) != 0)
		snprintf(res.why, sizeof(res.why), "%s", gai_strerror(e));
	fd_write_all(fd, (const char *)&res, sizeof(res));
	_exit(0);
}

/*
 * Reads the child's answer from fd until its end, at most len bytes:
 * their number, or -1 with errno.
 */
static ssize_t
read_answer(int fd, const struct sigstate *ss, nsec_t deadline, long mark,
    void *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;

	for (;;) {
		if (signals_wait_fd(ss, fd, POLLIN, deadline, mark) == -1)
			return -1;
		if ((got = read(fd, (char *)buf + n, len - n)) > 0)
			n += (size_t)got;
		else if (got == 0)
			break;
		else if (errno != EINTR && errno != EAGAIN)
			return -1;
	}
	return (ssize_t)n;
}

/*
 * Whether the child's answer of got bytes in out holds an address; its
 * strings end within their arrays whatever it held.  If none, out->why
 * says why.
 */
static bool
answer_ok(struct resolved *out, ssize_t got)
{
	int i;

	out->why[RESOLVE_ADDR_LEN - 1] = '\0';
	if (got != (ssize_t)sizeof(*out) || out->n < 0 ||
	    out->n > RESOLVE_ADDRS_MAX) {
		out->n = 0;
		snprintf(out->why, sizeof(out->why), "no address");
	}
	for (i = 0; i < out->n; i++)
		out->addr[i][RESOLVE_ADDR_LEN - 1] = '\0';
	if (out->n == 0 && out->why[0] == '\0')
		snprintf(out->why, sizeof(out->why), "no address");
	return out->n > 0;
}

/*
 * host's addresses, numeric, into out: true, or false with errno
 * (EINTR: a stop signal after mark ended the wait; ETIMEDOUT: the
 * deadline passed; EHOSTUNREACH: the resolver found none, and out->why
 * says why).  A numeric host is its own address, with no child.
 */
bool
resolve_host(const char *host, const struct sigstate *ss, nsec_t deadline,
    long mark, struct resolved *out)
{
	ssize_t got;
	int p[2], e;
	pid_t pid, parent;

	if (addresses(host, AI_NUMERICHOST, out) == 0)
		return true;
	if (fd_pipe(p) == -1)
		return false;
	parent = getpid();
	if ((pid = fork()) == -1) {
		e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return false;
	}
	if (pid == 0)
		lookup_child(host, child_fds(p[1], parent));
	close(p[1]);
	got = read_answer(p[0], ss, deadline, mark, out, sizeof(*out));
	e = errno;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	close(p[0]);
	if (got == -1) {
		memset(out, 0, sizeof(*out));
		errno = e;
		return false;
	}
	errno = EHOSTUNREACH;
	return answer_ok(out, got);
}
