/*
 * tlsvt.h: a TLS backend as tls.c calls it, a table of functions that
 * each library fills (as curl's vtls does): tlsossl.c for OpenSSL,
 * tlswolf.c for wolfSSL.  A session of a backend is its own struct
 * tls_be; the functions mean what tls.h's of the same names do.
 */
#ifndef TLSVT_H
#define TLSVT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "tls.h"

struct tls_be;
struct tls_vt {
	const char	*name;		/* RETRY_TLS's word for it */
	/* NULL with why, and errno ENOENT where the library is not there */
	struct tls_be	*(*new)(const struct tls_files *files,
			    const char *host, int port, char *why,
			    size_t len);
	bool		 (*start)(struct tls_be *b, int fd,
			    const struct tls_peer *p,
			    const struct tls_wait *w, char *why, size_t len);
	void		 (*end)(struct tls_be *b);
	ssize_t		 (*read)(struct tls_be *b, void *buf, size_t n,
			    short *events, char *why, size_t len);
	ssize_t		 (*write)(struct tls_be *b, const void *buf,
			    size_t n, short *events, char *why, size_t len);
	void		 (*free)(struct tls_be *b);
};

/* Each backend's table, or NULL where retry was built without it. */
const struct tls_vt	*tls_openssl_vt(void);
const struct tls_vt	*tls_wolfssl_vt(void);

#endif /* TLSVT_H */
