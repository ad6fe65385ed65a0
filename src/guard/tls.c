/*
 * tls.c: the TLS client of the rediss:// store, as its callers see it
 * (tls.h), over one of two backends, each a table of functions
 * (tlsvt.h): wolfSSL (tlswolf.c), which a run pays about a quarter of
 * OpenSSL's instructions for, where it can be loaded, and OpenSSL
 * (tlsossl.c) otherwise.  RETRY_TLS=openssl or RETRY_TLS=wolfssl in the
 * environment names one, and then only that one is tried.  Both load
 * their library with dlopen() at first use, keep verification on, and
 * keep a session's ticket for the next run (tlsticket.c), each in a
 * file of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls.h"
#include "tlsvt.h"

#define NO_TLS	"built without TLS support (OpenSSL)"

struct tls {
	const struct tls_vt	*vt;
	struct tls_be		*be;
};

bool
tls_built_in(void)
{
	return tls_openssl_vt() != NULL || tls_wolfssl_vt() != NULL;
}

/*
 * The backends to try, in order, into vts: how many, or 0 with why
 * where RETRY_TLS names none that this retry has.
 */
static size_t
backends(const struct tls_vt **vts, char *why, size_t len)
{
	const char *want = getenv("RETRY_TLS");
	const struct tls_vt *all[] = { tls_wolfssl_vt(), tls_openssl_vt() };
	size_t i, n = 0;

	if (want != NULL && *want == '\0')
		want = NULL;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] != NULL &&
		    (want == NULL || strcmp(want, all[i]->name) == 0))
			vts[n++] = all[i];
	if (n == 0 && want != NULL)
		snprintf(why, len, "TLS: RETRY_TLS=%s: not a TLS library of "
		    "this retry", want);
	else if (n == 0)
		snprintf(why, len, NO_TLS);
	return n;
}

/*
 * A TLS context with files, for host:port, from the first backend whose
 * library loads: it, or NULL with why.  A backend that loads but fails
 * (a file, a key) is the answer: the next would fail the same way.
 */
struct tls *
tls_new(const struct tls_files *files, const char *host, int port,
    char *why, size_t len)
{
	const struct tls_vt *vts[2];
	struct tls *t;
	size_t i, n;

	if ((n = backends(vts, why, len)) == 0)
		return NULL;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		errno = 0;
		t->be = vts[i]->new(files, host, port, why, len);
		if (t->be != NULL) {
			t->vt = vts[i];
			return t;
		}
		if (errno != ENOENT)
			break;
	}
	free(t);
	return NULL;
}

bool
tls_start(struct tls *t, int fd, const struct tls_peer *p,
    const struct tls_wait *w, char *why, size_t len)
{
	if (t == NULL) {
		snprintf(why, len, NO_TLS);
		errno = EPROTO;
		return false;
	}
	return t->vt->start(t->be, fd, p, w, why, len);
}

void
tls_end(struct tls *t)
{
	if (t != NULL)
		t->vt->end(t->be);
}

ssize_t
tls_read(struct tls *t, void *buf, size_t n, short *events, char *why,
    size_t len)
{
	return t->vt->read(t->be, buf, n, events, why, len);
}

ssize_t
tls_write(struct tls *t, const void *buf, size_t n, short *events,
    char *why, size_t len)
{
	return t->vt->write(t->be, buf, n, events, why, len);
}

void
tls_free(struct tls *t)
{
	if (t == NULL)
		return;
	t->vt->free(t->be);
	free(t);
}
