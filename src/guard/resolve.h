/*
 * resolve.h: what resolve.c offers its callers: a host name's addresses
 * within a deadline that a stop signal cuts short.
 */
#ifndef RESOLVE_H
#define RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/signals.h"

/* An address as text (IPv6's 45 bytes and a zone), or a reason. */
#define RESOLVE_ADDR_LEN	128
/*
 * The addresses of a name kept, the first ones in the resolver's order:
 * all of them share the caller's half second, so that each of eight
 * gets 62 ms, some round trips across a region, and a name with dozens
 * (a round-robin pool) would leave none enough to connect.
 */
#define RESOLVE_ADDRS_MAX	8

struct resolved {
	int	 n;				/* addresses in addr */
	char	 addr[RESOLVE_ADDRS_MAX][RESOLVE_ADDR_LEN];
	char	 why[RESOLVE_ADDR_LEN];		/* n == 0: the reason */
};

bool		 resolve_host(const char *host, const struct sigstate *ss,
		    nsec_t deadline, long mark, struct resolved *out);

#endif /* RESOLVE_H */
