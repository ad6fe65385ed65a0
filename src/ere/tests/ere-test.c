/*
 * ere-test: the table of hand-picked cases for src/ere/ere.c, run by
 * src/ere/tests/ere.bats.  Each case is an ERE and either the error it
 * must give or a text and where its leftmost match must start (-1: no
 * line matches).  Prints one line per failed case and exits 1 if any failed;
 * with -v, one line per case.  The expected answers are glibc's
 * regexec() (REG_EXTENDED | REG_NEWLINE) on one line, and retry's own
 * choices where they differ on purpose (marked "retry:").
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ere/ere.h"

struct test {
	const char	*ere;
	const char	*text;		/* NULL: must be refused */
	long		 start;		/* or the reason */
	const char	*why;
};

#define NO	(-1)
#define ERR(e, w)	{ e, NULL, 0, w }

static const struct test tests[] = {
	/* Literals, dot, concatenation, alternation. */
	{ "error:", "an error: x", 3, NULL },
	{ "error:", "an errr: x", NO, NULL },
	{ "a.c", "xabc", 1, NULL },
	{ "a.c", "a\nc", NO, NULL },		/* lines one by one */
	{ "ab|cd", "xxcdab", 2, NULL },
	/*
	 * Built with -DERE_PAIRS_ALWAYS, "refused" is searched for by a
	 * byte and the others by pairs, which stop at the fourth "me" or
	 * "by" without a literal, the bytes taking over from there: the
	 * "refused" found before is still found.
	 */
	{ "(timeout|refused|reset by peer)", "ab\nzzrefused me by me by\nq",
	    5, NULL },
	/* And its byte stops at the fourth 'f' without it, the pairs then. */
	{ "(timeout|refused|reset by peer)", "f f f f\nab refused\nq", 11,
	    NULL },
	{ "a|", "xyz", 0, NULL },		/* empty alternative */
	{ "|a", "xyz", 0, NULL },
	{ "(|a)b", "xab", 1, NULL },
	{ "()", "", 0, NULL },
	{ "a)", "xa)", 1, NULL },		/* unmatched ) is literal */
	{ "}", "a}", 1, NULL },
	{ "a]", "a]", 0, NULL },
	/* The leftmost match, not the first to end. */
	{ "b|ab", "xab", 1, NULL },
	{ "a.*b", "ccaxxb", 2, NULL },
	{ "(a|ab)(c|bcd)", "abcd", 0, NULL },
	{ "x*", "abc", 0, NULL },
	{ "bc*d|c", "abccd", 1, NULL },
	/* Repetition and intervals. */
	{ "ab+c", "ac abbc", 3, NULL },
	{ "ab?c", "abbc ac", 5, NULL },
	{ "a**", "b", 0, NULL },
	{ "a+?", "ba", 0, NULL },
	{ "a{3}", "aa aaa", 3, NULL },
	{ "a{2,3}b", "ab aab", 3, NULL },
	{ "a{2,}b", "ab aaaab", 3, NULL },
	{ "a{,2}b", "b", 0, NULL },
	{ "^a{,2}$", "aaa", NO, NULL },
	{ "a{,}b", "aaab", 0, NULL },
	{ "x{0}y", "y", 0, NULL },
	{ "a{1}{2}", "xaa", 1, NULL },
	{ "(ab){2}", "abxabab", 3, NULL },
	{ "((a*)*)*b", "aaac", NO, NULL },
	{ "(a*)*(b|c)", "aac", 0, NULL },
	/* Brackets. */
	{ "[abc]+", "xxcab", 2, NULL },
	{ "[^abc]", "abcd", 3, NULL },
	{ "[]a]", "x]", 1, NULL },
	{ "[^]a]", "]ab", 2, NULL },
	{ "[a-]", "x-", 1, NULL },
	{ "[--z]", "!.", 1, NULL },
	{ "[%--]", "a,", 1, NULL },
	{ "[a-c-]", "d-", 1, NULL },
	{ "[[:alpha:]]", "1_b", 2, NULL },
	{ "[[:digit:][:space:]]", "ab 1", 2, NULL },
	{ "[[:upper:]]", "abC", 2, NULL },
	{ "[[:lower:]]", "ABc", 2, NULL },
	{ "[[:alnum:]]", "-_9", 2, NULL },
	{ "[[:xdigit:]]", "xyzF", 3, NULL },
	{ "[[:punct:]]", "ab_", 2, NULL },
	{ "[[:blank:]]", "a\tb", 1, NULL },
	{ "[[:cntrl:]]", "a\001", 1, NULL },
	{ "[[:graph:]]", "  x", 2, NULL },
	{ "[[:print:]]", "\001 ", 1, NULL },
	{ "[[.a.]-c]", "xb", 1, NULL },
	{ "[[.-.]]", "a-", 1, NULL },
	{ "[[=e=]]", "ae", 1, NULL },
	{ "[\\]", "a\\", 1, NULL },
	{ "[a-\xff]", "\xe9", 0, NULL },	/* bytes, not characters */
	{ ".", "\xe9", 0, NULL },
	{ "[[:alpha:]]", "\xe9", NO, NULL },
	/* Anchors and the GNU escapes. */
	{ "^b", "ab\nbc", 3, NULL },		/* at each line's start */
	{ "a$", "ab\nca", 4, NULL },
	{ "^$", "a\n\nb", 2, NULL },
	{ "b^a", "ba", NO, NULL },
	{ "a$b", "ab", NO, NULL },
	{ "(^a)", "ba\na", 3, NULL },
	{ "\\`a", "ba\na", 3, NULL },		/* retry: each line's start */
	{ "a\\'", "ab\na", 3, NULL },		/* retry: each line's end */
	{ "\\bfoo\\b", "foobar foo", 7, NULL },
	{ "\\Bo", "o oo", 3, NULL },
	{ "\\B", "", 0, NULL },
	{ "\\b", "", NO, NULL },
	{ "\\<b", "ab b", 3, NULL },
	{ "a\\>", "ab a", 3, NULL },
	{ "\\w+", "-- x_1", 3, NULL },
	{ "\\W", "ab-", 2, NULL },
	{ "\\s", "ab c", 2, NULL },
	{ "\\S", "  c", 2, NULL },
	{ "\\.", "ab.", 2, NULL },		/* escaped: literal */
	{ "\\n", "anb", 1, NULL },
	{ "\\{", "a{", 1, NULL },
	{ "\\(a", "(a", 0, NULL },
	/* A match on the second line of a block, and at an empty line. */
	{ "needle", "hay\nhay needle\n", 8, NULL },
	{ "x*$", "abc", 3, NULL },
	/*
	 * The literals every match holds (erelit.c), which the search skips
	 * to: at a line's start and end, before the start of the match, on
	 * a line that does not match before one that does, past 16 bytes,
	 * bytes of 0x80 and above; none where a branch has none.
	 */
	{ "timeout|refused", "refused", 0, NULL },
	{ "x?(ab|cd)", "zzzcd", 3, NULL },
	/* Pairs that keep stopping without a literal: bytes take over. */
	{ "(Xyz1|Xyz2)", "Xy Xy Xy Xy Xy\nzz Xyz2\nq", 18, NULL },
	{ "(Xyz1|Xyz2)", "Xy Xy Xy Xy Xy\nzz Xyz3\nXyz1", 23, NULL },
	{ "x?(ab|cd)", "zzzc", NO, NULL },
	{ "(timeout|refused|reset by peer)", "connection reset by peer", 11,
	    NULL },
	{ "[0-9]+ (errors|failures)", "ok\nran 12 errors\n", 7, NULL },
	{ "[0-9]+ (errors|failures)", "errors 3 failure", NO, NULL },
	{ "[0-9]+ failures", "3 x failures\n4 failures", 13, NULL },
	{ "(ab|cd)+e", "xabcde", 1, NULL },
	{ "x*abc", "ab\nzzabc", 5, NULL },
	{ "a(b|)c", "xac", 1, NULL },
	{ "er?ror", "an eror", 3, NULL },
	{ "[Ee]rror", "an Error", 3, NULL },
	{ "\\bfoo\\b", "afoo\nxfoo foo", 10, NULL },
	{ "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyZ\n"
	    "abcdefghijklmnopqrstuvwxyz", 27, NULL },
	{ "caf\xc3\xa9 (ok|bien)", "un caf\xc3\xa9\ncaf\xc3\xa9 bien", 9,
	    NULL },
	{ "foo|[0-9]", "bar 7\nbaz", 4, NULL },
	{ "a|b*", "xyz", 0, NULL },
	{ "b(timeout)?", "xb\na", 1, NULL },
	{ "[0-9](errors)*", "7\nx", 0, NULL },
	{ "^(timeout|refused)", "a refused\nrefused", 10, NULL },
	{ "refused$", "refused x\nis refused", 13, NULL },
	/* Errors, in glibc's words where glibc refuses the same. */
	ERR("(", "Unmatched ( or \\("),
	ERR("a(b", "Unmatched ( or \\("),
	ERR("a{2", "Unmatched \\{"),
	ERR("a{1,", "Unmatched \\{"),
	ERR("a{x", "Unmatched \\{"),
	ERR("a{}", "Invalid content of \\{\\}"),
	ERR("a{2,1}", "Invalid content of \\{\\}"),
	ERR("a{1,2,3}", "Invalid content of \\{\\}"),
	ERR("a{32768}", "Regular expression too big"),
	ERR("*a", "Invalid preceding regular expression"),
	ERR("a|*b", "Invalid preceding regular expression"),
	ERR("(+a)", "Invalid preceding regular expression"),
	ERR("{1}", "Invalid preceding regular expression"),
	ERR("^*", "Invalid preceding regular expression"),
	ERR("a$?", "Invalid preceding regular expression"),
	ERR("\\b*", "Invalid preceding regular expression"),
	ERR("[a", "Unmatched [, [^, [:, [., or [="),
	ERR("[^]", "Unmatched [, [^, [:, [., or [="),
	ERR("[[:alpha:", "Unmatched [, [^, [:, [., or [="),
	ERR("[[:alpha]]", "Unmatched [, [^, [:, [., or [="),
	ERR("[z-a]", "Invalid range end"),
	ERR("[a-c-e]", "Invalid range end"),
	ERR("[[:alpha:]-z]", "Invalid range end"),
	ERR("[[=a=]-z]", "Invalid range end"),
	ERR("[[:foo:]]", "Invalid character class name"),
	ERR("[[.space.]]", "Invalid collation character"),
	ERR("[[=ab=]]", "Invalid collation character"),
	ERR("[[..]-a]", "Invalid collation character"),
	ERR("\\", "Trailing backslash"),
	ERR("a\\", "Trailing backslash"),
	/* retry's own refusals. */
	ERR("(a)\\1", "back-references are not supported"),
	ERR("\\9", "back-references are not supported"),
	ERR("a\nb", "contains a newline"),
	ERR("(a{100}){100}", "too complex"),
	ERR("a{4097}", "too complex"),
	ERR("a{32767}", "too complex"),	/* retry: glibc takes it */
	/* Neither the DFA nor the NFA is fast on it: every copy is optional. */
	ERR("((ab)*c*){300}", "too complex"),
};

static bool	pieces_agree(struct ere *re, const char *text, size_t len,
		    bool want);

static int
run(const struct test *t, bool verbose)
{
	const char *why = NULL;
	struct ere *re = ere_compile(t->ere, &why);
	size_t start = 0;
	long got;
	int bad;

	if (t->text == NULL) {
		bad = re != NULL || strcmp(why, t->why) != 0;
		if (bad || verbose)
			printf("%s '%s': want \"%s\", got \"%s\"\n",
			    bad ? "FAIL" : "ok", t->ere, t->why,
			    re != NULL ? "(compiled)" : why);
		ere_free(re);
		return bad;
	}
	if (re == NULL) {
		printf("FAIL '%s': refused: %s\n", t->ere, why);
		return 1;
	}
	got = ere_exec(re, t->text, strlen(t->text), &start) ?
	    (long)start : NO;
	bad = got != t->start;
	/* A stream of lines: "x\n" holds one line; ere_exec() sees two. */
	if (!bad && (*t->text == '\0' || t->text[strlen(t->text) - 1] != '\n'))
		bad = !pieces_agree(re, t->text, strlen(t->text), got != NO &&
		    *t->text != '\0');
	if (bad || verbose)
		printf("%s '%s' on '%s': want %ld, got %ld\n", bad ? "FAIL" :
		    "ok", t->ere, t->text, t->start, got);
	ere_free(re);
	return bad;
}

/*
 * Cases for the stream of lines that retry feeds in pieces (ere_feed()),
 * with their length: a NUL ends what is matched of a line, bytes of 0x80
 * and above are bytes, ^ and $ are a line's real start and end.
 */
struct btest {
	const char	*ere;
	const char	*text;
	size_t		 len;
	bool		 match;
};

#define B(e, t, m)	{ e, t, sizeof(t) - 1, m }

static const struct btest btests[] = {
	B("b$", "ab\0cd", true),		/* the line ends at its NUL */
	B("cd", "ab\0cd", false),
	B("c", "ab\0c", false),		/* skipping stops at a NUL */
	B("[cd]", "ab\0xd", false),
	B("a.c", "a\0c", false),
	B("cd", "ab\0x\ncd", true),		/* the next line is whole */
	B("^cd$", "ab\0x\ncd", true),
	B("^$", "\0abc", true),
	B("^x", "\0\nx", true),
	B("\xff$", "a\xff", true),
	B("^[\x80-\xff]+$", "\x80\xc3\xa9\xff", true),
	B("caf\xc3\xa9$", "un caf\xc3\xa9", true),
	B("[[:alpha:]]$", "\xc3\xa9", false),
	B("^ab", "xab\nab", true),
	B("^ab", "xab\nxab", false),
	B("^a|b", "xxb", true),
	B("(^|x)a", "ya\nza", false),
	B("(^|x)a", "ya\nxa", true),
	B("\\`a", "ba", false),
	B("a\\'", "ab\nba", true),
	B("a$", "aaaaaaaax", false),
	B("^x*$", "", false),		/* no line at all */
	B("^$", "a\n", false),		/* no empty line after it */
	B("^$", "a\n\n", true),
	/*
	 * The literals' search: each case is also cut everywhere, so that a
	 * literal is cut across two pieces and a line is cut before it.
	 */
	B("timeout", "xx\ntimeout", true),
	B("timeout", "timeou\nt", false),
	B("reset by peer", "a\0reset by peer", false),
	B("reset by peer", "a\0x\nreset by peer", true),
	B("reset by peer", "reset by peer\0x", true),
	B("[0-9]+ errors", "1\0 errors", false),
	B("[0-9]+ (errors|failures)", "a\nb\nc\n12 failures", true),
	B("[0-9]+ (errors|failures)", "12 failures\n", true),
	B("[0-9]+ (errors|failures)", "12 fail\nures", false),
	B("[0-9]+ failures", "3 x failures\n4 failures", true),
	B("[0-9]+ failures", "3 x failures\n4 x failures", false),
	B("\xe9t\xe9 (ok|bien)", "\xe9t\xe9 bien", true),
	B("\xe9t\xe9 (ok|bien)", "\xe9t\xe8 bien\n\xe9t\xe9 ok", true),
	B("x*abc", "zzzzzzzzab\nc abc", true),
	B("x*abc", "zzzzzzzzab\nc ab", false),
	B("foo|[0-9]", "bar 7\nbaz", true),
	B("[0-9]|foo", "bar 7\nbaz", true),
	B("b(timeout)?", "xb\na", true),
	B("^(timeout|refused)", "xtimeout\nrefused", true),
	B("^(timeout|refused)", "xtimeout\nxrefused", false),
	B("\\<refused", "unrefused\nrefused", true),
	B("refused$", "refused x\nrefused", true),
	B("(ab|cd)+e", "xx\nababcde", true),
};

/* Whether text matches, fed in pieces that end at each cut[]. */
static bool
fed(struct ere *re, const char *text, size_t len, const size_t *cut,
    int ncut)
{
	struct ere_run *run = ere_run_new(re);
	size_t at, from = 0;
	bool match = false;
	int i;

	for (i = 0; i <= ncut && !match; i++) {
		size_t to = i < ncut ? cut[i] : len;

		match = ere_feed(re, run, text + from, to - from, &at);
		from = to;
	}
	if (!match)
		match = ere_feed_end(re, run);
	ere_run_free(run);
	return match;
}

/*
 * Whether text gets the same answer want whole, cut once anywhere, and
 * fed a byte at a time.
 */
static bool
pieces_agree(struct ere *re, const char *text, size_t len, bool want)
{
	size_t cut[1024] = { 0 }, i;
	bool ok = fed(re, text, len, cut, 0) == want;

	for (i = 0; i <= len && ok; i++) {
		cut[0] = i;
		ok = fed(re, text, len, cut, 1) == want;
	}
	for (i = 0; i < len && i < 1024; i++)
		cut[i] = i + 1;
	return ok && (len > 1024 || fed(re, text, len, cut, (int)len) ==
	    want);
}

static int
run_bytes(const struct btest *t, bool verbose)
{
	const char *why;
	struct ere *re = ere_compile(t->ere, &why);
	bool ok;

	if (re == NULL) {
		printf("FAIL '%s': refused: %s\n", t->ere, why);
		return 1;
	}
	ok = pieces_agree(re, t->text, t->len, t->match);
	if (!ok || verbose)
		printf("%s '%s' fed in pieces (%zu bytes): want %s\n",
		    ok ? "ok" : "FAIL", t->ere, t->len, t->match ? "match" :
		    "none");
	ere_free(re);
	return !ok;
}

/* A long line: linear time, and the DFA cache emptied and refilled. */
static int
run_long(void)
{
	static char line[64 * 1024 + 2];
	const char *why;
	struct ere *re = ere_compile("(a|aa)*c|a.*b|x[a-z]{1,20}y", &why);
	size_t start = 0, i;
	int bad = 0;

	if (re == NULL)
		return 1;
	memset(line, 'a', sizeof(line) - 2);
	bad |= ere_exec(re, line, sizeof(line) - 2, &start);
	line[sizeof(line) - 2] = 'c';
	bad |= !ere_exec(re, line, sizeof(line) - 1, &start) || start != 0;
	ere_free(re);
	/* Many distinct states: letters in every order. */
	re = ere_compile("[a-m]*[n-z][a-z]{12}q", &why);
	if (re == NULL)
		return 1;
	for (i = 0; i < sizeof(line) - 2; i++)
		line[i] = (char)('a' + (i * 7 + i / 26) % 26);
	bad |= ere_exec(re, line, sizeof(line) - 2, &start);
	line[100] = 'q';
	line[87] = 'n';
	bad |= !ere_exec(re, line, sizeof(line) - 2, &start);
	ere_free(re);
	if (bad)
		printf("FAIL long lines\n");
	return bad;
}

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

int
main(int argc, char **argv)
{
	static unsigned char line[LONG + 1];
	bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		failed += run(&tests[i], verbose);
	for (i = 0; i < sizeof(btests) / sizeof(btests[0]); i++)
		failed += run_bytes(&btests[i], verbose);
	failed += run_long();
	for (i = 0; i < sizeof(ltests) / sizeof(ltests[0]); i++)
		failed += run_line(&ltests[i], verbose, line);
	printf("%zu cases, %d failed\n", sizeof(tests) / sizeof(tests[0]) +
	    sizeof(btests) / sizeof(btests[0]) + 1 + sizeof(ltests) /
	    sizeof(ltests[0]), failed);
	return failed != 0;
}
