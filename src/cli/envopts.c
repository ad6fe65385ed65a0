/*
 * envopts.c: the words of RETRY_OPTIONS.  envopts_split() cuts the
 * variable into words as sh(1) would cut a command line, with single
 * quotes, double quotes and backslashes, but without any expansion: a $,
 * a `, a * or a ~ is a character like any other, and nothing is run.
 * envopts_read() takes them from the environment, and
 * envopts_show() gives the words back quoted, for --verbose and
 * --dry-run.  Which options may come from the variable is options.c's
 * concern; nothing here exits or prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/defs.h"
#include "envopts.h"

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * Copies the word that starts at *sp to *dp: quotes removed, escapes
 * resolved.  NULL, with *sp past it, or why it cannot end.
 */
static const char *
copy_word(const char **sp, char **dp)
{
	const char *s = *sp;
	char *d = *dp, q = '\0';

	for (; *s != '\0' && (q != '\0' || !is_blank(*s)); s++) {
		if (q == '\'') {
			if (*s == '\'')
				q = '\0';
			else
				*d++ = *s;
		} else if (*s == '\\' && (q == '\0' || (s[1] != '\0' &&
		    strchr("\"\\$`\n", s[1]) != NULL))) {
			if (*++s == '\0')
				return "it ends with a backslash";
			if (*s != '\n')	/* a backslash-newline joins lines */
				*d++ = *s;
		} else if (*s == q)
			q = '\0';
		else if (q == '\0' && (*s == '\'' || *s == '"'))
			q = *s;
		else
			*d++ = *s;
	}
	if (q != '\0')
		return q == '\'' ? "unterminated single quote" :
		    "unterminated double quote";
	*d++ = '\0';
	*sp = s;
	*dp = d;
	return NULL;
}

/*
 * Splits s into words after argv0, as an argv for getopt_long with a
 * NULL at the end, in *argvp (one allocation, never freed: options point
 * into it) with their count, argv0 included, in *argcp.  -1, with the
 * reason in err (len bytes), when the quotes do not balance.
 */
int
envopts_split(const char *s, char *argv0, int *argcp, char ***argvp,
    char *err, size_t len)
{
	size_t n = strlen(s);
	char **v, *d;
	const char *why;
	int c = 0;

	/* At most one word per two bytes, plus argv0 and the NULL. */
	if ((v = malloc((n / 2 + 3) * sizeof(*v) + n + 1)) == NULL) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	d = (char *)(v + n / 2 + 3);
	v[c++] = argv0;
	for (;;) {
		/* A backslash-newline between words joins lines, as in sh. */
		while (is_blank(*s) || (s[0] == '\\' && s[1] == '\n'))
			s += *s == '\\' ? 2 : 1;
		if (*s == '\0')
			break;
		v[c++] = d;
		if ((why = copy_word(&s, &d)) != NULL) {
			snprintf(err, len, "%s", why);
			free(v);
			return -1;
		}
	}
	v[c] = NULL;
	*argcp = c;
	*argvp = v;
	return 0;
}

/*
 * RETRY_OPTIONS as words for parse_options(): *envc 0 when it is unset
 * or holds no word.  -1, with the reason in err, when a quote does not
 * end.
 */
int
envopts_read(char *argv0, int *envc, char ***envv, char *err, size_t len)
{
	const char *s = getenv("RETRY_OPTIONS");
	char why[128];

	*envc = 0;
	*envv = NULL;
	if (s == NULL || *s == '\0')
		return 0;
	if (envopts_split(s, argv0, envc, envv, why, sizeof(why)) != 0) {
		snprintf(err, len, "RETRY_OPTIONS: %s", why);
		return -1;
	}
	if (*envc < 2)
		*envc = 0;
	return 0;
}

/* A word needs quotes to be read back as one. */
static bool
needs_quotes(const char *w)
{
	return *w == '\0' || strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-+=,.:/@%^") != strlen(w);
}

/*
 * words[1] to words[argc - 1] as one line that splits back into them,
 * quoted with ' where needed; allocated, or NULL when out of memory.
 */
char *
envopts_show(int argc, char **words)
{
	size_t n = 1;
	const char *p;
	char *out, *d;
	int i;

	for (i = 1; i < argc; i++)
		n += 4 * strlen(words[i]) + 3;
	if ((out = d = malloc(n)) == NULL)
		return NULL;
	for (i = 1; i < argc; i++) {
		if (i > 1)
			*d++ = ' ';
		if (!needs_quotes(words[i])) {
			d = stpcpy(d, words[i]);
			continue;
		}
		*d++ = '\'';
		for (p = words[i]; *p != '\0'; p++)
			if (*p == '\'')
				d = stpcpy(d, "'\\''");
			else
				*d++ = *p;
		*d++ = '\'';
	}
	*d = '\0';
	return out;
}
