/*
 * tlsossl.c: tls.c's OpenSSL backend (tlsvt.h): a session on a socket
 * that the caller has connected, with its handshake, its reads and its
 * writes, all non-blocking.  The handshake waits only in
 * signals_wait_fd(), until the caller's absolute deadline or a stop
 * signal since the caller's mark; a read or a write never waits, but
 * says which event it needs, so that the caller's own wait (and bounds)
 * serve TLS and plain sockets alike.  TLS 1.2 is the least it accepts;
 * the server's certificate must chain to the system's CAs (or to the
 * caller's CA file) and name the host: SNI and the host-name check are
 * OpenSSL's.
 *
 * OpenSSL is loaded with dlopen() by the first session (tlslib.c), not
 * linked: a run that names no rediss:// store loads nothing more at
 * start-up.  Linked statically, OpenSSL made every run of retry cost 2.3
 * times the instructions (its relocations) and the binary 9 times the
 * size; linked as shared libraries, 17.7 times the instructions
 * (bench/results.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlsvt.h"

#ifdef HAVE_OPENSSL
#include <sys/stat.h>

#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include "tlsfiles.h"
#include "tlslib.h"
#include "tlsticket.h"

#define SSL_EOF		(-2)	/* what ssl_needs() says of the peer's end */

struct tls_be {
	struct ssl_lib	 lib;
	SSL_CTX		*ctx;
	SSL		*ssl;
	struct tls_files files;		/* what decides whom to trust */
	struct ticket	 tk;		/* the session's ticket, kept */
	bool		 saved;		/* a ticket of this session is */
	SSL_SESSION	*sess;		/* the kept session for peer */
	char		 peer[272];	/* host:port, or "" */
};

static void	ossl_end(struct tls_be *t);
static void	ossl_free(struct tls_be *t);

/*
 * OpenSSL's reason for the first error in its queue: the cause, where
 * the last is often only "PEM lib".
 */
static void
ssl_reason(const struct tls_be *t, const char *what, char *why, size_t len)
{
	const char *r = t->lib.ERR_reason_error_string(
	    t->lib.ERR_peek_error());

	snprintf(why, len, "TLS: %s%s%s", what, *what != '\0' ? ": " : "",
	    r != NULL ? r : "failed");
}

/*
 * A key behind a pass phrase fails to load rather than ask for it on
 * the terminal: retry must never wait for someone to type.
 */
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
 * The system's CAs.  OpenSSL's default paths read the whole bundle
 * file, every time: on Debian, 143 certificates, 236 million
 * instructions and some 100 ms of every run (bench/results.md).  A
 * hashed directory costs only the issuer's file, when it is needed: it
 * is used where there is one, and the default paths elsewhere, or when
 * SSL_CERT_FILE names a file to use.  -1 with why where the directory
 * cannot be used safely.
 */
static int
system_cas(struct tls_be *t, char *why, size_t len)
{
	const char *dir = getenv("SSL_CERT_DIR");
	int h;

	if (dir == NULL || *dir == '\0')
		dir = t->lib.X509_get_default_cert_dir();
	/* The default paths read the directory too, SSL_CERT_FILE or not. */
	if ((h = tls_hashed(dir, why, len)) < 0)
		return -1;
	if (h > 0 && getenv("SSL_CERT_FILE") == NULL)
		return t->lib.SSL_CTX_load_verify_locations(t->ctx, NULL, dir);
	return t->lib.SSL_CTX_set_default_verify_paths(t->ctx);
}

/* The context: TLS 1.2 or later, the CAs to trust, and our certificate. */
static bool
make_ctx(struct tls_be *t, const struct tls_files *f, char *why, size_t len)
{
	struct ssl_lib *l = &t->lib;
	int rc = 1;

	if (f->key != NULL && f->cert == NULL) {
		snprintf(why, len, "TLS: a key (REDISCLI_KEY) but no "
		    "certificate (REDISCLI_CERT)");
		return false;
	}
	if (!tls_readable(f->cacert, false, why, len) ||
	    !tls_readable(f->cert, false, why, len) ||
	    !tls_readable(f->key, false, why, len) ||
	    (f->cacert == NULL &&
	    !tls_readable(tls_cert_file(), true, why, len)))
		return false;
	/*
	 * Not OpenSSL's configuration file: a FIFO named by OPENSSL_CONF
	 * would hold its open(2) for ever, and a run needs nothing from it.
	 */
	if (l->OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1 ||
	    (t->ctx = l->SSL_CTX_new(l->TLS_client_method())) == NULL) {
		ssl_reason(t, "", why, len);
		return false;
	}
	l->SSL_CTX_ctrl(t->ctx, SSL_CTRL_SET_MIN_PROTO_VERSION,
	    TLS1_2_VERSION, NULL);
	/* A write may take part of a buffer, and go on from a copy. */
	l->SSL_CTX_ctrl(t->ctx, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
	l->SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
	l->SSL_CTX_set_default_passwd_cb(t->ctx, no_passphrase);
	if (f->cacert != NULL ?
	    l->SSL_CTX_load_verify_locations(t->ctx, f->cacert, NULL) != 1 :
	    (rc = system_cas(t, why, len)) != 1) {
		if (rc < 0)
			return false;
		ssl_reason(t, f->cacert != NULL ? f->cacert : "the system's "
		    "CA store", why, len);
		return false;
	}
	if (f->cert != NULL &&
	    l->SSL_CTX_use_certificate_chain_file(t->ctx, f->cert) != 1) {
		ssl_reason(t, f->cert, why, len);
		return false;
	}
	if ((f->cert != NULL || f->key != NULL) &&
	    l->SSL_CTX_use_PrivateKey_file(t->ctx, f->key != NULL ? f->key :
	    f->cert, SSL_FILETYPE_PEM) != 1) {
		ssl_reason(t, f->key != NULL ? f->key : f->cert, why, len);
		return false;
	}
	return true;
}

/*
 * The session, once its ticket came, into the ticket's file for later
 * runs: TLS 1.3 sends tickets after the handshake, and they are read
 * with the first answer, before it; a resumed session's is kept again,
 * since the server may have renewed it.
 */
static void
ticket_save(struct tls_be *t)
{
	unsigned char buf[TICKET_MAX], *p = buf;
	SSL_SESSION *sess;
	int n;

	if (t->saved || t->tk.dfd == -1 ||
	    (sess = t->lib.SSL_get_session(t->ssl)) == NULL ||
	    t->lib.SSL_SESSION_is_resumable(sess) != 1)
		return;
	t->saved = true;
	n = t->lib.i2d_SSL_SESSION(sess, NULL);
	if (n > 0 && n <= (int)sizeof(buf) &&
	    t->lib.i2d_SSL_SESSION(sess, &p) == n)
		ticket_write(&t->tk, buf, (size_t)n);
}

/*
 * The session that an earlier run kept for host:port under the same
 * trust, into t->sess (parsing it costs a tenth of a handshake: the
 * caller does it before its allowance of time starts, with the context).
 */
static void
find_session(struct tls_be *t, const char *host, int port)
{
	struct ssl_lib *l = &t->lib;
	unsigned char buf[TICKET_MAX];
	const unsigned char *p = buf;
	char sport[16];
	const char *keys[] = { "openssl", host, sport, t->files.cacert,
	    t->files.cert, t->files.key, getenv("SSL_CERT_FILE"),
	    getenv("SSL_CERT_DIR") };
	size_t n;

	snprintf(sport, sizeof(sport), "%d", port);
	snprintf(t->peer, sizeof(t->peer), "%s:%d", host, port);
	ticket_close(&t->tk);
	if (t->sess != NULL)
		l->SSL_SESSION_free(t->sess);
	t->sess = NULL;
	if (ticket_open(&t->tk, keys, sizeof(keys) / sizeof(keys[0])) &&
	    (n = ticket_read(&t->tk, buf, sizeof(buf))) > 0)
		t->sess = l->d2i_SSL_SESSION(NULL, &p, (long)n);
	l->ERR_clear_error();
}

/*
 * The kept session for host:port offered to the server: it may resume
 * it, and skip the certificate and its signature.  Without one, a full
 * handshake.  Each session is offered once.
 */
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
		t->lib.SSL_set_session(t->ssl, t->sess);
		t->lib.SSL_SESSION_free(t->sess);
		t->sess = NULL;
	}
}

/*
 * The session on fd, for host: SNI and the check of a host name, or the
 * check of an IP address (which SNI may not carry, RFC 6066).
 */
static bool
make_ssl(struct tls_be *t, int fd, const char *host, char *why, size_t len)
{
	struct ssl_lib *l = &t->lib;
	unsigned char addr[16];
	char name[256];		/* SNI's ctrl takes a char *, not const */
	bool ip = inet_pton(AF_INET, host, addr) == 1 ||
	    inet_pton(AF_INET6, host, addr) == 1;

	snprintf(name, sizeof(name), "%s", host);
	if ((t->ssl = l->SSL_new(t->ctx)) == NULL ||
	    l->SSL_set_fd(t->ssl, fd) != 1 || (ip ?
	    l->X509_VERIFY_PARAM_set1_ip_asc(l->SSL_get0_param(t->ssl),
	    host) != 1 : l->SSL_ctrl(t->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
	    TLSEXT_NAMETYPE_host_name, name) != 1 ||
	    l->SSL_set1_host(t->ssl, host) != 1)) {
		ssl_reason(t, "", why, len);
		return false;
	}
	return true;
}

/*
 * What an operation that returned rc needs: 0 done, POLLIN or POLLOUT
 * to wait for, SSL_EOF at the peer's end, or -1 with why (a refused
 * certificate says why).
 */
static int
ssl_needs(struct tls_be *t, int rc, char *why, size_t len)
{
	long v;

	switch (t->lib.SSL_get_error(t->ssl, rc)) {
	case SSL_ERROR_NONE:
		return 0;
	case SSL_ERROR_WANT_READ:
		return POLLIN;
	case SSL_ERROR_WANT_WRITE:
		return POLLOUT;
	case SSL_ERROR_ZERO_RETURN:
		snprintf(why, len, "connection closed by the server");
		return SSL_EOF;
	case SSL_ERROR_SYSCALL:
		snprintf(why, len, "%s", errno != 0 ? strerror(errno) :
		    "connection closed by the server");
		return errno != 0 ? -1 : SSL_EOF;
	}
	if ((v = t->lib.SSL_get_verify_result(t->ssl)) != X509_V_OK)
		snprintf(why, len, "TLS: certificate verify failed: %s",
		    t->lib.X509_verify_cert_error_string(v));
	else
		ssl_reason(t, "", why, len);
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
		t->lib.ERR_clear_error();
		errno = 0;
		need = ssl_needs(t, t->lib.SSL_connect(t->ssl), why, len);
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
 * The TLS context with files, OpenSSL loaded, and the session kept for
 * host:port: it, or NULL with why.  It costs most of a session's
 * instructions (loading libssl, OpenSSL's fetch of every algorithm), no
 * wait: the caller makes it before its allowance of time starts, so
 * that a herd on a busy host does not spend that allowance on CPU it
 * queues for, and keeps it for every node a cluster redirects to.  errno
 * is ENOENT only where libssl cannot be loaded.
 */
static struct tls_be *
ossl_new(const struct tls_files *files, const char *host, int port,
    char *why, size_t len)
{
	struct tls_be *t;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	t->tk.dfd = -1;
	t->files = *files;
	if (!tlslib_load(&t->lib, why, len)) {
		free(t);
		return NULL;
	}
	if (make_ctx(t, files, why, len)) {
		find_session(t, host, port);
		return t;
	}
	ossl_free(t);
	errno = EPROTO;
	return NULL;
}

/*
 * A TLS session of t on the connected, non-blocking socket fd, to p, its
 * handshake done within the caller's wait w: true, or false with
 * errno ETIMEDOUT (w's deadline), EINTR (a stop signal since w's mark),
 * or another with why filled in.
 */
static bool
ossl_start(struct tls_be *t, int fd, const struct tls_peer *p,
    const struct tls_wait *w, char *why, size_t len)
{
	int e;

	ossl_end(t);
	if (!make_ssl(t, fd, p->host, why, len))
		return false;
	resume(t, p->host, p->port);
	if (handshake(t, fd, w, why, len))
		return true;
	e = errno != 0 ? errno : EPROTO;
	ossl_end(t);
	errno = e;
	return false;
}

/* t's session ends (its socket is the caller's); the context stays. */
static void
ossl_end(struct tls_be *t)
{
	if (t != NULL && t->ssl != NULL) {
		t->lib.SSL_free(t->ssl);
		t->ssl = NULL;
	}
}

/*
 * read(2) through the session: bytes, 0 at the end, or -1 with errno
 * EAGAIN and *events to wait for, or -1 with why.
 */
static ssize_t
ossl_read(struct tls_be *t, void *buf, size_t n, short *events, char *why,
    size_t len)
{
	int rc, need;

	t->lib.ERR_clear_error();
	errno = 0;
	rc = t->lib.SSL_read(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
	if (rc > 0) {
		ticket_save(t);
		return rc;
	}
	if ((need = ssl_needs(t, rc, why, len)) > 0) {
		*events = (short)need;
		errno = EAGAIN;
		return -1;
	}
	if (need == SSL_EOF)
		return 0;
	errno = EPROTO;
	return -1;
}

/* write(2) through the session, as ossl_read() reads. */
static ssize_t
ossl_write(struct tls_be *t, const void *buf, size_t n, short *events,
    char *why, size_t len)
{
	int rc, need;

	t->lib.ERR_clear_error();
	errno = 0;
	rc = t->lib.SSL_write(t->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
	if (rc > 0)
		return rc;
	if ((need = ssl_needs(t, rc, why, len)) > 0) {
		*events = (short)need;
		errno = EAGAIN;
		return -1;
	}
	errno = EPROTO;
	return -1;
}

static void
ossl_free(struct tls_be *t)
{
	if (t == NULL)
		return;
	ossl_end(t);
	ticket_close(&t->tk);
	if (t->sess != NULL)
		t->lib.SSL_SESSION_free(t->sess);
	if (t->ctx != NULL)
		t->lib.SSL_CTX_free(t->ctx);
	free(t);
}

const struct tls_vt *
tls_openssl_vt(void)
{
	static const struct tls_vt vt = { "openssl", ossl_new, ossl_start,
	    ossl_end, ossl_read, ossl_write, ossl_free };

	return &vt;
}

#else	/* !HAVE_OPENSSL */

const struct tls_vt *
tls_openssl_vt(void)
{
	return NULL;
}

#endif	/* HAVE_OPENSSL */
