/*
 * http.h: what http.c offers its callers: --http, the response head that
 * the command saved (as curl -D writes it) and the server's Retry-After.
 * The parsers neither print nor exit, for the fuzz harness.
 */
#ifndef HTTP_H
#define HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "outcomes.h"

#define HTTP_HEAD_MAX	((size_t)64 * 1024)	/* bytes of FILE read */
#define HTTP_VALUE_MAX	64		/* a Retry-After value kept */
/* The longest Retry-After honoured without --max-time: an hour. */
#define HTTP_WAIT_CEILING	(INT64_C(3600) * NSEC_PER_SEC)
struct http_head {
	int		status;		/* the last final status; 0: none */
	int		retry_after_fields;	/* in that head */
	bool		retry_after_bad;	/* too long or not printable */
	char		retry_after[HTTP_VALUE_MAX];	/* the first, trimmed */
};
int		 http_reset(const char *path);
int		 http_load(const char *path, struct http_head *h);
void		 http_parse_head(const char *buf, size_t len,
		    struct http_head *h);
bool		 http_parse_retry_after(const char *s, nsec_t wall,
		    nsec_t *delay);
enum http_rule {
	HTTP_NEXT,		/* the exit status decides */
	HTTP_SUCCEED,
	HTTP_STOP,
	HTTP_RETRY
};
enum http_rule	 http_policy(const struct outcome_set *success_on,
		    const struct outcome_set *stop_on,
		    const struct outcome_set *retry_on, int status);
enum http_wait {
	HTTP_WAIT_NONE,
	HTTP_WAIT,
	HTTP_WAIT_IGNORED,
	HTTP_WAIT_LONG
};
enum http_wait	 http_wait(const struct http_head *h, nsec_t wall, nsec_t cap,
		    nsec_t *delay, char *msg, size_t len);
bool		 http_path_named(char *const argv[], const char *path);

#endif /* HTTP_H */
