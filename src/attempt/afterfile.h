/*
 * afterfile.h: what afterfile.c offers its callers: RETRY_AFTER_FILE,
 * the file where an attempt may say when, or whether, to run it again.
 */
#ifndef AFTERFILE_H
#define AFTERFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "os/defs.h"
#include "os/privdir.h"
#include "policy/after.h"

#define AFTER_VAR	"RETRY_AFTER_FILE="

struct after_file {
	struct privdir	 dir;		/* the kept one, or the attempt's */
	const char	*name;		/* the attempt's, in var; or NULL */
	char		 var[sizeof(AFTER_VAR) + PRIVDIR_PATH_MAX + 64];
	char		 text[AFTER_TEXT_MAX + 2];	/* what was read */
	size_t		 len;		/* AFTER_TEXT_MAX + 1: too long */
	const char	*refused;	/* why it was not read, or NULL */
	bool		 tried;		/* to open the kept directory */
	bool		 kept;		/* dir is it */
	bool		 told;		/* that there is no directory */
	enum after_ask	 ask;		/* after_file_ask()'s answer */
	nsec_t		 delay;		/* with AFTER_WAIT */
};

void		 after_file_init(struct after_file *a);
void		 after_file_begin(struct after_file *a, long long k);
void		 after_file_end(struct after_file *a);
enum after_ask	 after_file_ask(struct after_file *a, long long k,
		    nsec_t wall);

#endif /* AFTERFILE_H */
