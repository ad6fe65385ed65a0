/*
 * ere.c: POSIX extended regular expressions for the output conditions,
 * matched in time linear in the text.  glibc's regexec() takes seconds on
 * one 64 KiB line against an ERE as plain as 'a.*b' (issue 19, item 3),
 * so retry compiles EREs itself: the syntax is what glibc's regcomp()
 * accepts with REG_EXTENDED | REG_NEWLINE in the C locale, byte by byte
 * (brackets, the 12 classes, intervals, the GNU escapes \w \W \s \S \b
 * \B \< \> \` \'), with glibc's words for the errors; back-references are
 * refused, since no linear matcher has them.  A pattern becomes a Thompson
 * NFA, a program of at most ERE_MAX_PROG instructions.  Whether a line
 * matches is asked of a DFA built lazily from the NFA, its states cached
 * in a bounded table that is emptied when full, so that each byte costs a
 * table look-up once the few states a plain ERE needs exist, and never
 * more than one pass over the program.  Only for a line that matches is
 * the NFA run again, with the start of each thread, to say where the
 * leftmost match starts.  Lines are matched one by one: no match crosses
 * a newline, and ^ $ \` \' match at the start and end of each line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ere.h"

#define DUP_MAX		0x7fff	/* glibc's RE_DUP_MAX */
#define NEST_MAX	256	/* groups within groups */
#define NAME_MAX_B	32	/* glibc's BRACKET_NAME_BUF_SIZE */
#define DFA_STATES	256
#define DFA_POOL	32768	/* program counters of all cached states */
#define HASH_SIZE	512	/* twice DFA_STATES, a power of 2 */

/* Any one state fits in the pool once the cache is emptied. */
_Static_assert(DFA_POOL > ERE_MAX_PROG + 1, "DFA_POOL too small");

#define T_UNKNOWN	(-1)	/* a transition not yet computed */
#define T_MATCH		(-2)	/* the line matches */

enum op { I_SET, I_SPLIT, I_JMP, I_ASSERT, I_MATCH };
enum assertion { A_BOL, A_EOL, A_WORDB, A_NWORDB, A_WBEG, A_WEND };
enum ctx { C_LINE, C_WORD, C_OTHER };	/* what precedes a position */

struct inst {
	unsigned char	 op;
	unsigned char	 kind;		/* I_ASSERT */
	int		 x, y;		/* set; targets */
};

typedef uint32_t byteset[8];

struct dstate {
	int		 pcs;		/* offset in the pool */
	int		 npcs;
	int		 ctx;
	int		 trans[256];
};

struct ere {
	struct inst	*prog;
	int		 nprog;
	byteset		*sets;
	int		 nsets;
	/* Work space of the simulations, nprog entries each. */
	unsigned	*mark;
	unsigned	 gen;
	int		*stack;
	int		*list;		/* consumers reached */
	size_t		*lstart;
	int		*carry;
	size_t		*cstart;
	/* The DFA cache. */
	struct dstate	*st;
	int		 nst;
	int		*pool;
	int		 npool;
	int		 hash[HASH_SIZE];
	unsigned char	*seen;
	/* The bytes a match can start with, when that is all it needs. */
	int		 nfirst;	/* 0: no skipping */
	int		 first1;	/* the byte, when there is one */
	unsigned char	 first[256];
};

/* ---- parsing ----------------------------------------------------------- */

enum ntype { N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP };

struct node {
	int	 type;
	int	 a, b;		/* children; set; assertion */
	int	 min, max;	/* N_REP; max -1 for no bound */
	size_t	 size;		/* instructions, at most ERE_MAX_PROG + 1 */
};

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
	struct ere		*re;
	int			 setcap;
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

static bool
is_word(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	    (c >= 'a' && c <= 'z') || c == '_';
}

static void
set_add(uint32_t *s, int c)
{
	s[c >> 5] |= (uint32_t)1 << (c & 31);
}

static bool
set_has(const uint32_t *s, int c)
{
	return (s[c >> 5] >> (c & 31)) & 1;
}

/* The ASCII classes: the C locale's, which is the only one retry uses. */
static bool
class_has(const char *name, int c)
{
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9';
	bool space = c == ' ' || (c >= '\t' && c <= '\r');
	bool print = c >= 0x20 && c < 0x7f;

	if (strcmp(name, "alpha") == 0)
		return upper || lower;
	if (strcmp(name, "upper") == 0)
		return upper;
	if (strcmp(name, "lower") == 0)
		return lower;
	if (strcmp(name, "digit") == 0)
		return digit;
	if (strcmp(name, "alnum") == 0)
		return upper || lower || digit;
	if (strcmp(name, "xdigit") == 0)
		return digit || (c >= 'A' && c <= 'F') ||
		    (c >= 'a' && c <= 'f');
	if (strcmp(name, "space") == 0)
		return space;
	if (strcmp(name, "blank") == 0)
		return c == ' ' || c == '\t';
	if (strcmp(name, "print") == 0)
		return print;
	if (strcmp(name, "graph") == 0)
		return print && c != ' ';
	if (strcmp(name, "punct") == 0)
		return print && c != ' ' && !upper && !lower && !digit;
	return c < 0x20 || c == 0x7f;	/* cntrl */
}

static bool
class_known(const char *name)
{
	static const char *const names[] = { "alpha", "upper", "lower",
	    "digit", "alnum", "xdigit", "space", "blank", "print", "graph",
	    "punct", "cntrl" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void
set_class(uint32_t *s, const char *name)
{
	int c;

	for (c = 0; c < 256; c++)
		if (class_has(name, c))
			set_add(s, c);
}

/* Lines hold no newline: a negated set leaves it out, as glibc does. */
static void
set_negate(uint32_t *s)
{
	int i;

	for (i = 0; i < 8; i++)
		s[i] = ~s[i];
	s['\n' >> 5] &= ~((uint32_t)1 << ('\n' & 31));
}

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
	struct ere *re = ps->re;
	int i;

	for (i = 0; i < re->nsets; i++)
		if (memcmp(re->sets[i], s, sizeof(byteset)) == 0)
			return node_new(ps, N_SET, i, 0, 1);
	if (re->nsets == ps->setcap) {
		int cap = ps->setcap == 0 ? 16 : ps->setcap * 2;
		byteset *n = realloc(re->sets, (size_t)cap * sizeof(*n));

		if (n == NULL) {
			ps->why = E_SPACE;
			return -1;
		}
		re->sets = n;
		ps->setcap = cap;
	}
	memcpy(re->sets[re->nsets], s, sizeof(byteset));
	return node_new(ps, N_SET, re->nsets++, 0, 1);
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

/*
 * The grammar recurses as deep as groups nest, at most NEST_MAX, and code
 * generation as deep as the tree, at most ERE_MAX_PROG nodes.
 */
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

/* ---- code generation --------------------------------------------------- */

static int
emit(struct ere *re, int op, int x, int y)
{
	re->prog[re->nprog] = (struct inst){ (unsigned char)op, 0, x, y };
	return re->nprog++;
}

static void	gen(struct ere *, const struct node *, int);

/* sub{min,max}: min copies, then a loop or max - min optional ones. */
static void
gen_rep(struct ere *re, const struct node *nodes, const struct node *n)
{
	int i, loop, end, split;

	for (i = 0; i < n->min - (n->max == -1 && n->min > 0); i++)
		gen(re, nodes, n->a);
	if (n->max == -1 && n->min > 0) {
		loop = re->nprog;
		gen(re, nodes, n->a);
		emit(re, I_SPLIT, loop, re->nprog + 1);
	} else if (n->max == -1) {
		loop = emit(re, I_SPLIT, 0, 0);
		gen(re, nodes, n->a);
		emit(re, I_JMP, loop, 0);
		re->prog[loop].x = loop + 1;
		re->prog[loop].y = re->nprog;
	} else {
		end = re->nprog + (n->max - n->min) *
		    (int)(nodes[n->a].size + 1);
		for (i = n->min; i < n->max; i++) {
			split = emit(re, I_SPLIT, 0, end);
			re->prog[split].x = split + 1;
			gen(re, nodes, n->a);
		}
	}
}

static void
gen(struct ere *re, const struct node *nodes, int i)
{
	const struct node *n = &nodes[i];
	int split, jmp;

	switch (n->type) {
	case N_SET:
		emit(re, I_SET, n->a, 0);
		break;
	case N_ASSERT:
		re->prog[emit(re, I_ASSERT, 0, 0)].kind = (unsigned char)n->a;
		break;
	case N_CAT:
		gen(re, nodes, n->a);
		gen(re, nodes, n->b);
		break;
	case N_ALT:
		split = emit(re, I_SPLIT, 0, 0);
		re->prog[split].x = split + 1;
		gen(re, nodes, n->a);
		jmp = emit(re, I_JMP, 0, 0);
		re->prog[split].y = re->nprog;
		gen(re, nodes, n->b);
		re->prog[jmp].x = re->nprog;
		break;
	case N_REP:
		gen_rep(re, nodes, n);
		break;
	default:
		break;
	}
}

/* NOLINTEND(misc-no-recursion) */

static bool
alloc_work(struct ere *re)
{
	size_t n = (size_t)re->nprog;

	re->mark = calloc(n, sizeof(*re->mark));
	re->stack = malloc((2 * n + 2) * sizeof(*re->stack));
	re->list = malloc(n * sizeof(*re->list));
	re->lstart = malloc(n * sizeof(*re->lstart));
	re->carry = malloc(n * sizeof(*re->carry));
	re->cstart = malloc(n * sizeof(*re->cstart));
	re->seen = calloc(n, 1);
	/* Pages of the cache are touched only as states are made. */
	re->st = malloc(DFA_STATES * sizeof(*re->st));
	re->pool = malloc(DFA_POOL * sizeof(*re->pool));
	return re->mark != NULL && re->stack != NULL && re->list != NULL &&
	    re->lstart != NULL && re->carry != NULL && re->cstart != NULL &&
	    re->seen != NULL && re->st != NULL && re->pool != NULL;
}

/*
 * The bytes that can start a match, for the search to skip to: only where
 * no assertion comes before the first byte and no match is empty, so that
 * what the skipped bytes were cannot matter.
 */
static void
find_first(struct ere *re)
{
	const struct inst *in;
	int sp = 0, pc, c;

	re->nfirst = 0;
	memset(re->first, 0, sizeof(re->first));
	re->stack[sp++] = 0;
	while (sp > 0) {
		pc = re->stack[--sp];
		if (re->seen[pc])
			continue;
		re->seen[pc] = 1;
		in = &re->prog[pc];
		if (in->op == I_ASSERT || in->op == I_MATCH) {
			re->nfirst = -1;
		} else if (in->op == I_SET) {
			for (c = 0; c < 256; c++)
				if (set_has(re->sets[in->x], c))
					re->first[c] = 1;
		} else {
			if (in->op == I_SPLIT)
				re->stack[sp++] = in->y;
			re->stack[sp++] = in->x;
		}
	}
	memset(re->seen, 0, (size_t)re->nprog);
	if (re->nfirst == -1) {
		re->nfirst = 0;
		return;
	}
	for (c = 0; c < 256; c++)
		if (re->first[c]) {
			re->nfirst++;
			re->first1 = c;
		}
	if (re->nfirst == 256)
		re->nfirst = 0;
}

struct ere *
ere_compile(const char *pattern, const char **why)
{
	struct parser ps = { 0 };
	struct ere *re;
	int root;

	if (strchr(pattern, '\n') != NULL) {
		*why = E_NEWLINE;
		return NULL;
	}
	if ((re = calloc(1, sizeof(*re))) == NULL) {
		*why = E_SPACE;
		return NULL;
	}
	ps.p = (const unsigned char *)pattern;
	ps.end = ps.p + strlen(pattern);
	ps.re = re;
	root = parse_reg(&ps);
	if (root != -1 && (re->prog = malloc((ps.nodes[root].size + 1) *
	    sizeof(*re->prog))) == NULL)
		ps.why = E_SPACE;
	if (root == -1 || ps.why != NULL) {
		free(ps.nodes);
		ere_free(re);
		*why = ps.why;
		return NULL;
	}
	gen(re, ps.nodes, root);
	emit(re, I_MATCH, 0, 0);
	free(ps.nodes);
	if (!alloc_work(re)) {
		ere_free(re);
		*why = E_SPACE;
		return NULL;
	}
	find_first(re);
	return re;
}

void
ere_free(struct ere *re)
{
	if (re == NULL)
		return;
	free(re->prog);
	free(re->sets);
	free(re->mark);
	free(re->stack);
	free(re->list);
	free(re->lstart);
	free(re->carry);
	free(re->cstart);
	free(re->seen);
	free(re->st);
	free(re->pool);
	free(re);
}

/* ---- simulation -------------------------------------------------------- */

/* Whether an assertion holds between prev (a context) and next (-1: end). */
static bool
assert_holds(int kind, int prev, int next)
{
	bool pw = prev == C_WORD, nw = next >= 0 && is_word(next);

	switch (kind) {
	case A_BOL:
		return prev == C_LINE;
	case A_EOL:
		return next < 0;
	case A_WORDB:
		return pw != nw;
	case A_NWORDB:
		return pw == nw;
	case A_WBEG:
		return !pw && nw;
	default:
		return pw && !nw;
	}
}

/*
 * Follows pc through splits, jumps and assertions that hold, appending
 * each set instruction reached and not yet marked in this generation to
 * re->list (with start in re->lstart).  Returns whether MATCH is reached.
 */
static bool
closure(struct ere *re, int pc, int prev, int next, int *n, size_t start)
{
	const struct inst *in;
	bool match = false;
	int sp = 0;

	re->stack[sp++] = pc;
	while (sp > 0) {
		pc = re->stack[--sp];
		if (re->mark[pc] == re->gen)
			continue;
		re->mark[pc] = re->gen;
		in = &re->prog[pc];
		switch (in->op) {
		case I_SET:
			re->lstart[*n] = start;
			re->list[(*n)++] = pc;
			break;
		case I_MATCH:
			match = true;
			break;
		case I_JMP:
			re->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			re->stack[sp++] = in->y;
			re->stack[sp++] = in->x;
			break;
		default:
			if (assert_holds(in->kind, prev, next))
				re->stack[sp++] = pc + 1;
			break;
		}
	}
	return match;
}

/* A new generation of marks, clearing them when the counter wraps. */
static void
next_gen(struct ere *re)
{
	if (++re->gen == 0) {
		memset(re->mark, 0, (size_t)re->nprog * sizeof(*re->mark));
		re->gen = 1;
	}
}

static void
dfa_flush(struct ere *re)
{
	re->nst = 0;
	re->npool = 0;
	memset(re->hash, 0, sizeof(re->hash));
}

static unsigned
dfa_hash(const int *pcs, int n, int ctx)
{
	unsigned h = 2166136261U ^ (unsigned)ctx;
	int i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned)pcs[i]) * 16777619U;
	return h;
}

/*
 * The state for the sorted pcs after a byte of context ctx; *flushed says
 * whether the cache had to be emptied to make room for it.
 */
static int
dfa_state(struct ere *re, const int *pcs, int n, int ctx, bool *flushed)
{
	unsigned h = dfa_hash(pcs, n, ctx) & (HASH_SIZE - 1);
	struct dstate *s;
	int i;

	for (; re->hash[h] != 0; h = (h + 1) & (HASH_SIZE - 1)) {
		s = &re->st[re->hash[h] - 1];
		if (s->ctx == ctx && s->npcs == n && memcmp(re->pool + s->pcs,
		    pcs, (size_t)n * sizeof(*pcs)) == 0)
			return re->hash[h] - 1;
	}
	if (re->nst == DFA_STATES || re->npool + n > DFA_POOL) {
		dfa_flush(re);
		*flushed = true;
		h = dfa_hash(pcs, n, ctx) & (HASH_SIZE - 1);
	}
	i = re->nst++;
	s = &re->st[i];
	s->pcs = re->npool;
	s->npcs = n;
	s->ctx = ctx;
	memmove(re->pool + re->npool, pcs, (size_t)n * sizeof(*pcs));
	re->npool += n;
	for (i = 0; i < 256; i++)
		s->trans[i] = T_UNKNOWN;
	re->hash[h] = re->nst;
	return re->nst - 1;
}

/*
 * The transition of state i on byte c, made and cached.  A newline is the
 * end of a line: the line matched, or the next one starts afresh.
 */
static int
dfa_step(struct ere *re, int i, int c)
{
	struct dstate *s = &re->st[i];
	int next = c == '\n' ? -1 : c, n = 0, k, m, t, pc;
	bool match, flushed = false;

	next_gen(re);
	match = closure(re, 0, s->ctx, next, &n, 0);
	for (k = 0; k < s->npcs && !match; k++)
		match = closure(re, re->pool[s->pcs + k], s->ctx, next, &n, 0);
	if (match) {
		s->trans[c] = T_MATCH;
		return T_MATCH;
	}
	m = 0;
	if (c != '\n') {
		for (k = 0; k < n; k++) {
			pc = re->list[k];
			if (set_has(re->sets[re->prog[pc].x], c))
				re->seen[pc + 1] = 1;
		}
		for (pc = 0; pc < re->nprog; pc++)
			if (re->seen[pc]) {
				re->seen[pc] = 0;
				re->stack[m++] = pc;
			}
	}
	t = dfa_state(re, re->stack, m, c == '\n' ? C_LINE : is_word(c) ?
	    C_WORD : C_OTHER, &flushed);
	if (!flushed)
		re->st[i].trans[c] = t;
	return t;
}

/* Where a match could start, from i on: len if nowhere. */
static size_t
skip(const struct ere *re, const unsigned char *p, size_t i, size_t len)
{
	const unsigned char *q;

	if (re->nfirst == 1) {
		q = memchr(p + i, re->first1, len - i);
		return q != NULL ? (size_t)(q - p) : len;
	}
	while (i < len && !re->first[p[i]])
		i++;
	return i;
}

/*
 * Runs the DFA: whether a line matches, and where (*at) it was seen.  In
 * a state with no thread alive, it skips to a byte that can start one.
 */
static bool
dfa_search(struct ere *re, const unsigned char *p, size_t len, size_t *at)
{
	bool flushed = false;
	size_t i;
	int s, t;

	s = dfa_state(re, re->stack, 0, C_LINE, &flushed);
	for (i = 0; i <= len; i++) {
		int c;

		if (re->nfirst > 0 && re->st[s].npcs == 0 &&
		    (i = skip(re, p, i, len)) == len)
			return false;	/* and no match is empty */
		c = i < len ? p[i] : '\n';
		if ((t = re->st[s].trans[c]) == T_UNKNOWN)
			t = dfa_step(re, s, c);
		if (t == T_MATCH) {
			*at = i;
			return true;
		}
		s = t;
	}
	return false;
}

/*
 * Where the leftmost match in the line p[0..len) starts: the NFA run with
 * the start of each thread, the earliest start kept when two threads
 * meet.  Threads stay in order of their starts.
 */
static size_t
pike_start(struct ere *re, const unsigned char *p, size_t len)
{
	size_t best = SIZE_MAX, i;
	int ncarry = 0, n, k, prev, next;

	for (i = 0;; i++) {
		prev = i == 0 ? C_LINE : is_word(p[i - 1]) ? C_WORD : C_OTHER;
		next = i < len ? p[i] : -1;
		next_gen(re);
		n = 0;
		for (k = 0; k < ncarry && re->cstart[k] < best; k++)
			if (closure(re, re->carry[k], prev, next, &n,
			    re->cstart[k]))
				best = re->cstart[k];
		if (best == SIZE_MAX && closure(re, 0, prev, next, &n, i))
			best = i;
		ncarry = 0;
		if (i == len)
			break;
		for (k = 0; k < n; k++)
			if (re->lstart[k] < best &&
			    set_has(re->sets[re->prog[re->list[k]].x], p[i])) {
				re->carry[ncarry] = re->list[k] + 1;
				re->cstart[ncarry++] = re->lstart[k];
			}
		if (ncarry == 0 && best != SIZE_MAX)
			break;
	}
	return best;
}

bool
ere_exec(struct ere *re, const char *text, size_t len, size_t *start)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t at, ls, le, s;

	if (!dfa_search(re, p, len, &at))
		return false;
	for (ls = at; ls > 0 && p[ls - 1] != '\n'; ls--)
		continue;
	for (le = at; le < len && p[le] != '\n'; le++)
		continue;
	s = pike_start(re, p + ls, le - ls);
	*start = ls + (s == SIZE_MAX ? 0 : s);
	return true;
}
