/*
 * sha1.c: SHA-1 (FIPS 180-4), for one thing only: the name by which Redis
 * knows the fleet's Lua script, which EVALSHA sends instead of the
 * script.  The script is put together at build time from guard.lua and
 * guardcodes.h, so its digest is computed here, when it is needed,
 * rather than by a tool that not every build host has.  Not for
 * anything that needs a collision-resistant hash: Redis chose it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sha1.h"

struct sha1 {
	uint32_t	h[5];
	unsigned char	block[64];
	size_t		used;		/* bytes in block */
	uint64_t	bits;		/* of the whole message */
};

static uint32_t
rol(uint32_t x, int n)
{
	return x << n | x >> (32 - n);
}

/* f and K of round t (FIPS 180-4, 4.1.1 and 4.2.1). */
static uint32_t
round_f(int t, uint32_t b, uint32_t c, uint32_t d, uint32_t *k)
{
	if (t < 20) {
		*k = 0x5a827999;
		return (b & c) | (~b & d);
	}
	if (t < 40) {
		*k = 0x6ed9eba1;
		return b ^ c ^ d;
	}
	if (t < 60) {
		*k = 0x8f1bbcdc;
		return (b & c) | (b & d) | (c & d);
	}
	*k = 0xca62c1d6;
	return b ^ c ^ d;
}

static void
sha1_block(struct sha1 *s)
{
	const unsigned char *p = s->block;
	uint32_t w[80], v[5], k, f, tmp;
	int t;

	for (t = 0; t < 16; t++, p += 4)
		w[t] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		    (uint32_t)p[2] << 8 | p[3];
	for (; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	memcpy(v, s->h, sizeof(v));
	for (t = 0; t < 80; t++) {
		f = round_f(t, v[1], v[2], v[3], &k);
		tmp = rol(v[0], 5) + f + v[4] + k + w[t];
		v[4] = v[3];
		v[3] = v[2];
		v[2] = rol(v[1], 30);
		v[1] = v[0];
		v[0] = tmp;
	}
	for (t = 0; t < 5; t++)
		s->h[t] += v[t];
	s->used = 0;
}

static void
sha1_byte(struct sha1 *s, unsigned char c)
{
	s->block[s->used++] = c;
	if (s->used == sizeof(s->block))
		sha1_block(s);
}

void
sha1_hex(const void *data, size_t len, char hex[SHA1_HEX_LEN + 1])
{
	struct sha1 s = { { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
	    0xc3d2e1f0 }, { 0 }, 0, 0 };
	const unsigned char *p = data;
	size_t i;

	s.bits = (uint64_t)len * 8;
	while (len-- > 0)
		sha1_byte(&s, *p++);
	/* The padding: 0x80, zeros up to 56 mod 64, the length in bits. */
	sha1_byte(&s, 0x80);
	while (s.used != 56)
		sha1_byte(&s, 0);
	for (i = 8; i-- > 0;)
		sha1_byte(&s, (unsigned char)(s.bits >> (8 * i)));
	for (i = 0; i < 5; i++)
		snprintf(hex + 8 * i, 9, "%08lx", (unsigned long)s.h[i]);
}
