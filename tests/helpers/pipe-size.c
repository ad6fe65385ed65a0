/*
 * pipe-size: how large a pipe is, for the tests of the pipes that retry
 * makes larger.  Prints the size in bytes of the pipe on descriptor FD
 * (default 0), or "none" where the system cannot tell.
 *
 * usage: pipe-size [-d] [-r FILE] [-s SIZE] [FD]
 *   -s SIZE  first make the pipe SIZE bytes
 *   -r FILE  then create FILE, so that the writer may start
 *   -d       then read standard input to its end, and only then print
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void
drain(void)
{
	static char buf[1 << 16];
	ssize_t n;

	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		continue;
	if (n == -1)
		err(1, "read");
}

int
main(int argc, char *argv[])
{
	const char *ready = NULL;
	long size = 0;
	int c, d = 0, fd = 0, f;

	while ((c = getopt(argc, argv, "dr:s:")) != -1) {
		if (c == 'd')
			d = 1;
		else if (c == 'r')
			ready = optarg;
		else if (c == 's')
			size = strtol(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind < argc)
		fd = atoi(argv[optind]);
#ifdef F_SETPIPE_SZ
	if (size > 0 && fcntl(fd, F_SETPIPE_SZ, (int)size) == -1)
		err(1, "F_SETPIPE_SZ %ld", size);
#endif
	if (ready != NULL) {
		if ((f = open(ready, O_WRONLY | O_CREAT, 0644)) == -1)
			err(1, "%s", ready);
		close(f);
	}
	if (d)
		drain();
#ifdef F_GETPIPE_SZ
	if ((size = fcntl(fd, F_GETPIPE_SZ)) == -1)
		err(1, "F_GETPIPE_SZ");
	printf("%ld\n", size);
#else
	puts("none");
#endif
	return 0;
}
