/*
 * compat.h: the BSD interfaces that retry takes from the C library or
 * from libbsd (strtonum, getprogname, arc4random and its kin, errc,
 * __printflike), for a C library that has none of them and no libbsd to
 * lend them: musl, for the static release binaries.  `make BSD_COMPAT=1`
 * (build-aux/libbsd.sh) puts this header before every file with
 * -include and defines RETRY_COMPAT, and compat.c holds the functions;
 * elsewhere neither is used, and the C library's or libbsd's own are.
 */
#ifndef COMPAT_H
#define COMPAT_H

#ifdef RETRY_COMPAT

#include <stddef.h>
#include <stdint.h>

#ifndef __printflike
#define __printflike(fmt, args) \
	__attribute__((__format__(__printf__, fmt, args)))
#endif

long long	strtonum(const char *, long long, long long, const char **);
const char	*getprogname(void);
uint32_t	arc4random(void);
void		arc4random_buf(void *, size_t);
uint32_t	arc4random_uniform(uint32_t);
_Noreturn void	errc(int, int, const char *, ...) __printflike(3, 4);

#endif /* RETRY_COMPAT */

#endif /* COMPAT_H */
