/*
 * tlsticket.h: what tlsticket.c offers tls.c: a TLS session ticket kept
 * in a file of the user's own, per server and trust, across runs.
 */
#ifndef TLSTICKET_H
#define TLSTICKET_H

#include <stdbool.h>
#include <stddef.h>

#define TICKET_MAX	8192	/* the largest ticket kept, in bytes */

struct ticket {
	int	dfd;		/* the state directory, or -1 */
	char	name[32];	/* tls-<hash>.session */
};

bool	ticket_open(struct ticket *tk, const char *const *keys, size_t n);
size_t	ticket_read(const struct ticket *tk, unsigned char *buf, size_t len);
void	ticket_write(const struct ticket *tk, const unsigned char *buf,
	    size_t n);
void	ticket_close(struct ticket *tk);

#endif /* TLSTICKET_H */
