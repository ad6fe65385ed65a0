/*
 * spoolfloor: the least a spool costs.  It moves its standard input, a
 * pipe, into an unlinked temporary file in $TMPDIR (or /tmp) with
 * splice(2), 1 MiB at a time, and does nothing else: what one copy of a
 * stream into the page cache costs on this machine.  retry -I -O must
 * make two such copies (the input kept for a replay, the output held
 * until the attempt ends) besides feeding and draining the command.
 *
 *	spoolfloor < pipe
 */
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int
main(void)
{
	const char *dir = getenv("TMPDIR");
	loff_t off = 0;
	ssize_t n;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) == -1)
		err(1, "%s", dir);
	while ((n = splice(STDIN_FILENO, NULL, fd, &off, 1 << 20,
	    SPLICE_F_MOVE)) > 0)
		continue;
	if (n == -1)
		err(1, "splice");
	return 0;
}
