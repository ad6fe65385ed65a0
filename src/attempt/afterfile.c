/*
 * afterfile.c: RETRY_AFTER_FILE.  Before each attempt, a fresh private
 * directory (os/privdir.c) and in it the name of a file that does not
 * exist yet: the variable names it, and only the user can create it.
 * After the attempt, at most AFTER_TEXT_MAX + 1 bytes of it are read and
 * the directory is removed, so that nothing is left behind whichever way
 * the run then ends, and a hook, which runs between attempts, finds the
 * variable empty.  A directory per attempt costs a few system calls; it
 * needs no clean-up at exit or on a signal, and no attempt can see what
 * an earlier one wrote.
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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "os/privdir.h"
#include "text/escape.h"
#include "afterfile.h"

#define AFTER_NAME	"after"

void
after_file_init(struct after_file *a)
{
	memset(a, 0, sizeof(*a));
	a->dir.fd = -1;
	memcpy(a->var, AFTER_VAR, sizeof(AFTER_VAR));
}

/* The attempt's directory, named in the variable; empty without one. */
void
after_file_begin(struct after_file *a)
{
	int error;

	char *p = a->var + sizeof(AFTER_VAR) - 1;
	size_t n;

	/* No snprintf(3): a run of one attempt pays for this. */
	if ((error = privdir_make(&a->dir, "retry-after")) == 0) {
		n = strlen(a->dir.path);
		memcpy(p, a->dir.path, n);
		memcpy(p + n, "/" AFTER_NAME, sizeof("/" AFTER_NAME));
		return;
	}
	*p = '\0';
	if (!a->told)
		warnx_safe("RETRY_AFTER_FILE: no private directory in "
		    "$XDG_RUNTIME_DIR, $TMPDIR or /tmp (%s): the variable "
		    "is empty", strerror(error));
	a->told = true;
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

	fd = openat(a->dir.fd, AFTER_NAME, O_RDONLY | O_NOFOLLOW |
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

/* After the attempt: the file read, the directory gone, the name too. */
void
after_file_end(struct after_file *a)
{
	a->len = 0;
	a->text[0] = '\0';
	a->refused = NULL;
	a->ask = AFTER_NOTHING;
	a->delay = -1;
	if (a->dir.fd == -1)
		return;
	if (!privdir_remove(&a->dir, read_after(a) ? AFTER_NAME : NULL))
		warnx_safe("RETRY_AFTER_FILE: %s: cannot remove what the "
		    "attempt left there", a->dir.path);
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
