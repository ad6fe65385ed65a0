/*
 * redisstore.h: what redisstore.c offers its callers: the Redis store,
 * through hiredis when it is built in, as a table of functions
 * (store.h).
 */
#ifndef REDISSTORE_H
#define REDISSTORE_H

#include "store.h"

extern const struct store_ops redis_store;

#endif /* REDISSTORE_H */
