#!/usr/bin/env bats
# Issue 39, item 3: --exhausted-status=N.  When retry gives up on an
# outcome that it would have retried (no attempts left, -m, the budget,
# the breaker open), it exits N; an outcome that is not retried, a
# success and a stop keep their status, and an attempt killed by a
# retried signal gives N, an exit, not the signal.  The JSON summary
# keeps the command's status and adds "exit".  Statuses are read from a
# real parent (helpers/wstatus): $? cannot tell exit 138 from SIGUSR1.

load helpers/common
load helpers/core
load helpers/guard

setup() {
	common_setup
}

# ws STATUS-LINE: what wstatus wrote.
ws() {
	[ "$(cat "$WORK/ws")" = "$1" ] ||
	    { echo "wstatus: $(cat "$WORK/ws"), not $1" >&2; return 1; }
}

@test "no attempts left: retry exits N, and the giving-up line says so" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 2 -b 0 \
	    --exhausted-status=75 -- sh -c 'exit 3'
	ws "exit 75"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 3), next in 0.000s" ]
	giving_up "${stderr_lines[1]}" 2 "exit 3" \
	    "no attempts left; exiting 75"
	[ -z "$output" ]
}

@test "without the option the command's status stays" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -q -n 2 -b 0 \
	    -- sh -c 'exit 3'
	ws "exit 3"
	[ -z "$stderr" ]
}

@test "an outcome that is not retried keeps the command's status" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 3 -b 0 \
	    -x 3 --exhausted-status=75 -- sh -c 'exit 3'
	ws "exit 3"
	giving_up "$stderr" 1 "exit 3" "not retried"
}

@test "a success keeps 0" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 3 -b 0 \
	    --exhausted-status=75 -- true
	ws "exit 0"
	[ -z "$stderr" ]
}

@test "-m: a sleep that would pass it gives N" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 3 -b 1h \
	    -j none -m 5s --exhausted-status=75 -- sh -c 'exit 3'
	ws "exit 75"
	giving_up "$stderr" 1 "exit 3" \
	    "the next sleep would pass --max-time; exiting 75"
}

@test "an attempt killed by a retried signal gives N, an exit; not retried, the signal" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 1 \
	    --exhausted-status=75 -- sh -c 'kill -s USR1 $$'
	ws "exit 75"
	giving_up "$stderr" 1 "signal USR1" "no attempts left; exiting 75"
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 3 \
	    -x USR1 --exhausted-status=75 -- sh -c 'kill -s USR1 $$'
	ws "signal 10"
	giving_up "$stderr" 1 "signal USR1" "not retried"
	# N equal to 128 + the signal is still an exit.
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -q -n 1 \
	    --exhausted-status=138 -- sh -c 'kill -s USR1 $$'
	ws "exit 138"
}

@test "N may be 0, and 124 to 127: the caller's choice" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 1 \
	    --exhausted-status=0 -- false
	ws "exit 0"
	giving_up "$stderr" 1 "exit 1" "no attempts left; exiting 0"
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -q -n 1 \
	    --exhausted-status=125 -- false
	ws "exit 125"
}

@test "the budget refused gives N" {
	guard_setup
	run -75 --separate-stderr "$RETRY" -n 5 -b 1d --budget=api,tokens=2 \
	    --exhausted-status=75 -- sh -c 'exit 3'
	giving_up "$stderr" 1 "exit 3" \
	    "retry budget 'api' exhausted; exiting 75"
}

@test "an open breaker gives N instead of 75, in the JSON log too" {
	guard_setup
	local spec=job,failures=1,cooldown=1h
	run -1 --separate-stderr "$RETRY" -q -n 1 --breaker=$spec -- false
	run -9 --separate-stderr "$RETRY" -q --breaker=$spec \
	    --exhausted-status=9 --json-log="$WORK/log" -- touch "$WORK/ran"
	[ -z "$stderr" ]
	[ ! -e "$WORK/ran" ]
	grep -q '"attempts":0,.*"status":9,"reason":"circuit breaker' \
	    "$WORK/log"
}

@test "the JSON summary keeps the command's status and adds exit" {
	run -75 --separate-stderr "$RETRY" -q -n 2 -b 0 \
	    --exhausted-status=75 --json-log="$WORK/log" -- sh -c 'exit 3'
	[ -z "$stderr" ]
	run -0 sed -n 's/.*"event":"summary".*\("status".*\)}$/\1/p' \
	    "$WORK/log"
	[ "$output" = '"status":3,"reason":"no attempts left","exit":75' ]
	# Not replaced: no exit field.
	run -3 --separate-stderr "$RETRY" -q -n 1 -x 3 \
	    --exhausted-status=75 --json-log="$WORK/log2" -- sh -c 'exit 3'
	run -0 sed -n 's/.*"event":"summary".*\("status".*\)}$/\1/p' \
	    "$WORK/log2"
	[ "$output" = '"status":3,"reason":"not retried"' ]
}

@test "the job summary keeps the command's status and names the exit" {
	export GITHUB_STEP_SUMMARY=$WORK/summary.md
	run -75 --separate-stderr "$RETRY" -q -n 1 --log-format=github \
	    --exhausted-status=75 -- sh -c 'exit 3'
	grep -q '^\*\*Result:\*\* gave up after 1 attempt in [0-9.]*s: exit 3 (no attempts left; exiting 75); exit status 3$' \
	    "$GITHUB_STEP_SUMMARY"
}

@test "--until-failure is not changed by it" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -q -n 2 -b 0 \
	    --until-failure --exhausted-status=75 -- sh -c 'exit 3'
	ws "exit 3"
}

@test "--exhausted-status takes 0 to 255 in digits" {
	local bad
	for bad in 256 -1 '' abc 1e2 ' 5' +5 0x10 99999999999999999999; do
		run -125 --separate-stderr "$RETRY" --exhausted-status="$bad" \
		    -- true
		usage_error "invalid --exhausted-status '$bad': expected an exit status from 0 to 255"
	done
}

@test "the dry run names it" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 --exhausted-status=75
	[ -z "$stderr" ]
	[ "${lines[-1]}" = "# --exhausted-status=75: the exit status when the run gives up on an outcome that would be retried" ]
}
