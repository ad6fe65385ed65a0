/*
 * spawn.h: what spawn.c offers its callers: starting the command, and
 * telling a failed exec apart.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <sys/types.h>

#include <stdbool.h>

#include "os/defs.h"
#include "os/signals.h"

int		 spawn_command(const struct sigstate *ss, char **argv,
		    char **envp, const int fd[3], bool own_group, pid_t *pidp);
void		 spawn_cannot_run(const char *cmd, int error);

#endif /* SPAWN_H */
