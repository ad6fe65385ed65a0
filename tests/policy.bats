#!/usr/bin/env bats
# The retry policy.  For each attempt the first match wins:
#   1. the command could not be started (127 not found, 126 otherwise):
#      retried only if that status is in --retry-on (and not --stop-on);
#   2. --success-on (default 0, replaced when given): stop with success;
#   3. --stop-on: stop;
#   4. --retry-on (default 1-255 but 126 and 127, timeouts, signals but
#      INT, TERM, HUP, QUIT and PIPE): retry while attempts remain;
#   5. anything else: stop.
# Exit statuses and signals for every value are in status.bats.

load helpers/common
load helpers/core

setup() {
	common_setup
	# The command: logs its attempt, then exits with the status listed
	# for that attempt in $CODES (the last one repeats), or with the
	# signal when the entry is a name.
	codes_script "$WORK/cmd" 'echo "$RETRY_ATTEMPT" >>"$WORK/log"'
}

# attempts N: the command ran N times.
attempts() {
	local n=0
	[[ -e $WORK/log ]] && n=$(wc -l <"$WORK/log")
	[[ $n -eq $1 ]] || { echo "$n attempts, expected $1" >&2; return 1; }
}

# failed K N OUTCOME: stderr line K-1 says attempt K/N failed that way.
failed() {
	[[ ${stderr_lines[$(($1 - 1))]} == \
	    "retry: attempt $1/$2 failed ($3), next in 0.000s" ]] ||
	    { echo "line $1: ${stderr_lines[$(($1 - 1))]}" >&2; return 1; }
}

@test "success: exit 0 stops at once, silently" {
	CODES=0 run -0 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK/cmd"
	[ -z "$stderr" ]
	attempts 1
}

@test "success after failures ends the run with 0" {
	CODES="1 2 0" run -0 --separate-stderr "$RETRY" -n 5 -b 0 -j none \
	    "$WORK/cmd"
	[ "${#stderr_lines[@]}" -eq 3 ]
	failed 1 5 "exit 1"
	failed 2 5 "exit 2"
	succeeded "${stderr_lines[2]}" 3 5
	attempts 3
}

@test "default --retry-on: every exit status 1-255 but 126 and 127" {
	local code
	for code in 1 2 75 124 125 128 130 137 143 200 255; do
		rm -f "$WORK/log"
		CODES=$code quick -n 2 -b 0 -j none "$WORK/cmd"
		[ "$status" -eq "$code" ]
		[ "${#stderr_lines[@]}" -eq 2 ]
		failed 1 2 "exit $code"
		giving_up "${stderr_lines[1]}" 2 "exit $code" "no attempts left"
		attempts 2
	done
	for code in 126 127; do
		rm -f "$WORK/log"
		CODES=$code quick -n 2 -b 0 -j none "$WORK/cmd"
		[ "$status" -eq "$code" ]
		giving_up "$stderr" 1 "exit $code" "not retried"
		attempts 1
	done
}

@test "--success-on replaces 0" {
	CODES=3 run -3 --separate-stderr "$RETRY" -n 3 -b 0 --success-on=3 \
	    "$WORK/cmd"
	[ -z "$stderr" ]
	attempts 1
	# 0 is now an ordinary outcome, and not in the default --retry-on;
	# a run that stops on it is no success, so it does not exit 0.
	rm "$WORK/log"
	CODES=0 run -1 --separate-stderr "$RETRY" -n 3 -b 0 --success-on=3 \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "exit 0" "not retried; exiting 1"
	attempts 1
}

@test "--success-on=1 with --retry-on=0 retries exit 0" {
	CODES="0 0 1" run -1 --separate-stderr "$RETRY" -n 5 -b 0 -j none \
	    --success-on=1 --retry-on=0 "$WORK/cmd"
	[ "${#stderr_lines[@]}" -eq 3 ]
	failed 1 5 "exit 0"
	failed 2 5 "exit 0"
	succeeded "${stderr_lines[2]}" 3 5
	attempts 3
	rm "$WORK/log"
	CODES=0 run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    --success-on=1 --retry-on=0 "$WORK/cmd"
	failed 1 2 "exit 0"
	giving_up "${stderr_lines[1]}" 2 "exit 0" "no attempts left; exiting 1"
	attempts 2
}

@test "--success-on takes ranges and several items" {
	CODES="1 9 4" run -4 --separate-stderr "$RETRY" -n 5 -b 0 -j none \
	    --success-on=0,3-5 "$WORK/cmd"
	[ "${#stderr_lines[@]}" -eq 3 ]
	failed 1 5 "exit 1"
	failed 2 5 "exit 9"
	succeeded "${stderr_lines[2]}" 3 5
	attempts 3
}

@test "--success-on comes before --stop-on and --retry-on" {
	CODES=5 run -5 --separate-stderr "$RETRY" -n 3 -b 0 --success-on=5 \
	    --stop-on=5 --retry-on=5 "$WORK/cmd"
	[ -z "$stderr" ]
	attempts 1
}

@test "--stop-on stops at once on a status retried by default" {
	CODES=2 run -2 --separate-stderr "$RETRY" -n 3 -b 0 -x 2 "$WORK/cmd"
	giving_up "$stderr" 1 "exit 2" "not retried"
	attempts 1
	# Other failures are still retried.
	rm "$WORK/log"
	CODES="1 2" run -2 --separate-stderr "$RETRY" -n 5 -b 0 \
	    -j none -x 2 "$WORK/cmd"
	[ "${#stderr_lines[@]}" -eq 2 ]
	failed 1 5 "exit 1"
	giving_up "${stderr_lines[1]}" 2 "exit 2" "not retried"
	attempts 2
}

@test "--stop-on wins over --retry-on" {
	CODES=7 run -7 --separate-stderr "$RETRY" -n 3 -b 0 -r 7 -x 7 \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "exit 7" "not retried"
	attempts 1
	rm "$WORK/log"
	CODES=7 run -7 --separate-stderr "$RETRY" -n 3 -b 0 -r 1-10 -x 5-8 \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "exit 7" "not retried"
	attempts 1
}

@test "--retry-on replaces the default list" {
	CODES=1 run -1 --separate-stderr "$RETRY" -n 3 -b 0 -r 3 "$WORK/cmd"
	giving_up "$stderr" 1 "exit 1" "not retried"
	attempts 1
	rm "$WORK/log"
	CODES="3 1" run -1 --separate-stderr "$RETRY" -n 3 -b 0 -j none -r 3 \
	    "$WORK/cmd"
	failed 1 3 "exit 3"
	giving_up "${stderr_lines[1]}" 2 "exit 1" "not retried"
	attempts 2
}

@test "--retry-on can list 126 and 127 from the command itself" {
	CODES="127 126 0" run -0 --separate-stderr "$RETRY" -n 3 -b 0 \
	    -j none -r 126,127 "$WORK/cmd"
	[ "${#stderr_lines[@]}" -eq 3 ]
	failed 1 3 "exit 127"
	failed 2 3 "exit 126"
	succeeded "${stderr_lines[2]}" 3 3
	attempts 3
}

@test "--retry-on with signal names, in any case, with or without SIG" {
	local list
	for list in TERM term SIGTERM sigterm 1,TERM,9; do
		rm -f "$WORK/log"
		CODES="TERM 0" quick -n 3 -b 0 -j none -r "$list" "$WORK/cmd"
		[ "$status" -eq 0 ]
		[ "${#stderr_lines[@]}" -eq 2 ]
		failed 1 3 "signal TERM"
		succeeded "${stderr_lines[1]}" 2 3
		attempts 2
	done
}

@test "--stop-on with a signal name stops a signal retried by default" {
	qemu_cannot "a silent death by a core-dumping signal"
	CODES=SEGV run -139 --separate-stderr "$RETRY" -n 3 -b 0 -x SEGV \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "signal SEGV" "not retried"
	attempts 1
}

@test "--success-on with a signal name: no retry and no message" {
	CODES=USR1 run -138 --separate-stderr "$RETRY" -n 3 -b 0 \
	    --success-on=0,USR1 "$WORK/cmd"
	[ -z "$stderr" ]
	attempts 1
}

@test "a signal in a list does not match the exit status 128+N" {
	CODES=143 run -143 --separate-stderr "$RETRY" -n 3 -b 0 -r TERM \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "exit 143" "not retried"
	attempts 1
	rm "$WORK/log"
	CODES=TERM run -143 --separate-stderr "$RETRY" -n 3 -b 0 -r 143 \
	    "$WORK/cmd"
	giving_up "$stderr" 1 "signal TERM" "not retried"
	attempts 1
}

@test "anything in no list stops the run" {
	CODES=9 run -9 --separate-stderr "$RETRY" -n 3 -b 0 -r 1-8 \
	    --success-on=10 "$WORK/cmd"
	giving_up "$stderr" 1 "exit 9" "not retried"
	attempts 1
}

@test "exec failure: a command not found is 127 and not retried" {
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 retry-no-such-command
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run retry-no-such-command: No such file or directory" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK/no/such/file"
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run $WORK/no/such/file: No such file or directory" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
}

@test "exec failure: a file that cannot be executed is 126 and not retried" {
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$WORK" >"$WORK/noexec"
	chmod 644 "$WORK/noexec"
	run -126 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK/noexec"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run $WORK/noexec: Permission denied" ]
	giving_up "${stderr_lines[1]}" 1 "exit 126" "not retried"
	[ ! -e "$WORK/ran" ]
	run -126 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK"
	[ "${stderr_lines[0]}" = "retry: cannot run $WORK: Permission denied" ]
	giving_up "${stderr_lines[1]}" 1 "exit 126" "not retried"
}

@test "exec failure: a missing interpreter is reported, not taken for the script" {
	printf '#!/nonexistent/interpreter\n' >"$WORK/script"
	chmod 755 "$WORK/script"
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK/script"
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run $WORK/script: No such file or directory" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "a command that exits 127 itself is not an exec failure" {
	CODES=127 run -127 --separate-stderr "$RETRY" -n 3 -b 0 "$WORK/cmd"
	giving_up "$stderr" 1 "exit 127" "not retried"
	attempts 1
	# ... so --success-on can take it, which it cannot for an exec
	# failure: that rule comes first.
	rm "$WORK/log"
	CODES=127 run -127 --separate-stderr "$RETRY" -n 3 -b 0 \
	    --success-on=127 "$WORK/cmd"
	[ -z "$stderr" ]
	attempts 1
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 --success-on=127 \
	    retry-no-such-command
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run retry-no-such-command: No such file or directory" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
}

@test "an exec failure is retried only when --retry-on lists its status" {
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 -j none -r 127 \
	    retry-no-such-command
	[ "${#stderr_lines[@]}" -eq 6 ]
	local cannot="retry: cannot run retry-no-such-command: No such file or directory"
	[ "${stderr_lines[0]}" = "$cannot" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 1/3 failed (exit 127), next in 0.000s" ]
	[ "${stderr_lines[2]}" = "$cannot" ]
	[ "${stderr_lines[3]}" = \
	    "retry: attempt 2/3 failed (exit 127), next in 0.000s" ]
	[ "${stderr_lines[4]}" = "$cannot" ]
	giving_up "${stderr_lines[5]}" 3 "exit 127" "no attempts left"
	# --stop-on still wins.
	run -127 --separate-stderr "$RETRY" -n 3 -b 0 -r 127 -x 127 \
	    retry-no-such-command
	[ "${stderr_lines[0]}" = "$cannot" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
	[ "${#stderr_lines[@]}" -eq 2 ]
}
