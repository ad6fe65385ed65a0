#!/bin/sh
# make demo: retry at work on a command that fails twice, then succeeds;
# prints the status retry exited with, and exits with it.
set -eu
state=$(mktemp)
trap 'rm -f "$state"' EXIT
cat <<MSG
$ retry -v --base=200ms -- sh -c 'flaky: fails twice, then succeeds'
MSG
status=0
./retry -v --base=200ms -- sh -c '
	n=$(cat "$1"); n=$((${n:-0} + 1)); echo "$n" > "$1"
	if [ "$n" -lt 3 ]; then
		echo "attempt $RETRY_ATTEMPT: service unavailable" >&2; exit 7
	fi
	echo "attempt $RETRY_ATTEMPT: ok"' sh "$state" || status=$?
echo "\$ echo \$?"
echo "$status"
exit "$status"
