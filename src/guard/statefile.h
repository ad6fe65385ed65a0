/*
 * statefile.h: what statefile.c offers its callers: the local store, one
 * small file per NAME in a directory of the user's own, read and written
 * under an exclusive lock, as a table of functions (store.h).
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include "store.h"

extern const struct store_ops statefile_store;
int	statefile_dir(void);

#endif /* STATEFILE_H */
