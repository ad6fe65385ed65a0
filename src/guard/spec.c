/*
 * spec.c: the SPEC of --budget and --breaker: where the guard's state is
 * kept (a local file, or a Redis server by URL), its NAME, and the
 * parameters of its rule; and guard_target(), the store back as the URL
 * that the parser reads, for messages and --dry-run.  Each parser returns
 * NULL on success or a short reason that the options' parser puts into
 * its error line.  Nothing here exits or prints, so the fuzz harness can
 * drive every function directly.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/defs.h"
#include "text/duration.h"
#include "spec.h"

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

/* What a --budget or --breaker item may be. */
static const char *
expected_keys(bool breaker)
{
	return breaker ? "expected failures=N or cooldown=DURATION" :
	    "expected tokens=N, ratio=R or refill=DURATION";
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
	} else if (!breaker && strcmp(key, "refill") == 0) {
		/* Whole microseconds, as the Lua script counts. */
		if (parse_duration(value, &g->refill, false) != NULL ||
		    (g->refill > 0 && g->refill < NSEC_PER_MSEC))
			return "refill: expected 0 or a DURATION from 1ms "
			    "to 100 years";
		g->refill -= g->refill % 1000;
	} else if (breaker && strcmp(key, "cooldown") == 0) {
		if (parse_duration(value, &g->cooldown, false) != NULL ||
		    g->cooldown == 0)
			return "cooldown: expected a DURATION above 0, up "
			    "to 100 years";
	} else
		return expected_keys(breaker);
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
			return expected_keys(breaker);
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

/*
 * gRFC A6's defaults, 100 tokens and 0.1 back per success, and a token
 * back every 10 s: a budget that an outage emptied allows retries again
 * after about 8 minutes, and is full again after about 17.
 */
const char *
parse_budget(const char *s, struct guard_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->tokens = 100;
	g->ratio = 100;
	g->refill = 10 * NSEC_PER_SEC;
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
