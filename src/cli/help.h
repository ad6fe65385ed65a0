/*
 * help.h: what help.c offers its callers: the usage line and --help.
 */
#ifndef HELP_H
#define HELP_H

#include <stdio.h>

#include "os/defs.h"

int		 help_print(FILE *fp);

#endif /* HELP_H */
