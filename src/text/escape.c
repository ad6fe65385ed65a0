/*
 * escape.c: text that retry did not write itself, made safe for where it
 * goes, and the growable lines that hold it.  Words of the command line,
 * paths, the EREs of the output conditions and header values reach the
 * log and stderr; none may move a terminal's cursor, end a JSON string
 * or start a GitHub workflow command.  So every such line is built here,
 * in a struct strbuf that grows as it must (a line is never cut), and
 * escaped for its sink: visible escapes in text (\n, \e, \x9b), JSON
 * string escapes in JSON, and in workflow commands %XX for what ends the
 * data or a property.  The warnings and errors that carry such text go
 * out through warnx_safe() and errx_safe().
 */
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/defs.h"
#include "escape.h"

/* Makes room for n more bytes and the final NUL; exits when out of it. */
static void
sb_room(struct strbuf *sb, size_t n)
{
	size_t cap = sb->cap ? sb->cap : 128;
	char *s;

	if (sb->len + n < sb->cap)
		return;
	while (sb->len + n >= cap)
		if ((cap *= 2) < sb->cap)
			errx(EXIT_CANCELED, "line too long");
	if ((s = realloc(sb->s, cap)) == NULL)
		err(EXIT_CANCELED, NULL);
	sb->s = s;
	sb->cap = cap;
}

void
sb_add(struct strbuf *sb, const void *p, size_t n)
{
	sb_room(sb, n);
	memcpy(sb->s + sb->len, p, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void
sb_str(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void
sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		err(EXIT_CANCELED, NULL);
	sb_room(sb, (size_t)n);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void
sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void
sb_free(struct strbuf *sb)
{
	free(sb->s);
	memset(sb, 0, sizeof(*sb));
}

/* The text so far; "" before anything was added. */
const char *
sb_text(const struct strbuf *sb)
{
	return sb->s != NULL ? sb->s : "";
}

/*
 * The length of the well-formed UTF-8 sequence at p, or 0: no overlong
 * form, no surrogate, nothing above U+10FFFF (RFC 3629), which a strict
 * JSON parser would reject.
 */
size_t
utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (*p >= 0xc2 && *p <= 0xdf)
		need = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		need = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		need = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

/* The code point of the well-formed UTF-8 sequence of n bytes at p. */
static unsigned long
utf8_cp(const unsigned char *p, size_t n)
{
	unsigned long cp = *p & (0x7f >> n);
	size_t i;

	for (i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/*
 * Whether the n-byte UTF-8 character at p is one that shows nothing but
 * changes what a reader sees: a C1 control, the bidirectional controls
 * (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069, which can show
 * a line reversed), the zero-width and other format characters, the line
 * and paragraph separators, the byte order mark and the tag characters.
 * metrics.c keeps them out of a label too.
 */
bool
utf8_invisible(const unsigned char *p, size_t n)
{
	unsigned long c;

	if (n < 2 || (*p != 0xc2 && *p != 0xd8 && *p != 0xe1 && *p != 0xe2 &&
	    *p != 0xef && *p != 0xf3))
		return false;	/* the common case, in its first byte */
	c = utf8_cp(p, n);
	return c <= 0x9f || c == 0xad || c == 0x61c || c == 0x180e ||
	    (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	    (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	    (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xe0000 && c <= 0xe007f);
}

/*
 * Appends the character at p, made visible when it is a control: C0 and
 * DEL as \n \r \t \e or \xNN, a byte that is not part of well-formed
 * UTF-8 or of a C1 control (which some terminals obey) as \xNN, and
 * another invisible character (utf8_invisible()) as \uNNNN.  Returns how many
 * bytes of p it took.
 */
static size_t
visible_at(struct strbuf *sb, const unsigned char *p)
{
	size_t n;

	if (*p >= 0x20 && *p < 0x7f) {
		sb_add(sb, p, 1);
		return 1;
	}
	if (*p >= 0x80 && (n = utf8_len(p)) != 0 &&
	    !(*p == 0xc2 && p[1] < 0xa0)) {
		if (utf8_invisible(p, n))
			sb_printf(sb, "\\u%04lx", utf8_cp(p, n));
		else
			sb_add(sb, p, n);
		return n;
	}
	if (*p == '\n')
		sb_str(sb, "\\n");
	else if (*p == '\r')
		sb_str(sb, "\\r");
	else if (*p == '\t')
		sb_str(sb, "\\t");
	else if (*p == 0x1b)
		sb_str(sb, "\\e");
	else
		sb_printf(sb, "\\x%02x", *p);
	return 1;
}

/*
 * Appends s with every control character made visible.  A backslash
 * stays as it is: the text is for people, not for a parser.
 */
void
sb_visible(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0')
		p += visible_at(sb, p);
}

/*
 * Appends s as a JSON string: every control character escaped and each
 * byte of bad UTF-8 replaced by U+FFFD.
 */
void
sb_json(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[16];
	size_t n;

	sb_add(sb, "\"", 1);
	for (; *p != '\0'; p += n) {
		n = 1;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof(esc), "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		else if (*p >= 0x80 && (n = utf8_len(p)) == 0) {
			snprintf(esc, sizeof(esc), "\\ufffd");
			n = 1;
		} else if (utf8_invisible(p, n) && utf8_cp(p, n) <= 0xffff)
			snprintf(esc, sizeof(esc), "\\u%04lx", utf8_cp(p, n));
		else if (utf8_invisible(p, n))	/* a tag: two surrogates */
			snprintf(esc, sizeof(esc), "\\udb40\\u%04lx",
			    0xdc00 + (utf8_cp(p, n) & 0x3ff));
		else {
			sb_add(sb, p, n);
			continue;
		}
		sb_str(sb, esc);
	}
	sb_add(sb, "\"", 1);
}

/*
 * Appends s as workflow-command text: % CR and LF as %XX, and in a
 * property also the , and : that would end it; the other control
 * characters are made visible, as in text.
 */
void
sb_github(struct strbuf *sb, const char *s, bool property)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0')
		if (*p == '%' || *p == '\r' || *p == '\n' ||
		    (property && (*p == ',' || *p == ':')))
			sb_printf(sb, "%%%02X", *p++);
		else
			p += visible_at(sb, p);
}

/* warnx(3) with the message made visible: it may hold outside text. */
void
warnx_safe(const char *fmt, ...)
{
	struct strbuf msg = { 0 }, vis = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	sb_visible(&vis, sb_text(&msg));
	warnx("%s", sb_text(&vis));
	sb_free(&msg);
	sb_free(&vis);
}

/* errx(3), or err(3) when with_errno is set, with the message visible. */
void
err_safe(int status, bool with_errno, const char *fmt, ...)
{
	struct strbuf msg = { 0 }, vis = { 0 };
	int error = errno;
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(&msg, fmt, ap);
	va_end(ap);
	sb_visible(&vis, sb_text(&msg));
	if (with_errno) {
		errno = error;
		err(status, "%s", sb_text(&vis));
	}
	errx(status, "%s", sb_text(&vis));
}
