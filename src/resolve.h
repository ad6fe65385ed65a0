/*
 * resolve.h: what resolve.c offers its callers: a host name's address
 * within a deadline that a stop signal cuts short.
 */
#ifndef RESOLVE_H
#define RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "defs.h"
#include "signals.h"

/* An address as text (IPv6's 45 bytes and a zone), or a reason. */
#define RESOLVE_OUT_MAX	128
bool		 resolve_host(const char *host, const struct sigstate *ss,
		    nsec_t deadline, long mark, char out[RESOLVE_OUT_MAX]);

#endif /* RESOLVE_H */
