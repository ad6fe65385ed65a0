/*
 * eresyntax.c: the syntax of the POSIX extended regular expressions that
 * erecomp.c matches: a pattern read into a tree of nodes, as glibc's regcomp()
 * reads it with REG_EXTENDED | REG_NEWLINE in the C locale, byte by byte
 * (brackets, the 12 classes, intervals, the GNU escapes \w \W \s \S \b
 * \B \< \> \` \'), with glibc's words for the errors; back-references are
 * refused, since no linear matcher has them, and so is a newline, since
 * lines are matched one by one.  Each character, bracket, class and dot
 * becomes a set of bytes (ereclass.c), stored once among equal ones; each
 * node knows how many instructions it will compile to, so that a pattern
 * of more than ERE_MAX_PROG is refused here, before erecomp.c generates any
 * code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"		/* ERE_MAX_PROG */
#include "ereclass.h"
#include "eresyntax.h"

#define DUP_MAX		0x7fff	/* glibc's RE_DUP_MAX */
#define NEST_MAX	256	/* groups within groups: the man page says so */
#define NAME_MAX_B	32	/* glibc's BRACKET_NAME_BUF_SIZE */

/* ---- nodes and tokens -------------------------------------------------- */

enum ttype { T_END, T_CHAR, T_ALT, T_OPEN, T_CLOSE, T_STAR, T_PLUS,
	T_QUEST, T_LBRACE, T_RBRACE, T_BRACKET, T_DOT, T_ANCHOR, T_CLASS,
	T_BACKREF, T_BACKSLASH };

struct token {
	int	 type;
	int	 c;		/* the character, or the escaped one */
	int	 kind;		/* T_ANCHOR's assertion, T_CLASS's letter */
	int	 len;
};

struct parser {
	const unsigned char	*p, *end;
	int			 depth;
	const char		*why;
	struct node		*nodes;
	int			 nnodes, cap;
	byteset			*sets;
	int			 nsets, setcap;
};

static const char E_PAREN[] = "Unmatched ( or \\(";
static const char E_BRACE[] = "Unmatched \\{";
static const char E_BADBR[] = "Invalid content of \\{\\}";
static const char E_SIZE[] = "Regular expression too big";
static const char E_BADRPT[] = "Invalid preceding regular expression";
static const char E_BRACK[] = "Unmatched [, [^, [:, [., or [=";
static const char E_RANGE[] = "Invalid range end";
static const char E_CTYPE[] = "Invalid character class name";
static const char E_COLLATE[] = "Invalid collation character";
static const char E_ESCAPE[] = "Trailing backslash";
static const char E_SPACE[] = "Memory exhausted";
static const char E_BACKREF[] = "back-references are not supported";
static const char E_COMPLEX[] = "too complex";
static const char E_NEWLINE[] = "contains a newline";

static size_t
sat(size_t n)
{
	return n > ERE_MAX_PROG ? ERE_MAX_PROG + 1 : n;
}

/* A new node, or -1 with why set. */
static int
node_new(struct parser *ps, int type, int a, int b, size_t size)
{
	struct node *n;

	if (size > ERE_MAX_PROG) {
		ps->why = E_COMPLEX;
		return -1;
	}
	if (ps->nnodes == ps->cap) {
		int cap = ps->cap == 0 ? 64 : ps->cap * 2;

		n = realloc(ps->nodes, (size_t)cap * sizeof(*n));
		if (n == NULL) {
			ps->why = E_SPACE;
			return -1;
		}
		ps->nodes = n;
		ps->cap = cap;
	}
	n = &ps->nodes[ps->nnodes];
	*n = (struct node){ type, a, b, 0, 0, size };
	return ps->nnodes++;
}

/* A set node for s, the set stored once among equal ones. */
static int
node_set(struct parser *ps, const uint32_t *s)
{
	int i;

	for (i = 0; i < ps->nsets; i++)
		if (memcmp(ps->sets[i], s, sizeof(byteset)) == 0)
			return node_new(ps, N_SET, i, 0, 1);
	if (ps->nsets == ps->setcap) {
		int cap = ps->setcap == 0 ? 16 : ps->setcap * 2;
		byteset *n = realloc(ps->sets, (size_t)cap * sizeof(*n));

		if (n == NULL) {
			ps->why = E_SPACE;
			return -1;
		}
		ps->sets = n;
		ps->setcap = cap;
	}
	memcpy(ps->sets[ps->nsets], s, sizeof(byteset));
	return node_new(ps, N_SET, ps->nsets++, 0, 1);
}

static int
node_char(struct parser *ps, int c)
{
	byteset s = { 0 };

	set_add(s, c);
	return node_set(ps, s);
}

/* The token at p, as glibc's peek_token() reads an ERE. */
static void
peek(const struct parser *ps, struct token *t)
{
	const unsigned char *p = ps->p;
	int c;

	*t = (struct token){ T_CHAR, 0, 0, 1 };
	if (p == ps->end) {
		t->type = T_END;
		t->len = 0;
		return;
	}
	c = t->c = *p;
	if (c == '\\') {
		if (p + 1 == ps->end) {
			t->type = T_BACKSLASH;
			return;
		}
		c = t->c = p[1];
		t->len = 2;
		if (c >= '1' && c <= '9')
			t->type = T_BACKREF;
		else if (strchr("wWsS", c) != NULL) {
			t->type = T_CLASS;
			t->kind = c;
		} else if (c == '<' || c == '>' || c == 'b' || c == 'B' ||
		    c == '`' || c == '\'') {
			t->type = T_ANCHOR;
			t->kind = c == '<' ? A_WBEG : c == '>' ? A_WEND :
			    c == 'b' ? A_WORDB : c == 'B' ? A_NWORDB :
			    c == '`' ? A_BOL : A_EOL;
		}
		return;
	}
	switch (c) {
	case '|': t->type = T_ALT; break;
	case '(': t->type = T_OPEN; break;
	case ')': t->type = T_CLOSE; break;
	case '*': t->type = T_STAR; break;
	case '+': t->type = T_PLUS; break;
	case '?': t->type = T_QUEST; break;
	case '{': t->type = T_LBRACE; break;
	case '}': t->type = T_RBRACE; break;
	case '[': t->type = T_BRACKET; break;
	case '.': t->type = T_DOT; break;
	case '^': t->type = T_ANCHOR; t->kind = A_BOL; break;
	case '$': t->type = T_ANCHOR; t->kind = A_EOL; break;
	default: break;
	}
}

static void
fetch(struct parser *ps, struct token *t)
{
	peek(ps, t);
	ps->p += t->len;
}

/* ---- bracket expressions, read as glibc's parse_bracket_exp() does ---- */

enum btype { B_END, B_CHAR, B_RANGE, B_CLOSE, B_COLL, B_EQUIV, B_CCLASS };

struct belem {
	int	 type;		/* B_CHAR, B_COLL, B_EQUIV, B_CCLASS */
	int	 c;
	char	 name[NAME_MAX_B + 1];
};

static int
peek_b(const struct parser *ps, int *c)
{
	const unsigned char *p = ps->p;

	if (p == ps->end)
		return B_END;
	*c = *p;
	if (*p == '[' && p + 1 < ps->end) {
		if (p[1] == '.')
			return B_COLL;
		if (p[1] == '=')
			return B_EQUIV;
		if (p[1] == ':')
			return B_CCLASS;
	}
	return *p == '-' ? B_RANGE : *p == ']' ? B_CLOSE : B_CHAR;
}

static int
blen(int type)
{
	return type == B_COLL || type == B_EQUIV || type == B_CCLASS ? 2 :
	    type == B_END ? 0 : 1;
}

/* [.x.], [=x=] or [:name:], its opening read. */
static const char *
parse_symbol(struct parser *ps, struct belem *e, int type)
{
	int delim = type == B_COLL ? '.' : type == B_EQUIV ? '=' : ':';
	int i, ch;

	if (ps->p == ps->end)
		return E_BRACK;
	for (i = 0;; i++) {
		if (i >= NAME_MAX_B)
			return E_BRACK;
		ch = *ps->p++;
		if (ps->p == ps->end)
			return E_BRACK;
		if (ch == delim && *ps->p == ']')
			break;
		e->name[i] = (char)ch;
	}
	ps->p++;
	e->name[i] = '\0';
	e->type = type;
	return NULL;
}

static const char *
parse_belem(struct parser *ps, struct belem *e, int type, int c,
    bool accept_hyphen)
{
	int c2;

	ps->p += blen(type);
	if (type == B_COLL || type == B_EQUIV || type == B_CCLASS)
		return parse_symbol(ps, e, type);
	/* A '-' that starts no range may only come last. */
	if (type == B_RANGE && !accept_hyphen && peek_b(ps, &c2) != B_CLOSE)
		return E_RANGE;
	e->type = B_CHAR;
	e->c = c;
	return NULL;
}

static const char *
belem_add(uint32_t *s, const struct belem *e)
{
	switch (e->type) {
	case B_CHAR:
		set_add(s, e->c);
		return NULL;
	case B_CCLASS:
		if (!class_known(e->name))
			return E_CTYPE;
		set_class(s, e->name);
		return NULL;
	default:	/* in the C locale, single characters only */
		if (strlen(e->name) != 1)
			return E_COLLATE;
		set_add(s, (unsigned char)e->name[0]);
		return NULL;
	}
}

static const char *
range_add(uint32_t *s, const struct belem *a, const struct belem *b)
{
	int lo, hi, c;

	if (a->type == B_EQUIV || a->type == B_CCLASS ||
	    b->type == B_EQUIV || b->type == B_CCLASS)
		return E_RANGE;
	if ((a->type == B_COLL && strlen(a->name) != 1) ||
	    (b->type == B_COLL && strlen(b->name) != 1))
		return E_COLLATE;
	lo = a->type == B_CHAR ? a->c : (unsigned char)a->name[0];
	hi = b->type == B_CHAR ? b->c : (unsigned char)b->name[0];
	if (lo > hi)
		return E_RANGE;
	for (c = lo; c <= hi; c++)
		set_add(s, c);
	return NULL;
}

/* One element or range of a bracket expression; *type is the next token. */
static const char *
parse_bitem(struct parser *ps, uint32_t *s, int *type, int *c, bool first)
{
	struct belem a, b;
	const char *why;
	int t2, c2 = 0;

	if ((why = parse_belem(ps, &a, *type, *c, first)) != NULL)
		return why;
	*type = peek_b(ps, c);
	if (a.type != B_EQUIV && a.type != B_CCLASS) {
		if (*type == B_END)
			return E_BRACK;
		if (*type == B_RANGE) {
			ps->p++;
			t2 = peek_b(ps, &c2);
			if (t2 == B_END)
				return E_BRACK;
			if (t2 == B_CLOSE) {
				ps->p--;	/* the '-' is the last item */
				*type = B_CHAR;
			} else {
				if ((why = parse_belem(ps, &b, t2, c2,
				    true)) != NULL)
					return why;
				*type = peek_b(ps, c);
				return range_add(s, &a, &b);
			}
		}
	}
	return belem_add(s, &a);
}

static int
parse_bracket(struct parser *ps)
{
	byteset s = { 0 };
	bool neg = false, first = true;
	int type, c = 0;

	type = peek_b(ps, &c);
	if (type != B_END && c == '^' && type == B_CHAR) {
		neg = true;
		ps->p++;
		type = peek_b(ps, &c);
	}
	if (type == B_END) {
		ps->why = E_BRACK;
		return -1;
	}
	if (type == B_CLOSE)
		type = B_CHAR;	/* ']' first is itself */
	for (;;) {
		if ((ps->why = parse_bitem(ps, s, &type, &c, first)) != NULL)
			return -1;
		first = false;
		if (type == B_END) {
			ps->why = E_BRACK;
			return -1;
		}
		if (type == B_CLOSE)
			break;
	}
	ps->p++;
	if (neg)
		set_negate(s);
	return node_set(ps, s);
}

/* ---- the grammar: glibc's parse_reg(), parse_branch() and so on ------- */

static int	parse_reg(struct parser *);

/* The grammar recurses as deep as groups nest, at most NEST_MAX. */
/* NOLINTBEGIN(misc-no-recursion) */

/* A number of an interval, as glibc's fetch_number(): -1 none, -2 bad. */
static int
fetch_number(struct parser *ps, struct token *t)
{
	int num = -1;

	for (;;) {
		fetch(ps, t);
		if (t->type == T_END)
			return -2;
		if (t->type == T_RBRACE || t->c == ',')
			break;
		if (t->type != T_CHAR || t->c < '0' || t->c > '9' ||
		    num == -2)
			num = -2;
		else if (num == -1)
			num = t->c - '0';
		else
			num = num * 10 + t->c - '0' > DUP_MAX + 1 ?
			    DUP_MAX + 1 : num * 10 + t->c - '0';
	}
	return num;
}

/* {m,n}, its '{' read: the bounds, or why not. */
static const char *
parse_interval(struct parser *ps, int *min, int *max)
{
	struct token t;
	int start, end = 0;

	start = fetch_number(ps, &t);
	if (start == -1) {
		if (t.type == T_CHAR && t.c == ',')
			start = 0;	/* {,n} */
		else
			return E_BADBR;
	}
	if (start != -2)
		end = t.type == T_RBRACE ? start : t.type == T_CHAR &&
		    t.c == ',' ? fetch_number(ps, &t) : -2;
	if (start == -2 || end == -2)
		return t.type == T_END ? E_BRACE : E_BADBR;
	if ((end != -1 && start > end) || t.type != T_RBRACE)
		return E_BADBR;
	if ((end == -1 ? start : end) > DUP_MAX)
		return E_SIZE;
	*min = start;
	*max = end;
	return NULL;
}

static size_t
rep_size(size_t s, int min, int max)
{
	if (max == -1)
		return sat(min == 0 ? s + 2 : (size_t)min * s + 1);
	return sat((size_t)min * s + (size_t)(max - min) * (s + 1));
}

static int
node_rep(struct parser *ps, int sub, int min, int max)
{
	size_t s = ps->nodes[sub].size;
	int n;

	if ((min == 1 && max == 1) || ps->nodes[sub].type == N_EMPTY)
		return sub;
	if (max == 0)
		return node_new(ps, N_EMPTY, 0, 0, 0);
	if ((n = node_new(ps, N_REP, sub, 0, rep_size(s, min, max))) != -1) {
		ps->nodes[n].min = min;
		ps->nodes[n].max = max;
	}
	return n;
}

/* *, +, ? and intervals after an atom, as many as there are. */
static int
parse_dups(struct parser *ps, int atom)
{
	struct token t;
	int min, max;

	for (;;) {
		peek(ps, &t);
		if (t.type == T_STAR || t.type == T_PLUS || t.type == T_QUEST) {
			ps->p += t.len;
			min = t.type == T_PLUS ? 1 : 0;
			max = t.type == T_QUEST ? 1 : -1;
		} else if (t.type == T_LBRACE) {
			ps->p += t.len;
			if ((ps->why = parse_interval(ps, &min, &max)) != NULL)
				return -1;
		} else
			return atom;
		if ((atom = node_rep(ps, atom, min, max)) == -1)
			return -1;
	}
}

static int
parse_class_escape(struct parser *ps, int letter)
{
	byteset s = { 0 };

	if (letter == 'w' || letter == 'W') {
		set_class(s, "alnum");
		set_add(s, '_');
	} else
		set_class(s, "space");
	if (letter == 'W' || letter == 'S')
		set_negate(s);
	return node_set(ps, s);
}

static int
parse_group(struct parser *ps)
{
	struct token t;
	int n;

	if (++ps->depth > NEST_MAX) {
		ps->why = E_COMPLEX;
		return -1;
	}
	peek(ps, &t);
	if (t.type == T_CLOSE)
		n = node_new(ps, N_EMPTY, 0, 0, 0);
	else if ((n = parse_reg(ps)) == -1)
		return -1;
	fetch(ps, &t);
	if (t.type != T_CLOSE) {
		ps->why = E_PAREN;
		return -1;
	}
	ps->depth--;
	return n;
}

static int
parse_expression(struct parser *ps)
{
	byteset dot = { 0 };
	struct token t;
	int n;

	fetch(ps, &t);
	switch (t.type) {
	case T_OPEN:
		n = parse_group(ps);
		break;
	case T_BRACKET:
		n = parse_bracket(ps);
		break;
	case T_DOT:
		set_negate(dot);
		dot[0] &= ~(uint32_t)1;	/* nor NUL: RE_DOT_NOT_NULL */
		n = node_set(ps, dot);
		break;
	case T_ANCHOR:	/* never repeated: "^*" is an error */
		return node_new(ps, N_ASSERT, t.kind, 0, 1);
	case T_CLASS:
		n = parse_class_escape(ps, t.kind);
		break;
	case T_BACKREF:
		ps->why = E_BACKREF;
		return -1;
	case T_BACKSLASH:
		ps->why = E_ESCAPE;
		return -1;
	case T_STAR: case T_PLUS: case T_QUEST: case T_LBRACE:
		ps->why = E_BADRPT;
		return -1;
	default:	/* characters, and ')' '}' standing alone */
		n = node_char(ps, t.c);
		break;
	}
	return n == -1 ? -1 : parse_dups(ps, n);
}

static int
node_cat(struct parser *ps, int a, int b)
{
	if (ps->nodes[a].type == N_EMPTY)
		return b;
	if (ps->nodes[b].type == N_EMPTY)
		return a;
	return node_new(ps, N_CAT, a, b,
	    sat(ps->nodes[a].size + ps->nodes[b].size));
}

static int
parse_branch(struct parser *ps)
{
	struct token t;
	int n, e;

	if ((n = node_new(ps, N_EMPTY, 0, 0, 0)) == -1)
		return -1;
	for (;;) {
		peek(ps, &t);
		if (t.type == T_END || t.type == T_ALT ||
		    (t.type == T_CLOSE && ps->depth > 0))
			return n;
		if ((e = parse_expression(ps)) == -1 ||
		    (n = node_cat(ps, n, e)) == -1)
			return -1;
	}
}

static int
parse_reg(struct parser *ps)
{
	struct token t;
	int n, b;

	if ((n = parse_branch(ps)) == -1)
		return -1;
	for (;;) {
		peek(ps, &t);
		if (t.type != T_ALT)
			return n;
		ps->p += t.len;
		if ((b = parse_branch(ps)) == -1)
			return -1;
		n = node_new(ps, N_ALT, n, b, sat(ps->nodes[n].size +
		    ps->nodes[b].size + 2));
		if (n == -1)
			return -1;
	}
}

/* NOLINTEND(misc-no-recursion) */

/*
 * Reads pattern into *out, whose nodes and sets are the caller's to
 * free; or returns -1 with *why set.
 */
int
ere_parse(const char *pattern, struct ere_tree *out, const char **why)
{
	struct parser ps = { 0 };
	int root;

	if (strchr(pattern, '\n') != NULL) {
		*why = E_NEWLINE;
		return -1;
	}
	ps.p = (const unsigned char *)pattern;
	ps.end = ps.p + strlen(pattern);
	root = parse_reg(&ps);
	if (root == -1 || ps.why != NULL) {
		free(ps.nodes);
		free(ps.sets);
		*why = ps.why;
		return -1;
	}
	*out = (struct ere_tree){ ps.nodes, root, ps.sets, ps.nsets };
	return 0;
}
