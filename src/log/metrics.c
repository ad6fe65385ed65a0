/*
 * metrics.c: --metrics-file, the end of the run in the Prometheus text
 * format, for node_exporter's textfile collector (or any reader of that
 * format): the attempts, the retries, the exit status, the outcome, the
 * duration, when the run ended and when a run last succeeded.  Every
 * metric is a gauge named retry_..., with a label name="..." taken from
 * the file's name less ".prom", so that the files of several jobs in one
 * collector's directory never name the same series.
 *
 * The file is written whole or not at all: a temporary file beside it,
 * made by mkstemp(3) (O_EXCL: never through a link planted at its name),
 * synced, then renamed over PATH, so that a reader sees the old file or
 * the new one.  Its name, PATH.XXXXXX, does not end in .prom, which the
 * collector would read; a last component too long for the suffix is cut
 * to fit NAME_MAX.  PATH itself must be a regular file or absent: a
 * link, a FIFO or a device there is not replaced.  A run that does not
 * succeed keeps the last success's time of the file it replaces, read
 * from at most METRICS_READ_MAX bytes of it without waiting.  A failure
 * is one warning; the run's exit status stays what it was.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/defs.h"
#include "text/escape.h"
#include "text/format.h"
#include "metrics.h"

#define METRICS_READ_MAX	8192	/* of the old file, for its time */
#define METRICS_MODE		0644	/* less the umask: see below */
#define LAST_SUCCESS		"retry_last_success_timestamp_seconds"
/* POSIX lets limits.h leave it out where it varies; 255 is the usual. */
#ifndef NAME_MAX
#define NAME_MAX		255
#endif

/*
 * The label's value: PATH's last component less ".prom", with '\' and
 * '"' escaped as the format wants and any byte that is not printable
 * ASCII or part of valid UTF-8 made '_', and so is a character that
 * shows nothing but changes what a reader sees (a C1 control, U+202E
 * that shows the rest reversed): a dashboard shows the label.
 */
void
metrics_name(struct strbuf *sb, const char *path)
{
	const char *base = strrchr(path, '/');
	const unsigned char *p;
	size_t len, n;

	base = base != NULL ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".prom") == 0)
		len -= 5;
	for (p = (const unsigned char *)base;
	    p < (const unsigned char *)base + len; p += n) {
		n = 1;
		if (*p == '\\' || *p == '"')
			sb_printf(sb, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			sb_add(sb, p, 1);
		else if ((n = utf8_len(p)) == 0 ||
		    p + n > (const unsigned char *)base + len) {
			n = 1;
			sb_str(sb, "_");
		} else if (utf8_invisible(p, n))
			sb_str(sb, "_");	/* one for the character */
		else
			sb_add(sb, p, n);
	}
}

/* The last '.' of the first n bytes of s, or NULL. */
static const char *
lastdot(const char *s, size_t n)
{
	while (n > 0)
		if (s[--n] == '.')
			return s + n;
	return NULL;
}

/*
 * The last success's time in the file at path, as it was written there
 * (digits and one point, at most len - 1 bytes), into buf; "" if there
 * is none.  A FIFO, a link or anything but a regular file is not even
 * opened: a FIFO's open lets a blocked writer go on, a device's may act
 * (a watchdog's starts it), a terminal's may become retry's own.
 */
static void
old_success(const char *path, char *buf, size_t len)
{
	char text[METRICS_READ_MAX + 1], *p;
	struct stat st;
	ssize_t n;
	size_t v;
	int fd;

	*buf = '\0';
	if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return;
	/* The flags still guard against one swapped in since. */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		return;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
	    read(fd, text, METRICS_READ_MAX) : -1;
	close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	for (p = text; (p = strstr(p, LAST_SUCCESS "{")) != NULL; p++) {
		if (p != text && p[-1] != '\n')
			continue;
		if ((p = strstr(p, "} ")) == NULL)
			return;
		p += 2;
		/* A digit first, one point at most, a whole line: not cut. */
		v = strspn(p, "0123456789.");
		if (*p >= '0' && *p <= '9' && v < len && p[v] == '\n' &&
		    memchr(p, '.', v) == lastdot(p, v)) {
			memcpy(buf, p, v);
			buf[v] = '\0';
		}
		return;
	}
}

/* One gauge: its HELP and TYPE lines, then its sample. */
static void
gauge(struct strbuf *sb, const char *metric, const char *help,
    const char *name, const char *value)
{
	sb_printf(sb, "# HELP retry_%s %s\n# TYPE retry_%s gauge\n"
	    "retry_%s{name=\"%s\"} %s\n", metric, help, metric, metric, name,
	    value);
}

/* The file's text, the run m ending at now; success: the last one's. */
static void
metrics_text(struct strbuf *sb, const char *name,
    const struct metrics_run *m, nsec_t now, const char *success)
{
	static const char *const outcomes[] = {
		[METRICS_SUCCESS] = "success",
		[METRICS_GAVE_UP] = "gave_up",
		[METRICS_STOPPED] = "stopped",
		[METRICS_BREAKER_OPEN] = "breaker_open",
	};
	char v[40];
	size_t i;

	snprintf(v, sizeof(v), "%lld", m->attempts);
	gauge(sb, "attempts", "Attempts the last run started.", name, v);
	snprintf(v, sizeof(v), "%lld", m->attempts > 0 ? m->attempts - 1 : 0);
	gauge(sb, "retries", "Attempts after the first in the last run.",
	    name, v);
	snprintf(v, sizeof(v), "%d", m->status);
	gauge(sb, "exit_status", "The status the last run exited with.", name,
	    v);
	sb_str(sb, "# HELP retry_outcome How the last run ended: 1 for its "
	    "outcome, 0 for the others.\n# TYPE retry_outcome gauge\n");
	for (i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
		sb_printf(sb, "retry_outcome{name=\"%s\",outcome=\"%s\"} %d\n",
		    name, outcomes[i], m->outcome == (enum metrics_outcome)i);
	format_fixed(v, sizeof(v), m->elapsed, 9);
	gauge(sb, "duration_seconds", "How long the last run took, from its "
	    "first attempt's start.", name, v);
	format_fixed(v, sizeof(v), now, 3);
	gauge(sb, "last_run_timestamp_seconds", "When the last run ended, in "
	    "seconds since the Epoch.", name, v);
	if (m->outcome == METRICS_SUCCESS)
		success = v;
	if (*success != '\0')
		gauge(sb, "last_success_timestamp_seconds", "When a run last "
		    "succeeded, in seconds since the Epoch.", name, success);
}

/* Writes len bytes of s to fd, then syncs them; errno on failure. */
static int
write_synced(int fd, const char *s, size_t len)
{
	ssize_t n;

	for (; len > 0; s += n, len -= (size_t)n)
		if ((n = write(fd, s, len)) == -1 && errno != EINTR)
			return errno;
		else if (n == -1)
			n = 0;
	return fsync(fd) == -1 && errno != EINVAL ? errno : 0;
}

/*
 * The temporary file's name, malloc'd: path and ".XXXXXX", its last
 * component cut to fit NAME_MAX, so that a name of 249 to 255 bytes,
 * which the suffix would push past it, is still written.  Cut or not, it
 * does not end in .prom.  NULL with errno.
 */
static char *
temp_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t dir = base != NULL ? (size_t)(base + 1 - path) : 0;
	size_t n = strlen(path + dir);
	char *tmp;

	if (n > NAME_MAX - 7)
		n = NAME_MAX - 7;
	if ((tmp = malloc(dir + n + 8)) != NULL) {
		memcpy(tmp, path, dir + n);
		memcpy(tmp + dir + n, ".XXXXXX", 8);
	}
	return tmp;
}

/*
 * Puts the text s in place of path, or leaves path as it was: 0, or an
 * errno value (-1: path is there but not a regular file).  The new file
 * gets METRICS_MODE less the umask: the collector runs as another user
 * and must read it, and nobody but its owner should write it, whatever
 * umask allows; mkstemp(3) alone gives 0600.
 */
static int
replace(const char *path, const char *s, size_t len)
{
	struct stat st;
	char *tmp;
	mode_t mask;
	int fd, error = 0;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return -1;
	if ((tmp = temp_name(path)) == NULL)
		return errno;
	if ((fd = mkstemp(tmp)) == -1) {
		error = errno;
		free(tmp);
		return error;
	}
	mask = umask(0);
	umask(mask);
	error = fchmod(fd, METRICS_MODE & ~mask) == -1 ? errno :
	    write_synced(fd, s, len);
	if (close(fd) == -1 && error == 0)
		error = errno;
	if (error == 0 && rename(tmp, path) == -1)
		error = errno;
	if (error != 0)
		unlink(tmp);
	free(tmp);
	return error;
}

/* --metrics-file: the run m ends; the file at path says so. */
void
metrics_write(const char *path, const struct metrics_run *m)
{
	struct strbuf name = { 0 }, text = { 0 };
	char success[32];
	int error;

	old_success(path, success, sizeof(success));
	metrics_name(&name, path);
	metrics_text(&text, sb_text(&name), m, wall_now(), success);
	if ((error = replace(path, text.s, text.len)) != 0)
		warnx_safe("--metrics-file %s: %s; not written, the exit "
		    "status is unchanged", path, error == -1 ?
		    "not a regular file" : strerror(error));
	sb_free(&name);
	sb_free(&text);
}
