/*
 * after.h: what after.c offers its callers: what an attempt wrote to
 * RETRY_AFTER_FILE, judged, and how a wait that someone outside asked
 * for (that file, or a server's Retry-After) fits the run's limits.
 */
#ifndef AFTER_H
#define AFTER_H

#include <stddef.h>

#include "os/defs.h"

#define AFTER_TEXT_MAX	256	/* bytes of the file read, at most */

enum after_ask {
	AFTER_NOTHING,		/* missing or empty: the schedule decides */
	AFTER_WAIT,		/* a delay */
	AFTER_STOP,		/* "stop": not retried */
	AFTER_BAD		/* refused: the schedule decides */
};
enum after_ask	 after_parse(const char *buf, size_t len, nsec_t wall,
		    nsec_t *delay, char *why, size_t whylen);

enum after_fit {
	AFTER_FITS,		/* at most cap: waited for */
	AFTER_ABOVE_CAP,	/* above cap, within the limits: waited for */
	AFTER_PAST_MAX_TIME,	/* would pass --max-time: the run ends */
	AFTER_PAST_CEILING	/* over an hour without --max-time: ends */
};
enum after_fit	 after_fit(nsec_t delay, nsec_t cap, nsec_t now,
		    nsec_t deadline);
const char	*after_past_max_time(nsec_t deadline, nsec_t now,
		    nsec_t sleep);

#endif /* AFTER_H */
