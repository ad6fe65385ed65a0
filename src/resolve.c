/*
 * resolve.c: a host name turned into an address within a deadline, for
 * the Redis store.  getaddrinfo() blocks for as long as the resolver
 * likes (two tries of five seconds against a nameserver that never
 * answers), and no stop signal ends it.  So the lookup runs in a child
 * process of its own, which writes the address it found to a pipe: the
 * parent waits on that pipe with signals_wait_fd(), like any other wait
 * on a peer, and kills the child when the deadline passes or a stop
 * signal comes.  A child rather than c-ares or glibc's getaddrinfo_a():
 * it resolves exactly as redis-cli and every other program of the host
 * do (nsswitch.conf, /etc/hosts, search domains, mDNS), it is the same
 * in the portable and the static builds, it links nothing new, and it
 * costs a run that names no host (or a numeric address) nothing, not
 * even the fork.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "defs.h"
#include "fd.h"
#include "resolve.h"
#include "signals.h"

/* The first address of host, numeric, into addr: 0 or an EAI_ code. */
static int
first_address(const char *host, int flags, char *addr, size_t len)
{
	struct addrinfo hints, *res;
	int e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = flags;
	if ((e = getaddrinfo(host, NULL, &hints, &res)) != 0)
		return e;
	e = getnameinfo(res->ai_addr, res->ai_addrlen, addr, (socklen_t)len,
	    NULL, 0, NI_NUMERICHOST);
	freeaddrinfo(res);
	return e;
}

/*
 * The child: the lookup, and its answer on fd, an address or '!' and
 * the resolver's reason.  It leaves by _exit(): nothing of retry's
 * (atexit handlers, buffered output) is the child's to run.
 */
static _Noreturn void
lookup_child(const char *host, int fd)
{
	char buf[RESOLVE_OUT_MAX];
	int e;

	if ((e = first_address(host, AI_ADDRCONFIG, buf, sizeof(buf))) != 0)
		snprintf(buf, sizeof(buf), "!%s", gai_strerror(e));
	fd_write_all(fd, buf, strlen(buf));
	_exit(0);
}

/* Reads the child's answer from fd until its end: 0, or -1 with errno. */
static int
read_answer(int fd, const struct sigstate *ss, nsec_t deadline, long mark,
    char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;

	for (;;) {
		if (signals_wait_fd(ss, fd, POLLIN, deadline, mark) == -1)
			return -1;
		if ((got = read(fd, buf + n, len - 1 - n)) > 0)
			n += (size_t)got;
		else if (got == 0 || n == len - 1)
			break;
		else if (errno != EINTR && errno != EAGAIN)
			return -1;
	}
	buf[n] = '\0';
	return 0;
}

/*
 * host's first address, numeric, into out: true, or false with errno
 * (EINTR: a stop signal after mark ended the wait; ETIMEDOUT: the
 * deadline passed; EHOSTUNREACH: the resolver found none, and out says
 * why).  A numeric host is its own address, with no child.
 */
bool
resolve_host(const char *host, const struct sigstate *ss, nsec_t deadline,
    long mark, char out[RESOLVE_OUT_MAX])
{
	char buf[RESOLVE_OUT_MAX];
	int p[2], rc, e;
	pid_t pid;

	if (first_address(host, AI_NUMERICHOST, out, RESOLVE_OUT_MAX) == 0)
		return true;
	if (fd_pipe(p) == -1 || (pid = fork()) == -1)
		return false;
	if (pid == 0) {
		close(p[0]);
		lookup_child(host, p[1]);
	}
	close(p[1]);
	rc = read_answer(p[0], ss, deadline, mark, buf, sizeof(buf));
	e = errno;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	close(p[0]);
	errno = rc == -1 ? e : EHOSTUNREACH;
	if (rc == -1)
		return false;
	if (buf[0] == '!' || buf[0] == '\0') {
		snprintf(out, RESOLVE_OUT_MAX, "%s", buf[0] == '!' ? buf + 1 :
		    "no address");
		return false;
	}
	snprintf(out, RESOLVE_OUT_MAX, "%s", buf);
	return true;
}
