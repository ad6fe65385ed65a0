/*
 * ereclass.c: the byte sets of the EREs and the C locale's 12 character
 * classes ([:alpha:] to [:cntrl:]), which are what a bracket, a class
 * escape such as \w, a dot or a single character compiles to: eresyntax.c
 * builds the sets, and erecomp.c's matcher tests a byte against one with
 * set_has(), inline in ereclass.h since it runs for every byte.  The
 * classes are ASCII's, byte by byte, as glibc's in the C locale.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ereclass.h"

void
set_add(uint32_t *s, int c)
{
	s[c >> 5] |= (uint32_t)1 << (c & 31);
}

/* The ASCII classes: the C locale's, which is the only one retry uses. */
static bool
class_has(const char *name, int c)
{
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9';
	bool space = c == ' ' || (c >= '\t' && c <= '\r');
	bool print = c >= 0x20 && c < 0x7f;

	if (strcmp(name, "alpha") == 0)
		return upper || lower;
	if (strcmp(name, "upper") == 0)
		return upper;
	if (strcmp(name, "lower") == 0)
		return lower;
	if (strcmp(name, "digit") == 0)
		return digit;
	if (strcmp(name, "alnum") == 0)
		return upper || lower || digit;
	if (strcmp(name, "xdigit") == 0)
		return digit || (c >= 'A' && c <= 'F') ||
		    (c >= 'a' && c <= 'f');
	if (strcmp(name, "space") == 0)
		return space;
	if (strcmp(name, "blank") == 0)
		return c == ' ' || c == '\t';
	if (strcmp(name, "print") == 0)
		return print;
	if (strcmp(name, "graph") == 0)
		return print && c != ' ';
	if (strcmp(name, "punct") == 0)
		return print && c != ' ' && !upper && !lower && !digit;
	return c < 0x20 || c == 0x7f;	/* cntrl */
}

bool
class_known(const char *name)
{
	static const char *const names[] = { "alpha", "upper", "lower",
	    "digit", "alnum", "xdigit", "space", "blank", "print", "graph",
	    "punct", "cntrl" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

void
set_class(uint32_t *s, const char *name)
{
	int c;

	for (c = 0; c < 256; c++)
		if (class_has(name, c))
			set_add(s, c);
}

/* Lines hold no newline: a negated set leaves it out, as glibc does. */
void
set_negate(uint32_t *s)
{
	int i;

	for (i = 0; i < 8; i++)
		s[i] = ~s[i];
	s['\n' >> 5] &= ~((uint32_t)1 << ('\n' & 31));
}
