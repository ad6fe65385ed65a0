/*
 * guardspec.h: a --budget or --breaker SPEC's store written back as the
 * URL that parse.c reads, for messages and --dry-run.
 */
#ifndef GUARDSPEC_H
#define GUARDSPEC_H

#include <stddef.h>

struct guard_spec;

/* parse.c: the Redis URL of g, or "" for a local state file. */
int	guard_target(char *buf, size_t len, const struct guard_spec *g);

#endif /* GUARDSPEC_H */
