/*
 * fd.h: what fd.c offers its callers: the descriptors retry opens for
 * itself, all above 2.
 */
#ifndef FD_H
#define FD_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "defs.h"

char		*fd_stderr_lines(void);
int		 fd_above_stdio(int fd);
/* How fd_open_append()'s ENXIO is said: a FIFO with no reader. */
#define FD_NO_READER	"a FIFO with no reader; start its reader first"
int		 fd_open_append(const char *path);
bool		 fd_is_regular(int fd);
bool		 fd_ends_mid_line(int fd);
int		 fd_tty_nonblock(int fd);
int		 fd_pipe_nonblock(int fd);
bool		 fd_own_nonblock(int fd);
int		 fd_pipe(int p[2]);
int		 fd_tmpfile(void);
void		 fd_grow_pipe(int fd);
bool		 fd_grow_read_pipe(int fd, uint64_t passed);
bool		 fd_file_full(void);
ssize_t		 fd_send_file(int in, off_t *off, int out, size_t len);
ssize_t		 fd_take_stream(int in, int out, off_t off, size_t len);
void		 fd_write_all(int fd, const char *s, size_t len);
bool		 fd_write_within(int fd, const char *s, size_t len,
		    int stall_ms);
int		 fd_peer_uid(int fd, uid_t *uid);

/* A non-blocking descriptor that takes nothing this long is given up on. */
#define WRITE_STALL_MS	1000

#endif /* FD_H */
