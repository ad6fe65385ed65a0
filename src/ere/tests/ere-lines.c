/*
 * ere-lines.c: ere-test's long lines, on which the DFA needs a new state
 * at nearly every byte so that the NFA takes them over, each fed whole,
 * in pieces and a byte at a time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ere/ere.h"
#include "ere-test.h"

/*
 * Long lines on which the DFA needs a new state at nearly every byte, so
 * that the NFA (src/ere/erenfa.c) takes them over: whether each matches and
 * where the match is seen (at, from the start of the text; the length
 * for a match seen only at the end of the stream), fed whole, in pieces
 * of 4093 and 509 bytes, and a byte at a time.  The text is 64 KiB of
 * random 'a' and 'b' (or of the bytes of alpha) with the edits given.
 */
struct ltest {
	const char	*ere;
	const char	*alpha;		/* the random bytes; NULL: "ab" */
	size_t		 len;
	const char	*edits;		/* "OFFSET:BYTES" ..., a '|' apart */
	bool		 match;
	size_t		 at;
};

#define LONG	((size_t)64 * 1024)
#define B64	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#define CHAIN	"[ab]*a[ab]{12}c"

static const struct ltest ltests[] = {
	/* The 'c' 13 bytes after an 'a': seen at the byte after it. */
	{ CHAIN, NULL, LONG, "40000:a|40013:c", true, 40014 },
	{ CHAIN, NULL, LONG, "40000:b|40013:c", false, 0 },
	{ "[ab]*a[ab]{1000}c", NULL, LONG, "50000:a|51001:c", true, 51002 },
	{ "[ab]*a[ab]{1000}c", NULL, LONG, "50000:b|51001:c", false, 0 },
	/* Anchors: only at the line's real start and end. */
	{ "^" CHAIN "$", NULL, LONG, "65522:a|65535:c", true, LONG },
	{ "^" CHAIN "$", NULL, LONG, "65521:a|65534:c|65535:\\n", true,
	    65535 },
	{ "^" CHAIN "$", NULL, LONG, "65520:a|65533:c|65535:\\n", false,
	    0 },
	{ "^" CHAIN, NULL, LONG, "1000:\\n|30000:a|30013:c", true, 30014 },
	{ "^" CHAIN, NULL, LONG, "1000:\\n|30000:a|30013:c|20000:d",
	    false, 0 },
	{ "(^|d)" CHAIN, NULL, LONG, "20000:d|30000:a|30013:c", true,
	    30014 },
	/* At the end of the stream, no newline after it. */
	{ CHAIN "$", NULL, LONG, "65522:a|65535:c", true, LONG },
	{ CHAIN "$", NULL, LONG, "65521:a|65535:c", false, 0 },
	{ CHAIN "\\>", NULL, LONG, "65522:a|65535:c", true, LONG },
	/* Word assertions. */
	{ "\\<" CHAIN "\\>", NULL, LONG, "1000: |40000:a|40013:c |", true,
	    40014 },
	{ "\\<" CHAIN "\\>", NULL, LONG, "1000: |40000:a|40013:cb", false,
	    0 },
	{ "\\b" CHAIN "\\b", NULL, LONG, "40000:a|40013:c.", true, 40014 },
	{ "\\B" CHAIN, NULL, LONG, "0:a|13:c", false, 0 },
	{ "\\B" CHAIN, NULL, LONG, "0:ba|14:c", true, 15 },
	{ "a\\Ba[ab]{12}c\\>", NULL, LONG, "9000:aa|9014:c-", true, 9015 },
	/* A NUL ends what is matched of a line; the next line is whole. */
	{ CHAIN, NULL, LONG, "40000:a|40005:\\0|40013:c", false, 0 },
	{ CHAIN, NULL, LONG, "40000:a|40005:\\0|40013:c|50000:\\n|"
	    "60000:a|60013:c", true, 60014 },
	{ "^[ab]*$", NULL, LONG, "40005:\\0|40013:c", true, 40005 },
	{ CHAIN, NULL, LONG, "40005:\\0|40100:a|40113:c", false, 0 },
	/* An empty match, where a word ends. */
	{ CHAIN "|\\>", NULL, LONG, "30000:-", true, 30000 },
	/* An empty line after a long one. */
	{ CHAIN "|^$", NULL, LONG, "60000:\\n\\n", true, 60001 },
	/* Far sets that are not ranges: w goes back to x. */
	{ CHAIN "|(xy|zw)+q", NULL, LONG, "30000:zwxyq", true, 30005 },
	/* Ranges that end alike: the widest is of the lowest consumer. */
	{ CHAIN "|x(a?b?){3}y", NULL, LONG, "30000:xababay", true, 30007 },
	{ CHAIN "|x(a?b?){3}y", NULL, LONG, "30000:xaaaay", false, 0 },
	/* Many such: one scan finds the lowest in the state. */
	{ CHAIN "|x(a?){30}y", NULL, LONG,
	    "30000:x" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "y", true, 30031 },
	{ CHAIN "|x(a?){30}y", NULL, LONG,
	    "30000:x" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "y", false, 0 },
	/* Bytes of 0x80 and above are bytes, and not word bytes. */
	{ "[ab\x80-\xff]*a[\x80-\xff]{12}c\\b", "\x80\xe9\xff" "ab", LONG,
	    "40000:a\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9"
	    "\\xe9\\xe9c\\xff", true, 40014 },
	{ "[ab\x80-\xff]*a[\x80-\xff]{12}c\\b", "\x80\xe9\xff" "ab", LONG,
	    "40000:a\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9\\xe9a"
	    "\\xe9\\xe9c\\xff", false, 0 },
	/*
	 * Short lines, the literals rarer than newlines: an anchored ERE
	 * skips to the lines that hold one, once a piece of 1 KiB or more
	 * is sampled (not in pieces of 509 or 1 byte); every ERE searches
	 * for the byte of each literal that the stream holds least.
	 */
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "40000:\\nHTTP/1.1 5", true,
	    40011 },
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "40000:xHTTP/1.1 5", false,
	    0 },
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "40925:\\nHTTP/1.0 5", true,
	    40936 },
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "65525:\\nHTTP/1.1 5", true,
	    LONG },
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "40000:\\n\\0HTTP/1.1 5",
	    false, 0 },
	{ "^HTTP/1\\.[01] 5", "abc\n", LONG, "40000:\\n\\0HTTP/1.1 5|"
	    "50000:\\nHTTP/1.1 5", true, 50011 },
	{ "^(timeout|refused)", "ab\n", LONG, "30000:\\nrefused", true,
	    30008 },
	{ "^\xff\xffzz", "a\xe9\xff\n", LONG, "30000:\\n\\xff\\xffzz",
	    true, 30005 },
	{ "^\xff\xffzz", "a\xe9\xff\n", LONG, "30000:\\n\\xff\\xffz",
	    false, 0 },
	{ "[0-9]+ (errors|failures)", "eros \n", LONG, "30000:12 errors",
	    true, 30009 },
	{ "[0-9]+ (errors|failures)", "eros \n", LONG, "30000:12 error s",
	    false, 0 },
	/*
	 * Words whose every byte is common in the stream, which is searched
	 * for them by a pair of their bytes (src/ere/pairscan.c), 32 places a
	 * step: found where a step begins and ends, across two pieces, at
	 * the very end, with bytes of 0x80 and above; not found when a byte
	 * is missing, or a NUL is before them on their line.
	 */
	{ "(timeout|refused|reset by peer)", B64, LONG, "32736:timeout",
	    true, 32743 },
	{ "(timeout|refused|reset by peer)", B64, LONG, "32761:refused",
	    true, 32768 },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "40920:reset by peer", true, 40933 },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "65523:reset by peer", true, LONG },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "65524:reset by peer", false, 0 },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "40920:reset by pe\\r", false, 0 },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "40900:\\n+\\0|40920:timeout", false, 0 },
	{ "(timeout|refused|reset by peer)", B64, LONG,
	    "40900:\\n+\\0|40920:timeout\\n|50000:refused", true, 50007 },
	/*
	 * Some words by a pair, some by a byte: every byte of "timeout"
	 * is common here, "refused" and "reset by peer" have one that never
	 * comes.  Whichever comes first is found.
	 */
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "30000:refused|40000:timeout", true, 30007 },
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "30000:timeout|40000:refused", true, 30007 },
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "30000:timeou|40000:reset by peer", true, 40013 },
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "65529:refused", true, LONG },
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "30000:refuse\n|65529:timeout", true, LONG },
	{ "(timeout|refused|reset by peer)", "timeou \n", LONG,
	    "30000:refuse\n|65529:timeou", false, 0 },
	{ "[0-9]+ (errors|failures)", "eros \n", LONG, "0:1 errors", true,
	    8 },
	{ "[0-9]+ (errors|failures)", "eros \n", LONG, "65526:7 failures",
	    true, LONG },
	{ "caf\xc3\xa9 (ok|bien)", "caf\xc3\xa9 \n", LONG,
	    "50000:caf\\xc3\\xa9 bien", true, 50010 },
	{ "caf\xc3\xa9 (ok|bien)", "caf\xc3\xa9 \n", LONG,
	    "50000:caf\\xc3\\xa9 bie\\xc3", false, 0 },
	/*
	 * First bytes in a few ranges, searched for 16 at a time: NUL ends
	 * what is matched of a line, bytes of 0x80 and above are bytes.
	 */
	{ "[0-9]+x", "ab\n", LONG, "30000:\\0|30001:5x", false, 0 },
	{ "[0-9]+x", "ab\n", LONG, "30000:\\0\\n5x", true, 30004 },
	{ "[0-9]+x", "ab\n", LONG, "65534:7x", true, LONG },
	{ "[\x80-\xff]+x", "ab\n", LONG, "40000:\\xe9x", true, 40002 },
	{ "[\x80-\xff]+x", "ab\n", LONG, "40000:\\x7fx", false, 0 },
	{ "x?(cd|dc)", "ab\n", LONG, "65534:cd", true, LONG },
	{ "x?(cd|dc)", "ab\n", LONG, "65535:d", false, 0 },
	/* A long a{1,1000}b: all its consumers are alive at once. */
	{ "a{1,1000}b", "a", LONG, "65535:b", true, LONG },
	{ "^a{1,1000}b", "a", LONG, "65535:b", false, 0 },
	{ "x|a{1,1000}b", "a", LONG, "20000:b", true, 20001 },
};

/* The bytes of s, its escapes \n, \0 and \xHH read, in out: how many. */
static size_t
unescape(const char *s, size_t n, unsigned char *out)
{
	size_t i, m = 0;
	unsigned x;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 == n) {
			out[m++] = (unsigned char)s[i];
			continue;
		}
		if (s[++i] == 'x' && sscanf(s + i + 1, "%2x", &x) == 1) {
			out[m++] = (unsigned char)x;
			i += 2;
		} else
			out[m++] = s[i] == 'n' ? '\n' : s[i] == '0' ? '\0' :
			    (unsigned char)s[i];
	}
	return m;
}

/* Whether text matches fed in pieces of step bytes, and then where. */
static bool
fed_at(struct ere *re, const unsigned char *text, size_t len, size_t step,
    size_t *at)
{
	struct ere_run *run = ere_run_new(re);
	size_t off, n;
	bool match = false;

	for (off = 0; off < len && !match; off += n) {
		n = len - off < step ? len - off : step;
		if ((match = ere_feed(re, run, (const char *)text + off, n,
		    at)))
			*at += off;
	}
	if (!match && (match = ere_feed_end(re, run)))
		*at = len;
	ere_run_free(run);
	return match;
}

static int
run_line(const struct ltest *t, bool verbose, unsigned char *text)
{
	static const size_t steps[] = { LONG + 1, 4093, 509, 1 };
	const char *alpha, *e, *why;
	struct ere *re;
	unsigned long r = 12345;
	size_t na, i, off, at = 0;
	bool bad = false, m;

	alpha = t->alpha != NULL ? t->alpha : "ab";
	na = strlen(alpha);
	for (i = 0; i < t->len; i++) {
		r = r * 1103515245 + 12345;
		text[i] = (unsigned char)alpha[(r >> 16) % na];
	}
	for (e = t->edits; *e != '\0'; e += *e == '|') {
		off = strtoul(e, (char **)&e, 10);
		i = strcspn(++e, "|");
		unescape(e, i, text + off);
		e += i;
	}
	if ((re = ere_compile(t->ere, &why)) == NULL) {
		printf("FAIL '%s': refused: %s\n", t->ere, why);
		return 1;
	}
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]) && !bad; i++) {
		m = fed_at(re, text, t->len, steps[i], &at);
		bad = m != t->match || (m && at != t->at);
		if (bad || verbose)
			printf("%s '%s' on a long line (%s) in pieces of %zu: "
			    "want %s %zu, got %s %zu\n", bad ? "FAIL" : "ok",
			    t->ere, t->edits, steps[i], t->match ? "match" :
			    "none", t->at, m ? "match" : "none", m ? at : 0);
	}
	ere_free(re);
	return bad;
}

/* Every long-line case; *count is how many there are. */
int
run_lines(bool verbose, size_t *count)
{
	static unsigned char line[LONG + 1];
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof(ltests) / sizeof(ltests[0]); i++)
		failed += run_line(&ltests[i], verbose, line);
	*count = sizeof(ltests) / sizeof(ltests[0]);
	return failed;
}
