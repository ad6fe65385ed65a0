/*
 * http.c: --http=FILE.  The command saves its HTTP response head in FILE,
 * as curl -D (--dump-header) writes it; this file empties FILE before an
 * attempt, reads at most HTTP_HEAD_MAX bytes of it after, finds the last
 * head with a final status (200-599: redirects and 1xx interim responses
 * write several heads), and reads that head's Retry-After: delay-seconds
 * or an HTTP-date in the three forms that RFC 9110, section 5.6.7, has
 * recipients accept (IMF-fixdate, the obsolete RFC 850 form, asctime).
 * It also holds the HTTP rules of the policy and says what the server's
 * delay asks of the next sleep; the attempt loop in retry.c acts on them.
 *
 * The parsers take the bytes and the wall-clock time as arguments, and
 * none of them prints or exits, so that fuzz/http.c can drive them.
 * Dates are converted with integer arithmetic of our own: timegm(3) is
 * not in POSIX, and a 32-bit time_t would not hold every 4-digit year.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "os/defs.h"
#include "http.h"
#include "outcomes.h"

#define SEC_PER_DAY	INT64_C(86400)
#define DELAY_MAX_SEC	(DURATION_MAX / NSEC_PER_SEC)

/*
 * Empties FILE before an attempt, creating it (0666 less the umask) when
 * missing, so that a command that writes no head leaves "no response".
 * O_NONBLOCK: a FIFO without a reader must not hang retry.
 */
int
http_reset(const char *path)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK |
	    O_CLOEXEC, 0666)) == -1)
		return errno;
	close(fd);
	return 0;
}

/*
 * Reads FILE into h: 0, an errno, or EFBIG when FILE holds more than
 * HTTP_HEAD_MAX bytes, whose last head may lie beyond what was read.
 */
int
http_load(const char *path, struct http_head *h)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd, error = 0;

	memset(h, 0, sizeof(*h));
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return errno;
	if ((buf = malloc(HTTP_HEAD_MAX + 1)) == NULL) {
		close(fd);
		return ENOMEM;
	}
	while (len <= HTTP_HEAD_MAX) {
		n = read(fd, buf + len, HTTP_HEAD_MAX + 1 - len);
		if (n == 0)
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			error = errno;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (error == 0 && len > HTTP_HEAD_MAX)
		error = EFBIG;
	if (error == 0)
		http_parse_head(buf, len, h);
	free(buf);
	return error;
}

/* "HTTP/" 1*DIGIT ["." 1*DIGIT] SP 3DIGIT [SP ...]: the code, or 0. */
static int
status_code(const char *p, size_t n)
{
	size_t i = 5;
	int code;

	if (n < 5 || memcmp(p, "HTTP/", 5) != 0)
		return 0;
	if (i >= n || !isdigit((unsigned char)p[i]))
		return 0;
	while (i < n && isdigit((unsigned char)p[i]))
		i++;
	if (i < n && p[i] == '.') {
		if (++i >= n || !isdigit((unsigned char)p[i]))
			return 0;
		while (i < n && isdigit((unsigned char)p[i]))
			i++;
	}
	if (i + 4 > n || p[i] != ' ' || !isdigit((unsigned char)p[i + 1]) ||
	    !isdigit((unsigned char)p[i + 2]) ||
	    !isdigit((unsigned char)p[i + 3]))
		return 0;
	if (i + 4 < n && p[i + 4] != ' ')
		return 0;
	code = (p[i + 1] - '0') * 100 + (p[i + 2] - '0') * 10 +
	    (p[i + 3] - '0');
	return code >= 100 && code <= HTTP_STATUS_MAX ? code : 0;
}

/* RFC 9110's tchar: the characters of a field name. */
static bool
is_tchar(unsigned char c)
{
	return isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* Keeps the value of a Retry-After field line, trimmed of OWS. */
static void
keep_retry_after(const char *v, size_t n, struct http_head *h)
{
	size_t i;

	while (n > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (h->retry_after_fields++ > 0)
		return;
	for (i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			h->retry_after_bad = true;
	if (n >= sizeof(h->retry_after))
		h->retry_after_bad = true;
	if (!h->retry_after_bad) {
		memcpy(h->retry_after, v, n);
		h->retry_after[n] = '\0';
	}
}

/*
 * One field line, name ":" value.  A folded line (one that starts with
 * white space) or a line without a valid name is skipped.
 */
static void
field_line(const char *p, size_t n, struct http_head *h)
{
	static const char name[] = "Retry-After";
	size_t i = 0;

	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= n || p[i] != ':')
		return;
	if (i == sizeof(name) - 1 && strncasecmp(p, name, i) == 0)
		keep_retry_after(p + i + 1, n - i - 1, h);
}

/*
 * The last head in buf whose status line has a final status: its status
 * and its Retry-After.  A head runs from its status line to the first
 * empty line; lines ending in CRLF or LF alike.  No such head: status 0.
 */
void
http_parse_head(const char *buf, size_t len, struct http_head *h)
{
	struct http_head interim;
	struct http_head *into = NULL;	/* the head being read, if any */
	const char *p = buf, *end = buf + len, *nl;
	size_t n;
	int code;

	memset(h, 0, sizeof(*h));
	memset(&interim, 0, sizeof(interim));
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if ((code = status_code(p, n)) != 0) {
			into = code >= HTTP_STATUS_MIN ? h : &interim;
			memset(into, 0, sizeof(*into));
			into->status = code;
		} else if (n == 0)
			into = NULL;
		else if (into != NULL)
			field_line(p, n, into);
		p = nl != NULL ? nl + 1 : end;
	}
}

/* The statuses retried under --http unless a LIST says otherwise. */
static bool
retried_by_default(int status)
{
	switch (status) {
	case 408:	/* Request Timeout */
	case 429:	/* Too Many Requests */
	case 500:	/* Internal Server Error */
	case 502:	/* Bad Gateway */
	case 503:	/* Service Unavailable */
	case 504:	/* Gateway Timeout */
		return true;
	default:
		return false;
	}
}

/*
 * The HTTP rules of the policy, which come before the exit-code rules:
 * the user's http: items (of --success-on, --stop-on, --retry-on), then
 * the default: 408, 429, 500, 502, 503 and 504 are retried, other
 * statuses from 400 are not.  HTTP_NEXT leaves the decision to the exit
 * status.
 */
enum http_rule
http_policy(const struct outcome_set *success_on,
    const struct outcome_set *stop_on, const struct outcome_set *retry_on,
    int status)
{
	bool stop = outcome_http_in(stop_on, status);

	if (outcome_http_in(success_on, status))
		return HTTP_SUCCEED;
	if (!stop && (outcome_http_in(retry_on, status) ||
	    retried_by_default(status)))
		return HTTP_RETRY;
	return stop || status >= 400 ? HTTP_STOP : HTTP_NEXT;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The year of a day counted from 1970-01-01; the inverse of the above. */
static int64_t
year_of_day(int64_t z)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	return yoe + era * 400 + (mp >= 10);
}

static int
days_in_month(int64_t y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* Exactly n digits at *sp. */
static bool
digits(const char **sp, int n, int *out)
{
	const char *s = *sp;
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*sp = s + n;
	*out = v;
	return true;
}

static bool
literal(const char **sp, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*sp, lit, n) != 0)
		return false;
	*sp += n;
	return true;
}

/* One of names at *sp, case-sensitive as RFC 9110 has it: its index. */
static int
name_at(const char **sp, const char *const *names, int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (literal(sp, names[i]))
			return i;
	return -1;
}

static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
    "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const days_short[] = { "Mon", "Tue", "Wed", "Thu",
    "Fri", "Sat", "Sun" };
static const char *const days_long[] = { "Monday", "Tuesday", "Wednesday",
    "Thursday", "Friday", "Saturday", "Sunday" };

struct civil {
	int64_t	year;
	int	month, day, hour, min, sec;
};

/* time-of-day = hour ":" minute ":" second, each 2DIGIT. */
static bool
time_of_day(const char **sp, struct civil *c)
{
	return digits(sp, 2, &c->hour) && literal(sp, ":") &&
	    digits(sp, 2, &c->min) && literal(sp, ":") &&
	    digits(sp, 2, &c->sec);
}

/* "Sun, 06 Nov 1994 08:49:37 GMT", after the day name. */
static bool
imf_fixdate(const char *s, struct civil *c)
{
	int y;

	if (!literal(&s, ", ") || !digits(&s, 2, &c->day) ||
	    !literal(&s, " ") ||
	    (c->month = name_at(&s, months, 12) + 1) == 0 ||
	    !literal(&s, " ") || !digits(&s, 4, &y) || !literal(&s, " ") ||
	    !time_of_day(&s, c) || !literal(&s, " GMT"))
		return false;
	c->year = y;
	return *s == '\0';
}

/*
 * "Sunday, 06-Nov-94 08:49:37 GMT", after the day name.  RFC 9110: a
 * two-digit year that would be more than 50 years in the future is in
 * the most recent past year with the same last two digits.
 */
static bool
rfc850_date(const char *s, nsec_t wall, struct civil *c)
{
	int64_t now_year;
	int yy;

	if (!literal(&s, ", ") || !digits(&s, 2, &c->day) ||
	    !literal(&s, "-") ||
	    (c->month = name_at(&s, months, 12) + 1) == 0 ||
	    !literal(&s, "-") || !digits(&s, 2, &yy) || !literal(&s, " ") ||
	    !time_of_day(&s, c) || !literal(&s, " GMT") || *s != '\0')
		return false;
	now_year = year_of_day(wall / NSEC_PER_SEC / SEC_PER_DAY);
	c->year = now_year - now_year % 100 + yy;
	if (c->year > now_year + 50)
		c->year -= 100;
	return true;
}

/* "Sun Nov  6 08:49:37 1994", after the day name. */
static bool
asctime_date(const char *s, struct civil *c)
{
	int y;

	if (!literal(&s, " ") ||
	    (c->month = name_at(&s, months, 12) + 1) == 0 ||
	    !literal(&s, " "))
		return false;
	if (*s == ' ') {
		s++;
		if (!digits(&s, 1, &c->day))
			return false;
	} else if (!digits(&s, 2, &c->day))
		return false;
	if (!literal(&s, " ") || !time_of_day(&s, c) || !literal(&s, " ") ||
	    !digits(&s, 4, &y))
		return false;
	c->year = y;
	return *s == '\0';
}

/* An HTTP-date in any of its three forms, as seconds since the epoch. */
static bool
http_date(const char *s, nsec_t wall, int64_t *secs)
{
	const char *p = s;
	struct civil c;
	bool ok;

	memset(&c, 0, sizeof(c));
	if (name_at(&p, days_long, 7) >= 0)
		ok = rfc850_date(p, wall, &c);
	else if (name_at(&p, days_short, 7) >= 0)
		ok = *p == ',' ? imf_fixdate(p, &c) : asctime_date(p, &c);
	else
		return false;
	if (!ok || c.day < 1 || c.day > days_in_month(c.year, c.month) ||
	    c.hour > 23 || c.min > 59 || c.sec > 60)
		return false;
	*secs = days_from_civil(c.year, c.month, c.day) * SEC_PER_DAY +
	    (int64_t)c.hour * 3600 + (int64_t)c.min * 60 + c.sec;
	return true;
}

/*
 * Retry-After = HTTP-date / delay-seconds: the wait it asks for, from
 * the wall-clock time wall, in *delay.  A date in the past is 0; a wait
 * longer than 100 years is 100 years.
 */
bool
http_parse_retry_after(const char *s, nsec_t wall, nsec_t *delay)
{
	int64_t secs = 0, ahead;
	const char *p;

	if (isdigit((unsigned char)*s)) {
		for (p = s; isdigit((unsigned char)*p); p++)
			if (secs <= DELAY_MAX_SEC)
				secs = secs * 10 + (*p - '0');
		if (*p != '\0')
			return false;
		*delay = secs > DELAY_MAX_SEC ? DURATION_MAX :
		    secs * NSEC_PER_SEC;
		return true;
	}
	if (!http_date(s, wall, &secs))
		return false;
	ahead = secs - wall / NSEC_PER_SEC;
	if (ahead > DELAY_MAX_SEC)
		*delay = DURATION_MAX;
	else if (ahead <= 0)
		*delay = 0;
	else
		*delay = ahead * NSEC_PER_SEC - wall % NSEC_PER_SEC;
	return true;
}

/*
 * What the server's Retry-After in h asks of the next sleep, from the
 * wall-clock time wall: HTTP_WAIT_NONE, no field; HTTP_WAIT, the delay
 * in *delay; HTTP_WAIT_LONG, a delay above cap in *delay, and msg says
 * "the server asks to wait Ns" for the caller to finish; HTTP_WAIT_IGNORED,
 * a field that cannot be read, and msg (len bytes) says why.
 */
enum http_wait
http_wait(const struct http_head *h, nsec_t wall, nsec_t cap,
    nsec_t *delay, char *msg, size_t len)
{
	const char *why = NULL;

	*delay = -1;
	if (h->status == 0 || h->retry_after_fields == 0)
		return HTTP_WAIT_NONE;
	if (h->retry_after_fields > 1)
		why = "given more than once";
	else if (h->retry_after_bad)
		why = "too long or not plain text";
	else if (!http_parse_retry_after(h->retry_after, wall, delay)) {
		snprintf(msg, len, "ignoring Retry-After '%s': neither "
		    "seconds nor an HTTP-date", h->retry_after);
		return HTTP_WAIT_IGNORED;
	}
	if (why != NULL) {
		snprintf(msg, len, "ignoring Retry-After: %s", why);
		return HTTP_WAIT_IGNORED;
	}
	if (*delay <= cap)
		return HTTP_WAIT;
	/* Whole seconds, rounded up: never "60s, more than --cap=60s". */
	snprintf(msg, len, "the server asks to wait %llds",
	    (long long)((*delay + NSEC_PER_SEC - 1) / NSEC_PER_SEC));
	return HTTP_WAIT_LONG;
}

/*
 * Whether a word of the command names path, as "-D path" or
 * "--dump-header=path" do: then an empty head is the server's silence
 * (a refused connection), not a command that was never told to write it.
 */
bool
http_path_named(char *const argv[], const char *path)
{
	for (; *argv != NULL; argv++)
		if (strstr(*argv, path) != NULL)
			return true;
	return false;
}
