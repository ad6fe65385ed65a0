/*
 * help.c: the usage line and the text of --help.  The usage line is the
 * man page's SYNOPSIS, and every option in the help is in the man page
 * and the completions (tests/consistency.bats checks both): they change
 * together.  help_info() prints what --help, --version and
 * --preset=list ask for.
 */
#include <err.h>
#include <stdio.h>

#include "os/defs.h"
#include "policy/preset.h"
#include "config.h"
#include "help.h"

static const char usage_text[] =
"usage: retry [options] [--] command [argument ...]\n"
"       retry --dry-run [options] [[--] command ...]\n"
"       retry --guard-status | --guard-reset --budget=SPEC | --breaker=SPEC\n";

static const char help_text[] =
"Run a command until it succeeds, waiting longer after each failure.\n"
"\n"
"Schedule:\n"
"  -n, --attempts=N          total runs, the first included, or inf          [5]\n"
"  -b, --base=DURATION       the first backoff window                       [1s]\n"
"  -f, --factor=X            growth of the window per retry, >= 1            [2]\n"
"  -c, --cap=DURATION        no sleep exceeds it      [60s, or --base if larger]\n"
"  -j, --jitter=MODE         none|full|equal|decorrelated|A..B|+DURATION  [full]\n"
"      --splay=DURATION      random wait before the first attempt            [0]\n"
"      --seed=N              make every random draw reproducible        [random]\n"
"      --preset=NAME         a known system's schedule, or list           [none]\n"
"      --delays=LIST         DURATIONs, comma-separated: retry k waits the k-th,\n"
"                            the last repeated; no -b, -f, -c, --preset;\n"
"                            jitter none unless -j is given           [computed]\n"
"\n"
"Policy (LIST: exit codes, ranges such as 1-125, signal names, timeout):\n"
"  -r, --retry-on=LIST       outcomes that are retried\n"
"           [1-255 but 126,127; timeout; signals but INT, TERM, HUP, QUIT, PIPE]\n"
"  -x, --stop-on=LIST        outcomes never retried; wins over -r         [none]\n"
"      --success-on=LIST     outcomes that count as success                  [0]\n"
"      --http=FILE           read the HTTP status and Retry-After that the\n"
"                            command saves in FILE (curl -D FILE)         [none]\n"
"  LIST items may also be HTTP statuses, http:NNN or http:Nxx; with --http,\n"
"  408, 429, 500, 502, 503 and 504 are retried, other statuses from 400 not.\n"
"  A LIST that starts with + adds to the default instead: -r +75.\n"
"      --success-if-output=ERE  a line matching ERE: success              [none]\n"
"      --success-if-stdout=ERE  the same, on stdout alone                 [none]\n"
"      --success-if-stderr=ERE  the same, on stderr alone                 [none]\n"
"      --stop-if-output=ERE  a line matching ERE: not retried             [none]\n"
"      --stop-if-stdout=ERE  the same, on stdout alone                    [none]\n"
"      --stop-if-stderr=ERE  the same, on stderr alone                    [none]\n"
"      --retry-if-output=ERE a line matching ERE: retried                 [none]\n"
"      --retry-if-stdout=ERE the same, on stdout alone                    [none]\n"
"      --retry-if-stderr=ERE the same, on stderr alone                    [none]\n"
"  -F, --fixed-strings       each ERE of the nine above is a literal string,\n"
"                            as with grep -F\n"
"      --reset-after=DURATION  a run this long restarts the schedule     [never]\n"
"      --until-failure       run again after each success, until the first\n"
"                            failure: for flaky tests\n"
"      --exhausted-status=N  exit N, not the command's status, when giving up\n"
"                            on an outcome that would be retried          [none]\n";

static const char help_text2[] =
"Hooks (CMD runs through /bin/sh -c):\n"
"      --on-retry=CMD        run after a failed attempt, before sleeping  [none]\n"
"      --on-give-up=CMD      run once when retry gives up                 [none]\n"
"\n"
"Time and signals:\n"
"  -t, --timeout=DURATION    limit for each attempt, 0 for none           [none]\n"
"  -s, --signal=SIG          sent when an attempt times out               [TERM]\n"
"  -k, --kill-after=DURATION then SIGKILL after this long, or inf          [10s]\n"
"  -m, --max-time=DURATION   limit for the whole run, 0 for none          [none]\n"
"  -S, --stall-timeout=DURATION  end an attempt that writes nothing to\n"
"                            stdout or stderr this long, as -t does       [none]\n"
"      --foreground          always stay in the caller's process group\n"
"\n"
"Pipelines:\n"
"  -I, --replay-stdin        give every attempt the same standard input\n"
"  -O, --hold-stdout         pass on only the final attempt's stdout\n"
"      --failed-output=WHERE where a failed attempt's stdout goes (sets -O):\n"
"                            stderr, drop or a file to append to        [stderr]\n"
"  -E, --hold-stderr         pass on only the final attempt's stderr\n"
"      --failed-stderr=WHERE where a failed attempt's stderr goes (sets -E):\n"
"                            drop, stderr or a file to append to          [drop]\n"
"\n"
"Shared limits (NAME, or for a fleet redis[s]://[USER@]HOST[:PORT][/DB]/NAME\n"
"               or unix://[USER@]/PATH/NAME[?db=DB]):\n"
"      --budget=SPEC         NAME[,tokens=N][,ratio=R][,refill=DURATION]: one\n"
"                            retry budget for every retry that names it,\n"
"                            a token back every DURATION   [none; 100, 0.1, 10s]\n"
"      --breaker=SPEC        NAME[,failures=N][,cooldown=DURATION]: no runs\n"
"                            for a cooldown after N failed runs    [none; 5, 1m]\n"
"      --guard-status        show the budget's and breaker's state, run nothing\n"
"      --guard-reset         refill the budget, close the breaker, and show\n"
"\n"
"Output:\n"
"      --dry-run             print the schedule and run nothing\n"
"      --log-format=FORMAT   text, json or github                         [text]\n"
"      --log-file=PATH       write progress messages there              [stderr]\n"
"      --json-log=PATH       also append the JSON log there               [none]\n"
"      --metrics-file=PATH   write Prometheus metrics there at the end    [none]\n"
"      --log-on-failure      keep the messages; write them only if the run\n"
"                            fails, as chronic(1) does\n"
"  -q, --quiet               no progress messages on the terminal, errors\n"
"                            only; a --log-file still gets them\n"
"  -v, --verbose             also report the splay, each attempt's start and end\n"
"  -h, --help                show this help and exit\n"
"  -V, --version             show the version and exit\n"
"\n"
"DURATION is a number with an optional unit ns, us, ms, s, m, h or d\n"
"(seconds by default), or a sum such as 1m30s.  Options in RETRY_OPTIONS\n"
"are read before the command line, which wins.  An attempt may write a\n"
"DURATION, an HTTP-date or stop to $RETRY_AFTER_FILE.  See retry(1).\n";

/* Prints the usage line and the help to fp; what fflush(3) returns. */
int
help_print(FILE *fp)
{
	fputs(usage_text, fp);
	fputs("\n", fp);
	fputs(help_text, fp);
	fputs("\n", fp);
	fputs(help_text2, fp);
	return fflush(fp);
}

/* --help, --version or --preset=list: prints it, returns the status. */
int
help_info(enum parse_result r)
{
	switch (r) {
	case PARSE_HELP:
		(void)help_print(stdout);
		break;
	case PARSE_VERSION:
		/* Debian's retry says "retry 1.0.5": which program this is. */
		printf("retry %s (retry-backoff: exponential backoff and jitter)\n", RETRY_VERSION);
		break;
	default:
		(void)preset_list(stdout);
	}
	/*
	 * As --dry-run: an error said, 125.  ferror() too: a write that
	 * failed in an earlier flush leaves nothing for the last one.
	 */
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_CANCELED, "standard output");
	return 0;
}
