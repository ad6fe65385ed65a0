/*
 * compat.c: the BSD interfaces of compat.h, for a C library without
 * them (musl, or glibc without libbsd): strtonum and strlcat as OpenBSD
 * defines them, getprogname from the name the C library keeps, errc
 * through verr(3) so that its line goes where err(3)'s go, and
 * arc4random's family from the kernel's getrandom(2), or /dev/urandom
 * where the kernel is older than 3.17.  Random bytes are never made up:
 * where neither source gives them, retry stops with one line (exit 125)
 * rather than draw from a weak one.  Compiled to nothing unless
 * RETRY_COMPAT is defined (`make BSD_COMPAT=1`).
 */
#ifdef RETRY_COMPAT

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "compat.h"
#include "defs.h"

long long
compat_strtonum(const char *s, long long min, long long max, const char **errstr)
{
	long long n = 0;
	char *end;
	int saved = errno;

	*errstr = NULL;
	if (min > max) {
		errno = EINVAL;
		*errstr = "invalid";
		return 0;
	}
	errno = 0;
	n = strtoll(s, &end, 10);
	if (end == s || *end != '\0') {
		errno = EINVAL;
		*errstr = "invalid";
		return 0;
	}
	if ((n == LLONG_MIN && errno == ERANGE) || n < min) {
		errno = ERANGE;
		*errstr = "too small";
		return 0;
	}
	if ((n == LLONG_MAX && errno == ERANGE) || n > max) {
		errno = ERANGE;
		*errstr = "too large";
		return 0;
	}
	errno = saved;
	return n;
}

const char *
compat_getprogname(void)
{
	return program_invocation_short_name;
}

void
compat_errc(int status, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errno = code;
	verr(status, fmt, ap);
	va_end(ap);	/* not reached: verr() exits; for the checkers */
}

size_t
compat_strlcat(char *dst, const char *src, size_t size)
{
	size_t dlen = strnlen(dst, size), slen = strlen(src), n;

	if (dlen == size)
		return size + slen;
	n = slen < size - dlen - 1 ? slen : size - dlen - 1;
	memcpy(dst + dlen, src, n);
	dst[dlen + n] = '\0';
	return dlen + slen;
}

/* Fills buf from /dev/urandom; false where it cannot be read whole. */
static bool
urandom(unsigned char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	while (len > 0) {
		if ((n = read(fd, buf, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf += n;
		len -= (size_t)n;
	}
	(void)close(fd);
	return len == 0;
}

void
compat_arc4random_buf(void *p, size_t len)
{
	unsigned char *buf = p;
	ssize_t n;

	while (len > 0) {
		if ((n = getrandom(buf, len > 256 ? 256 : len, 0)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == ENOSYS && urandom(buf, len))
				return;
			err(EXIT_CANCELED, "no random bytes from the system");
		}
		buf += n;
		len -= (size_t)n;
	}
}

uint32_t
compat_arc4random(void)
{
	uint32_t r;

	compat_arc4random_buf(&r, sizeof(r));
	return r;
}

/* A draw in [0, bound), without modulo bias, as OpenBSD's does it. */
uint32_t
compat_arc4random_uniform(uint32_t bound)
{
	uint32_t r, min;

	if (bound < 2)
		return 0;
	min = -bound % bound;
	do
		r = compat_arc4random();
	while (r < min);
	return r % bound;
}

#else
/* ISO C wants something in a translation unit. */
typedef int compat_unused;
#endif /* RETRY_COMPAT */
