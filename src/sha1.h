/*
 * sha1.h: the SHA-1 of a text in hexadecimal, the name by which Redis
 * knows a script (EVALSHA).
 */
#ifndef SHA1_H
#define SHA1_H

#include <stddef.h>

#define SHA1_HEX_LEN	40

void	sha1_hex(const void *data, size_t len, char hex[SHA1_HEX_LEN + 1]);

#endif /* SHA1_H */
