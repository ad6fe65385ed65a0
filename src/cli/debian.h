/*
 * debian.h: what debian.c offers options.c: the spelling here of an
 * option that Debian's retry(1) spells otherwise.
 */
#ifndef DEBIAN_H
#define DEBIAN_H

#include <stddef.h>

#include "os/defs.h"

#define DEBIAN_HINT_MAX	160	/* room for a hint with the user's values */

bool	 debian_hint(const char *name, const char *value, char *buf,
	    size_t len);

#endif /* DEBIAN_H */
