#!/usr/bin/env bats
# --reset-after=DURATION: an attempt that ran at least DURATION
# before failing starts the schedule over: the next sleep comes from the
# first window, decorrelated jitter starts again from --base, and the
# attempt count goes on.  The sleeps are read from the retry lines and
# from RETRY_NEXT_SLEEP (exact), and measured between the start times
# that each attempt writes itself; only lower bounds are tight.

load helpers/common
load helpers/attempts

setup() {
	common_setup
}

# The gaps, in seconds, between the start times in $WORK/starts.
gaps() {
	awk 'NR > 1 { printf "%.3f\n", ($1 - prev) / 1e9 } { prev = $1 }' \
	    "$WORK/starts"
}

# The retry lines of attempts 1 to N-1 of N failing with OUTCOME, the
# sleeps given one by one.
failed_lines() {
	local n=$1 what=$2 k=1 s
	shift 2
	for s; do
		failed "$k" "$n" "$what" "$s"
		k=$((k + 1))
	done
}

STAMP='date +%s%N >>"$WORK/starts"'

@test "--reset-after: attempts that run that long keep the first window" {
	local g gap want
	run -1 --separate-stderr "$RETRY" -n 6 -b 100ms -j none \
	    --reset-after 50ms -- sh -c "$STAMP"'; sleep 0.06; exit 1'
	mapfile -t want < <(failed_lines 6 "exit 1" 0.100s 0.100s 0.100s \
	    0.100s 0.100s)
	expect_stderr "${want[@]}" \
	    "retry: giving up after 6 attempts in Ts: exit 1 (no attempts left)"
	mapfile -t g < <(gaps)
	[ "${#g[@]}" -eq 5 ]
	# 0.06 s of work and 0.1 s of sleep at least; without the reset the
	# fifth gap would be 0.06 + 1.6 s at least.
	for gap in "${g[@]}"; do
		fcmp "$gap" '>=' 0.155
		fcmp "$gap" '<' 1.5
	done
}

@test "without --reset-after the same attempts double the window" {
	local g want
	run -1 --separate-stderr "$RETRY" -n 5 -b 100ms -j none -- \
	    sh -c "$STAMP"'; sleep 0.06; exit 1'
	mapfile -t want < <(failed_lines 5 "exit 1" 0.100s 0.200s 0.400s \
	    0.800s)
	expect_stderr "${want[@]}" \
	    "retry: giving up after 5 attempts in Ts: exit 1 (no attempts left)"
	mapfile -t g < <(gaps)
	[ "${#g[@]}" -eq 4 ]
	fcmp "${g[0]}" '>=' 0.155
	fcmp "${g[1]}" '>=' 0.255
	fcmp "${g[2]}" '>=' 0.455
	fcmp "${g[3]}" '>=' 0.855
}

@test "attempts shorter than --reset-after do not reset" {
	run -1 --separate-stderr "$RETRY" -n 5 -b 10ms -j none \
	    --reset-after 1s -- false
	mapfile -t want < <(failed_lines 5 "exit 1" 0.010s 0.020s 0.040s \
	    0.080s)
	expect_stderr "${want[@]}" \
	    "retry: giving up after 5 attempts in Ts: exit 1 (no attempts left)"
}

@test "only an attempt that ran long resets; the attempt count goes on" {
	run -1 --separate-stderr "$RETRY" -n 6 -b 10ms -j none \
	    --reset-after 200ms -- \
	    sh -c '[ "$RETRY_ATTEMPT" = 3 ] && sleep 0.25; exit 1'
	mapfile -t want < <(failed_lines 6 "exit 1" 0.010s 0.020s 0.010s \
	    0.020s 0.040s)
	expect_stderr "${want[@]}" \
	    "retry: giving up after 6 attempts in Ts: exit 1 (no attempts left)"
}

@test "a timed-out attempt that ran that long resets too" {
	run -124 --separate-stderr "$RETRY" -n 4 -b 10ms -j none -t 100ms \
	    --reset-after 50ms -- sleep 5
	mapfile -t want < <(failed_lines 4 "timed out after 100ms (-t)" 0.010s 0.010s 0.010s)
	expect_stderr "${want[@]}" \
	    "retry: giving up after 4 attempts in Ts: timed out after 100ms (-t) (no attempts left)"
}

# sleeps_of JITTER SEED [OPTION...]: runs 7 attempts of 60 ms that fail,
# -b 10ms, and checks the retry lines; RETRY_NEXT_SLEEP of each retry in
# $WORK/sleeps.
sleeps_of() {
	local jitter=$1 seed=$2 s
	shift 2
	rm -f "$WORK/sleeps"
	run -1 --separate-stderr "$RETRY" -n 7 -b 10ms -j "$jitter" \
	    --seed "$seed" "$@" \
	    --on-retry='echo "$RETRY_NEXT_SLEEP" >>"$WORK/sleeps"' -- \
	    sh -c 'sleep 0.06; exit 1'
	mapfile -t s < <(awk '{ printf "%.3fs\n", $1 }' "$WORK/sleeps")
	mapfile -t want < <(failed_lines 7 "exit 1" "${s[@]}")
	[ "${#want[@]}" -eq 6 ]
	expect_stderr "${want[@]}" \
	    "retry: giving up after 7 attempts in Ts: exit 1 (no attempts left)"
}

@test "decorrelated jitter starts again from --base after a reset" {
	# Without the reset this seed's draws leave [base, 3 base]...
	run -0 --separate-stderr "$RETRY" --dry-run -n 7 -b 10ms \
	    -j decorrelated --seed 5
	awk '$1 ~ /^[2-7]$/ && $5 > 0.030 { found = 1 } END { exit !found }' \
	    <<<"$output"
	sleeps_of decorrelated 5
	awk '$1 > 0.030 { found = 1 } END { exit !found }' "$WORK/sleeps"
	# ...and with it every draw is in U(base, 3 base).
	sleeps_of decorrelated 5 --reset-after 50ms
	awk '$1 < 0.010 || $1 > 0.030 { print "out of range: " $1; bad = 1 }
	    END { exit bad }' "$WORK/sleeps"
}

@test "full jitter draws from the first window after a reset" {
	sleeps_of full 8
	awk '$1 > 0.010 { found = 1 } END { exit !found }' "$WORK/sleeps"
	sleeps_of full 8 --reset-after 50ms
	awk '$1 > 0.010 { print "out of range: " $1; bad = 1 } END { exit bad }' \
	    "$WORK/sleeps"
}

@test "--dry-run with --reset-after says that it cannot know run times" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 -b 1s -j none \
	    --reset-after=1m30s
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[2]}" = "      2          1.000          1.000          1.000          1.000          1.000" ]
	[ "${lines[3]}" = "# worst-case total sleep for the rows above: 1.000s" ]
	[ "${lines[4]}" = "# --reset-after=90.000s starts the schedule over after an attempt that runs that long; a dry run cannot know how long attempts run" ]
	expect_stderr
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 -b 1s -j none
	[ "${#lines[@]}" -eq 4 ]
	[[ $output != *reset-after* ]]
	expect_stderr
}

@test "--reset-after takes a DURATION" {
	local v why
	while IFS='|' read -r v why; do
		run -125 --separate-stderr "$RETRY" --dry-run "--reset-after=$v"
		[ "$output" = "" ]
		expect_stderr "retry: invalid --reset-after '$v': $why; try 'retry --help'"
	done <<-'EOF'
	|empty duration
	x|expected a number
	-1s|negative duration
	1m30|a number inside a compound needs a unit
	EOF
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 --reset-after=250ms
	[ "${lines[3]}" = "# --reset-after=0.250s starts the schedule over after an attempt that runs that long; a dry run cannot know how long attempts run" ]
}
