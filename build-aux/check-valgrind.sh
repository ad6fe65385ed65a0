#!/bin/sh
# make check-valgrind: part of the bats suite with retry under valgrind
# memcheck, through tests/helpers/quality-valgrind.
#
# usage: check-valgrind.sh CANARY BATS [ARG...]
#   CANARY  tests/helpers/quality-canary, built without sanitizers
# The retry checked is build/valgrind/retry (its name must be retry: the
# tests expect messages that start with "retry: "); build/valgrind/logs
# is emptied, then receives one valgrind log per process.
#
# An error makes retry exit 99, which fails the test that ran it; the
# logs are searched as well, since a process that a test kills or leaves
# behind has no exit status to look at.  First the canary proves that
# an invalid read and a definite leak are caught.
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 CANARY BATS [ARG...]" >&2
	exit 2
fi
canary=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
wrapper=$root/tests/helpers/quality-valgrind logs=$root/build/valgrind/logs
if [ ! -x "$root/build/valgrind/retry" ]; then
	echo "check-valgrind: build/valgrind/retry is missing" >&2
	exit 2
fi
rm -rf "$logs" && mkdir -p "$logs" || exit 2
# budget.bats runs retry as another user too, whose valgrind logs there.
chmod 1777 "$logs" || exit 2

# What memcheck says when it finds an error; ERROR SUMMARY catches the rest.
errors='Invalid (read|write|free)|Mismatched free|uninitialised|'
errors="${errors}unaddressable|overlap|definitely lost in|Fishy value|"
errors="${errors}ERROR SUMMARY: [1-9]"

# errors_in FILE...: the logs that report an error, one per line.
errors_in() {
	grep -lE "$errors" "$@" 2>/dev/null
}

# canary KIND: the canary's error must fail it and be in the log.
canary() {
	QUALITY_VG_BIN=$canary "$wrapper" "$1"
	status=$?
	if [ "$status" -ne 99 ] || [ -z "$(errors_in "$logs"/*)" ]; then
		echo "check-valgrind: the '$1' canary was not caught" \
		    "(status $status)" >&2
		exit 1
	fi
	rm -f "$logs"/*
}

canary heap
canary leak
if ! QUALITY_VG_BIN=$canary "$wrapper" none ||
    [ -n "$(errors_in "$logs"/*)" ]; then
	echo "check-valgrind: the clean canary failed or was reported" >&2
	exit 1
fi
rm -f "$logs"/*
echo "check-valgrind: the canary's invalid read and leak were caught"

RETRY=$wrapper
export RETRY
"$@"
status=$?

found=$(errors_in "$logs"/*)
if [ -n "$found" ]; then
	for f in $found; do
		echo "==== $f"
		cat "$f"
	done
	echo "check-valgrind: $(echo "$found" | wc -l) process(es) with" \
	    "memcheck errors, logs in $logs" >&2
	exit 1
fi
if [ "$status" -ne 0 ]; then
	echo "check-valgrind: the suite failed under valgrind" \
	    "(status $status), with no memcheck error in the logs" >&2
	exit "$status"
fi
echo "check-valgrind: $(find "$logs" -type f | wc -l) valgrind logs," \
    "no memcheck error"
