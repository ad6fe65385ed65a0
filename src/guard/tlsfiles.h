/*
 * tlsfiles.h: what tlsfiles.c offers the TLS backends: the files that
 * decide whom to trust, looked at (or read) without ever waiting on a
 * FIFO.
 */
#ifndef TLSFILES_H
#define TLSFILES_H

#include <stdbool.h>
#include <stddef.h>

bool		 tls_readable(const char *path, bool optional, char *why,
		    size_t len);
bool		 tls_hash_name(const char *name);
int		 tls_hashed(const char *dir, char *why, size_t len);
const char	*tls_cert_file(void);
unsigned char	*tls_slurp(int dfd, const char *path, size_t *n, char *why,
		    size_t len);

#endif /* TLSFILES_H */
