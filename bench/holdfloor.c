/*
 * holdfloor: the least -O can cost while the attempt's stdout is a pipe.
 * It moves its standard input, a pipe, into an unlinked temporary file
 * in $TMPDIR (or /tmp) with splice(2), 1 MiB at a time, and at its end
 * moves the file to its standard output, a pipe too, the same way: the
 * two copies of `retry -O`, with nothing else.  Both pipes hold 1 MiB,
 * as retry makes the ones it reads and writes where it may.  The bound that issue 37
 * sets, `cat FILE > held && cat held | cat`, lets cat copy FILE into the
 * held file within the kernel (copy_file_range(2)); a command writing
 * into a pipe cannot, and held.c says why the stdout of an attempt is a
 * pipe, never the held file.
 *
 *	cat FILE | holdfloor | cat
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int
main(void)
{
	const char *dir = getenv("TMPDIR");
	loff_t off = 0, end;
	ssize_t n;
	int fd;

	(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) == -1)
		err(1, "%s", dir);
	while ((n = splice(STDIN_FILENO, NULL, fd, &off, 1 << 20,
	    SPLICE_F_MOVE)) > 0)
		continue;
	if (n == -1)
		err(1, "splice in");
	for (end = off, off = 0; off < end; )
		if (splice(fd, &off, STDOUT_FILENO, NULL, (size_t)(end - off),
		    SPLICE_F_MOVE) <= 0)
			err(1, "splice out");
	return 0;
}
