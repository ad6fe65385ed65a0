/*
 * tlspem.c: the certificate of a PEM file of one CA (REDISCLI_CACERT)
 * decoded here from base64 into DER, for a TLS library that takes DER.
 * wolfSSL decodes PEM at 60 instructions a byte, and a file's first CA
 * twice (as a CA, and again as a trusted peer: its OpenSSL-compatible
 * defaults): 0.16 M of a run's 5.2 M.  Only a file of one certificate
 * (and text) is decoded here; any other (a bundle, whose every CA would
 * become a trusted peer one by one, where wolfSSL makes only the first
 * one; a key, a CRL, a TRUSTED CERTIFICATE, a line that is not base64)
 * is left whole to the library, which gives its own answer.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tlspem.h"

#define BEGIN	"-----BEGIN "
#define CERT	"-----BEGIN CERTIFICATE-----"
#define END	"-----END CERTIFICATE-----"

/*
 * The base64 from p to end into out: its length, or -1 where it is not
 * whole groups of four, with padding only at its end.  A table rather
 * than tests: this is most of the cost of a bundle.
 */
static long
decode(const unsigned char *p, const unsigned char *end, unsigned char *out)
{
	/* A character's value, 64 for '=', 65 for white space, else 66. */
	static const unsigned char val[256] = {
#define X66	66, 66, 66, 66, 66, 66, 66, 66
		X66, 66, 65, 65, 66, 66, 65, 66, 66, X66, X66,
		65, 66, 66, 66, 66, 66, 66, 66, 66, 66, 66, 62, 66, 66, 66, 63,
		52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 66, 66, 66, 64, 66, 66,
		66, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 66, 66, 66, 66, 66,
		66, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
		41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 66, 66, 66, 66, 66,
		X66, X66, X66, X66, X66, X66, X66, X66,
		X66, X66, X66, X66, X66, X66, X66, X66
#undef X66
	};
	unsigned long acc = 0;
	long n = 0;
	int v, k = 0, pad = 0;

	for (; p < end; p++) {
		if ((v = val[*p]) == 65)
			continue;
		if (v == 66 || (pad > 0 && v != 64))
			return -1;
		pad += v == 64;
		acc = acc << 6 | (unsigned long)(v & 63);
		if (++k < 4)
			continue;
		if (pad > 2)
			return -1;
		out[n++] = (unsigned char)(acc >> 16);
		if (pad < 2)
			out[n++] = (unsigned char)(acc >> 8);
		if (pad < 1)
			out[n++] = (unsigned char)acc;
		acc = 0;
		k = 0;
	}
	return k == 0 ? n : -1;
}

/* The first s in the n bytes at p, or NULL. */
static const unsigned char *
find(const unsigned char *p, size_t n, const char *s)
{
	const unsigned char *q = n > 0 ? memchr(p, '-', n) : NULL;
	size_t len = strlen(s);

	for (; q != NULL; q = memchr(q + 1, '-', n - (size_t)(q + 1 - p)))
		if ((size_t)(p + n - q) >= len && memcmp(q, s, len) == 0)
			return q;
	return NULL;
}

/*
 * The one certificate of the n bytes at buf, decoded into der: its
 * length, or -1 where buf holds anything else, another certificate, or
 * none.
 */
static long
walk(const unsigned char *buf, size_t n, unsigned char *der)
{
	const unsigned char *p = buf, *end = buf + n, *b, *e;
	long len = -1;

	while ((b = find(p, (size_t)(end - p), BEGIN)) != NULL) {
		if ((size_t)(end - b) < strlen(CERT) ||
		    memcmp(b, CERT, strlen(CERT)) != 0 || len != -1)
			return -1;
		b += strlen(CERT);
		if ((e = find(b, (size_t)(end - b), "-----")) == NULL ||
		    (size_t)(end - e) < strlen(END) ||
		    memcmp(e, END, strlen(END)) != 0 ||
		    (len = decode(b, e, der)) <= 0)
			return -1;
		p = e + strlen(END);
	}
	return len;
}

/*
 * The certificate of the n bytes of PEM at buf, where it holds one and
 * nothing else but text: DER, its length in *len, to free(); else NULL,
 * and the file is the library's to read.
 */
unsigned char *
tls_pem_cert(const unsigned char *buf, size_t n, long *len)
{
	unsigned char *der = n > 0 && n <= LONG_MAX ? malloc(n) : NULL;

	if (der != NULL && (*len = walk(buf, n, der)) > 0)
		return der;
	free(der);
	return NULL;
}
