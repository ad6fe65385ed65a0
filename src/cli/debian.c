/*
 * debian.c: the hint for an option that Debian's retry(1) spells and
 * this retry does not (-d, --times, -u, -w, --until, --while).  Its -t,
 * the times, is the timeout here, and --delay is taken as --delays, so
 * neither reaches this file.  The hint is the spelling here, with the
 * values the user gave when they can be carried over as they are, so
 * that `retry -d 1,2,4` is answered with --delays=1s,2s,4s and not a
 * sample the user has to edit.  Nothing here prints or exits.
 */
#include <stdio.h>
#include <string.h>

#include "os/defs.h"
#include "debian.h"

#define HINT_VALUE	80	/* bytes of the user's value carried over */

/* s, of n bytes, is digits, commas and dashes: Debian's codes or ranges. */
static bool
is_code_list(const char *s, size_t n)
{
	return n > 0 && strspn(s, "0123456789,-") >= n;
}

/*
 * -d 1,2,4: Debian's delays are whole seconds; here a bare number is
 * seconds too, but the unit is spelled out so the hint reads plainly.
 * Any other value gets the option alone: no values it did not give.
 */
static void
delays_hint(const char *v, char *buf, size_t len)
{
	size_t n, at, vlen = v != NULL ? strlen(v) : 0;

	if (!is_code_list(v, vlen) || strchr(v, '-') != NULL ||
	    vlen > HINT_VALUE || v[0] == ',' || v[vlen - 1] == ',' ||
	    strstr(v, ",,") != NULL) {
		snprintf(buf, len, "--delays");
		return;
	}
	at = (size_t)snprintf(buf, len, "--delays=");
	for (;;) {
		n = strcspn(v, ",");
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%.*ss%s",
			    (int)n, v, v[n] == ',' ? "," : "");
		if (v[n] == '\0')
			break;
		v += n + 1;
	}
}

/*
 * -u/-w CRITERIA: success or true, fail or false, or codes and ranges.
 * until is true for -u.  The hint names what does the same here.
 */
static void
criteria_hint(bool until, const char *v, char *buf, size_t len)
{
	bool ok = v != NULL && (strcmp(v, "success") == 0 ||
	    strcmp(v, "true") == 0);
	bool bad = v != NULL && (strcmp(v, "fail") == 0 ||
	    strcmp(v, "false") == 0);
	bool codes = v != NULL && is_code_list(v, strlen(v)) &&
	    strlen(v) <= HINT_VALUE;

	/* Until success, or while failing: what retry does anyway. */
	if (until ? ok : bad)
		snprintf(buf, len, "the default: no option");
	else if (until ? bad : ok)
		snprintf(buf, len, "--until-failure");
	else if (codes)
		snprintf(buf, len, until ? "--success-on=%s" : "-r %s", v);
	else
		snprintf(buf, len, "%s", until ?
		    "--until-failure, or --success-on" : "-r, --retry-on");
}

/* --times N: a whole number is carried over as it is. */
static void
times_hint(const char *v, char *buf, size_t len)
{
	if (v != NULL && strspn(v, "0123456789") == strlen(v) &&
	    strlen(v) > 0 && strlen(v) <= 20)
		snprintf(buf, len, "-n %s", v);
	else
		snprintf(buf, len, "-n, --attempts");
}

bool
debian_hint(const char *name, const char *value, char *buf, size_t len)
{
	if (strcmp(name, "-d") == 0)
		delays_hint(value, buf, len);
	else if (strcmp(name, "--times") == 0)
		times_hint(value, buf, len);
	else if (strcmp(name, "-u") == 0 || strcmp(name, "--until") == 0)
		criteria_hint(true, value, buf, len);
	else if (strcmp(name, "-w") == 0 || strcmp(name, "--while") == 0)
		criteria_hint(false, value, buf, len);
	else
		return false;
	return true;
}
