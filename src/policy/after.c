/*
 * after.c: RETRY_AFTER_FILE's content, judged.  An attempt may write
 * there a DURATION or an HTTP-date, the next wait, or "stop", that it is
 * not to be retried.  The text comes from the command, which may be
 * hostile or broken: at most AFTER_TEXT_MAX bytes are looked at, a NUL,
 * a control character or a byte outside ASCII refuses it, and the
 * duration and date parsers bound every number.  One line ending (LF or
 * CRLF) and blanks around the word are allowed: `echo 30s >FILE`.
 *
 * It also says how a wait asked for from outside (that file, or a
 * server's Retry-After) fits the run: the same rule for both, as the
 * contract has it for --http; and whether any sleep still fits within
 * --max-time.  Nothing here prints or exits.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "os/clock.h"
#include "os/defs.h"
#include "text/duration.h"
#include "after.h"
#include "http.h"

/* Whether the bytes are printable ASCII, blanks and line ends. */
static bool
plain_text(const char *buf, size_t len)
{
	size_t i;
	unsigned char c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)buf[i];
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
		    c > 0x7e)
			return false;
	}
	return true;
}

/*
 * The len bytes of buf (len may be AFTER_TEXT_MAX + 1: too long), read
 * at the wall-clock time wall: what they ask, the delay in *delay, and
 * for AFTER_BAD the reason in why (whylen bytes).
 */
enum after_ask
after_parse(const char *buf, size_t len, nsec_t wall, nsec_t *delay,
    char *why, size_t whylen)
{
	char text[AFTER_TEXT_MAX + 1];
	size_t start = 0, end = len;

	*delay = -1;
	if (len > AFTER_TEXT_MAX || !plain_text(buf, len)) {
		snprintf(why, whylen, "%s", len > AFTER_TEXT_MAX ? "more "
		    "than 256 bytes" : "not plain text");
		return AFTER_BAD;
	}
	while (start < end && strchr(" \t", buf[start]) != NULL)
		start++;
	while (end > start && strchr(" \t\r\n", buf[end - 1]) != NULL)
		end--;
	if (start == end)
		return AFTER_NOTHING;
	memcpy(text, buf + start, end - start);
	text[end - start] = '\0';
	if (strcmp(text, "stop") == 0)
		return AFTER_STOP;
	if (strpbrk(text, "\r\n") != NULL) {
		snprintf(why, whylen, "more than one line");
		return AFTER_BAD;
	}
	if (parse_duration(text, delay, false) == NULL ||
	    http_parse_retry_after(text, wall, delay))
		return AFTER_WAIT;
	snprintf(why, whylen, "'%.64s%s': neither stop, a DURATION nor an "
	    "HTTP-date", text, end - start > 64 ? "..." : "");
	return AFTER_BAD;
}

/*
 * How a delay asked for from outside fits: above cap it is still
 * honoured, but not past the deadline (0: none) from now, nor without
 * one beyond HTTP_WAIT_CEILING.
 */
enum after_fit
after_fit(nsec_t delay, nsec_t cap, nsec_t now, nsec_t deadline)
{
	if (delay <= cap)
		return AFTER_FITS;
	if (deadline != 0 && nsec_add(now, delay) >= deadline)
		return AFTER_PAST_MAX_TIME;
	if (deadline == 0 && delay > HTTP_WAIT_CEILING)
		return AFTER_PAST_CEILING;
	return AFTER_ABOVE_CAP;
}

/*
 * Why a sleep from now to now + sleep cannot be had within --max-time,
 * at deadline (0: none): it passed already, or the sleep would pass it;
 * NULL if it can.
 */
const char *
after_past_max_time(nsec_t deadline, nsec_t now, nsec_t sleep)
{
	if (deadline == 0 || nsec_add(now, sleep) < deadline)
		return NULL;
	return now >= deadline ? "--max-time reached" :
	    "the next sleep would pass --max-time";
}
