#!/bin/sh
# make demo: retry at work on a command that fails twice, then succeeds;
# prints the status retry exited with, and exits with it.  The command
# line it prints is the one it runs, word for word: it can be pasted.
set -eu
flaky='if [ "$RETRY_ATTEMPT" -lt 3 ]; then echo "attempt $RETRY_ATTEMPT: service unavailable" >&2; exit 7; fi; echo "attempt $RETRY_ATTEMPT: ok"'
# The script holds no single quote: in single quotes it reads as it runs.
printf "\$ ./retry -v --base=200ms -- sh -c '%s'\n" "$flaky"
status=0
./retry -v --base=200ms -- sh -c "$flaky" || status=$?
echo "\$ echo \$?"
echo "$status"
exit "$status"
