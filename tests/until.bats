#!/usr/bin/env bats
# --until-failure: the command runs again after each success, with the
# same schedule, limits and logs, and the first attempt that is not a
# success ends the run with its status; when every allowed attempt
# succeeded retry exits 0.  Success is what the policy says (exit codes,
# output conditions, --http); --budget and --breaker are refused.  The
# sleeps have no jitter (-j none) so that the lines are exact.

load helpers/common
load helpers/core
load helpers/attempts

setup() {
	common_setup
}

# ok K N OUTCOME SLEEP: the line that says attempt K/N succeeded.
ok() {
	printf 'retry: attempt %d/%s succeeded (%s), next in %s\n' "$1" "$2" \
	    "$3" "$4"
}

# Each attempt appends its number to $WORK/runs.
COUNT='echo "$RETRY_ATTEMPT" >>"$WORK/runs"'

@test "--until-failure: every allowed attempt succeeds, exit 0" {
	run -0 --separate-stderr "$RETRY" -n 3 -b 10ms -j none \
	    --until-failure -- sh -c "$COUNT"
	expect_stderr "$(ok 1 3 "exit 0" 0.010s)" \
	    "$(ok 2 3 "exit 0" 0.020s)" \
	    "retry: all 3 attempts succeeded in Ts"
	[ "$(cat "$WORK/runs")" = "$(printf '1\n2\n3')" ]
	[ "$output" = "" ]
}

@test "--until-failure: the first failure ends the run with its status" {
	run -7 --separate-stderr "$RETRY" -n 10 -b 10ms -j none \
	    --until-failure -- sh -c "$COUNT"'; [ "$RETRY_ATTEMPT" -lt 3 ] ||
	    exit 7'
	expect_stderr "$(ok 1 10 "exit 0" 0.010s)" \
	    "$(ok 2 10 "exit 0" 0.020s)" \
	    "retry: attempt 3/10 failed after Ts: exit 7 (the first failure)"
	[ "$(cat "$WORK/runs")" = "$(printf '1\n2\n3')" ]
}

@test "--until-failure: an exit status that would be retried or not retried is alike a failure" {
	run -3 --separate-stderr "$RETRY" -x 3 --until-failure -- \
	    sh -c 'exit 3'
	expect_stderr \
	    "retry: attempt 1/5 failed after Ts: exit 3 (the first failure)"
	run -1 --separate-stderr "$RETRY" --until-failure -- false
	expect_stderr \
	    "retry: attempt 1/5 failed after Ts: exit 1 (the first failure)"
}

@test "--until-failure: a command killed by a signal kills retry the same way" {
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 5 -b 1ms \
	    -j none --until-failure -- sh -c "$COUNT"'
	    [ "$RETRY_ATTEMPT" -lt 2 ] || kill -KILL $$'
	[ "$(cat "$WORK/ws")" = "signal 9" ]
	expect_stderr "$(ok 1 5 "exit 0" 0.001s)" \
	    "retry: attempt 2/5 failed after Ts: signal KILL (the first failure)"
	[ "$(cat "$WORK/runs")" = "$(printf '1\n2')" ]
}

@test "--until-failure -n inf without -m runs until the failure" {
	run -1 --separate-stderr "$RETRY" -n inf -b 1ms -c 1ms -j none \
	    --until-failure -- sh -c "$COUNT"'; [ "$RETRY_ATTEMPT" -lt 12 ]'
	[ "$(wc -l <"$WORK/runs")" -eq 12 ]
	[ "${#stderr_lines[@]}" -eq 12 ]
	[ "$(untimed "${stderr_lines[11]}")" = \
	    "retry: attempt 12/inf failed after Ts: exit 1 (the first failure)" ]
}

@test "--until-failure: -m ends a run of successes with exit 0" {
	# Sleeps of 400 and 800 ms, then 1.6 s would pass 1.5 s: the margins
	# hold while each attempt takes under 150 ms, even under sanitizers.
	run -0 --separate-stderr "$RETRY" -n inf -m 1500ms -b 400ms -j none \
	    --until-failure -- sh -c "$COUNT"
	expect_stderr "$(ok 1 inf "exit 0" 0.400s)" \
	    "$(ok 2 inf "exit 0" 0.800s)" \
	    "retry: all 3 attempts succeeded in Ts; the next sleep would pass --max-time"
	[ "$(wc -l <"$WORK/runs")" -eq 3 ]
}

@test "--until-failure: --success-on and the output conditions decide success" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none \
	    --success-on=3 --until-failure -- sh -c 'exit 3'
	expect_stderr "$(ok 1 2 "exit 3" 0.001s)" \
	    "retry: all 2 attempts succeeded in Ts"
	# An exit 0 that the policy does not count as a success exits 1.
	run -1 --separate-stderr "$RETRY" -n 3 -b 1ms -j none \
	    --stop-if-output=bad --until-failure -- sh -c "$COUNT"'
	    [ "$RETRY_ATTEMPT" -lt 2 ] || echo bad >&2'
	expect_stderr "$(ok 1 3 "exit 0" 0.001s)" \
	    "bad" \
	    "retry: attempt 2/3 failed after Ts: exit 0, output matched 'bad' (the first failure; exiting 1)"
}

@test "--until-failure --http: a retried status is a failure" {
	local ok503
	ok503='if [ "$RETRY_ATTEMPT" -lt 2 ]; then s="200 OK"; else s="503 No"; fi
	    printf "HTTP/1.1 %s\r\n\r\n" "$s" >"$WORK/head"'
	run -1 --separate-stderr "$RETRY" -n 3 -b 1ms -j none \
	    --http="$WORK/head" --until-failure -- sh -c "$ok503"
	expect_stderr "$(ok 1 3 "HTTP 200" 0.001s)" \
	    "retry: attempt 2/3 failed after Ts: HTTP 503 (the first failure; exiting 1)"
}

@test "--until-failure -O: the failing attempt's stdout on stdout, the others' on stderr" {
	run -1 --separate-stderr "$RETRY" -n 3 -b 1ms -j none -O \
	    --until-failure -- sh -c 'echo "out $RETRY_ATTEMPT"
	    [ "$RETRY_ATTEMPT" -lt 2 ]'
	[ "$output" = "out 2" ]
	expect_stderr "out 1" "$(ok 1 3 "exit 0" 0.001s)" \
	    "retry: attempt 2/3 failed after Ts: exit 1 (the first failure)"
	# All succeeded: the last one's.
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -O \
	    --until-failure -- sh -c 'echo "out $RETRY_ATTEMPT"'
	[ "$output" = "out 2" ]
	expect_stderr "out 1" "$(ok 1 2 "exit 0" 0.001s)" \
	    "retry: all 2 attempts succeeded in Ts"
}

@test "--until-failure: --on-retry follows successes, --on-give-up only a failure" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none \
	    --on-retry='echo "retry $RETRY_STATUS" >>"$WORK/hooks"' \
	    --on-give-up='echo give-up >>"$WORK/hooks"' --until-failure -- true
	expect_stderr "$(ok 1 2 "exit 0" 0.001s)" \
	    "retry: all 2 attempts succeeded in Ts"
	[ "$(cat "$WORK/hooks")" = "retry 0" ]
	rm "$WORK/hooks"
	run -4 --separate-stderr "$RETRY" -n 2 -b 1ms -j none \
	    --on-give-up='echo "give-up $RETRY_STATUS" >>"$WORK/hooks"' \
	    --until-failure -- sh -c 'exit 4'
	expect_stderr \
	    "retry: attempt 1/2 failed after Ts: exit 4 (the first failure)"
	[ "$(cat "$WORK/hooks")" = "give-up 4" ]
}

@test "--until-failure --reset-after: a long success restarts the schedule" {
	run -0 --separate-stderr "$RETRY" -n 4 -b 10ms -j none \
	    --reset-after=1ms --until-failure -- sleep 0.01
	expect_stderr "$(ok 1 4 "exit 0" 0.010s)" \
	    "$(ok 2 4 "exit 0" 0.010s)" "$(ok 3 4 "exit 0" 0.010s)" \
	    "retry: all 4 attempts succeeded in Ts"
}

@test "--until-failure with --budget or --breaker is refused" {
	run -125 --separate-stderr "$RETRY" --until-failure \
	    --budget=ci -- true
	usage_error "--until-failure and --budget cannot be combined: it stops at the first failure, so nothing is retried"
	run -125 --separate-stderr "$RETRY" --breaker=ci --until-failure \
	    -- true
	usage_error "--until-failure and --breaker cannot be combined: it stops at the first failure, so nothing is retried"
}

@test "--until-failure --dry-run shows the same schedule" {
	quick --dry-run --seed 4 -n 4 -- true
	quiet_success
	local want=$output
	quick --dry-run --seed 4 -n 4 --until-failure -- true
	quiet_success
	[ "$output" = "$want" ]
}
