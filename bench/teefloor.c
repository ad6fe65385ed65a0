/*
 * teefloor: the least that a process between two pipes costs when it
 * must see every byte, as retry does to match output conditions.  It
 * passes its standard input, a pipe, on to its standard output, a pipe,
 * with tee(2) (no copy), then reads the same bytes into its own buffer
 * and drops them: no matching, no poll(2), blocking calls.  Like retry
 * once a command writes in bulk, it makes both pipes 1 MiB and takes up
 * to 1 MiB a turn; it reads back in 64 KiB pieces, as retry does.  src/ere/bench/matcher.sh runs it in the
 * place of retry, so that the throughput of an output condition can be
 * held against what its process alone costs on this machine.
 *
 *	cat FILE | teefloor | cat
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define CHUNK	((size_t)64 * 1024)
#define PULL	((size_t)1024 * 1024)

int
main(void)
{
	static char buf[CHUNK];
	ssize_t n, r, got;

	fcntl(STDIN_FILENO, F_SETPIPE_SZ, (int)PULL);
	fcntl(STDOUT_FILENO, F_SETPIPE_SZ, (int)PULL);
	while ((n = tee(STDIN_FILENO, STDOUT_FILENO, PULL, 0)) > 0)
		for (got = 0; got < n; got += r)
			if ((r = read(STDIN_FILENO, buf, (size_t)(n - got) <
			    CHUNK ? (size_t)(n - got) : CHUNK)) <= 0)
				err(1, "read");
	if (n == -1)
		err(1, "tee");
	return 0;
}
