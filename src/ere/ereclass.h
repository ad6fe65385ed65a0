/*
 * ereclass.h: byte sets and the C locale's character classes, for the
 * EREs (see ereclass.c).  A leaf module: it calls nothing else of
 * retry's.
 */
#ifndef ERECLASS_H
#define ERECLASS_H

#include <stdbool.h>
#include <stdint.h>

/* A set of bytes, a bit each. */
typedef uint32_t byteset[8];

/* Whether c is in s; inline, since the matcher asks it of every byte. */
static inline bool
set_has(const uint32_t *s, int c)
{
	return (s[c >> 5] >> (c & 31)) & 1;
}

void	set_add(uint32_t *s, int c);

/* The complement of s, but for the newline (see ereclass.c). */
void	set_negate(uint32_t *s);

/* Whether name is one of the 12 classes; set_class() adds its bytes. */
bool	class_known(const char *name);
void	set_class(uint32_t *s, const char *name);

#endif /* ERECLASS_H */
