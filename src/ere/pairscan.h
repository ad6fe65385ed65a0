/*
 * pairscan.h: where in a buffer one of a few pairs of bytes is next, or
 * a byte of a few ranges (see pairscan.c), for eredfa.c to find the
 * lines that hold a literal and the bytes that can start a match.
 */
#ifndef PAIRSCAN_H
#define PAIRSCAN_H

#include <stddef.h>

#define PAIRS_MAX	8	/* pairs looked for at once, at most */
#define RANGES_MAX	4	/* ranges of bytes, at most */

/*
 * n pairs: pair k is the bytes a[k] then b[k], off[k] bytes after the
 * place it marks, which is where its literal begins.
 */
struct pairs {
	int		 n;
	unsigned char	 off[PAIRS_MAX];
	unsigned char	 a[PAIRS_MAX];
	unsigned char	 b[PAIRS_MAX];
};

/*
 * The first place w in p[from..len) where some pair k is whole within
 * the buffer: p[w + off[k]] == a[k] and p[w + off[k] + 1] == b[k]; len
 * if none.
 */
size_t	pairs_find(const struct pairs *ps, const unsigned char *p,
	    size_t from, size_t len);

/* n ranges of bytes, each from lo[k] to lo[k] + width[k]. */
struct ranges {
	int		 n;
	unsigned char	 lo[RANGES_MAX];
	unsigned char	 width[RANGES_MAX];
};

/* The first place in p[from..len) whose byte is in a range; len if none. */
size_t	ranges_find(const struct ranges *rs, const unsigned char *p,
	    size_t from, size_t len);

#endif /* PAIRSCAN_H */
