/*
 * compat.h: the BSD interfaces that retry takes from the C library or
 * from libbsd (strtonum, getprogname, arc4random and its kin, errc,
 * strlcat, __printflike), for a C library that has none of them and no libbsd to
 * lend them: musl, for the static release binaries.  `make BSD_COMPAT=1`
 * (build-aux/libbsd.sh) puts this header before every file with
 * -include and defines RETRY_COMPAT, and compat.c holds the functions,
 * named compat_* so that a C library that has a few of them (glibc 2.36
 * has arc4random) keeps its own; elsewhere neither file is used, and the
 * C library's or libbsd's functions are.
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

#define strtonum		compat_strtonum
#define getprogname		compat_getprogname
#define arc4random		compat_arc4random
#define arc4random_buf		compat_arc4random_buf
#define arc4random_uniform	compat_arc4random_uniform
#define errc			compat_errc
#define strlcat			compat_strlcat

long long	compat_strtonum(const char *, long long, long long,
		    const char **);
const char	*compat_getprogname(void);
uint32_t	compat_arc4random(void);
void		compat_arc4random_buf(void *, size_t);
uint32_t	compat_arc4random_uniform(uint32_t);
size_t		compat_strlcat(char *, const char *, size_t);
_Noreturn void	compat_errc(int, int, const char *, ...) __printflike(3, 4);

#endif /* RETRY_COMPAT */

#endif /* COMPAT_H */
