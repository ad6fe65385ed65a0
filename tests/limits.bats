#!/usr/bin/env bats
# The limits hold everywhere.  --max-time bounds the
# clearing of a failed attempt's leftovers too, and --kill-after 0 means
# what it means in timeout(1): no KILL.

load helpers/common
load helpers/proc-common
load helpers/field

setup() {
	proc_setup
}

teardown() {
	field_teardown
}

@test "-m bounds the clearing of leftovers: the deadline KILLs what is left" {
	require_linux_capability "leftover tracking"
	# The leftover ignores TERM and would outlive -k 5: the deadline, 1 s
	# after the start, must end the clearing (and the leftover) and the
	# run, with attempt 1's status.
	local t0
	t0=$(now_us)
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -m 1 -k 5 -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    trap "" TERM; sleep "$2" & exit 1' sh "$WORK" "$MARK"
	# 1 s and a little; 2 s leaves margin for a busy machine, and is
	# still well before -k.
	(($(now_us) - t0 < 2000000))
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ exit\ 1\ \(--max-time\ reached\)$ ]]
	[ "$output" = "" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	wait_markers_gone 2
}

@test "-k 0 never sends KILL: a timed-out sleep exits 124, every time" {
	# Not "i": bats 1.8's run sets a global i (bats_any_in).
	local try
	for ((try = 0; try < 10; try++)); do
		run -124 --separate-stderr "$RETRY" -q -n 1 -t 50ms -k 0 -- \
		    sleep "$MARK"
		[ "$stderr" = "" ]
		[ "$output" = "" ]
	done
	wait_markers_gone
}

@test "-k 0: a command that ignores the timeout signal is not killed" {
	bg_retry -n 1 -t 50ms -k 0 -- sh -c 'trap "" TERM
	    exec "$1/proc-hold" "$2"' sh "$HELPERS" "$WORK"
	wait_for_file "$WORK/ready"
	# Not a synchronisation: time for the timeout (50 ms) and a wrong
	# KILL to land.
	sleep 0.5
	kill -0 "$(<"$WORK/ready")"
	echo 0 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 124" ]
	[[ $(<"$WORK/err") =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ timed\ out\ after\ [0-9a-z.]+\ \(-t\)\ \(no\ attempts\ left\)$ ]]
}

@test "-k 0 with -m: the deadline sends no KILL either" {
	bg_retry -n 3 -m 50ms -k 0 -- sh -c 'trap "" TERM
	    exec "$1/proc-hold" "$2"' sh "$HELPERS" "$WORK"
	wait_for_file "$WORK/ready"
	sleep 0.5
	kill -0 "$(<"$WORK/ready")"
	echo 0 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 124" ]
	[[ $(<"$WORK/err") =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ timed\ out\ \(--max-time\ reached\)$ ]]
	[ "$(<"$WORK/attempts")" = 1 ]
}
