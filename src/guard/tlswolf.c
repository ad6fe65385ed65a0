/*
 * tlswolf.c: tls.c's wolfSSL backend (tlsvt.h), what tlsossl.c is for
 * OpenSSL and with the same guarantees: non-blocking throughout, the
 * handshake waiting only in signals_wait_fd() within the caller's wait,
 * TLS 1.2 at least, the server's certificate checked against the CAs and
 * the host's name (SNI) or address, a session's ticket kept for the next
 * run.  What it does otherwise, and why:
 *
 * - A run costs a quarter of OpenSSL's instructions (bench/results.md):
 *   wolfSSL's context fetches nothing.  A full handshake (one CA, RSA
 *   2048) costs 5.04 M, 4.80 M more than redis://, and a resumed one
 *   3.75 M: loading libwolfssl 0.93 M (tlswolflib.c), X25519 1.18 M,
 *   two RSA verifications 0.84 M, four seedings of wolfSSL's DRBG, each
 *   with its health test, 0.63 M (wolfSSL_Init(), the session's, and
 *   two as it copies the server's key into its OpenSSL layer: none of
 *   them can be avoided through its API), the transcript, hashed five
 *   ways, and the key schedule 0.38 M, the CA 0.1 M.
 * - Every file named (the CAs, the client's certificate and key) is
 *   read here into memory, without blocking (tlsfiles.c), and handed
 *   over as a buffer; wolfSSL reads no configuration file.  A file of
 *   one CA goes as DER, decoded by tlspem.c: wolfSSL's base64 cost
 *   twice as much, twice.
 * - The system's CAs are the same as OpenSSL's: a hashed directory
 *   (SSL_CERT_DIR, or /etc/ssl/certs) where there is one and no
 *   SSL_CERT_FILE, else that file (or Debian's bundle) and the
 *   directory.  wolfSSL reads a file of the directory itself, as
 *   OpenSSL does, when it needs that issuer (dir_cas()).
 * - The groups offered are X25519, then P-256 and P-384, and the key
 *   share X25519: wolfSSL's P-256 costs eight times its instructions, and
 *   with its default list a TLS 1.2 handshake cost 90 M.  A server
 *   without X25519 asks for another (TLS 1.3).
 * - A TLS 1.2 server is asked for a ticket, which wolfSSL does not do
 *   by default.
 * - The ticket's file is named for the ciphers too: wolfSSL refuses to
 *   offer a session whose cipher it no longer offers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlsvt.h"

#ifdef HAVE_WOLFSSL
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <poll.h>
#include <unistd.h>

#include "tlsfiles.h"
#include "tlspem.h"
#include "tlsticket.h"
#include "tlswolflib.h"

#include <wolfssl/error-ssl.h>
#include <wolfssl/wolfcrypt/error-crypt.h>

#define SSL_EOF		(-2)	/* what wolf_needs() says of the peer's end */
#define SUM_LEN		8	/* the bytes of a kept ticket's checksum */
#define CERT_DIR	"/etc/ssl/certs"
#define CERT_FILE	"/etc/ssl/certs/ca-certificates.crt"
/* ChaCha20 first: AES-GCM cost the store's request 2.7 times as much. */
#define CIPHERS		"TLS13-CHACHA20-POLY1305-SHA256:" \
			"TLS13-AES128-GCM-SHA256:TLS13-AES256-GCM-SHA384:" \
			"ECDHE-ECDSA-CHACHA20-POLY1305:" \
			"ECDHE-RSA-CHACHA20-POLY1305:" \
			"ECDHE-ECDSA-AES128-GCM-SHA256:" \
			"ECDHE-RSA-AES128-GCM-SHA256:" \
			"ECDHE-ECDSA-AES256-GCM-SHA384:" \
			"ECDHE-RSA-AES256-GCM-SHA384"

struct tls_be {
	struct wolf_lib	 lib;
	WOLFSSL_CTX	*ctx;
	WOLFSSL		*ssl;
	struct tls_files files;		/* what decides whom to trust */
	struct ticket	 tk;		/* the session's ticket, kept */
	bool		 saved;		/* a ticket of this session is */
	WOLFSSL_SESSION	*sess;		/* the kept session for peer */
	char		 peer[272];	/* host:port, or "" */
};

static void	wolf_end(struct tls_be *t);
static void	wolf_free(struct tls_be *t);

/* wolfSSL's words for an error code, after what. */
static void
wolf_reason(const struct tls_be *t, const char *what, int err, char *why,
    size_t len)
{
	const char *r = t->lib.wolfSSL_ERR_reason_error_string(
	    (unsigned long)(long)err);

	snprintf(why, len, "TLS: %s%s%s", what, *what != '\0' ? ": " : "",
	    r != NULL && *r != '\0' ? r : "failed");
}

/* A key behind a pass phrase fails to load rather than ask for it. */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)rwflag;
	(void)u;
	if (size > 0)
		buf[0] = '\0';
	return 0;
}

/*
 * The PEM file path handed to load, as a buffer: 1, 0 where it is not
 * there and optional says so, -1 with why.
 */
static int
load_file(struct tls_be *t, const char *path, bool optional,
    int (*load)(struct tls_be *, const unsigned char *, long), char *why,
    size_t len)
{
	unsigned char *buf;
	size_t n;
	int rc;

	if ((buf = tls_slurp(AT_FDCWD, path, &n, why, len)) == NULL)
		return optional && errno == ENOENT ? 0 : -1;
	if (n > LONG_MAX || (rc = load(t, buf, (long)n)) != WOLFSSL_SUCCESS) {
		wolf_reason(t, path, n > LONG_MAX ? 0 : rc, why, len);
		free(buf);
		return -1;
	}
	free(buf);
	return 1;
}

/*
 * The CA of a PEM file of one, decoded by tlspem.c and handed over as
 * DER; else, or where wolfSSL refuses it, the whole file, for wolfSSL
 * to decode and answer as it would have.
 */
static int
load_cas(struct tls_be *t, const unsigned char *buf, long n)
{
	unsigned char *der;
	long len;
	int rc = !WOLFSSL_SUCCESS;

	if ((der = tls_pem_cert(buf, (size_t)n, &len)) != NULL) {
		rc = t->lib.wolfSSL_CTX_load_verify_buffer(t->ctx, der, len,
		    WOLFSSL_FILETYPE_ASN1);
		free(der);
	}
	if (rc != WOLFSSL_SUCCESS)
		rc = t->lib.wolfSSL_CTX_load_verify_buffer(t->ctx, buf, n,
		    WOLFSSL_FILETYPE_PEM);
	return rc;
}

static int
load_chain(struct tls_be *t, const unsigned char *buf, long n)
{
	return t->lib.wolfSSL_CTX_use_certificate_chain_buffer(t->ctx, buf,
	    n);
}

static int
load_key(struct tls_be *t, const unsigned char *buf, long n)
{
	return t->lib.wolfSSL_CTX_use_PrivateKey_buffer(t->ctx, buf, n,
	    WOLFSSL_FILETYPE_PEM);
}

/*
 * The hashed directory dir, where wolfSSL looks for a certificate's
 * issuer by its hash, as OpenSSL does, when it needs one: 0.3 M
 * instructions where reading Debian's 144 CAs cost 50 M.  wolfSSL opens
 * the file with a blocking open(2), as OpenSSL does: tls_hashed() has
 * refused a directory where any such name is not a regular file.
 */
static bool
dir_cas(struct tls_be *t, const char *dir)
{
	struct wolf_lib *l = &t->lib;
	WOLFSSL_X509_STORE *st = l->wolfSSL_CTX_get_cert_store(t->ctx);
	WOLFSSL_X509_LOOKUP *lk;

	return st != NULL && (lk = l->wolfSSL_X509_STORE_add_lookup(st,
	    l->wolfSSL_X509_LOOKUP_hash_dir())) != NULL &&
	    l->wolfSSL_X509_LOOKUP_add_dir(lk, dir, WOLFSSL_FILETYPE_PEM) ==
	    WOLFSSL_SUCCESS;
}

/* The system's CAs, as tlsossl.c's system_cas() finds them. */
static bool
system_cas(struct tls_be *t, char *why, size_t len)
{
	const char *dir = getenv("SSL_CERT_DIR");
	const char *file = tls_cert_file();
	int h;

	if (dir == NULL || *dir == '\0')
		dir = CERT_DIR;
	if ((h = tls_hashed(dir, why, len)) < 0)
		return false;
	if ((h == 0 || file != NULL) && load_file(t,
	    file != NULL ? file : CERT_FILE, true, load_cas, why, len) < 0)
		return false;
	if (h > 0 && !dir_cas(t, dir)) {
		snprintf(why, len, "TLS: %s: wolfSSL cannot use it", dir);
		return false;
	}
	return true;
}

/* The context: TLS 1.2 or later, the CAs to trust, and our certificate. */
static bool
make_ctx(struct tls_be *t, const struct tls_files *f, char *why, size_t len)
{
	struct wolf_lib *l = &t->lib;

	if (f->key != NULL && f->cert == NULL) {
		snprintf(why, len, "TLS: a key (REDISCLI_KEY) but no "
		    "certificate (REDISCLI_CERT)");
		return false;
	}
	if (l->wolfSSL_Init() != WOLFSSL_SUCCESS || (t->ctx =
	    l->wolfSSL_CTX_new(l->wolfSSLv23_client_method())) == NULL) {
		snprintf(why, len, "TLS: wolfSSL cannot start");
		return false;
	}
	l->wolfSSL_CTX_SetMinVersion(t->ctx, WOLFSSL_TLSV1_2);
	l->wolfSSL_CTX_set_cipher_list(t->ctx, CIPHERS);
	l->wolfSSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE);
	l->wolfSSL_CTX_set_verify(t->ctx, WOLFSSL_VERIFY_PEER, NULL);
	l->wolfSSL_CTX_set_default_passwd_cb(t->ctx, no_passphrase);
	if (f->cacert != NULL ? load_file(t, f->cacert, false,
	    load_cas, why, len) < 0 : !system_cas(t, why, len))
		return false;
	if (f->cert != NULL && load_file(t, f->cert, false,
	    load_chain, why, len) < 0)
		return false;
	if (f->cert != NULL && load_file(t, f->key != NULL ?
	    f->key : f->cert, false, load_key, why, len) < 0)
		return false;
	if (f->cert != NULL &&
	    l->wolfSSL_CTX_check_private_key(t->ctx) != WOLFSSL_SUCCESS) {
		snprintf(why, len, "TLS: %s: key values mismatch",
		    f->key != NULL ? f->key : f->cert);
		return false;
	}
	return true;
}

/* FNV-1a, 64 bits, of n bytes at p, into the 8 bytes at out. */
static void
checksum(const unsigned char *p, size_t n, unsigned char *out)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	for (i = 0; i < SUM_LEN; i++, h >>= 8)
		out[i] = (unsigned char)h;
}

/*
 * The session, once its ticket came, into the ticket's file for later
 * runs (TLS 1.3 sends tickets after the handshake, read with the first
 * answer), as tlsossl.c keeps OpenSSL's, in a file of its own, after a
 * checksum: wolfSSL's d2i trusts its input, and a garbled file crashed
 * it.
 */
static void
ticket_save(struct tls_be *t)
{
	unsigned char buf[TICKET_MAX], *p = buf + SUM_LEN;
	WOLFSSL_SESSION *sess;
	int n;

	if (t->saved || t->tk.dfd == -1 ||
	    (sess = t->lib.wolfSSL_get_session(t->ssl)) == NULL ||
	    t->lib.wolfSSL_SESSION_is_resumable(sess) != 1)
		return;
	t->saved = true;
	n = t->lib.wolfSSL_i2d_SSL_SESSION(sess, NULL);
	if (n > 0 && n <= (int)sizeof(buf) - SUM_LEN &&
	    t->lib.wolfSSL_i2d_SSL_SESSION(sess, &p) == n) {
		checksum(buf + SUM_LEN, (size_t)n, buf);
		ticket_write(&t->tk, buf, (size_t)n + SUM_LEN);
	}
}

/* The session that an earlier run kept for host:port, into t->sess. */
static void
find_session(struct tls_be *t, const char *host, int port)
{
	struct wolf_lib *l = &t->lib;
	unsigned char buf[TICKET_MAX], sum[SUM_LEN];
	const unsigned char *p = buf + SUM_LEN;
	char sport[16];
	const char *keys[] = { "wolfssl " CIPHERS, host, sport,
	    t->files.cacert, t->files.cert, t->files.key,
	    getenv("SSL_CERT_FILE"), getenv("SSL_CERT_DIR") };
	size_t n;

	snprintf(sport, sizeof(sport), "%d", port);
	snprintf(t->peer, sizeof(t->peer), "%s:%d", host, port);
	ticket_close(&t->tk);
	if (t->sess != NULL)
		l->wolfSSL_SESSION_free(t->sess);
	t->sess = NULL;
	if (ticket_open(&t->tk, keys, sizeof(keys) / sizeof(keys[0])) &&
	    (n = ticket_read(&t->tk, buf, sizeof(buf))) > SUM_LEN) {
		checksum(buf + SUM_LEN, n - SUM_LEN, sum);
		if (memcmp(sum, buf, SUM_LEN) == 0)
			t->sess = l->wolfSSL_d2i_SSL_SESSION(NULL, &p,
			    (long)(n - SUM_LEN));
	}
	l->wolfSSL_ERR_clear_error();
}

/* The kept session for host:port offered to the server, once. */
static void
resume(struct tls_be *t, const char *host, int port)
{
	char peer[sizeof(t->peer)];

	snprintf(peer, sizeof(peer), "%s:%d", host, port);
	if (strcmp(peer, t->peer) != 0)
		find_session(t, host, port);
	t->saved = false;
	t->peer[0] = '\0';
	if (t->sess != NULL) {
		t->lib.wolfSSL_set_session(t->ssl, t->sess);
		t->lib.wolfSSL_SESSION_free(t->sess);
		t->sess = NULL;
	}
}

/* The groups, the key share, and a ticket asked for (TLS 1.2). */
static bool
groups(struct tls_be *t)
{
	struct wolf_lib *l = &t->lib;

	return l->wolfSSL_UseSupportedCurve(t->ssl, WOLFSSL_ECC_X25519) ==
	    WOLFSSL_SUCCESS &&
	    l->wolfSSL_UseSupportedCurve(t->ssl, WOLFSSL_ECC_SECP256R1) ==
	    WOLFSSL_SUCCESS &&
	    l->wolfSSL_UseSupportedCurve(t->ssl, WOLFSSL_ECC_SECP384R1) ==
	    WOLFSSL_SUCCESS &&
	    l->wolfSSL_UseKeyShare(t->ssl, WOLFSSL_ECC_X25519) ==
	    WOLFSSL_SUCCESS &&
	    l->wolfSSL_UseSessionTicket(t->ssl) == WOLFSSL_SUCCESS;
}

/*
 * The session on fd, for host: SNI and the check of a host name, or the
 * check of an IP address (which SNI may not carry, RFC 6066).
 */
static bool
make_ssl(struct tls_be *t, int fd, const char *host, char *why,
    size_t len)
{
	struct wolf_lib *l = &t->lib;
	unsigned char addr[16];
	size_t n = strlen(host);
	bool ip = inet_pton(AF_INET, host, addr) == 1 ||
	    inet_pton(AF_INET6, host, addr) == 1;

	if ((t->ssl = l->wolfSSL_new(t->ctx)) == NULL ||
	    l->wolfSSL_set_fd(t->ssl, fd) != WOLFSSL_SUCCESS ||
	    !groups(t) || (ip ?
	    l->wolfSSL_X509_VERIFY_PARAM_set1_ip_asc(
	    l->wolfSSL_get0_param(t->ssl), host) != WOLFSSL_SUCCESS :
	    n > USHRT_MAX || l->wolfSSL_UseSNI(t->ssl, WOLFSSL_SNI_HOST_NAME,
	    host, (unsigned short)n) != WOLFSSL_SUCCESS ||
	    l->wolfSSL_check_domain_name(t->ssl, host) != WOLFSSL_SUCCESS)) {
		snprintf(why, len, "TLS: wolfSSL cannot set up a session");
		return false;
	}
	return true;
}

/* OpenSSL's words for wolfSSL's reason err to refuse a certificate. */
static const char *
refusal(int err)
{
	switch (err) {
	case DOMAIN_NAME_MISMATCH:
		return "hostname mismatch";
	case IPADDR_MISMATCH:
		return "IP address mismatch";
	case ASN_NO_SIGNER_E:
		return "unable to get local issuer certificate";
	case ASN_AFTER_DATE_E:
		return "certificate has expired";
	case ASN_BEFORE_DATE_E:
		return "certificate is not yet valid";
	case ASN_SIG_CONFIRM_E:
		return "certificate signature failure";
	}
	return NULL;
}

/*
 * A refused certificate or another failure, err, in OpenSSL's words
 * where they mean the same, so that a message does not depend on the
 * library; else in wolfSSL's.  wolfSSL does not tell an untrusted root
 * that the server sent from one it did not: both are "unable to get
 * local issuer certificate", where OpenSSL says "self-signed
 * certificate in certificate chain" of the first.
 */
static void
wolf_failure(struct tls_be *t, int err, char *why, size_t len)
{
	const char *r = refusal(err);

	if (err == SOCKET_PEER_CLOSED_E)
		snprintf(why, len, "TLS: unexpected eof while reading");
	else if (r == NULL && t->lib.wolfSSL_get_verify_result(t->ssl) != 0)
		wolf_reason(t, "certificate verify failed", err, why, len);
	else if (r != NULL)
		snprintf(why, len, "TLS: certificate verify failed: %s", r);
	else
		wolf_reason(t, "", err, why, len);
}

/*
 * What an operation that returned rc needs: 0 done, POLLIN or POLLOUT
 * to wait for, SSL_EOF at the peer's end, or -1 with why.
 */
static int
wolf_needs(struct tls_be *t, int rc, char *why, size_t len)
{
	int err;

	if (rc > 0)
		return 0;
	switch (err = t->lib.wolfSSL_get_error(t->ssl, rc)) {
	case WOLFSSL_ERROR_NONE:
		return 0;
	case WOLFSSL_ERROR_WANT_READ:
		return POLLIN;
	case WOLFSSL_ERROR_WANT_WRITE:
		return POLLOUT;
	case WOLFSSL_ERROR_ZERO_RETURN:
		snprintf(why, len, "connection closed by the server");
		return SSL_EOF;
	case SOCKET_ERROR_E:
	case WOLFSSL_ERROR_SYSCALL:
		snprintf(why, len, "%s", errno != 0 ? strerror(errno) :
		    "connection closed by the server");
		return errno != 0 ? -1 : SSL_EOF;
	}
	wolf_failure(t, err, why, len);
	return -1;
}

/*
 * The handshake, within the deadline, which the caller may move as the
 * server's bytes come (w->heard): false with why (and errno).
 */
static bool
handshake(struct tls_be *t, int fd, const struct tls_wait *w, char *why,
    size_t len)
{
	nsec_t deadline = w->deadline;
	int need;

	for (;;) {
		t->lib.wolfSSL_ERR_clear_error();
		errno = 0;
		need = wolf_needs(t, t->lib.wolfSSL_connect(t->ssl), why, len);
		if (need == 0)
			return true;
		if (need < 0) {
			errno = EPROTO;
			return false;
		}
		if (signals_wait_fd(w->ss, fd, (short)need, deadline,
		    w->mark) == -1)
			return false;
		if (need == POLLIN && w->heard != NULL)
			deadline = w->heard(w->arg);
	}
}

/*
 * The context with files, wolfSSL loaded, and the session kept for
 * host:port: it, or NULL with why (errno ENOENT only where libwolfssl
 * cannot be loaded).  No wait: the caller makes it before its allowance
 * of time starts.
 */
static struct tls_be *
wolf_new(const struct tls_files *files, const char *host, int port,
    char *why, size_t len)
{
	struct tls_be *t;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	t->tk.dfd = -1;
	t->files = *files;
	if (!wolflib_load(&t->lib, why, len)) {
		free(t);
		return NULL;
	}
	if (make_ctx(t, files, why, len)) {
		find_session(t, host, port);
		return t;
	}
	wolf_free(t);
	errno = EPROTO;
	return NULL;
}

/* A session of t on fd to p, as tls_start() says. */
static bool
wolf_start(struct tls_be *t, int fd, const struct tls_peer *p,
    const struct tls_wait *w, char *why, size_t len)
{
	int e;

	wolf_end(t);
	if (!make_ssl(t, fd, p->host, why, len))
		return false;
	resume(t, p->host, p->port);
	if (handshake(t, fd, w, why, len))
		return true;
	e = errno != 0 ? errno : EPROTO;
	wolf_end(t);
	errno = e;
	return false;
}

/* t's session ends (its socket is the caller's); the context stays. */
static void
wolf_end(struct tls_be *t)
{
	if (t != NULL && t->ssl != NULL) {
		t->lib.wolfSSL_free(t->ssl);
		t->ssl = NULL;
	}
}

/* read(2) through the session, as tls_read() says. */
static ssize_t
wolf_read(struct tls_be *t, void *buf, size_t n, short *events, char *why,
    size_t len)
{
	int rc, need;

	t->lib.wolfSSL_ERR_clear_error();
	errno = 0;
	rc = t->lib.wolfSSL_read(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
	if (rc > 0) {
		ticket_save(t);
		return rc;
	}
	if ((need = wolf_needs(t, rc, why, len)) > 0) {
		*events = (short)need;
		errno = EAGAIN;
		return -1;
	}
	if (need == SSL_EOF)
		return 0;
	errno = EPROTO;
	return -1;
}

/* write(2) through the session, as wolf_read() reads. */
static ssize_t
wolf_write(struct tls_be *t, const void *buf, size_t n, short *events,
    char *why, size_t len)
{
	int rc, need;

	t->lib.wolfSSL_ERR_clear_error();
	errno = 0;
	rc = t->lib.wolfSSL_write(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
	if (rc > 0)
		return rc;
	if ((need = wolf_needs(t, rc, why, len)) > 0) {
		*events = (short)need;
		errno = EAGAIN;
		return -1;
	}
	errno = EPROTO;
	return -1;
}

static void
wolf_free(struct tls_be *t)
{
	if (t == NULL)
		return;
	wolf_end(t);
	ticket_close(&t->tk);
	if (t->sess != NULL)
		t->lib.wolfSSL_SESSION_free(t->sess);
	if (t->ctx != NULL)
		t->lib.wolfSSL_CTX_free(t->ctx);
	free(t);
}

const struct tls_vt *
tls_wolfssl_vt(void)
{
	static const struct tls_vt vt = { "wolfssl", wolf_new, wolf_start,
	    wolf_end, wolf_read, wolf_write, wolf_free };

	return &vt;
}

#else	/* !HAVE_WOLFSSL */

const struct tls_vt *
tls_wolfssl_vt(void)
{
	return NULL;
}

#endif	/* HAVE_WOLFSSL */
