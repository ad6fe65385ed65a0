/*
 * tls.h: what tls.c offers its callers: a TLS client session on a
 * connected, non-blocking socket, through OpenSSL loaded at first use.
 */
#ifndef TLS_H
#define TLS_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/signals.h"

/* The files a session is set up with; NULL: none. */
struct tls_files {
	const char	*cacert;	/* the CAs to trust; NULL: the system's */
	const char	*cert;		/* a client certificate (chain), PEM */
	const char	*key;		/* its key; NULL: in the cert file */
};

/*
 * The caller's wait: its absolute deadline, and signals_stops() then.
 * heard, if not NULL, is told each time the server's bytes came, and
 * gives the deadline from then on: the caller's allowance may follow
 * progress.
 */
struct tls_wait {
	const struct sigstate *ss;
	nsec_t		 deadline;
	long		 mark;
	nsec_t		(*heard)(void *arg);
	void		*arg;
};

/* Whom a session is with: the name its certificate must bear, the port. */
struct tls_peer {
	const char	*host;
	int		 port;
};

struct tls;
bool		 tls_built_in(void);
struct tls	*tls_new(const struct tls_files *files, const char *host,
		    int port, char *why, size_t len);
bool		 tls_start(struct tls *t, int fd, const struct tls_peer *p,
		    const struct tls_wait *w, char *why, size_t len);
void		 tls_end(struct tls *t);
ssize_t		 tls_read(struct tls *t, void *buf, size_t n, short *events,
		    char *why, size_t len);
ssize_t		 tls_write(struct tls *t, const void *buf, size_t n,
		    short *events, char *why, size_t len);
void		 tls_free(struct tls *t);

#endif /* TLS_H */
