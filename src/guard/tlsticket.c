/*
 * tlsticket.c: the TLS session tickets that tls.c keeps across runs, one
 * file per server and trust, in the state directory of the guards
 * (statefile.c's: $XDG_RUNTIME_DIR/retry, 0700, the user's own).  A run
 * that resumes a session skips the certificate's chain and the server's
 * signature: the server then does no RSA or ECDSA work for it, which is
 * what a single-threaded Redis queues a herd of full handshakes on.
 *
 * A ticket is a secret (whoever holds it is the client, to the server
 * that issued it): its file is created 0600 with O_EXCL under a name of
 * its own and renamed into place, so that a reader sees a whole ticket
 * or the one before; it is opened without following a symbolic link and
 * without waiting on a FIFO, and read only if it is a regular file of
 * the user's that no one else may read or write.  The name holds a hash
 * of the server's name and port and of what decided whom to trust (the
 * CA file or directory, the client's certificate and key): a session
 * verified under one trust is never resumed under another.  Anything
 * amiss is no ticket, and the next handshake is a full one.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/defs.h"
#include "statefile.h"
#include "tlsticket.h"

/* FNV-1a, 64 bits, over the strings of keys, each with its NUL. */
static uint64_t
key_hash(const char *const *keys, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = keys[i] != NULL ? keys[i] : "";
		do {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ULL;
		} while (*p++ != '\0');
	}
	return h;
}

/* tk for the n strings of keys: false where there is no state directory. */
bool
ticket_open(struct ticket *tk, const char *const *keys, size_t n)
{
	snprintf(tk->name, sizeof(tk->name), "tls-%016llx.session",
	    (unsigned long long)key_hash(keys, n));
	return (tk->dfd = statefile_dir()) != -1;
}

void
ticket_close(struct ticket *tk)
{
	if (tk->dfd != -1)
		close(tk->dfd);
	tk->dfd = -1;
}

/* The ticket into buf: its length, or 0 where there is none to trust. */
size_t
ticket_read(const struct ticket *tk, unsigned char *buf, size_t len)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	if ((fd = openat(tk->dfd, tk->name, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IRWXG | S_IRWXO)) != 0 ||
	    st.st_size <= 0 || (uintmax_t)st.st_size > len) {
		close(fd);
		return 0;
	}
	while (got < (size_t)st.st_size && ((n = read(fd, buf + got,
	    (size_t)st.st_size - got)) > 0 || (n == -1 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	close(fd);
	return got == (size_t)st.st_size ? got : 0;
}

/* buf, n bytes, as the ticket: written whole under a name, then renamed. */
void
ticket_write(const struct ticket *tk, const unsigned char *buf, size_t n)
{
	char tmp[sizeof(tk->name) + 16];
	size_t done = 0;
	ssize_t w;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.%08lx", tk->name,
	    (unsigned long)arc4random());
	if ((fd = openat(tk->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600)) == -1)
		return;
	while (done < n && ((w = write(fd, buf + done, n - done)) > 0 ||
	    (w == -1 && errno == EINTR)))
		done += w > 0 ? (size_t)w : 0;
	if (close(fd) == -1 || done != n ||
	    renameat(tk->dfd, tmp, tk->dfd, tk->name) == -1)
		unlinkat(tk->dfd, tmp, 0);
}
