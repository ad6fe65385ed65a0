/*
 * internal.h: every header of retry at once.  Each source file includes
 * the headers of the modules it calls; this one is left for budget.c and
 * redisstore.c, which another branch changes, until they name theirs.
 */
#ifndef INTERNAL_H
#define INTERNAL_H

#include "attempt.h"
#include "backoff.h"
#include "budget.h"
#include "clock.h"
#include "config.h"
#include "defs.h"
#include "dryrun.h"
#include "env.h"
#include "envopts.h"
#include "escape.h"
#include "fd.h"
#include "feed.h"
#include "format.h"
#include "guard.h"
#include "held.h"
#include "help.h"
#include "hooks.h"
#include "http.h"
#include "jsonlog.h"
#include "leftovers.h"
#include "log.h"
#include "match.h"
#include "outcomes.h"
#include "parse.h"
#include "preset.h"
#include "redisstore.h"
#include "signals.h"
#include "spawn.h"
#include "statefile.h"
#include "streams.h"

#endif /* INTERNAL_H */
