/*
 * pairscan.c: finds where one of a few pairs of bytes is next in a
 * buffer, each pair at its own offset from the place it marks, so that
 * eredfa.c can find the lines that hold one of an ERE's literals by a
 * pair of their bytes.  A pair is far rarer than either of its bytes:
 * each letter of " errors" is common in a log, "rr" is not; on base64,
 * a byte comes every 64 bytes, a pair every 4096.  memchr() on one byte
 * stops at each of its many places; this looks at 16 bytes a step for
 * all the pairs at once, with the vector instructions every x86-64 and
 * every ARM with NEON has (SSE2, NEON), and elsewhere, or built
 * portable, a machine word a step in plain C.  Each way says exactly
 * where a pair is: the search is never wrong, only faster or slower.
 * It finds the same way the next byte in a few ranges ([0-9], [a-z]),
 * the bytes that can start a match of an ERE that has too many of them
 * for memchr() (eredfa.c's skip), 16 bytes a step, or one a step in C.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pairscan.h"

#if defined(__SSE2__) && !defined(RETRY_PORTABLE)
#include <emmintrin.h>
#define SCAN_SSE2
#elif defined(__ARM_NEON) && !defined(RETRY_PORTABLE)
#include <arm_neon.h>
#define SCAN_NEON
#endif

#if defined(SCAN_SSE2)
/* The lowest bit set in m, which is not 0: the first place found. */
static size_t
lowest_bit(unsigned long m)
{
	size_t bit;

	for (bit = 0; (m >> bit & 1) == 0; bit++)
		continue;
	return bit;
}
#elif defined(SCAN_NEON)
/* Whether a byte of v is not 0: a place found among its 16. */
static bool
any_lane(uint8x16_t v)
{
	uint8x8_t half = vorr_u8(vget_low_u8(v), vget_high_u8(v));

	return vget_lane_u64(vreinterpret_u64_u8(half), 0) != 0;
}
#endif

/* Whether some pair of ps is whole in p[0..len) at w. */
static bool
pair_at(const struct pairs *ps, const unsigned char *p, size_t w,
    size_t len)
{
	size_t j;
	int k;

	for (k = 0; k < ps->n; k++) {
		j = w + ps->off[k];
		if (j + 1 < len && p[j] == ps->a[k] && p[j + 1] == ps->b[k])
			return true;
	}
	return false;
}

/* The bytes past a place that the last of its pairs reaches to. */
static size_t
pairs_reach(const struct pairs *ps)
{
	size_t reach = 0;
	int k;

	for (k = 0; k < ps->n; k++)
		if ((size_t)ps->off[k] + 2 > reach)
			reach = (size_t)ps->off[k] + 2;
	return reach;
}

#if defined(SCAN_SSE2)
/* The 16 places from p + w where the pair va, vb is off bytes on. */
static __m128i
pair_hits(const unsigned char *p, size_t w, int off, __m128i va, __m128i vb)
{
	__m128i x, y;

	x = _mm_loadu_si128((const void *)(p + w + off));
	y = _mm_loadu_si128((const void *)(p + w + off + 1));
	return _mm_and_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb));
}

/*
 * From w, 32 places a step while all their pairs are in the buffer: the
 * first place with a pair, or where the steps stopped without one.
 */
static size_t
find_fast(const struct pairs *ps, const unsigned char *p, size_t w,
    size_t len)
{
	__m128i va[PAIRS_MAX], vb[PAIRS_MAX], h0, h1;
	size_t reach = pairs_reach(ps);
	unsigned long m;
	int k;

	for (k = 0; k < ps->n; k++) {
		va[k] = _mm_set1_epi8((char)ps->a[k]);
		vb[k] = _mm_set1_epi8((char)ps->b[k]);
	}
	for (; w + 31 + reach <= len; w += 32) {
		h0 = _mm_setzero_si128();
		h1 = h0;
		for (k = 0; k < ps->n; k++) {
			h0 = _mm_or_si128(h0, pair_hits(p, w, ps->off[k],
			    va[k], vb[k]));
			h1 = _mm_or_si128(h1, pair_hits(p, w + 16, ps->off[k],
			    va[k], vb[k]));
		}
		m = (unsigned long)_mm_movemask_epi8(h0) |
		    (unsigned long)_mm_movemask_epi8(h1) << 16;
		if (m != 0)
			return w + lowest_bit(m);
	}
	return w;
}
#elif defined(SCAN_NEON)
/* As above: the first of the 16 is then found one by one. */
static size_t
find_fast(const struct pairs *ps, const unsigned char *p, size_t w,
    size_t len)
{
	uint8x16_t va[PAIRS_MAX], vb[PAIRS_MAX], x, y, hit;
	size_t reach = pairs_reach(ps);
	int k;

	for (k = 0; k < ps->n; k++) {
		va[k] = vdupq_n_u8(ps->a[k]);
		vb[k] = vdupq_n_u8(ps->b[k]);
	}
	for (; w + 15 + reach <= len; w += 16) {
		hit = vdupq_n_u8(0);
		for (k = 0; k < ps->n; k++) {
			x = vld1q_u8(p + w + ps->off[k]);
			y = vld1q_u8(p + w + ps->off[k] + 1);
			hit = vorrq_u8(hit, vandq_u8(vceqq_u8(x, va[k]),
			    vceqq_u8(y, vb[k])));
		}
		if (any_lane(hit))
			return w;
	}
	return w;
}
#else
#define ONES	((size_t)-1 / 255)	/* 0x01 in every byte */
#define LOWS	(ONES * 0x7f)

/* A word with 0x80 in each byte where z has 0, and 0 elsewhere. */
static size_t
zero_bytes(size_t z)
{
	return ~(((z & LOWS) + LOWS) | z | LOWS);
}

/* As above, a word of places a step, in C alone. */
static size_t
find_fast(const struct pairs *ps, const unsigned char *p, size_t w,
    size_t len)
{
	size_t reach = pairs_reach(ps), x, y, hit;
	int k;

	for (; w + sizeof(size_t) - 1 + reach <= len; w += sizeof(size_t)) {
		hit = 0;
		for (k = 0; k < ps->n; k++) {
			memcpy(&x, p + w + ps->off[k], sizeof(x));
			memcpy(&y, p + w + ps->off[k] + 1, sizeof(y));
			hit |= zero_bytes((x ^ ps->a[k] * ONES) |
			    (y ^ ps->b[k] * ONES));
		}
		if (hit != 0)
			return w;
	}
	return w;
}
#endif

size_t
pairs_find(const struct pairs *ps, const unsigned char *p, size_t from,
    size_t len)
{
	size_t w;

	if (ps->n == 0 || from >= len)
		return len;
	for (w = find_fast(ps, p, from, len); w < len; w++)
		if (pair_at(ps, p, w, len))
			return w;
	return len;
}

/* Whether byte c is in one of the ranges of rs. */
static bool
in_ranges(const struct ranges *rs, unsigned char c)
{
	int k;

	for (k = 0; k < rs->n; k++)
		if ((unsigned char)(c - rs->lo[k]) <= rs->width[k])
			return true;
	return false;
}

#if defined(SCAN_SSE2)
/* From w, 16 bytes a step: the first in a range, or where it stopped. */
static size_t
ranges_fast(const struct ranges *rs, const unsigned char *p, size_t w,
    size_t len)
{
	__m128i lo[RANGES_MAX], width[RANGES_MAX], x, t, hit;
	unsigned m;
	int k;

	for (k = 0; k < rs->n; k++) {
		lo[k] = _mm_set1_epi8((char)rs->lo[k]);
		width[k] = _mm_set1_epi8((char)rs->width[k]);
	}
	for (; w + 16 <= len; w += 16) {
		x = _mm_loadu_si128((const void *)(p + w));
		hit = _mm_setzero_si128();
		for (k = 0; k < rs->n; k++) {
			/* c - lo, unsigned, is at most width: in the range */
			t = _mm_sub_epi8(x, lo[k]);
			hit = _mm_or_si128(hit, _mm_cmpeq_epi8(_mm_min_epu8(t,
			    width[k]), t));
		}
		if ((m = (unsigned)_mm_movemask_epi8(hit)) != 0)
			return w + lowest_bit(m);
	}
	return w;
}
#elif defined(SCAN_NEON)
static size_t
ranges_fast(const struct ranges *rs, const unsigned char *p, size_t w,
    size_t len)
{
	uint8x16_t lo[RANGES_MAX], width[RANGES_MAX], x, hit;
	int k;

	for (k = 0; k < rs->n; k++) {
		lo[k] = vdupq_n_u8(rs->lo[k]);
		width[k] = vdupq_n_u8(rs->width[k]);
	}
	for (; w + 16 <= len; w += 16) {
		x = vld1q_u8(p + w);
		hit = vdupq_n_u8(0);
		for (k = 0; k < rs->n; k++)
			hit = vorrq_u8(hit, vcleq_u8(vsubq_u8(x, lo[k]),
			    width[k]));
		if (any_lane(hit))
			return w;
	}
	return w;
}
#else
static size_t
ranges_fast(const struct ranges *rs, const unsigned char *p, size_t w,
    size_t len)
{
	(void)rs;
	(void)p;
	(void)len;
	return w;
}
#endif

size_t
ranges_find(const struct ranges *rs, const unsigned char *p, size_t from,
    size_t len)
{
	size_t w;

	if (from >= len)
		return len;
	for (w = ranges_fast(rs, p, from, len); w < len; w++)
		if (in_ranges(rs, p[w]))
			return w;
	return len;
}
