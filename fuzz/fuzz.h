/*
 * fuzz.h: what the libFuzzer harnesses share.  Each harness checks
 * properties of the parser it drives, not only the absence of crashes:
 * a property that fails aborts, and libFuzzer records the input as a
 * crash like any other.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"
#include "cli/parse.h"
#include "guard/budget.h"
#include "guard/spec.h"
#include "log/jsonlog.h"
#include "os/defs.h"
#include "os/signals.h"
#include "policy/backoff.h"
#include "policy/http.h"
#include "policy/outcomes.h"
#include "text/duration.h"
#include "text/format.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(cond) do {						\
	if (!(cond))							\
		fuzz_fail(__FILE__, __LINE__, #cond);			\
} while (0)

static void __attribute__((__noreturn__, __unused__))
fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: property failed: %s\n", file, line, what);
	abort();
}

/*
 * The input as a C string, as argv would carry it: NULL when it holds a
 * NUL byte, since no command-line word can.
 */
static char * __attribute__((__unused__))
fuzz_string(const uint8_t *data, size_t size)
{
	char *s;

	if (memchr(data, '\0', size) != NULL)
		return NULL;
	if ((s = malloc(size + 1)) == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A fresh string: the concatenation of a and b. */
static char * __attribute__((__unused__))
fuzz_concat(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s;

	if ((s = malloc(la + lb + 1)) == NULL)
		abort();
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

#endif /* FUZZ_H */
