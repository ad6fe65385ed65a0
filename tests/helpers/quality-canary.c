/*
 * quality-canary: a program with deliberate memory errors, so that the
 * sanitizer and valgrind gates can prove that they catch one before they
 * vouch for retry.  A gate whose checker is silently off would pass.
 *
 * usage: quality-canary heap|leak|ub|none
 *   heap  reads one byte past a heap block
 *   leak  loses the only pointer to a heap block
 *   ub    overflows a signed integer
 *   none  does nothing wrong
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept out of the optimizer's reach, so that each error really happens. */
volatile int canary_sink;
void *volatile canary_ptr;

int
main(int argc, char *argv[])
{
	volatile int big = 2147483647;
	volatile size_t size = 8;
	char *p;

	if (argc != 2)
		return 2;
	if (strcmp(argv[1], "heap") == 0) {
		p = malloc(size);
		canary_sink = p[size];
		free(p);
	} else if (strcmp(argv[1], "leak") == 0) {
		canary_ptr = malloc(32);
		canary_ptr = NULL;
	} else if (strcmp(argv[1], "ub") == 0)
		canary_sink = big + canary_sink + 1;
	else if (strcmp(argv[1], "none") != 0)
		return 2;
	return 0;
}
