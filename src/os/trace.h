/*
 * trace.h: what trace.c offers its callers: the W3C TRACEPARENT of
 * each attempt.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>

#define TRACE_ID_LEN	32	/* hex digits of a trace id */
#define SPAN_ID_LEN	16	/* and of a span (parent) id */
#define TRACE_ID_AT	15	/* where each is in var */
#define SPAN_ID_AT	48

/*
 * "TRACEPARENT=00-TRACE-SPAN-FLAGS", the span the caller's until
 * trace_next_span() draws the first attempt's, then rewritten in place:
 * the ids are read from it, and the environment points to it.
 */
struct trace {
	bool		 on;	/* retry's own TRACEPARENT is valid */
	char		 var[sizeof("TRACEPARENT=00---") + TRACE_ID_LEN +
			    SPAN_ID_LEN + 2];
};

bool		 trace_init(struct trace *t, const char *value);
void		 trace_next_span(struct trace *t);

#endif /* TRACE_H */
