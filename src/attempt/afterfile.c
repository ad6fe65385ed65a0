/*
 * afterfile.c: RETRY_AFTER_FILE.  Before each attempt, the name of a
 * file that does not exist yet, unique to the run and the attempt
 * (after.PID.K.CLOCK, in hex), in a directory that only the user can
 * enter (os/privdir.c): retry-after, kept in $XDG_RUNTIME_DIR, or
 * retry-after-UID in $TMPDIR or /tmp, opened for attempt 1; else (another
 * user made it first) a fresh retry-after.XXXXXX for each attempt,
 * removed after it.  After the attempt, at most
 * AFTER_TEXT_MAX + 1 bytes of the file are read and it is removed, so
 * that nothing is left behind whichever way the run then ends, no
 * attempt sees what an earlier one wrote, and a hook, which runs between
 * attempts, finds the variable empty.  A run whose command writes
 * nothing pays one openat(2) per attempt, and a few calls to open the
 * directory once (3,500 instructions in all, most of them the first
 * calls' symbol lookups); only the fresh directories cost a mkdir(2)
 * and a rmdir(2) per attempt too.
 *
 * The command may plant anything there: the file is opened relative to
 * the directory's descriptor, without following a link (O_NOFOLLOW) and
 * without waiting for a writer (O_NONBLOCK), and only a regular file is
 * read.  What it says is judged by policy/after.c, and only when the
 * attempt is to be retried.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os/clock.h"
#include "os/privdir.h"
#include "text/escape.h"
#include "afterfile.h"

void
after_file_init(struct after_file *a)
{
	memset(a, 0, sizeof(*a));
	a->dir.fd = -1;
	memcpy(a->var, AFTER_VAR, sizeof(AFTER_VAR));
}

/* Appends '.' and v in hex at p, for a name: the end.  No snprintf(3). */
static char *
put_hex(char *p, uint64_t v)
{
	char digits[16];
	size_t n = 0;

	*p++ = '.';
	do
		digits[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) != 0);
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/*
 * Attempt k's name, in the variable; empty without a directory.  The
 * kept directory is looked for once, and again when an attempt removed
 * it; without it, each attempt gets a fresh one.
 */
void
after_file_begin(struct after_file *a, long long k)
{
	char *p = a->var + sizeof(AFTER_VAR) - 1;
	size_t n;
	int error;

	/* An attempt may have removed the directory, or opened it. */
	if (k > 1 && a->kept && !privdir_check(&a->dir))
		a->tried = a->kept = false;
	if (!a->tried) {
		a->tried = true;
		a->kept = privdir_open(&a->dir, "retry-after") == 0;
	}
	if (!a->kept && (error = privdir_make(&a->dir, "retry-after")) != 0) {
		if (!a->told)
			warnx_safe("RETRY_AFTER_FILE: no private directory "
			    "in $XDG_RUNTIME_DIR, $TMPDIR or /tmp (%s): the "
			    "variable is empty", strerror(error));
		a->told = true;
		return;
	}
	n = strlen(a->dir.path);
	memcpy(p, a->dir.path, n);
	a->name = p + n + 1;
	memcpy(p + n, "/after", 6);
	p += n + 6;
	p = put_hex(p, (uint64_t)getpid());
	p = put_hex(p, (uint64_t)k);
	/* The clock: two runs of one PID in two PID namespaces differ. */
	p = put_hex(p, (uint64_t)mono_now());
	*p = '\0';
}

/*
 * What the attempt wrote, into a->text; refused says why if not read.
 * False when there is no such file.
 */
static bool
read_after(struct after_file *a)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(a->dir.fd, a->name, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return false;
		a->refused = errno == ELOOP ? "a symbolic link" :
		    "cannot be opened";
		return true;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		a->refused = "not a regular file";
	while (a->refused == NULL && a->len <= AFTER_TEXT_MAX) {
		n = read(fd, a->text + a->len, AFTER_TEXT_MAX + 1 - a->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			a->refused = "cannot be read";
		if (n <= 0)
			break;
		a->len += (size_t)n;
	}
	close(fd);
	a->text[a->len] = '\0';
	return true;
}

/* After the attempt: the file read and removed, the name emptied. */
void
after_file_end(struct after_file *a)
{
	bool found;

	a->len = 0;
	a->text[0] = '\0';
	a->refused = NULL;
	a->ask = AFTER_NOTHING;
	a->delay = -1;
	if (a->name == NULL)
		return;
	found = read_after(a);
	if (a->kept ? found && !privdir_remove(&a->dir, a->name) :
	    !privdir_destroy(&a->dir, found ? a->name : NULL))
		warnx_safe("RETRY_AFTER_FILE: %s/%s: cannot remove what the "
		    "attempt left there", a->dir.path, a->name);
	a->name = NULL;
	a->var[sizeof(AFTER_VAR) - 1] = '\0';
}

/* s without the blanks and the line end around it, in place. */
static void
trim(char *s)
{
	size_t start = strspn(s, " \t"), end = strlen(s);

	while (end > start && strchr(" \t\r\n", s[end - 1]) != NULL)
		end--;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
}

/*
 * What attempt k, which is to be retried, asks through the file, judged
 * at the wall-clock time wall; refused content is one warning.
 */
enum after_ask
after_file_ask(struct after_file *a, long long k, nsec_t wall)
{
	char why[160];

	if (a->refused != NULL)
		a->ask = AFTER_BAD;
	else
		a->ask = after_parse(a->text, a->len, wall, &a->delay, why,
		    sizeof(why));
	if (a->ask == AFTER_WAIT)	/* the value alone, for the log */
		trim(a->text);
	if (a->refused != NULL)
		warnx_safe("attempt %lld: RETRY_AFTER_FILE ignored: %s", k,
		    a->refused);
	else if (a->ask == AFTER_BAD)
		warnx_safe("attempt %lld: RETRY_AFTER_FILE ignored: %s", k,
		    why);
	return a->ask;
}
