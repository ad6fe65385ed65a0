/*
 * tlspem.h: what tlspem.c offers a TLS backend: the certificate of a
 * PEM file of one as DER, decoded here rather than by the library.
 */
#ifndef TLSPEM_H
#define TLSPEM_H

#include <stddef.h>

unsigned char	*tls_pem_cert(const unsigned char *buf, size_t n, long *len);

#endif /* TLSPEM_H */
