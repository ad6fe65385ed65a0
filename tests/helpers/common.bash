# Shared set-up for the bats suites: load it with `load helpers/common`.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

# A signal bug must fail a test, not hang CI.
: "${BATS_TEST_TIMEOUT:=30}"
export BATS_TEST_TIMEOUT

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
RETRY=${RETRY:-$ROOT/retry}
WSTATUS=$ROOT/tests/helpers/wstatus
export ROOT RETRY WSTATUS

common_setup() {
	WORK=$BATS_TEST_TMPDIR
	export WORK
	unset RETRY_ATTEMPT RETRY_MAX_ATTEMPTS RETRY_PREV_STATUS
}

# Waits, polling, until a file exists and is not empty (at most $2 s).
wait_for_file() {
	local i limit=$(( ${2:-10} * 100 ))
	for ((i = 0; i < limit; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.01
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# Waits until a process is gone (at most $2 s).
wait_gone() {
	local i limit=$(( ${2:-10} * 100 ))
	for ((i = 0; i < limit; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.01
	done
	echo "process $1 still alive" >&2
	return 1
}

# untimed TEXT: TEXT with the measured time in retry's lines of success,
# stop and giving up made "T": "retry: succeeded on attempt 2/5 after Ts".
untimed() {
	local n='[0-9]+/([0-9]+|inf)'
	sed -E "s#(retry: (succeeded on attempt $n after|stopped by [A-Z0-9+]+ (during attempt $n after|after attempt $n in|during the splay after)|giving up after [0-9]+ attempts? in) )[0-9]+\.[0-9]{3}s#\1Ts#" <<<"$1"
}
