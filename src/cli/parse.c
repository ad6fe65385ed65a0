/*
 * parse.c: every conversion from a string to a value: durations, counts,
 * factors, jitter modes, seeds, signals, log formats, and --budget and
 * --breaker; the LISTs of outcomes are outcomes.c's.  Each converter
 * returns NULL on success or a short reason that options.c puts into its
 * error line.  Nothing here exits or prints, so the fuzz harnesses can
 * drive every function directly.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "guard/budget.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "os/signals.h"
#include "policy/backoff.h"
#include "parse.h"

#define MAX_FRACTION_DIGITS 24

struct unit {
	const char	*name;
	nsec_t		 ns;
};

static const struct unit units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
	{ "d", 86400 * NSEC_PER_SEC },
};

static const struct unit *
unit_lookup(const char **sp)
{
	const char *s = *sp;
	size_t len = 0, i;

	while (isalpha((unsigned char)s[len]))
		len++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].name) == len &&
		    strncmp(units[i].name, s, len) == 0) {
			*sp = s + len;
			return &units[i];
		}
	}
	return NULL;
}

/*
 * Rounds 0.<digits> * unit to the nearest nanosecond, halfway up, with
 * 64-bit integer arithmetic only.  Horner's rule from the last digit:
 * each step divides (unit * digit + carry) by 10, and the part dropped
 * below the nanosecond is less than one, so only the last step's
 * remainder decides the rounding: 5 or more of 10 is at least a half.
 * Every value stays below 10 * unit, far from 2^63.  Digits past the
 * 24th are dropped: with a unit below 10^14 ns they weigh less than
 * 10^-10 ns.
 */
static nsec_t
fraction_ns(const char *digits, size_t n, nsec_t unit)
{
	uint64_t q = 0, r = 0, v;
	size_t i = n < MAX_FRACTION_DIGITS ? n : MAX_FRACTION_DIGITS;

	while (i-- > 0) {
		v = (uint64_t)unit * (unsigned)(digits[i] - '0') + q;
		q = v / 10;
		r = v % 10;
	}
	return (nsec_t)(q + (r >= 5));
}

/* One number+unit term; *unitless tells whether the unit was omitted. */
static const char *
duration_term(const char **sp, nsec_t *out, bool *unitless)
{
	const char *s = *sp, *frac = NULL;
	const struct unit *u;
	unsigned long long whole = 0;
	size_t nfrac = 0;
	nsec_t ns;

	/* ".5", as timeout(1) and sleep(1) take it; "." alone is nothing. */
	if (!isdigit((unsigned char)*s) && (*s != '.' ||
	    !isdigit((unsigned char)s[1])))
		return "expected a number";
	for (; isdigit((unsigned char)*s); s++) {
		/* Checked before the multiplication, which must not wrap. */
		if (whole > (unsigned long long)DURATION_MAX / 10)
			return "too large (the limit is 100 years)";
		whole = whole * 10 + (unsigned)(*s - '0');
	}
	if (*s == '.') {
		frac = ++s;
		while (isdigit((unsigned char)*s))
			s++;
		nfrac = (size_t)(s - frac);
		if (nfrac == 0)
			return "expected digits after the decimal point";
	}
	*unitless = (*s == '\0');
	if (*unitless)
		u = &units[3];
	else if ((u = unit_lookup(&s)) == NULL)
		return "unknown unit (use ns, us, ms, s, m, h or d)";
	if (whole > (unsigned long long)(DURATION_MAX / u->ns))
		return "too large (the limit is 100 years)";
	ns = (nsec_t)whole * u->ns;
	if (frac != NULL)
		ns += fraction_ns(frac, nfrac, u->ns);
	*out = ns;
	*sp = s;
	return NULL;
}

/*
 * DURATION: a number with an optional unit, or a sequence of number+unit
 * terms such as 1m30s.  With allow_inf, "inf" means never (NSEC_INF).
 */
const char *
parse_duration(const char *s, nsec_t *out, bool allow_inf)
{
	const char *why;
	nsec_t total = 0, term;
	bool unitless, first = true;

	if (allow_inf && strcmp(s, "inf") == 0) {
		*out = NSEC_INF;
		return NULL;
	}
	if (*s == '\0')
		return "empty duration";
	if (*s == '-')
		return "negative duration";
	while (*s != '\0') {
		if ((why = duration_term(&s, &term, &unitless)) != NULL)
			return why;
		if (unitless && !first)
			return "a number inside a compound needs a unit";
		total += term;
		if (total > DURATION_MAX)
			return "too large (the limit is 100 years)";
		first = false;
	}
	*out = total;
	return NULL;
}

/*
 * --delays: DURATIONs separated by commas, at most DELAYS_MAX, into
 * sched's list; why (len bytes) is room for a reason that names the
 * value at fault.
 */
const char *
parse_delays(const char *s, struct schedule *sched, char *why, size_t len)
{
	char item[64];
	const char *end, *bad;
	size_t n;
	int count = 0;

	for (;; s = end + 1) {
		end = s + strcspn(s, ",");
		n = (size_t)(end - s);
		if (count == DELAYS_MAX)
			return "more than 32 values";
		if (n == 0)
			return "an empty value";
		if (n >= sizeof(item))
			return "a value too long to be a duration";
		memcpy(item, s, n);
		item[n] = '\0';
		if ((bad = parse_duration(item, &sched->delays[count],
		    false)) != NULL) {
			snprintf(why, len, "value %d: %s", count + 1, bad);
			return why;
		}
		count++;
		if (*end == '\0')
			break;
	}
	sched->ndelays = count;
	return NULL;
}

const char *
parse_attempts(const char *s, long long *out)
{
	const char *errstr;
	long long n;

	if (strcmp(s, "inf") == 0) {
		*out = 0;
		return NULL;
	}
	/* strtonum() would take a sign or leading blanks. */
	n = strtonum(s, 1, LLONG_MAX, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*s))
		return "expected a whole number of at least 1, or inf";
	*out = n;
	return NULL;
}

/* Decimal digits, an optional fraction and exponent: no sign, hex, inf. */
static const char *
parse_decimal(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (!isdigit((unsigned char)*p))
		return "expected a decimal number";
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return "expected digits after the decimal point";
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return "expected digits in the exponent";
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p != '\0')
		return "expected a decimal number";
	errno = 0;
	v = strtod(s, &end);
	if (!isfinite(v) || (errno == ERANGE && v != 0))
		return "number out of range";
	*out = v;
	return NULL;
}

const char *
parse_factor(const char *s, double *out)
{
	const char *why;
	double v;

	if ((why = parse_decimal(s, &v)) != NULL)
		return why;
	if (v < 1)
		return "the factor must be at least 1";
	*out = v;
	return NULL;
}

static const char *
parse_jitter_range(const char *s, const char *dots, struct jitter *j)
{
	char lo[64];
	size_t len = (size_t)(dots - s);
	const char *why;

	if (len >= sizeof(lo))
		return "expected A..B with decimal numbers";
	memcpy(lo, s, len);
	lo[len] = '\0';
	if ((why = parse_decimal(lo, &j->lo)) != NULL ||
	    (why = parse_decimal(dots + 2, &j->hi)) != NULL)
		return why;
	if (j->lo > j->hi)
		return "in A..B, A must not exceed B";
	j->kind = JITTER_RANGE;
	return NULL;
}

const char *
parse_jitter(const char *s, struct jitter *j)
{
	const char *dots, *why;
	char buf[32];

	memset(j, 0, sizeof(*j));
	for (j->kind = JITTER_NONE; j->kind <= JITTER_DECORRELATED; j->kind++)
		if (strcmp(s, jitter_format(j, buf, sizeof(buf))) == 0)
			return NULL;
	j->kind = JITTER_NONE;
	if (*s == '+') {
		if ((why = parse_duration(s + 1, &j->add, false)) != NULL)
			return why;
		j->kind = JITTER_ADD;
		return NULL;
	}
	if ((dots = strstr(s, "..")) != NULL)
		return parse_jitter_range(s, dots, j);
	return "expected none, full, equal, decorrelated, A..B or +DURATION";
}

const char *
parse_seed(const char *s, uint64_t *out)
{
	const char *errstr;
	long long n;

	n = strtonum(s, 0, LLONG_MAX, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*s))
		return "expected a whole number from 0 to 9223372036854775807";
	*out = (uint64_t)n;
	return NULL;
}

const char *
parse_signal(const char *s, int *out)
{
	const char *errstr;
	long long n;
	int sig;

	/* 0, the null signal, sends nothing, as in timeout(1). */
	if (isdigit((unsigned char)*s)) {
		n = strtonum(s, 0, NSIG - 1, &errstr);
		if (errstr != NULL)
			return "no such signal number";
		*out = (int)n;
		return NULL;
	}
	if ((sig = sig_number(s)) <= 0)
		return "unknown signal name";
	*out = sig;
	return NULL;
}

const char *
parse_log_format(const char *s, enum log_format *out)
{
	if (strcasecmp(s, "text") == 0)
		*out = LOG_TEXT;
	else if (strcasecmp(s, "json") == 0)
		*out = LOG_JSON;
	else if (strcasecmp(s, "github") == 0)
		*out = LOG_GITHUB;
	else
		return "expected text, json or github";
	return NULL;
}

/*
 * --budget and --breaker: [redis[s]://[USER@]HOST[:PORT][/DB]/NAME or
 * unix://[USER@]/PATH/NAME[?db=DB]],[KEY=VALUE...].  The server's part is
 * written as redis-cli -u writes a server and a database (rediss://: the
 * same, through TLS), and as
 * redis-py writes a Unix socket and a database; NAME is the last segment
 * of the path.  A NAME becomes a file name and a Redis key, so it takes
 * only letters, digits, '.', '_' and '-', and cannot start with '.'.
 */
#define GUARD_VALUE_MAX	63
#define GUARD_COUNT_MAX	1000000
#define REDIS_PORT	6379
#define REDIS_TCP_FORM	"expected redis://HOST[:PORT][/DB]/NAME"
#define REDIS_TLS_FORM	"expected rediss://HOST[:PORT][/DB]/NAME"
#define TCP_FORM(g)	((g)->tls ? REDIS_TLS_FORM : REDIS_TCP_FORM)
#define REDIS_UNIX_FORM	"expected unix:///PATH/NAME[?db=DB]"
#define REDIS_DB_RANGE	"expected a database number from 0 to 2147483647"

static const char *
guard_user(const char **sp, struct guard_spec *g)
{
	const char *s = *sp;
	size_t n = strcspn(s, "@/,");

	/* USER@: the password comes from REDISCLI_AUTH, never argv. */
	if (s[n] != '@')
		return NULL;
	if (memchr(s, ':', n) != NULL)
		return "a password in the URL would show in ps(1): "
		    "put it in REDISCLI_AUTH";
	if (n == 0 || n > GUARD_NAME_MAX || strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") != n)
		return "USER takes letters, digits, '.', '_' and '-'";
	memcpy(g->user, s, n);
	g->user[n] = '\0';
	*sp = s + n + 1;
	return NULL;
}

/* A database number, n digits at s, into g->db. */
static const char *
guard_db(const char *s, size_t n, struct guard_spec *g)
{
	char db[16];
	const char *errstr;

	if (n == 0 || n >= sizeof(db) || !isdigit((unsigned char)*s))
		return REDIS_DB_RANGE;
	memcpy(db, s, n);
	db[n] = '\0';
	g->db = (int)strtonum(db, 0, INT_MAX, &errstr);
	return errstr != NULL ? REDIS_DB_RANGE : NULL;
}

static const char *
guard_port(const char **sp, struct guard_spec *g)
{
	const char *s = *sp, *errstr;
	char port[8];
	size_t n = strcspn(s, "/,");

	if (n == 0 || n >= sizeof(port))
		return "expected a port from 1 to 65535";
	memcpy(port, s, n);
	port[n] = '\0';
	g->port = (int)strtonum(port, 1, 65535, &errstr);
	if (errstr != NULL || !isdigit((unsigned char)*port))
		return "expected a port from 1 to 65535";
	*sp = s + n;
	return NULL;
}

/* HOST[:PORT][/DB]/, after redis://[USER@]. */
static const char *
guard_host(const char **sp, struct guard_spec *g)
{
	const char *s = *sp, *end, *why;
	size_t n;

	/* An IPv6 address: [::1]:6379, or with a zone, [fe80::1%eth0]. */
	if (*s == '[') {
		n = strspn(++s, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:.%_-");
		if (s[n] != ']')
			return "no ']' after the IPv6 address";
		end = s + n + 1;
	} else
		end = s + (n = strcspn(s, ":/,"));
	if (n == 0 || n > GUARD_HOST_MAX)
		return TCP_FORM(g);
	memcpy(g->host, s, n);
	g->host[n] = '\0';
	g->port = REDIS_PORT;
	if (*end == ':') {
		end++;
		if ((why = guard_port(&end, g)) != NULL)
			return why;
	}
	if (*end++ != '/')
		return TCP_FORM(g);
	/* Two segments left: the first is the database, as redis-cli's. */
	n = strcspn(end, "/,");
	if (end[n] == '/') {
		if ((why = guard_db(end, n, g)) != NULL)
			return why;
		end += n + 1;
	}
	*sp = end;
	return NULL;
}

/*
 * /PATH/, after unix://[USER@]: the socket's path is all but the last
 * segment, which is NAME.
 */
static const char *
guard_socket(const char **sp, struct guard_spec *g)
{
	const char *s = *sp, *name;
	size_t n = strcspn(s, "?,");
	struct sockaddr_un sun;

	if (*s != '/')
		return REDIS_UNIX_FORM;
	for (name = s + n; name[-1] != '/'; name--)
		continue;
	n = (size_t)(name - 1 - s);
	if (n == 0)
		return REDIS_UNIX_FORM;
	if (n >= sizeof(sun.sun_path) || n > GUARD_HOST_MAX) {
		/* The limit is the system's: the reason goes where the
		 * path would have, which the caller discards with it. */
		snprintf(g->host, sizeof(g->host), "the socket's path is "
		    "longer than %zu bytes", sizeof(sun.sun_path) - 1);
		return g->host;
	}
	memcpy(g->host, s, n);
	g->host[n] = '\0';
	g->port = 0;
	*sp = name;
	return NULL;
}

/* What follows NAME in the unix:// form: ?db=DB, or nothing. */
static const char *
guard_query(const char **sp, struct guard_spec *g)
{
	const char *s = *sp;
	size_t n;

	if (*s != '?')
		return NULL;
	if (strncmp(++s, "db=", 3) != 0)
		return REDIS_UNIX_FORM;
	s += 3;
	n = strcspn(s, ",");
	*sp = s + n;
	return guard_db(s, n, g);
}

/* The server's part of SPEC, if it has one, up to NAME. */
static const char *
guard_server(const char **sp, struct guard_spec *g)
{
	const char *why;

	if (strncmp(*sp, "redis://", 8) == 0 ||
	    strncmp(*sp, "rediss://", 9) == 0) {
		g->tls = (*sp)[5] == 's';
		*sp += g->tls ? 9 : 8;
		if ((why = guard_user(sp, g)) != NULL)
			return why;
		return guard_host(sp, g);
	}
	if (strncmp(*sp, "unix://", 7) == 0) {
		*sp += 7;
		if ((why = guard_user(sp, g)) != NULL)
			return why;
		return guard_socket(sp, g);
	}
	return NULL;
}

static const char *
guard_name(const char **sp, struct guard_spec *g)
{
	const char *s = *sp;
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	if (n == 0 || (s[n] != '\0' && s[n] != ',' &&
	    (s[n] != '?' || g->port != 0 || g->host[0] == '\0')))
		return "NAME takes letters, digits, '.', '_' and '-'";
	if (*s == '.')
		return "NAME cannot start with '.'";
	if (n > GUARD_NAME_MAX)
		return "NAME is longer than 64 characters";
	memcpy(g->name, s, n);
	g->name[n] = '\0';
	*sp = s + n;
	return NULL;
}

/* A number of thousandths: digits with up to 3 decimals, as milli. */
static bool
parse_milli(const char *s, long long max, long long *out)
{
	long long n = 0;
	int decimals = -1;

	for (; *s != '\0'; s++) {
		if (*s == '.' && decimals < 0 && isdigit((unsigned char)s[1]))
			decimals = 0;
		else if (!isdigit((unsigned char)*s) || decimals == 3 ||
		    n > max)
			return false;
		else {
			n = n * 10 + (*s - '0');
			decimals += decimals >= 0;
		}
	}
	for (decimals = decimals < 0 ? 0 : decimals; decimals < 3; decimals++)
		n *= 10;
	*out = n;
	return n >= 1 && n <= max;
}

static const char *
guard_option(const char *key, const char *value, struct guard_spec *g,
    bool breaker)
{
	const char *errstr;
	long long n;

	if (strcmp(key, breaker ? "failures" : "tokens") == 0) {
		n = strtonum(value, 1, GUARD_COUNT_MAX, &errstr);
		if (errstr != NULL || !isdigit((unsigned char)*value))
			return breaker ? "failures: expected 1 to 1000000" :
			    "tokens: expected 1 to 1000000";
		*(breaker ? &g->failures : &g->tokens) = n;
	} else if (!breaker && strcmp(key, "ratio") == 0) {
		if (!parse_milli(value, GUARD_COUNT_MAX * INT64_C(1000),
		    &g->ratio))
			return "ratio: expected 0.001 to 1000000, "
			    "at most 3 decimals";
	} else if (breaker && strcmp(key, "cooldown") == 0) {
		if (parse_duration(value, &g->cooldown, false) != NULL ||
		    g->cooldown == 0)
			return "cooldown: expected a DURATION above 0";
	} else
		return breaker ? "expected failures=N or cooldown=DURATION" :
		    "expected tokens=N or ratio=R";
	return NULL;
}

static const char *
parse_guard(const char *s, struct guard_spec *g, bool breaker)
{
	char key[GUARD_VALUE_MAX + 1], value[GUARD_VALUE_MAX + 1];
	const char *why;
	size_t n, eq;

	if ((why = guard_server(&s, g)) != NULL ||
	    (why = guard_name(&s, g)) != NULL ||
	    (why = guard_query(&s, g)) != NULL)
		return why;
	while (*s++ == ',') {
		n = strcspn(s, ",");
		eq = strcspn(s, "=");
		if (eq >= n || n > GUARD_VALUE_MAX)
			return breaker ? "expected failures=N or cooldown="
			    "DURATION" : "expected tokens=N or ratio=R";
		memcpy(key, s, eq);
		key[eq] = '\0';
		memcpy(value, s + eq + 1, n - eq - 1);
		value[n - eq - 1] = '\0';
		if ((why = guard_option(key, value, g, breaker)) != NULL)
			return why;
		s += n;
	}
	return NULL;
}

/* gRFC A6's defaults: 100 tokens, 0.1 back per success. */
const char *
parse_budget(const char *s, struct guard_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->tokens = 100;
	g->ratio = 100;
	return parse_guard(s, g, false);
}

const char *
parse_breaker(const char *s, struct guard_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->failures = 5;
	g->cooldown = 60 * NSEC_PER_SEC;
	return parse_guard(s, g, true);
}

/*
 * The Redis server of g as the URL that parse_guard() reads, with the
 * port that the default stands for: "" for a local state file.
 */
int
guard_target(char *buf, size_t len, const struct guard_spec *g)
{
	char db[16] = "";
	const char *at = *g->user != '\0' ? "@" : "";
	bool v6 = strchr(g->host, ':') != NULL;

	if (g->host[0] == '\0')
		return snprintf(buf, len, "%s", "");
	if (g->port == 0) {
		if (g->db != 0)
			snprintf(db, sizeof(db), "?db=%d", g->db);
		return snprintf(buf, len, "unix://%s%s%s/%s%s", g->user, at,
		    g->host, g->name, db);
	}
	if (g->db != 0)
		snprintf(db, sizeof(db), "/%d", g->db);
	return snprintf(buf, len, "%s://%s%s%s%s%s:%d%s/%s",
	    g->tls ? "rediss" : "redis", g->user, at, v6 ? "[" : "", g->host,
	    v6 ? "]" : "", g->port, db, g->name);
}
