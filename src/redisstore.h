/*
 * redisstore.h: what redisstore.c adds to the declarations in
 * internal.h: a Unix socket's connection, and a database other than 0.
 */
#ifndef REDISSTORE_H
#define REDISSTORE_H

#include <stdbool.h>
#include <stddef.h>

struct redis;
struct sigstate;

struct redis	*redis_open_unix(const char *path, const struct sigstate *ss,
		    char *why, size_t len);
bool		 redis_select(struct redis *r, int db, char *why, size_t len);

#endif /* REDISSTORE_H */
