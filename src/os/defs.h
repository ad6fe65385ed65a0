/*
 * defs.h: what every file of retry uses: its version, the exit statuses
 * named as GNU and FreeBSD timeout(1) name them, and times as integer
 * nanoseconds.
 */
#ifndef DEFS_H
#define DEFS_H

#include <stdbool.h>
#include <stdint.h>

#define RETRY_VERSION	"1.0.0"

/* Exit statuses, named as GNU and FreeBSD timeout(1) name them. */
#define EXIT_TIMEDOUT		124	/* an attempt ran out of time */
#define EXIT_CANCELED		125	/* retry's own error */
#define EXIT_CANNOT_INVOKE	126	/* the command cannot be executed */
#define EXIT_ENOENT		127	/* the command was not found */
#define EXIT_KILLED		137	/* timed out and needed SIGKILL */
#define EXIT_TEMPFAIL		75	/* EX_TEMPFAIL: the breaker is open */

typedef int64_t nsec_t;

#define NSEC_PER_MSEC	INT64_C(1000000)
#define NSEC_PER_SEC	INT64_C(1000000000)
#define DURATION_MAX	(INT64_C(3155760000) * NSEC_PER_SEC)	/* 100 years */
#define NSEC_INF	INT64_MAX	/* "never", as in --kill-after=inf */

#endif /* DEFS_H */
