#!/usr/bin/env bats
# --stall-timeout (-S): an attempt that writes nothing to stdout or stderr
# for that long is ended as -t ends one, and its outcome is a timeout that
# says it was a stall.  Any byte counts, from any process of the attempt,
# held by -O or not; -t, -m and the stall timeout end it, whichever is
# first; output passes through byte for byte.

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
	[[ $stderr =~ ^retry:\ giving\ up\ after\ $n\ attempt$s\ in\ [0-9]+\.[0-9]{3}s:\ $what\ \($why\)$ ]]
}

# Writes "tick N" to stream $1 (1 or 2) $2 times, $3 seconds apart.
steady() {
	printf 'for i in $(seq %s); do echo "tick $i" >&%s; sleep %s; done' \
	    "$2" "$1" "$3"
}

@test "a command that stalls is timed out: 124, and says so" {
	run -124 --separate-stderr "$RETRY" -n 1 -S 200ms -- \
	    sh -c 'echo started; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out: no output for 200ms" "no attempts left"
	[ "$output" = "started" ]
	wait_markers_gone
}

@test "a stalled attempt is retried by default, as a timeout" {
	run -124 --separate-stderr "$RETRY" -n 2 -b 1ms -j none \
	    --stall-timeout=100ms -- sleep "$MARK"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (timed out: no \
output for 100ms), next in 0.001s" ]
	stderr=${stderr_lines[1]} giving_up 2 "timed out: no output for 100ms" \
	    "no attempts left"
	wait_markers_gone
}

@test "a command that writes slowly but steadily is not ended" {
	run -0 --separate-stderr "$RETRY" -n 1 -S 1s -- \
	    sh -c "$(steady 1 8 0.1)"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 8 ]
	[ "${lines[7]}" = "tick 8" ]
}

@test "output to stderr alone counts as output" {
	run -0 --separate-stderr "$RETRY" -n 1 -S 1s -- \
	    sh -c "$(steady 2 8 0.1)"
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" -eq 8 ]
	[ "${stderr_lines[7]}" = "tick 8" ]
}

@test "a background process that holds the output and stalls is ended" {
	# The real sleep, named as a marker: it keeps the output's pipe.
	run -124 --separate-stderr "$RETRY" -n 1 -S 200ms -- bash -c \
	    'echo started; (exec -a sleep "$PROC_SLEEP" "$1") & exit 0' \
	    bash "$MARK"
	giving_up 1 "timed out: no output for 200ms" "no attempts left"
	[ "$output" = "started" ]
	# The portable build tracks no leftovers: it stops waiting for the
	# output, and the holder lives on (proc_teardown ends it).
	if linux_capability; then
		wait_markers_gone
	fi
}

@test "what a background process writes keeps the attempt alive" {
	run -0 --separate-stderr "$RETRY" -n 1 -S 1s -- \
	    sh -c "($(steady 1 6 0.1)) & exit 0"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 6 ]
}

@test "a stalled attempt that ignores the signal is killed: 137" {
	run -137 --separate-stderr "$RETRY" -n 1 -S 100ms -k 20ms -- \
	    sh -c 'trap "" TERM; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out, killed: no output for 100ms" "no attempts left"
	wait_markers_gone
}

@test "-t ends a steady writer that the stall timeout would not" {
	run -124 --separate-stderr "$RETRY" -n 1 -t 400ms -S 5s -- \
	    sh -c "$(steady 1 100 0.05)"
	giving_up 1 "timed out after 400ms \\(-t\\)" "no attempts left"
}

@test "the stall timeout ends a silent attempt before -t" {
	run -124 --separate-stderr "$RETRY" -n 1 -t 20s -S 100ms -- \
	    sleep "$MARK"
	giving_up 1 "timed out: no output for 100ms" "no attempts left"
	wait_markers_gone
}

@test "-m ends a steady writer: the deadline, not a stall" {
	run -124 --separate-stderr "$RETRY" -n 3 -m 400ms -S 5s -- \
	    sh -c "$(steady 1 100 0.05)"
	giving_up 1 "timed out" "--max-time reached"
}

@test "the stall timeout ends a silent attempt before -m" {
	run -124 --separate-stderr "$RETRY" -n 1 -m 20s -S 100ms -- \
	    sleep "$MARK"
	giving_up 1 "timed out: no output for 100ms" "no attempts left"
	wait_markers_gone
}

@test "-O: the held output counts, and is passed on whole" {
	run -0 --separate-stderr "$RETRY" -n 1 -O -S 1s -- \
	    sh -c "$(steady 1 6 0.1)"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 6 ]
}

@test "-O: a stalled final attempt is timed out, its held output passed on" {
	run -124 --separate-stderr "$RETRY" -n 1 -O -S 200ms -- \
	    sh -c 'echo held; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out: no output for 200ms" "no attempts left"
	[ "$output" = "held" ]
	wait_markers_gone
}

@test "output conditions: matched lines count as output, and a stall ends it" {
	run -0 --separate-stderr "$RETRY" -n 1 --retry-if-output=never -S 1s \
	    -- sh -c "$(steady 1 6 0.1)"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 6 ]
	run -124 --separate-stderr "$RETRY" -n 1 --retry-if-output=never \
	    -S 200ms -- sh -c 'echo once; exec sleep "$1"' sh "$MARK"
	giving_up 1 "timed out: no output for 200ms" "no attempts left"
	[ "$output" = "once" ]
	wait_markers_gone
}

@test "output passes through byte for byte, to a pipe and to a file" {
	head -c 3000000 /dev/urandom >"$WORK/data"
	"$PROC_RETRY" -n 1 -S 5s -- cat "$WORK/data" | cat >"$WORK/piped"
	cmp "$WORK/data" "$WORK/piped"
	"$PROC_RETRY" -n 1 -S 5s -- cat "$WORK/data" >"$WORK/filed"
	cmp "$WORK/data" "$WORK/filed"
	"$PROC_RETRY" -n 1 -S 5s -- sh -c 'cat "$1" >&2' sh "$WORK/data" \
	    2>"$WORK/errs"
	cmp "$WORK/data" "$WORK/errs"
}

@test "-S 0 means no stall timeout" {
	run -0 --separate-stderr "$RETRY" -n 1 -S 0 -- \
	    sh -c 'sleep 0.3; echo done'
	[ "$stderr" = "" ]
	[ "$output" = "done" ]
}

@test "a bad --stall-timeout is refused as -t's would be" {
	run -125 --separate-stderr "$RETRY" --stall-timeout=-1 true
	[ "$stderr" = "retry: invalid --stall-timeout '-1': negative \
duration; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" -S 5x true
	[ "$stderr" = "retry: invalid --stall-timeout '5x': unknown unit \
(use ns, us, ms, s, m, h or d); try 'retry --help'" ]
}

@test "the JSON log and --dry-run say it was a stall, and after how long" {
	run -124 --separate-stderr "$RETRY" -q -n 1 -S 100ms \
	    --json-log="$WORK/log" -- sleep "$MARK"
	[ "$stderr" = "" ]
	grep -q '"stall_timeout":0.100000000' "$WORK/log"
	grep -q '"outcome":"timeout","value":124,"status":124,"duration":[0-9.]*,"no_output_for":0.100000000}' \
	    "$WORK/log"
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 -S 5m
	[ "$stderr" = "" ]
	[ "${lines[3]}" = "# --stall-timeout=5m: an attempt with no output \
for 5m is timed out" ]
	wait_markers_gone
}

@test "RETRY_OPTIONS may hold --stall-timeout; argv's wins" {
	RETRY_OPTIONS="-S 100ms" run -124 --separate-stderr "$RETRY" -n 1 -- \
	    sleep "$MARK"
	giving_up 1 "timed out: no output for 100ms" "no attempts left"
	RETRY_OPTIONS="-S 100ms" run -0 --separate-stderr "$RETRY" -n 1 -S 0 \
	    -- sh -c 'sleep 0.3; echo done'
	[ "$stderr" = "" ]
	[ "$output" = "done" ]
	wait_markers_gone
}
