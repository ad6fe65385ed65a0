/*
 * zombie-leader: a process whose main thread has exited while another
 * thread runs on, so that its leader shows as a zombie (state Z) though
 * the process lives.  The other thread writes its thread id to FILE
 * (through a temporary name, so that a reader never sees half of it) and
 * sleeps until a signal ends the process, or 20 seconds have passed:
 * one that a bug leaves behind ends by itself, and it holds no
 * descriptor of its caller's (stdin, stdout and stderr go to /dev/null)
 * that could keep a test waiting for it.
 *
 * usage: zombie-leader FILE
 */
#include <sys/syscall.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *file;

static void *
sleeper(void *arg)
{
	char tmp[4096];
	FILE *f;

	(void)arg;
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	if ((f = fopen(tmp, "w")) == NULL)
		exit(2);
	fprintf(f, "%ld\n", (long)syscall(SYS_gettid));
	if (fclose(f) != 0 || rename(tmp, file) != 0)
		exit(2);
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t t;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: zombie-leader FILE\n");
		return 2;
	}
	file = argv[1];
	if ((fd = open("/dev/null", O_RDWR)) == -1 || dup2(fd, 0) == -1 ||
	    dup2(fd, 1) == -1 || dup2(fd, 2) == -1)
		return 2;
	if (fd > 2)
		close(fd);
	alarm(20);
	if (pthread_create(&t, NULL, sleeper, NULL) != 0)
		return 2;
	pthread_exit(NULL);
}
