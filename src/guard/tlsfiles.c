/*
 * tlsfiles.c: the files that decide whom a TLS session trusts (a CA
 * file, a hashed directory of CAs, a client's certificate and key), as
 * both backends of tls.c look at them.  A TLS library opens a file with
 * a blocking open(2), which a FIFO with no writer would hold for ever,
 * past the deadline and past every stop signal (they are blocked outside
 * the one wait): so each is looked at here first without blocking, and
 * only a regular file goes on; or, for wolfSSL, read here into memory,
 * and the library opens nothing at all.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlsfiles.h"

#define SLURP_MAX	(16L << 20)	/* the largest file read, in bytes */

/*
 * path opened without blocking, relative to dfd: the descriptor of a
 * regular file, or -1 with why.  A file that is not there is -1 with
 * errno ENOENT.
 */
static int
open_regular(int dfd, const char *path, char *why, size_t len,
    struct stat *st)
{
	int fd, e;

	if ((fd = openat(dfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1) {
		e = errno;
		snprintf(why, len, "TLS: %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	e = fstat(fd, st) == -1 ? errno : 0;
	if (e != 0 || !S_ISREG(st->st_mode)) {
		snprintf(why, len, "TLS: %s: %s", path, e != 0 ? strerror(e) :
		    "not a regular file");
		close(fd);
		errno = e != 0 ? e : EINVAL;
		return -1;
	}
	return fd;
}

/*
 * Whether path (NULL: none) is a regular file that can be read: false
 * with why if not.  A file that is not there is refused too, unless
 * optional says that the library only reads it where it is
 * (SSL_CERT_FILE).
 */
bool
tls_readable(const char *path, bool optional, char *why, size_t len)
{
	struct stat st;
	int fd;

	if (path == NULL)
		return true;
	if ((fd = open_regular(AT_FDCWD, path, why, len, &st)) == -1)
		return optional && errno == ENOENT;
	close(fd);
	return true;
}

/*
 * The whole of path (relative to dfd), a regular file, in memory: its
 * bytes (*n of them, to free), or NULL with why; a file that is not
 * there is NULL with errno ENOENT.
 */
unsigned char *
tls_slurp(int dfd, const char *path, size_t *n, char *why, size_t len)
{
	struct stat st;
	unsigned char *buf = NULL;
	ssize_t r = 0;
	size_t got = 0;
	int fd, e = 0;

	if ((fd = open_regular(dfd, path, why, len, &st)) == -1)
		return NULL;
	if (st.st_size > SLURP_MAX)
		e = EFBIG;
	else if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
		e = ENOMEM;
	while (e == 0 && got < (size_t)st.st_size &&
	    (r = read(fd, buf + got, (size_t)st.st_size - got)) != 0) {
		if (r > 0)
			got += (size_t)r;
		else if (errno != EINTR)
			e = errno;
	}
	close(fd);
	if (e != 0) {
		free(buf);
		snprintf(why, len, "TLS: %s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	*n = got;
	return buf;
}

/* Whether name is one that c_rehash gives a CA or a CRL: 1a2b3c4d.0, .r0. */
bool
tls_hash_name(const char *name)
{
	const char *n = name + 9;

	if (strspn(name, "0123456789abcdef") != 8 || name[8] != '.')
		return false;
	n += *n == 'r';
	return *n != '\0' && strspn(n, "0123456789") == strlen(n);
}

/*
 * Whether dir holds a CA by its hash, as c_rehash names it: 1 yes, 0
 * no, -1 with why if one of them is not a regular file.  OpenSSL opens
 * the one it needs with a blocking open(2): so every such name is
 * looked at here first, by stat(2), which never waits on a FIFO, and a
 * directory that holds anything else is not used at all.
 */
int
tls_hashed(const char *dir, char *why, size_t len)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int found = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (!tls_hash_name(e->d_name))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    !S_ISREG(st.st_mode)) {
			snprintf(why, len, "TLS: %s/%s: not a regular file",
			    dir, e->d_name);
			found = -1;
			break;
		}
		found = 1;
	}
	closedir(d);
	return found;
}

/* SSL_CERT_FILE, which the system's CAs are read from, or NULL. */
const char *
tls_cert_file(void)
{
	const char *f = getenv("SSL_CERT_FILE");

	return f != NULL && *f != '\0' ? f : NULL;
}
