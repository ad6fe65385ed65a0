/*
 * leftovers.c: finding and signalling what an attempt left running.
 *
 * An attempt's processes are those that descend from retry and share its
 * process group.  Without --foreground retry leads a group of its own, as
 * timeout(1) does.  Signals go to each such process by pid, never to the
 * whole group: in an interactive pipeline the shell puts the other
 * commands of the pipeline into retry's group too.
 *
 * Only the scan differs by platform.  On Linux retry is a child
 * subreaper, so what an attempt orphans stays its descendant, and the
 * group's members are read from /proc; waiting for them costs nothing
 * while they live: a pidfd for each (up to LEFTOVER_WATCH of them) becomes
 * readable when it ends, and only then is /proc read again.  On FreeBSD
 * retry is a reaper (procctl(2)), and its descendants in its group are
 * the kernel's list of them, polled while they live; this is compiled
 * there but not tested.  Elsewhere no leftover is found: only the command
 * itself is signalled and waited for, and what it left running in the
 * background is left alone.
 *
 * Linux without /proc (an empty root, a chroot) cannot list the group:
 * leftovers_init() says so, and the caller then gives each attempt a
 * process group of its own where it can, which leftovers_signal_group()
 * reaches whole without naming its members.
 */
#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#elif defined(__FreeBSD__)
#include <sys/procctl.h>
#endif

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "leftovers.h"

struct member {
	pid_t	pid;
	pid_t	ppid;
	bool	zombie;
};

#ifdef __linux__
/* false: no /proc, where the group's members cannot be found. */
bool
leftovers_init(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return access("/proc/self/stat", R_OK) == 0;
}

/*
 * Whether the process pid, whose leader is a zombie, still has threads:
 * a main thread that called pthread_exit(3) leaves the leader a zombie
 * while the others run on, and the process must still be signalled and
 * waited for.  The zombie leader counts among the Threads of
 * /proc/PID/status until the process is reaped.
 */
static bool
threads_left(const char *pid)
{
	char path[64], line[128];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	fclose(f);
	return n > 1;
}

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
	m->zombie = state == 'X' || (state == 'Z' && !threads_left(pid));
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

#elif defined(__FreeBSD__)
bool
leftovers_init(void)
{
	procctl(P_PID, getpid(), PROC_REAP_ACQUIRE, NULL);
	return true;
}

/*
 * retry's descendants in its process group, from the reaper's list; they
 * all descend from retry, so each is given retry as its parent here.
 */
static size_t
scan_group(pid_t self, struct member **out)
{
	struct procctl_reaper_status rs;
	struct procctl_reaper_pids rp;
	struct procctl_reaper_pidinfo *pi;
	struct member *v;
	pid_t mine = getpgrp();
	size_t n = 0;
	u_int i;

	*out = NULL;
	if (procctl(P_PID, self, PROC_REAP_STATUS, &rs) == -1 ||
	    rs.rs_descendants == 0)
		return 0;
	if ((pi = calloc(rs.rs_descendants, sizeof(*pi))) == NULL ||
	    (v = calloc(rs.rs_descendants, sizeof(*v))) == NULL) {
		free(pi);
		return 0;
	}
	rp.rp_count = rs.rs_descendants;
	rp.rp_pids = pi;
	if (procctl(P_PID, self, PROC_REAP_GETPIDS, &rp) == 0)
		for (i = 0; i < rp.rp_count; i++)
			if ((pi[i].pi_flags & REAPER_PIDINFO_VALID) != 0 &&
			    getpgid(pi[i].pi_pid) == mine)
				v[n++] = (struct member){ pi[i].pi_pid, self,
				    false };
	free(pi);
	*out = v;
	return n;
}
#else
/* Nothing here could find them, with or without /proc. */
bool
leftovers_init(void)
{
	return true;
}

/* No way to find them here: none are found. */
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
 * Sends sig to every living process of the attempt but skip, and then
 * SIGCONT when cont is set, so that a stopped process can act on the
 * signal.  Returns how many it reached; with sig 0 it only counts them.
 */
size_t
leftovers_signal(pid_t self, pid_t skip, int sig, bool cont)
{
	struct member *v = NULL;
	size_t n, i, count = 0;

	n = scan_group(self, &v);
	for (i = 0; i < n; i++) {
		if (v[i].pid == skip || v[i].zombie || !descends(v, n, i, self))
			continue;
		if (kill(v[i].pid, sig) == 0)
			count++;
		if (cont)
			kill(v[i].pid, SIGCONT);
	}
	free(v);
	return count;
}

/*
 * Sends sig to the process group an attempt leads, then SIGCONT when
 * cont is set; with sig 0 it only looks.  1 while any member is left,
 * else 0.  The group's id is no pid's while it has members.
 */
size_t
leftovers_signal_group(pid_t group, int sig, bool cont)
{
	if (group <= 0 || kill(-group, sig) == -1)
		return 0;
	if (cont)
		kill(-group, SIGCONT);
	return 1;
}

void
leftovers_unwatch(struct leftovers *lw)
{
	while (lw->npidfd > 0)
		close(lw->pidfd[--lw->npidfd]);
	lw->watched = false;
}

/*
 * A pidfd for pid, while it is still the living member of retry's group
 * that the scan saw: checked after the open, so that a pid reused in
 * between is not watched.
 */
static int
open_pidfd(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
	struct member m;
	char name[24];
	pid_t grp;
	int fd;

	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return -1;
	snprintf(name, sizeof(name), "%ld", (long)pid);
	if (!read_stat(name, &m, &grp) || grp != getpgrp() || m.zombie) {
		close(fd);
		return -1;
	}
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/*
 * Finds the attempt's living processes again, sends them sig (0: none,
 * then SIGCONT when cont is set) and watches each through a pidfd; one
 * pass over /proc for all of it.  lw->watched tells whether every one
 * has a pidfd.  Returns how many there are.
 */
size_t
leftovers_watch(struct leftovers *lw, pid_t self, int sig, bool cont)
{
	struct member *v = NULL;
	size_t n, i, count = 0;
	int fd;

	leftovers_unwatch(lw);
	lw->watched = true;
	n = scan_group(self, &v);
	for (i = 0; i < n; i++) {
		if (v[i].zombie || !descends(v, n, i, self))
			continue;
		count++;
		if (sig != 0)
			kill(v[i].pid, sig);
		if (cont)
			kill(v[i].pid, SIGCONT);
		if (lw->npidfd < LEFTOVER_WATCH &&
		    (fd = open_pidfd(v[i].pid)) != -1)
			lw->pidfd[lw->npidfd++] = fd;
		else
			lw->watched = false;
	}
	free(v);
	return count;
}
