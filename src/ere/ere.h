/*
 * ere.h: retry's own POSIX extended regular expressions, matched in time
 * linear in the text (see erecomp.c, eredfa.c and erenfa.c).  erecomp.c calls
 * eredfa.c, erenfa.c, erelit.c, ereclosure.c and eresyntax.c, which calls
 * ereclass.c; eredfa.c calls erenfa.c and ereclosure.c; erenfa.c calls
 * ereclosure.c, a leaf; none calls anything else of retry's.
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

/*
 * A stream of lines given in pieces: the matching state between them.
 * One run serves one stream and one ERE; reset, it is at a line start.
 */
struct ere_run;
struct ere_run	*ere_run_new(const struct ere *re);
void		 ere_run_reset(struct ere_run *run);
void		 ere_run_free(struct ere_run *run);

/*
 * Feeds the next len bytes of the stream to run: whether a line matches,
 * and then in *at the offset in text of the byte where the match was
 * seen (its last byte's successor, or the newline or NUL that ends its
 * line).  Lines end at '\n'; a line is matched up to its first NUL.
 * After a match, run is to be reset before it is fed again.
 */
bool		 ere_feed(struct ere *re, struct ere_run *run, const char *text,
		    size_t len, size_t *at);

/*
 * The stream ends: whether its last line, begun and without a newline,
 * matches.  run is reset.
 */
bool		 ere_feed_end(struct ere *re, struct ere_run *run);

/* Its size in instructions, at most ERE_MAX_PROG, as the limit counts. */
size_t		 ere_size(const struct ere *re);

void		 ere_free(struct ere *re);

#endif /* ERE_H */
