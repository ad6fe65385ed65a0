/*
 * escape.h: what escape.c offers its callers: outside text made safe for
 * each sink, in lines that grow.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"

struct strbuf {
	char		*s;		/* NUL-terminated; NULL: nothing yet */
	size_t		 len, cap;
};
void		 sb_add(struct strbuf *sb, const void *p, size_t n);
void		 sb_str(struct strbuf *sb, const char *s);
void		 sb_vprintf(struct strbuf *sb, const char *fmt,
		    va_list ap) __printflike(2, 0);
void		 sb_printf(struct strbuf *sb, const char *fmt,
		    ...) __printflike(2, 3);
void		 sb_free(struct strbuf *sb);
const char	*sb_text(const struct strbuf *sb);
size_t		 utf8_len(const unsigned char *p);
bool		 utf8_invisible(const unsigned char *p, size_t n);
void		 sb_visible(struct strbuf *sb, const char *s);
void		 sb_json(struct strbuf *sb, const char *s);
void		 sb_github(struct strbuf *sb, const char *s, bool property);
void		 warnx_safe(const char *fmt, ...) __printflike(1, 2);
_Noreturn void	 err_safe(int status, bool with_errno, const char *fmt,
		    ...) __printflike(3, 4);

#endif /* ESCAPE_H */
