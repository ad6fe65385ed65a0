/*
 * ere-test: the table of hand-picked cases for src/ere/erecomp.c, run by
 * src/ere/tests/ere.bats.  Each case is an ERE and either the error it
 * must give or a text and where its leftmost match must start (-1: no
 * line matches); ere-lines.c adds the long lines that the NFA takes
 * over.  Prints one line per failed case and exits 1 if any failed;
 * with -v, one line per case.  The expected answers are glibc's
 * regexec() (REG_EXTENDED | REG_NEWLINE) on one line, and retry's own
 * choices where they differ on purpose (marked "retry:").
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ere/ere.h"
#include "ere-test.h"

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

int
main(int argc, char **argv)
{
	size_t i, nlines;
	bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	int failed = 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		failed += run(&tests[i], verbose);
	for (i = 0; i < sizeof(btests) / sizeof(btests[0]); i++)
		failed += run_bytes(&btests[i], verbose);
	failed += run_long();
	failed += run_lines(verbose, &nlines);
	printf("%zu cases, %d failed\n", sizeof(tests) / sizeof(tests[0]) +
	    sizeof(btests) / sizeof(btests[0]) + 1 + nlines, failed);
	return failed != 0;
}
