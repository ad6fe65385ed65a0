#!/usr/bin/env bats
# The command's environment gains RETRY_ATTEMPT (from 1),
# RETRY_MAX_ATTEMPTS (N or inf) and RETRY_PREV_STATUS (empty on the first
# attempt, then the previous status as $? would show it: 128+S after a
# death by signal S, 124 after a timeout).

load helpers/common
load helpers/core

setup() {
	common_setup
	# Prints the three variables, set or not, then fails as $CODES says
	# for this attempt: a number is an exit status, a name a signal.
	codes_script "$WORK/show" 'printf "%s|%s|%s\n" "${RETRY_ATTEMPT-unset}" \
	    "${RETRY_MAX_ATTEMPTS-unset}" "${RETRY_PREV_STATUS-unset}"'
}

@test "RETRY_ATTEMPT counts from 1; RETRY_MAX_ATTEMPTS is --attempts" {
	CODES=1 run -1 --separate-stderr "$RETRY" -q -n 4 -b 0 "$WORK/show"
	[ -z "$stderr" ]
	[ "$output" = "1|4|
2|4|1
3|4|1
4|4|1" ]
}

@test "RETRY_MAX_ATTEMPTS is inf with unlimited attempts, 5 by default" {
	CODES="1 0" run -0 --separate-stderr "$RETRY" -q -n inf -b 0 \
	    "$WORK/show"
	[ -z "$stderr" ]
	[ "$output" = "1|inf|
2|inf|1" ]
	CODES=0 run -0 --separate-stderr "$RETRY" -q "$WORK/show"
	[ -z "$stderr" ]
	[ "$output" = "1|5|" ]
}

@test "RETRY_PREV_STATUS is set but empty on the first attempt" {
	run -0 --separate-stderr "$RETRY" -n 1 sh -c \
	    'echo "${RETRY_PREV_STATUS+set}:${#RETRY_PREV_STATUS}"'
	[ -z "$stderr" ]
	[ "$output" = "set:0" ]
}

@test "RETRY_PREV_STATUS is the previous status as \$? shows it" {
	# The run gives up after an exit 0 that is not a success: exit 1.
	CODES="3 USR1 200 0 SEGV 0" run -1 --separate-stderr "$RETRY" -q \
	    -n 9 -b 0 -r 0-255,USR1,SEGV --success-on=7 "$WORK/show"
	[ -z "$stderr" ]
	[ "$output" = "1|9|
2|9|3
3|9|$((128 + $(kill -l USR1)))
4|9|200
5|9|0
6|9|139
7|9|0
8|9|0
9|9|0" ]
}

@test "RETRY_PREV_STATUS is 124 after a timed-out attempt" {
	run -0 --separate-stderr "$RETRY" -q -n 2 -b 0 -t 50ms sh -c '
		[ "$RETRY_ATTEMPT" -eq 1 ] && exec sleep 10
		echo "prev $RETRY_PREV_STATUS"'
	[ -z "$stderr" ]
	[ "$output" = "prev 124" ]
}

@test "values inherited from the caller are replaced, not duplicated" {
	RETRY_ATTEMPT=99 RETRY_MAX_ATTEMPTS=98 RETRY_PREV_STATUS=97 \
	    CODES="5 0" run -0 --separate-stderr "$RETRY" -q -n 3 -b 0 \
	    "$WORK/show"
	[ -z "$stderr" ]
	[ "$output" = "1|3|
2|3|5" ]
	RETRY_ATTEMPT=99 RETRY_MAX_ATTEMPTS=98 RETRY_PREV_STATUS=97 \
	    RETRY_PREV_HTTP_STATUS=96 run -0 --separate-stderr "$RETRY" -n 1 env
	[ -z "$stderr" ]
	# Each once; the caller's others (RETRY_SANITIZED) are not retry's.
	local mine='^RETRY_(ATTEMPT|MAX_ATTEMPTS|PREV_STATUS|PREV_HTTP_STATUS)='
	[ "$(grep -cE "$mine" <<<"$output")" -eq 4 ]
	[ "$(grep -E "$mine" <<<"$output" | sort)" = "RETRY_ATTEMPT=1
RETRY_MAX_ATTEMPTS=1
RETRY_PREV_HTTP_STATUS=
RETRY_PREV_STATUS=" ]
}

@test "the rest of the environment passes through unchanged" {
	run -0 --separate-stderr env -i PATH="$PATH" HOME=/nowhere \
	    'ODD=a b=c' EMPTY= "$RETRY" -n 1 env
	[ -z "$stderr" ]
	# RETRY_AFTER_FILE names a new file each time (afterfile.bats), in
	# the kept directory, or a fresh one where another user has that.
	grep -qxE "RETRY_AFTER_FILE=/tmp/retry-after(-$(id -u)|\\.[[:alnum:]]{6})/after\\..*" \
	    <<<"$output"
	[ "$(grep -v ^RETRY_AFTER_FILE= <<<"$output" | sort)" = \
	    "$(printf '%s\n' EMPTY= HOME=/nowhere \
	    'ODD=a b=c' "PATH=$PATH" RETRY_ATTEMPT=1 RETRY_MAX_ATTEMPTS=1 \
	    RETRY_PREV_STATUS= RETRY_PREV_HTTP_STATUS= | sort)" ]
}
