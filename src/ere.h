/*
 * ere.h: retry's own POSIX extended regular expressions, matched in time
 * linear in the text (see ere.c).  It calls eresyntax.c, which calls
 * ereclass.c; neither calls anything else of retry's.
 */
#ifndef ERE_H
#define ERE_H

#include <stdbool.h>
#include <stddef.h>

struct ere;

/* The most instructions an ERE may compile to; more is "too complex". */
#define ERE_MAX_PROG	4096

/*
 * Compiles pattern as glibc's regcomp(REG_EXTENDED | REG_NEWLINE) does in
 * the C locale.  Returns NULL and sets *why to a reason (glibc's words
 * where glibc refuses the same ERE) on failure; memory exhaustion is
 * "Memory exhausted".
 */
struct ere	*ere_compile(const char *pattern, const char **why);

/*
 * Whether a line of text[0..len) (lines end at '\n') matches, and then
 * in *start the offset in text where the leftmost match begins.
 */
bool		 ere_exec(struct ere *re, const char *text, size_t len,
		    size_t *start);

/* Its size in instructions, at most ERE_MAX_PROG, as the limit counts. */
size_t		 ere_size(const struct ere *re);

void		 ere_free(struct ere *re);

#endif /* ERE_H */
