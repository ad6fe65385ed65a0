/*
 * help.h: what help.c offers its callers: the usage line, --help,
 * --version and --preset=list.
 */
#ifndef HELP_H
#define HELP_H

#include <stdio.h>

#include "os/defs.h"
#include "config.h"

int		 help_print(FILE *fp);
int		 help_info(enum parse_result r);

#endif /* HELP_H */
