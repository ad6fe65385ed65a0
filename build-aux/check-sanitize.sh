#!/bin/sh
# make check-sanitize: the bats suite against retry built with
# AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer.
#
# usage: check-sanitize.sh RETRY CANARY LOGDIR BATS [ARG...]
#   RETRY   the sanitized retry; the suite runs with RETRY set to it
#   CANARY  tests/helpers/quality-canary built with the same flags
#   LOGDIR  emptied, then receives one file per report
#
# Reports go to files, not to stderr: a report on stderr would only break
# a test's exact comparison of stderr without showing why, and it would
# be lost for a process that the test leaves behind.  Every report found
# in LOGDIR afterwards fails the run and is printed.  First the canary,
# with known errors, proves that the sanitizers are on and that their
# reports land where this script looks: a gate that cannot fail is none.
set -u

if [ $# -lt 4 ]; then
	echo "usage: $0 RETRY CANARY LOGDIR BATS [ARG...]" >&2
	exit 2
fi
retry=$1 canary=$2 logs=$3
shift 3

rm -rf "$logs" && mkdir -p "$logs" || exit 2
# The sanitizers must not change what the tests observe: no abort(), so
# no core file, and no RLIMIT_CORE of 0 for the command to inherit (ASan
# sets one by default); a report makes the process exit 1.
ASAN_OPTIONS="log_path=$logs/asan:halt_on_error=1:abort_on_error=0"
ASAN_OPTIONS="$ASAN_OPTIONS:disable_coredump=0:detect_leaks=1"
ASAN_OPTIONS="$ASAN_OPTIONS:strict_string_checks=1"
ASAN_OPTIONS="$ASAN_OPTIONS:detect_stack_use_after_return=1"
UBSAN_OPTIONS="log_path=$logs/ubsan:halt_on_error=1:abort_on_error=0"
UBSAN_OPTIONS="$UBSAN_OPTIONS:print_stacktrace=1:report_error_type=1"
# Tests that move large amounts of data scale them down under the
# sanitizers, which make every byte several times dearer.
RETRY_SANITIZED=1
export ASAN_OPTIONS UBSAN_OPTIONS RETRY_SANITIZED

# reports: the non-empty files in the log directory, one per line.
reports() {
	find "$logs" -type f -size +0c | sort
}

# canary KIND PATTERN: the canary's error must be reported, as PATTERN.
canary() {
	"$canary" "$1" 2>/dev/null
	if ! grep -qs "$2" "$logs"/*; then
		echo "check-sanitize: the '$1' canary was not reported" \
		    "(expected '$2' in $logs)" >&2
		exit 1
	fi
	rm -f "$logs"/*
}

canary heap "AddressSanitizer: heap-buffer-overflow"
canary leak "LeakSanitizer: detected memory leaks"
canary ub "runtime error: signed integer overflow"
if ! "$canary" none || [ -n "$(reports)" ]; then
	echo "check-sanitize: the clean canary failed or was reported" >&2
	exit 1
fi
echo "check-sanitize: the canary's heap, leak and ub errors were caught"

RETRY=$retry
export RETRY
"$@"
status=$?

found=$(reports)
if [ -n "$found" ]; then
	for f in $found; do
		echo "==== $f"
		cat "$f"
	done
	echo "check-sanitize: $(echo "$found" | wc -l) sanitizer report(s)" \
	    "in $logs" >&2
	exit 1
fi
if [ "$status" -ne 0 ]; then
	echo "check-sanitize: the suite failed under the sanitizers" \
	    "(status $status), with no sanitizer report" >&2
	exit "$status"
fi
echo "check-sanitize: the suite passed, with no sanitizer report"
