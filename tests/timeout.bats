#!/usr/bin/env bats
# -t limits each attempt: on time the attempt gets -s (TERM by default),
# then KILL after -k; a timed-out attempt is retried by default, and the
# run that ends on one exits 124, or 137 where KILL was needed.  -m limits
# the whole run: no sleep passes the deadline, and the deadline ends a
# running attempt the same way.

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
}

teardown() {
	proc_teardown
}

giving_up() {
	# $1: attempts, $2: outcome, $3: reason; the time is measured
	local n=$1 what=$2 why=$3 s="s"
	[[ $n == 1 ]] && s=""
	what=${what//(/\\(}
	what=${what//)/\\)}
	[[ $stderr =~ ^retry:\ giving\ up\ after\ $n\ attempt$s\ in\ [0-9]+\.[0-9]{3}s:\ $what\ \($why\)$ ]]
}

@test "a timed-out attempt exits 124 and its process is gone" {
	run -124 --separate-stderr "$RETRY" -n 1 -t 20ms -- sleep "$MARK"
	giving_up 1 "timed out after 20ms (-t)" "no attempts left"
	[ "$output" = "" ]
	wait_markers_gone
}

@test "a timed-out attempt is retried by default" {
	run -124 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -t 20ms -- \
	    sleep "$MARK"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (timed out after 20ms (-t)), next in 0.001s" ]
	stderr=${stderr_lines[1]} giving_up 2 "timed out after 20ms (-t)" "no attempts left"
	wait_markers_gone
}

# Where the command must run a line (a trap, an echo) before the timeout
# or the deadline, -t and -m leave it 300 ms: on a loaded machine 20 ms
# were not always enough.

@test "a command that ignores the timeout signal is killed: 137" {
	run -137 --separate-stderr "$RETRY" -n 1 -t 300ms -k 20ms -- \
	    sh -c 'trap "" TERM; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out after 300ms (-t), killed" "no attempts left"
	wait_markers_gone
}

@test "-s KILL kills at once: 137" {
	run -137 --separate-stderr "$RETRY" -n 1 -t 20ms -s KILL -- \
	    sleep "$MARK"
	giving_up 1 "timed out after 20ms (-t), killed" "no attempts left"
	wait_markers_gone
}

@test "-s 9, a number, is KILL too" {
	run -137 --separate-stderr "$RETRY" -n 1 -t 300ms -s 9 -k inf -- \
	    sh -c 'trap "" TERM; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out after 300ms (-t), killed" "no attempts left"
	wait_markers_gone
}

@test "-s 0, the null signal, sends nothing: KILL after -k gives 137" {
	local got=$BATS_TEST_TMPDIR/got
	# The shell's sleep is orphaned by the KILL: a leftover to find.
	qemu_cannot "prctl(PR_SET_CHILD_SUBREAPER), which finding leftovers needs"
	# A TERM or any other signal would be caught and written down.
	run -137 --separate-stderr "$RETRY" -n 1 -t 100ms -s 0 -k 300ms -- \
	    sh -c 'for s in TERM INT HUP CONT USR1; do
		trap "echo $s >>$2" "$s"; done; sleep "$1" & wait; wait' \
	    sh "$MARK" "$got"
	giving_up 1 "timed out after 100ms (-t), killed" "no attempts left"
	[ ! -e "$got" ]
	# Finding the orphaned sleep is leftover tracking, the Linux build's.
	if linux_capability; then
		wait_markers_gone
	fi
}

@test "-s 0 without a KILL: the attempt runs to its end, timed out: 124" {
	run -124 --separate-stderr "$RETRY" -n 1 -t 50ms -s 0 -k 0 -- \
	    sh -c 'sleep 0.3; exit 3'
	giving_up 1 "timed out after 50ms (-t)" "no attempts left"
}

# The command starts with every signal blocked (retry passes its own
# blocked mask on), so the signal the timeout sends waits, pending, for
# the command to see it, however soon the timeout fires.
timeout_sends() {
	# $1: the -s argument, $2: the signal number expected
	run -124 --separate-stderr "$HELPERS/proc-sigmask" all "$RETRY" \
	    -n 1 -t 20ms -s "$1" -k inf -- "$HELPERS/proc-pending" "$WORK"
	giving_up 1 "timed out after 20ms (-t)" "no attempts left"
	[ "$(<"$WORK/pending")" = "pending $2" ]
}

@test "the timeout sends TERM by default" {
	run -124 --separate-stderr "$HELPERS/proc-sigmask" all "$RETRY" \
	    -n 1 -t 20ms -k inf -- "$HELPERS/proc-pending" "$WORK"
	giving_up 1 "timed out after 20ms (-t)" "no attempts left"
	[ "$(<"$WORK/pending")" = "pending 15" ]
}

@test "-s USR1 sends USR1" {
	timeout_sends USR1 10
}

@test "-s sigusr2 (any case, with SIG) sends USR2" {
	timeout_sends sigusr2 12
}

@test "-s 1 (a number) sends HUP" {
	timeout_sends 1 1
}

@test "-s INT sends INT" {
	timeout_sends INT 2
}

@test "-s RTMIN+1 sends a real-time signal" {
	musl_cannot "real-time signals numbered as the shell numbers them"
	qemu_cannot "real-time signals as Linux does"
	timeout_sends RTMIN+1 "$(signum RTMIN+1)"
}

@test "-k inf never sends KILL" {
	local status=0
	"$HELPERS/proc-sigmask" all "$RETRY" -n 1 -t 10ms -k inf -- \
	    "$HELPERS/proc-pending" "$WORK" hold 2>"$WORK/err" &
	BG=$!
	wait_for_file "$WORK/pending"
	[ "$(<"$WORK/pending")" = "pending 15" ]
	# Not a synchronisation: time for a wrong KILL to land, if any.
	sleep 0.3
	kill -0 "$(<"$WORK/ready")"
	echo go >"$WORK/release"
	wait "$BG" || status=$?
	BG=""
	[ "$status" -eq 124 ]
	stderr=$(<"$WORK/err") giving_up 1 "timed out after 10ms (-t)" "no attempts left"
}

@test "a stopped attempt still times out" {
	run -124 --separate-stderr "$RETRY" -n 1 -t 20ms -k inf -- \
	    sh -c 'kill -STOP $$; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out after 20ms (-t)" "no attempts left"
	wait_markers_gone
}

@test "--stop-on=timeout stops at the first timeout" {
	run -124 --separate-stderr "$RETRY" -n 3 -b 1ms -t 300ms \
	    --stop-on=timeout -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts";
	    exec sleep "$2"' sh "$WORK" "$MARK"
	giving_up 1 "timed out after 300ms (-t)" "not retried"
	[ "$(<"$WORK/attempts")" = 1 ]
	wait_markers_gone
}

@test "--stop-on=timeout stops after a KILL too: 137" {
	run -137 --separate-stderr "$RETRY" -n 3 -b 1ms -t 300ms -k 10ms \
	    -x timeout -- sh -c 'trap "" TERM; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out after 300ms (-t), killed" "not retried"
	wait_markers_gone
}

@test "RETRY_PREV_STATUS is 124 after a timeout" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -t 300ms -- \
	    sh -c 'echo "$RETRY_ATTEMPT:$RETRY_PREV_STATUS" >>"$1/env"
	    [ "$RETRY_ATTEMPT" = 2 ] || exec sleep "$2"' sh "$WORK" "$MARK"
	[ "$(untimed "$stderr")" = "retry: attempt 1/2 failed (timed out after 300ms (-t)), next in 0.001s
retry: succeeded on attempt 2/2 after Ts" ]
	[ "$(<"$WORK/env")" = $'1:\n2:124' ]
}

@test "RETRY_PREV_STATUS is 137 after a timeout that needed KILL" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -t 300ms \
	    -k 10ms -- sh -c 'echo "$RETRY_ATTEMPT:$RETRY_PREV_STATUS" >>"$1/env"
	    trap "" TERM
	    [ "$RETRY_ATTEMPT" = 2 ] || exec sleep "$2"' sh "$WORK" "$MARK"
	[ "$(untimed "$stderr")" = \
	    "retry: attempt 1/2 failed (timed out after 300ms (-t), killed), next in 0.001s
retry: succeeded on attempt 2/2 after Ts" ]
	[ "$(<"$WORK/env")" = $'1:\n2:137' ]
}

# Deadline before a sleep: retry gives up at once rather than sleep into
# it.  Were it to sleep the 60 s, BATS_TEST_TIMEOUT would fail the test.
@test "-m: a sleep that would pass the deadline is not taken" {
	run -1 --separate-stderr "$RETRY" -n 3 -b 60s -j none -m 30s -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"; exit 1' sh "$WORK"
	giving_up 1 "exit 1" "the next sleep would pass --max-time"
	[ "$(<"$WORK/attempts")" = 1 ]
}

@test "-m: sleeps that fit are taken, the first that does not ends the run" {
	# Sleeps: 10 ms, then 60 s (the cap) that would pass the deadline.
	run -3 --separate-stderr "$RETRY" -n 5 -b 10ms -f 10000 -j none \
	    -m 30s -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"; exit 3' \
	    sh "$WORK"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/5 failed (exit 3), next in 0.010s" ]
	stderr=${stderr_lines[1]} giving_up 2 "exit 3" \
	    "the next sleep would pass --max-time"
	[ "$(<"$WORK/attempts")" = $'1\n2' ]
}

@test "-m: the deadline ends a running attempt: 124, no more attempts" {
	run -124 --separate-stderr "$RETRY" -n 5 -b 1ms -m 300ms -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"; exec sleep "$2"' \
	    sh "$WORK" "$MARK"
	giving_up 1 "timed out" "--max-time reached"
	[ "$(<"$WORK/attempts")" = 1 ]
	wait_markers_gone
}

@test "-m: the deadline wins over a longer -t" {
	run -124 --separate-stderr "$RETRY" -n 5 -b 1ms -t 60s -m 50ms -- \
	    sleep "$MARK"
	giving_up 1 "timed out" "--max-time reached"
	wait_markers_gone
}

@test "-m: a deadline that needed KILL exits 137" {
	run -137 --separate-stderr "$RETRY" -n 5 -b 1ms -m 300ms -k 10ms -- \
	    sh -c 'trap "" TERM; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out, killed" "--max-time reached"
	wait_markers_gone
}

@test "-m: leftovers that take past the deadline to clear end the run" {
	require_linux_capability "leftover tracking"
	qemu_cannot "prctl(PR_SET_CHILD_SUBREAPER), which finding leftovers needs"
	# The leftover ignores TERM and lives for as long as -m, so clearing
	# it ends past the deadline: no attempt 2, the status of attempt 1.
	# The attempt ends only once the leftover ignores TERM: before, TERM
	# would end it at once (seen on a loaded machine), and attempt 2 run.
	# Should attempt 1 itself be that slow, the try is void: longer -m.
	local m
	for m in 1 3 9; do
		rm -f "$WORK/attempts" "$WORK/ignoring"
		run --separate-stderr "$RETRY" -n 3 -b 1ms -m "${m}s" -k 60s -- \
		    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"
		    (trap "" TERM; : >"$1/ignoring"; exec sleep "$2") &
		    until [ -e "$1/ignoring" ]; do sleep 0.01; done
		    exit 1' sh "$WORK" "$m"
		[[ $stderr == *"timed out (--max-time reached)" ]] || break
	done
	[ "$status" -eq 1 ]
	giving_up 1 "exit 1" "--max-time reached"
	[ "$(<"$WORK/attempts")" = 1 ]
}
