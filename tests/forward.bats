#!/usr/bin/env bats
# Forwarded signals: every catchable signal retry gets
# (not ignored at start) is passed on to the running attempt, each time,
# and never leads to KILL.  INT, TERM, HUP and QUIT stop the retrying:
# retry then exits as the attempt did.  Any other signal changes nothing.
# The wait status is read from a real parent (helpers/wstatus).

load helpers/common
load helpers/proc-common
load helpers/field

setup() {
	proc_setup
}

teardown() {
	field_teardown
}

# Starts retry ARGS... -- field-count $WORK SIGNAL (see that helper) in
# the background, and waits until the command is ready.
start_counter() {
	local sig=$1
	shift
	bg_retry "$@" -- "$FIELD_COUNT" "$WORK" "$sig"
	wait_for_file "$WORK/ready"
}

# Sends signal $1 to retry and waits until the command has counted $2.
send_and_count() {
	kill -s "$1" "$RPID"
	poll_until 5 has_lines "$WORK/caught" "$2"
}

# Checks that the command is still there: neither KILLed nor ended.
# Not a synchronisation: time for a wrong KILL (after -k 50ms) to land.
still_running() {
	sleep 0.3
	kill -0 "$(<"$WORK/ready")"
}

@test "USR1 sent three times: the command counts three, retry exits as it did" {
	start_counter USR1 -n 3 -b 1ms -k 50ms
	send_and_count USR1 1
	send_and_count USR1 2
	send_and_count USR1 3
	still_running
	[ "$(<"$WORK/caught")" = $'USR1\nUSR1\nUSR1' ]
	echo 0 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(<"$WORK/err")" = "" ]
}

# A signal that is not a stop signal reaches the command and changes
# nothing: the command goes on, and its exit 0 is retry's.
forwarded_changes_nothing() {
	local sig
	for sig; do
		rm -f "$WORK/ready" "$WORK/caught" "$WORK/attempts" \
		    "$WORK/release"
		start_counter "$sig" -n 3 -b 1ms -k 50ms
		send_and_count "$sig" 1
		still_running
		[ "$(<"$WORK/caught")" = "$sig" ]
		echo 0 >"$WORK/release"
		bg_wait
		[ "$WS" = "exit 0" ]
		[ "$(<"$WORK/attempts")" = 1 ]
		[ "$(<"$WORK/err")" = "" ]
	done
}

@test "USR2, ALRM, ABRT are forwarded and change nothing" {
	forwarded_changes_nothing USR2 ALRM ABRT
}

@test "VTALRM, PROF, IO, PWR are forwarded and change nothing" {
	forwarded_changes_nothing VTALRM PROF IO PWR
}

@test "WINCH and URG are forwarded and change nothing" {
	forwarded_changes_nothing WINCH URG
}

@test "real-time signals are forwarded and change nothing" {
	forwarded_changes_nothing RTMIN RTMIN+3 RTMAX
}

@test "a command that dies of a forwarded USR1 is retried (default policy)" {
	bg_retry -n 3 -b 1ms -j none -k 50ms -- sh -c '
	    echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    [ "$RETRY_ATTEMPT" = 1 ] || exit 0
	    echo $$ >"$1/ready"; exec sleep "$2"' sh "$WORK" "$MARK"
	wait_for_file "$WORK/ready"
	wait_markers 1
	kill -USR1 "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/attempts")" = $'1\n2' ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: attempt 1/3 failed (signal USR1), next in 0.001s
retry: succeeded on attempt 2/3 after Ts" ]
	wait_markers_gone
}

# A stop signal: the command catches it, goes on for a while (no KILL
# comes, however short -k), then exits 3; retry starts no other attempt
# and exits 3.
stop_then_exit_as_attempt() {
	local sig=$1
	start_counter "$sig" -n 3 -b 1ms -k 50ms
	send_and_count "$sig" 1
	still_running
	[ "$(<"$WORK/caught")" = "$sig" ]
	echo 3 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by $sig during attempt 1/3 after Ts" ]
}

@test "HUP: forwarded, no KILL, no further attempt, retry exits 3 as the attempt did" {
	stop_then_exit_as_attempt HUP
}

@test "INT: forwarded, no KILL, no further attempt, retry exits 3 as the attempt did" {
	stop_then_exit_as_attempt INT
}

@test "QUIT: forwarded, no KILL, no further attempt, retry exits 3 as the attempt did" {
	stop_then_exit_as_attempt QUIT
}

@test "TERM: forwarded, no KILL, no further attempt, retry exits 3 as the attempt did" {
	stop_then_exit_as_attempt TERM
}

@test "a second stop signal is forwarded too" {
	start_counter TERM -n 3 -b 1ms -k 50ms
	send_and_count TERM 1
	send_and_count TERM 2
	still_running
	echo 3 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/caught")" = $'TERM\nTERM' ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
}

@test "TERM to retry -n3 -- sh -c 'trap \"exit 3\" TERM; sleep & wait': once, exit 3" {
	require_linux_capability "leftover tracking"
	bg_retry -n 3 -b 1ms -- sh -c 'trap "exit 3" TERM
	    echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    sleep "$2" & echo $$ >"$1/ready"; wait' sh "$WORK" "$MARK"
	wait_for_file "$WORK/ready"
	wait_markers 1
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
	# The background sleep got TERM too.
	wait_markers_gone
}

@test "HUP to retry -n1 -- nohup sleep: the sleep ends by itself, exit 0" {
	bg_retry -n 1 -k 50ms -- nohup sh -c 'echo $$ >"$1/ready"
	    exec sleep 1' sh "$WORK" </dev/null
	wait_for_file "$WORK/ready"
	kill -HUP "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	# HUP ended the retrying, even though the attempt it came in succeeded.
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by HUP during attempt 1/1 after Ts" ]
}

@test "kill -INT on retry -- sh -c 'sleep & sleep' returns once sh is gone" {
	require_linux_capability "leftover tracking"
	bg_retry -- sh -c 'sleep "$2" & echo $$ >"$1/ready"
	    sleep "$2"' sh "$WORK" "$MARK"
	wait_for_file "$WORK/ready"
	wait_markers 2
	local t0
	t0=$(now_us)
	kill -INT "$RPID"
	bg_wait
	# Not after --kill-after (10 s): at once, with margin.
	(($(now_us) - t0 < 3000000))
	[ "$WS" = "signal 2" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by INT during attempt 1/5 after Ts" ]
	# The background sleep ignores INT (a background job of sh -c) and,
	# as after any final attempt, is left alone.
	[ "$(markers | wc -l)" -eq 1 ]
}

@test "the command's own death by a stop signal is retry's: TERM to sh -c 'exec sleep'" {
	bg_retry -n 3 -b 1ms -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    echo $$ >"$1/ready"; exec sleep "$2"' sh "$WORK" "$MARK"
	wait_for_file "$WORK/ready"
	wait_markers 1
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
	wait_markers_gone
}

# ---- during a sleep or the splay ----------------------------------------

@test "USR1 during the splay is ignored: the attempt runs after it" {
	local t0
	# --seed 3 draws a splay of 0.8 s out of 1 s.
	run -0 "$RETRY" --dry-run --splay 1s --seed 3 -n 1
	[[ $output == *" 0.800896744 "* ]]
	t0=$(now_us)
	bg_retry --splay 1s --seed 3 -n 3 -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"' sh "$WORK"
	wait_for_handler "$RPID" 10
	kill -USR1 "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(<"$WORK/err")" = "" ]
	# The splay went on to its end (a lower bound: sleeps are never
	# shorter than drawn).
	(($(now_us) - t0 >= 800000))
}

# ---- while the leftovers of a failed attempt are cleared ----------------

# Attempt 1 leaves a marker that blocks TERM (so clearing waits for
# --kill-after, 60 s) and fails; attempt 2 would succeed.  Once TERM is
# pending in the leftover, retry is clearing: signal $1 is sent to retry.
clearing_then() {
	bg_retry -n 3 -b 1ms -j none -k 60s -- sh -c '
	    echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    [ "$RETRY_ATTEMPT" = 1 ] || exit 0
	    "$2/proc-sigmask" TERM sleep "$3" &
	    echo $! >"$1/left"
	    until pgrep -f -x "$4" >/dev/null; do sleep 0.01; done
	    exit 1' sh "$WORK" "$HELPERS" "$MARK" "$MARK_RE"
	wait_for_file "$WORK/left"
	local left
	left=$(<"$WORK/left")
	poll_until 10 sig_in_set "$left" 15 ShdPnd
	kill -s "$1" "$RPID"
	bg_wait
}

@test "HUP while leftovers are cleared: they get it, retry dies by it" {
	require_linux_capability "leftover tracking"
	clearing_then HUP
	[ "$WS" = "signal 1" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by HUP after attempt 1/3 in Ts" ]
	wait_markers_gone
}

@test "INT while leftovers are cleared ends the clearing: retry dies by it" {
	require_linux_capability "leftover tracking"
	# The leftover, a background job of sh -c, ignores INT: it is left
	# as it is, with no KILL.
	clearing_then INT
	[ "$WS" = "signal 2" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by INT after attempt 1/3 in Ts" ]
	[ "$(markers)" = "$(<"$WORK/left")" ]
}
