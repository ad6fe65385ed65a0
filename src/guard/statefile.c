/*
 * statefile.c: the local store of --budget and --breaker.  Each NAME is
 * one small text file, budget.c's record, in a directory of the user's
 * own: $XDG_RUNTIME_DIR/retry, or /tmp/retry-UID where that variable is
 * not set.  Every retry of the user that names the same budget or breaker
 * shares the file, with no daemon.
 *
 * An update is a read-modify-write under an exclusive lock on the open
 * file description (F_OFD_SETLK; flock(2) where the kernel has no such
 * locks), taken for that update only, never across an attempt or a
 * sleep: no retry ever waits for another one's command.  The lock is
 * taken without blocking, retried for at most LOCK_WAIT_MS (less where
 * -m's deadline comes first), and a stop signal ends that wait: a
 * process that holds the lock for ever stalls no one.  The state must be
 * out of other users' reach, since a record planted by one of them could
 * stop the user's retries or the breaker's runs: the directory is
 * created 0700, the file is opened without following a symbolic link and
 * created 0600, and both must belong to the user and give others no
 * access.  A state that cannot be trusted or used is not an error: the
 * caller is told why and goes on without the guard, so that no other
 * user, and no unusable directory, can keep the command from running.
 *
 * Each update applies budget.c's rules to the record it read, and writes
 * the result back: the store's table (statefile_store) is those updates.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "os/fd.h"
#include "os/privdir.h"
#include "os/signals.h"
#include "text/escape.h"
#include "budget.h"
#include "statefile.h"
#include "store.h"

#define LOCK_WAIT_MS	1000	/* the longest wait for a state file's lock */
#define LOCK_POLL_MS	5

/* A guard's state file, open. */
struct statefile {
	int		 fd;
	bool		 flocked;	/* locked with flock(2), not OFD */
	bool		 corrupt;	/* the record read was not valid */
	bool		 cut;		/* the lock's last wait ended at -m */
	long long	 waited_ms;	/* or after these milliseconds */
};

/* Fills why with "WHAT PATH REASON" and returns false. */
static bool
refuse(char *why, size_t len, const char *what, const char *path,
    const char *reason)
{
	snprintf(why, len, "%s %s %s", what, path, reason);
	return false;
}

/* Fills why with "WHAT PATH: the errno's text" and returns false. */
static bool
failed(char *why, size_t len, const char *what, const char *path)
{
	snprintf(why, len, "%s %s: %s", what, path, strerror(errno));
	return false;
}

/* O_NOFOLLOW met a symbolic link: ELOOP, or EMLINK on FreeBSD. */
static bool
is_link_error(int e)
{
	return e == ELOOP || e == EMLINK;
}

/* fd is what path names: of the type, the user's, and no one else's. */
static bool
check_owned(int fd, const char *what, const char *path, mode_t type,
    char *why, size_t len)
{
	struct stat st;
	char reason[96];

	if (fstat(fd, &st) == -1)
		return failed(why, len, what, path);
	if ((st.st_mode & S_IFMT) != type)
		return refuse(why, len, what, path, type == S_IFDIR ?
		    "is not a directory" : "is not a regular file");
	if (st.st_uid != geteuid()) {
		snprintf(reason, sizeof(reason),
		    "belongs to uid %lu, not to uid %lu",
		    (unsigned long)st.st_uid, (unsigned long)geteuid());
		return refuse(why, len, what, path, reason);
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		snprintf(reason, sizeof(reason),
		    "is open to other users (mode %04o)",
		    (unsigned)(st.st_mode & 07777));
		return refuse(why, len, what, path, reason);
	}
	return true;
}

/* The state directory's path: false if too long. */
static bool
dir_path(char *path, size_t len, char *why, size_t wlen)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	size_t end;
	int n;

	/*
	 * The XDG base directory spec: a relative path is to be ignored.
	 * So is one that is there but that another user may rename along
	 * the way (root's under sudo -E, in the user's), for /tmp's; one
	 * that is not there is the user's to hear of.
	 */
	if (xdg != NULL && *xdg == '/' && (stat(xdg, &st) == -1 ||
	    !S_ISDIR(st.st_mode) || privdir_safe_base(xdg))) {
		/* Shown in warnings: "/run/user/1000/" gives no "//". */
		for (end = strlen(xdg); end > 1 && xdg[end - 1] == '/'; end--)
			;
		n = snprintf(path, len, "%.*s/retry", end > 1 ? (int)end :
		    0, xdg);
	} else
		n = snprintf(path, len, "/tmp/retry-%lu",
		    (unsigned long)geteuid());
	if (n < 0 || (size_t)n >= len)
		return refuse(why, wlen, "state directory", xdg,
		    "/retry: path too long");
	return true;
}

/* The state directory, created if need be, checked, and opened; or -1. */
static int
open_dir(char *path, size_t len, char *why, size_t wlen)
{
	struct stat st;
	int dfd;

	if (!dir_path(path, len, why, wlen))
		return -1;
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		failed(why, wlen, "state directory", path);
		return -1;
	}
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* With O_DIRECTORY, a symbolic link may fail as ENOTDIR. */
	if (dfd == -1 && (is_link_error(errno) || errno == ENOTDIR) &&
	    lstat(path, &st) == 0)
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
	if (dfd == -1) {
		if (is_link_error(errno) || errno == ENOTDIR)
			refuse(why, wlen, "state directory", path,
			    errno == ENOTDIR ? "is not a directory" :
			    "is a symbolic link");
		else
			failed(why, wlen, "state directory", path);
		return -1;
	}
	if (!check_owned(dfd, "state directory", path, S_IFDIR, why, wlen)) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * The state directory, opened, for other state of the user's (tls.c's
 * session tickets): -1 where it cannot be had or trusted.
 */
int
statefile_dir(void)
{
	char path[PATH_MAX_GUARD], why[STORE_WHY_MAX];

	return open_dir(path, sizeof(path), why, sizeof(why));
}

/*
 * Opens g's state file into sf, creating it empty: false with why if the
 * state cannot be used or trusted.  g->where gets its path.  O_NONBLOCK
 * keeps a FIFO planted there from blocking the open.
 */
static bool
statefile_open(struct guard *g, struct statefile *sf, char *why, size_t len)
{
	char dir[PATH_MAX_GUARD];
	int dfd, n, fd;

	if ((dfd = open_dir(dir, sizeof(dir), why, len)) == -1)
		return false;
	n = snprintf(g->where, sizeof(g->where), "%s/%s", dir, g->spec->name);
	if (n < 0 || (size_t)n >= sizeof(g->where)) {
		close(dfd);
		return refuse(why, len, "state file", dir, "/NAME: path too long");
	}
	fd = openat(dfd, g->spec->name, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0600);
	close(dfd);
	if (fd == -1 && is_link_error(errno))
		return refuse(why, len, "state file", g->where,
		    "is a symbolic link");
	if ((sf->fd = fd_above_stdio(fd)) == -1)
		return failed(why, len, "state file", g->where);
	if (!check_owned(sf->fd, "state file", g->where, S_IFREG, why, len)) {
		close(sf->fd);
		sf->fd = -1;
		return false;
	}
	return true;
}

/* One try at the lock, without waiting: 0, or -1 with errno (EAGAIN). */
static int
try_lock(struct statefile *sf)
{
#ifdef F_OFD_SETLK
	struct flock fl;

	if (!sf->flocked) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(sf->fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno == EACCES)
			errno = EAGAIN;
		/* EINVAL: a kernel before Linux 3.15 has no OFD locks. */
		if (errno != EINVAL)
			return -1;
		sf->flocked = true;
	}
#endif
	if (flock(sf->fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		errno = EAGAIN;
	return -1;
}

/*
 * When the wait for g's lock that starts at now ends: LOCK_WAIT_MS later,
 * or sooner at the run's deadline (-m) while that is still ahead, or at
 * the ceiling of the waits before attempt 1, as a Redis store's waits
 * end.  A deadline that has passed (the run ended at -m, and its end is
 * recorded) leaves the usual wait, so that a lock busy for a moment does
 * not lose the record.
 */
static nsec_t
lock_end(const struct guard *g, struct statefile *sf, nsec_t now)
{
	nsec_t end = nsec_add(now, (nsec_t)LOCK_WAIT_MS * NSEC_PER_MSEC);

	sf->cut = false;
	if (g->limit != NULL && *g->limit > now && *g->limit < end) {
		end = *g->limit;
		sf->cut = true;
	}
	if (g->opening != NULL && *g->opening > now && *g->opening < end) {
		end = *g->opening;
		sf->cut = false;
	}
	sf->waited_ms = (end - now) / NSEC_PER_MSEC;
	return end;
}

/*
 * The lock, tried every LOCK_POLL_MS until lock_end() (ETIMEDOUT, after
 * one last try) or a stop signal comes (EINTR).  A stop that came before
 * is no reason to give up: the run's end must still be recorded.  A lock
 * has no descriptor to wait on: the waits are for time.
 */
static int
take_lock(struct guard *g)
{
	struct statefile *sf = g->state;
	nsec_t end, tick = 0;
	long mark = signals_stops();

	end = lock_end(g, sf, mono_now());
	while (try_lock(sf) == -1) {
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		if (tick == end) {
			errno = ETIMEDOUT;
			return -1;
		}
		tick = nsec_add(mono_now(), (nsec_t)LOCK_POLL_MS *
		    NSEC_PER_MSEC);
		if (tick > end)
			tick = end;
		if (signals_wait_fd(g->ss, -1, 0, tick, mark) == -1 &&
		    errno != ETIMEDOUT)
			return -1;
	}
	return 0;
}

static void
release_lock(struct statefile *sf)
{
	int e = errno;
#ifdef F_OFD_SETLK
	struct flock fl;

	if (!sf->flocked) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_UNLCK;
		fl.l_whence = SEEK_SET;
		fcntl(sf->fd, F_OFD_SETLK, &fl);
		errno = e;
		return;
	}
#endif
	flock(sf->fd, LOCK_UN);
	errno = e;
}

/*
 * Locks g's file and reads up to len bytes of it: how many, or -1 with
 * errno and the lock released: ETIMEDOUT if another process held the
 * lock for as long as lock_end() allows, EINTR if a stop signal came
 * meanwhile.
 * statefile_commit() must follow.
 */
static ssize_t
statefile_begin(struct guard *g, char *buf, size_t len)
{
	struct statefile *sf = g->state;
	ssize_t n;

	if (take_lock(g) == -1)
		return -1;
	while ((n = pread(sf->fd, buf, len, 0)) == -1 && errno == EINTR)
		continue;
	if (n == -1)
		release_lock(sf);
	return n;
}

/*
 * Replaces the record and releases the lock: 0, or -1 with errno.  The
 * file is truncated after the write, not before: a crash in between
 * leaves a record that reads as corrupt, which the next retry reports,
 * rather than an empty file that would pass for a fresh start.
 */
static int
statefile_commit(struct guard *g, const char *buf, size_t len)
{
	struct statefile *sf = g->state;
	ssize_t n;
	int rc = -1;

	while ((n = pwrite(sf->fd, buf, len, 0)) == -1 && errno == EINTR)
		continue;
	if (n >= 0 && (size_t)n != len)
		errno = EIO;
	else if (n >= 0 && ftruncate(sf->fd, (off_t)len) == 0)
		rc = 0;
	release_lock(sf);
	return rc;
}

/* --- the store's table ----------------------------------------------- */

/*
 * Opens g's state file; no wait here takes mark, since the lock's wait
 * is each update's own (take_lock()).  A state no one can trust must not
 * stop the command: the caller goes on without the guard.
 */
static enum store_end
file_open(struct guard *g, long mark, char *why, size_t len)
{
	struct statefile *sf;

	(void)mark;
	if ((sf = calloc(1, sizeof(*sf))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return STORE_FAILED;
	}
	sf->fd = -1;
	g->state = sf;
	if (statefile_open(g, sf, why, len))
		return STORE_OK;
	free(sf);
	g->state = NULL;
	return STORE_FAILED;
}

/*
 * Locks g's file and reads its record, or says how it failed: a stop
 * signal during the wait for the lock ends the guard without a word,
 * since the run is about to end anyway.
 */
static enum store_end
record_load(struct guard *g, struct guard_record *r, char *why, size_t len)
{
	struct statefile *sf = g->state;
	char buf[RECORD_MAX];
	ssize_t n;

	if ((n = statefile_begin(g, buf, sizeof(buf))) == -1) {
		if (errno == EINTR)
			return STORE_STOPPED;
		if (errno == ETIMEDOUT && sf->cut)
			snprintf(why, len, "still locked at --max-time");
		else if (errno == ETIMEDOUT)
			snprintf(why, len, "still locked after %lld ms",
			    sf->waited_ms);
		else
			snprintf(why, len, "%s", strerror(errno));
		return STORE_FAILED;
	}
	record_init(r);
	sf->corrupt = n > 0 && !record_parse(buf, (size_t)n, r);
	if (sf->corrupt)
		record_init(r);
	record_rebase(r, boot_id(), boot_now());
	return STORE_OK;
}

/*
 * Writes r back and unlocks g's file; only then says what went wrong,
 * since a write to a stderr that blocks must not hold up the others.
 */
static enum store_end
record_store(struct guard *g, struct guard_record *r, char *why, size_t len)
{
	struct statefile *sf = g->state;
	char buf[RECORD_MAX];
	int n, rc;

	record_stamp(r, boot_id());
	n = record_format(buf, sizeof(buf), r);
	rc = statefile_commit(g, buf, (size_t)n);
	if (sf->corrupt)
		warnx_safe("state file %s held no valid record: "
		    "starting afresh", g->where);
	sf->corrupt = false;
	if (rc == -1) {
		snprintf(why, len, "%s", strerror(errno));
		return STORE_FAILED;
	}
	return STORE_OK;
}

static enum store_end
file_attempt(struct guard *g, bool success, bool *allowed, char *why,
    size_t len)
{
	struct guard_record r;
	enum store_end e;

	if ((e = record_load(g, &r, why, len)) != STORE_OK)
		return e;
	*allowed = budget_attempt(&r, g->spec, boot_now(), success);
	return record_store(g, &r, why, len);
}

/* The lock's wait takes its own mark, as in file_open(). */
static enum store_end
file_admit(struct guard *g, struct admission *a, char *why, size_t len)
{
	struct guard_record r;
	enum store_end e;

	if ((e = record_load(g, &r, why, len)) != STORE_OK)
		return e;
	a->verdict = breaker_admit(&r, g->spec, boot_now(), a->lease, a->id,
	    &a->wait);
	if (a->verdict == ADMIT_REFUSED && r.state == BREAKER_PROBING)
		a->wait = -1;
	return record_store(g, &r, why, len);
}

static enum store_end
file_report(struct guard *g, uint32_t probe, enum run_end end,
    unsigned permille, char *why, size_t len)
{
	struct guard_record r;
	enum store_end e;

	if ((e = record_load(g, &r, why, len)) != STORE_OK)
		return e;
	breaker_report(&r, g->spec, boot_now(), probe, end, permille);
	return record_store(g, &r, why, len);
}

/*
 * Reads the record and writes nothing: a corrupt one shows as fresh,
 * with the warning the next run would give.
 */
static enum store_end
file_peek(struct guard *g, struct guard_view *v, char *why, size_t len)
{
	struct statefile *sf = g->state;
	struct guard_record r;
	enum store_end e;
	nsec_t now = boot_now();

	if ((e = record_load(g, &r, why, len)) != STORE_OK)
		return e;
	release_lock(sf);
	if (sf->corrupt)
		warnx_safe("state file %s holds no valid record: the next "
		    "run starts afresh", g->where);
	sf->corrupt = false;
	budget_refill(&r, g->spec, now);
	v->tokens = r.tokens;
	v->state = r.state;
	v->failures = r.failures;
	v->wait = breaker_wait(&r, g->spec, now);
	return STORE_OK;
}

static enum store_end
file_reset(struct guard *g, bool budget, char *why, size_t len)
{
	struct guard_record r;
	enum store_end e;

	if ((e = record_load(g, &r, why, len)) != STORE_OK)
		return e;
	record_forget(&r, budget);
	return record_store(g, &r, why, len);
}

static void
file_close(struct guard *g)
{
	struct statefile *sf = g->state;

	if (sf != NULL && sf->fd != -1)
		close(sf->fd);
	free(sf);
	g->state = NULL;
}

const struct store_ops statefile_store = {
	.open = file_open,
	.attempt = file_attempt,
	.admit = file_admit,
	.report = file_report,
	.peek = file_peek,
	.reset = file_reset,
	.close = file_close,
};
