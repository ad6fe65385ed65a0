/*
 * trace.h: what trace.c offers its callers: the W3C TRACEPARENT of
 * each attempt.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>

#define TRACE_ID_LEN	32	/* hex digits of a trace id */
#define SPAN_ID_LEN	16	/* and of a span (parent) id */

struct trace {
	bool		 on;	/* retry's own TRACEPARENT is valid */
	char		 trace_id[TRACE_ID_LEN + 1];
	char		 parent_id[SPAN_ID_LEN + 1];	/* the caller's */
	char		 span_id[SPAN_ID_LEN + 1];	/* this attempt's */
	char		 flags[3];
	/* "TRACEPARENT=00-trace-span-flags", rewritten in place */
	char		 var[sizeof("TRACEPARENT=00---") + TRACE_ID_LEN +
			    SPAN_ID_LEN + 2];
};

bool		 trace_init(struct trace *t, const char *value);
void		 trace_next_span(struct trace *t);

#endif /* TRACE_H */
