#!/usr/bin/env bats
# --on-retry runs its hook after a failed attempt that another follows,
# before the sleep, and --on-give-up once, when retry gives up (not on
# success, not when a signal stops the run).  A hook is /bin/sh -c CMD
# with the command's environment plus RETRY_STATUS and, for --on-retry,
# RETRY_NEXT_SLEEP; its stdin is /dev/null, its stdout retry's stderr; a
# failing hook is a warning; --max-time bounds it (TERM, then KILL).

load helpers/common
load helpers/proc-common
load helpers/attempts

setup() {
	proc_setup
}

teardown() {
	proc_teardown
}

# What a hook prints of its environment.
SHOW='echo "A=$RETRY_ATTEMPT S=$RETRY_STATUS M=$RETRY_MAX_ATTEMPTS N=${RETRY_NEXT_SLEEP-unset}"'

@test "--on-retry runs after each failed attempt that another follows; its output goes to stderr" {
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 \
	    --on-retry='echo "hook after $RETRY_ATTEMPT"; echo "hook err" >&2' \
	    -- sh -c 'echo "out $RETRY_ATTEMPT"; exit 1'
	[ "$output" = $'out 1\nout 2\nout 3' ]
	expect_stderr "$(failed 1 3 "exit 1")" "hook after 1" "hook err" \
	    "$(failed 2 3 "exit 1")" "hook after 2" "hook err" \
	    "retry: giving up after 3 attempts in Ts: exit 1 (no attempts left)"
}

@test "--on-retry runs before the sleep" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 300ms -j none \
	    --on-retry='date +%s%N >"$WORK/hook"; echo hook' -- \
	    sh -c 'date +%s%N >"$WORK/start.$RETRY_ATTEMPT"
	    [ "$RETRY_ATTEMPT" = 2 ]'
	expect_stderr "$(failed 1 2 "exit 1" 0.300s)" hook \
	    "retry: succeeded on attempt 2/2 after Ts"
	# Sleeps are never short: after the hook, the whole sleep is left.
	(($(<"$WORK/start.2") - $(<"$WORK/hook") >= 300000000))
}

@test "the hooks' environment: attempt, status, maximum, next sleep" {
	run -5 --separate-stderr "$RETRY" -n 3 -b 10ms -f 3 -j none \
	    --on-retry="$SHOW" --on-give-up="$SHOW" -- \
	    sh -c 'case $RETRY_ATTEMPT in 1) exit 3 ;; 2) kill -USR1 $$ ;; esac
	    exit 5'
	expect_stderr "$(failed 1 3 "exit 3" 0.010s)" "A=1 S=3 M=3 N=0.010" \
	    "$(failed 2 3 "signal USR1" 0.030s)" "A=2 S=138 M=3 N=0.030" \
	    "retry: giving up after 3 attempts in Ts: exit 5 (no attempts left)" \
	    "A=3 S=5 M=3 N=unset"
}

@test "RETRY_STATUS of a timed-out attempt is 124, 137 if killed; -n inf is inf" {
	require_linux_capability "leftover tracking"
	# -t gives attempt 2's sh time to ignore TERM even on a loaded host.
	run -0 --separate-stderr "$RETRY" -n inf -b 0 -t 500ms -k 100ms \
	    --on-retry="$SHOW" -- sh -c '
	    case $RETRY_ATTEMPT in
	    1) exec sleep "$MARK" ;;
	    2) trap "" TERM; sleep "$MARK" ;;
	    esac'
	expect_stderr "$(failed 1 inf "timed out after 500ms (-t)")" "A=1 S=124 M=inf N=0.000" \
	    "$(failed 2 inf "timed out after 500ms (-t), killed")" "A=2 S=137 M=inf N=0.000" \
	    "retry: succeeded on attempt 3/inf after Ts"
	wait_markers_gone
}

@test "RETRY_NEXT_SLEEP is the sleep drawn, to the nanosecond" {
	local opts=(-n 5 -b 10ms -j full --seed 13) draws
	run -0 --separate-stderr "$RETRY" --dry-run "${opts[@]}"
	draws=$(awk '$1 ~ /^[2-9]$/ { print $5 }' <<<"$output")
	[ "$(wc -l <<<"$draws")" -eq 4 ]
	run -1 --separate-stderr "$RETRY" "${opts[@]}" \
	    --on-retry='echo "$RETRY_NEXT_SLEEP" >>"$WORK/sleeps"' -- false
	# The table pads a column to 9 decimals: compare nanoseconds.
	[ "$(nine_decimals <"$WORK/sleeps")" = "$(nine_decimals <<<"$draws")" ]
	# The retry lines show the same sleeps, in milliseconds.
	local k=1 d
	for d in $draws; do
		[ "${stderr_lines[k - 1]}" = "$(failed "$k" 5 "exit 1" \
		    "$(awk -v d="$d" 'BEGIN { printf "%.3fs", d }')")" ]
		k=$((k + 1))
	done
	[ "${#stderr_lines[@]}" -eq 5 ]
}

@test "a hook gets the command's environment plus RETRY_STATUS and RETRY_NEXT_SLEEP" {
	local dump='env | LC_ALL=C sort >"$WORK/$0.$RETRY_ATTEMPT"'
	FOO='two words' run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    --on-retry="sh -c '$dump' hook" \
	    --on-give-up="sh -c '$dump' giveup" -- sh -c "$dump; exit 1" cmd
	expect_stderr "$(failed 1 2 "exit 1")" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)"
	grep -qx 'FOO=two words' "$WORK/cmd.1"
	# RETRY_AFTER_FILE is the attempt's, gone when a hook runs: empty.
	grep -q '^RETRY_AFTER_FILE=/.' "$WORK/cmd.1"
	[ "$(comm -23 "$WORK/cmd.1" "$WORK/hook.1")" = \
	    "$(grep ^RETRY_AFTER_FILE= "$WORK/cmd.1")" ]
	[ "$(comm -13 "$WORK/cmd.1" "$WORK/hook.1")" = \
	    $'RETRY_AFTER_FILE=\nRETRY_NEXT_SLEEP=0.000\nRETRY_STATUS=1' ]
	[ "$(comm -23 "$WORK/cmd.2" "$WORK/giveup.2")" = \
	    "$(grep ^RETRY_AFTER_FILE= "$WORK/cmd.2")" ]
	[ "$(comm -13 "$WORK/cmd.2" "$WORK/giveup.2")" = \
	    $'RETRY_AFTER_FILE=\nRETRY_STATUS=1' ]
}

@test "RETRY_STATUS and RETRY_NEXT_SLEEP from retry's caller are replaced" {
	RETRY_STATUS=stale RETRY_NEXT_SLEEP=stale run -0 --separate-stderr \
	    "$RETRY" -n 2 -b 0 --on-retry="$SHOW" --on-give-up="$SHOW" -- \
	    sh -c 'echo "$RETRY_STATUS $RETRY_NEXT_SLEEP"
	    [ "$RETRY_ATTEMPT" = 2 ]'
	# The command's environment is retry's own: it keeps them.
	[ "$output" = $'stale stale\nstale stale' ]
	expect_stderr "$(failed 1 2 "exit 1")" "A=1 S=1 M=2 N=0.000" \
	    "retry: succeeded on attempt 2/2 after Ts"
	RETRY_STATUS=stale RETRY_NEXT_SLEEP=stale run -1 --separate-stderr \
	    "$RETRY" -n 1 --on-give-up="$SHOW" -- false
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 1 (no attempts left)" \
	    "A=1 S=1 M=1 N=unset"
}

@test "a hook's stdin is /dev/null: retry's stdin is left to the command" {
	local hook='cat >"$WORK/$0.in"; echo "$0 read $(wc -c <"$WORK/$0.in")"'
	[[ -d /proc/self/fd ]] &&
	    hook+='; readlink "/proc/$$/fd/0"'
	run -1 --separate-stderr bash -c 'printf "data\n" | "$@"' bash \
	    "$RETRY" -n 3 -b 0 --on-retry="sh -c '$hook' retry" \
	    --on-give-up="sh -c '$hook' giveup" -- \
	    sh -c '[ "$RETRY_ATTEMPT" = 1 ] && exit 1
	    cat >"$WORK/cmd.$RETRY_ATTEMPT"; exit 1'
	local null=()
	[[ -d /proc/self/fd ]] && null=(/dev/null)
	expect_stderr "$(failed 1 3 "exit 1")" "retry read 0" "${null[@]}" \
	    "$(failed 2 3 "exit 1")" "retry read 0" "${null[@]}" \
	    "retry: giving up after 3 attempts in Ts: exit 1 (no attempts left)" \
	    "giveup read 0" "${null[@]}"
	[ "$(<"$WORK/cmd.2")" = data ]
	[ ! -s "$WORK/cmd.3" ]
}

@test "-O: a hook's output is not held, it goes to stderr" {
	run -0 --separate-stderr "$RETRY" -O -n 2 -b 0 --on-retry='echo hook' \
	    -- sh -c 'echo "out $RETRY_ATTEMPT"; [ "$RETRY_ATTEMPT" = 2 ]'
	[ "$output" = "out 2" ]
	expect_stderr "out 1" "$(failed 1 2 "exit 1")" hook \
	    "retry: succeeded on attempt 2/2 after Ts"
}

@test "a failing --on-retry is a warning and changes nothing" {
	run -0 --separate-stderr "$RETRY" -n 3 -b 0 \
	    --on-retry='echo "hook $RETRY_ATTEMPT"; exit 4' -- \
	    sh -c '[ "$RETRY_ATTEMPT" = 3 ]'
	expect_stderr "$(failed 1 3 "exit 1")" "hook 1" \
	    "retry: --on-retry failed (exit 4)" \
	    "$(failed 2 3 "exit 1")" "hook 2" \
	    "retry: --on-retry failed (exit 4)" \
	    "retry: succeeded on attempt 3/3 after Ts"
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 --on-retry='kill -USR1 $$' \
	    -- false
	expect_stderr "$(failed 1 2 "exit 1")" \
	    "retry: --on-retry failed (signal USR1)" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)"
}

@test "a failing --on-give-up is a warning; retry exits as the command did" {
	run -3 --separate-stderr "$RETRY" -n 1 --on-give-up='exit 5' -- \
	    sh -c 'exit 3'
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 3 (no attempts left)" \
	    "retry: --on-give-up failed (exit 5)"
}

@test "--on-give-up runs once: attempts run out, an outcome not retried, no command" {
	local hook='echo "gave up after $RETRY_ATTEMPT: $RETRY_STATUS"'
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 --on-give-up="$hook" -- \
	    false
	expect_stderr "$(failed 1 2 "exit 1")" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)" \
	    "gave up after 2: 1"
	run -3 --separate-stderr "$RETRY" -n 5 -b 0 -x 3 \
	    --on-give-up="$hook" -- sh -c 'exit 3'
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 3 (not retried)" \
	    "gave up after 1: 3"
	run -2 --separate-stderr "$RETRY" -n 5 -b 0 --stop-if-output=denied \
	    --on-give-up="$hook" -- sh -c 'echo denied; exit 2'
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 2, output matched 'denied' (not retried)" \
	    "gave up after 1: 2"
	run -127 --separate-stderr "$RETRY" -n 5 -b 0 --on-give-up="$hook" -- \
	    "$WORK/no-such-command"
	expect_stderr \
	    "retry: cannot run $WORK/no-such-command: No such file or directory" \
	    "retry: giving up after 1 attempt in Ts: exit 127 (not retried)" \
	    "gave up after 1: 127"
}

@test "--on-give-up does not run on success" {
	run -0 --separate-stderr "$RETRY" -n 3 -b 0 --on-give-up='echo gave up' \
	    -- true
	expect_stderr
	run -0 --separate-stderr "$RETRY" -n 3 -b 0 --on-retry='echo retrying' \
	    --on-give-up='echo gave up' -- sh -c '[ "$RETRY_ATTEMPT" = 3 ]'
	expect_stderr "$(failed 1 3 "exit 1")" retrying \
	    "$(failed 2 3 "exit 1")" retrying \
	    "retry: succeeded on attempt 3/3 after Ts"
	run -3 --separate-stderr "$RETRY" -n 3 -b 0 --success-if-output=Ready \
	    --on-give-up='echo gave up' -- sh -c 'echo Ready; exit 3'
	expect_stderr
}

@test "--on-give-up does not run when TERM stops the run during an attempt" {
	bg_retry -n 3 -b 0 --on-give-up=': >"$WORK/gave-up"' -- \
	    sh -c 'echo $$ >"$WORK/ready"; exec sleep "$MARK"'
	wait_for_file "$WORK/ready"
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
	[ ! -e "$WORK/gave-up" ]
	wait_markers_gone
}

@test "--on-give-up does not run when TERM stops the run during --on-retry" {
	bg_retry -n 3 -b 0 --on-give-up=': >"$WORK/gave-up"' \
	    --on-retry='echo $$ >"$WORK/ready"; exec sleep "$MARK"' -- false
	wait_for_file "$WORK/ready"
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	stderr=$(<"$WORK/err")
	expect_stderr "$(failed 1 3 "exit 1")" \
	    "retry: --on-retry failed (signal TERM)" \
	    "retry: stopped by TERM after attempt 1/3 in Ts"
	[ ! -e "$WORK/gave-up" ]
	wait_markers_gone
}

@test "--on-give-up does not run when TERM stops the run during the sleep" {
	bg_retry -n 3 -b 10s -j none --on-give-up=': >"$WORK/gave-up"' \
	    --on-retry='echo $$ >"$WORK/ready"' -- false
	wait_for_file "$WORK/ready"
	wait_gone "$(<"$WORK/ready")"
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	stderr=$(<"$WORK/err")
	expect_stderr "$(failed 1 3 "exit 1" 10.000s)" \
	    "retry: stopped by TERM after attempt 1/3 in Ts"
	[ ! -e "$WORK/gave-up" ]
}

# deadline_in_hook HOOK OUTCOME LEAST: with -m 500ms -k 100ms, the
# --on-retry HOOK after attempt 1 is ended at the deadline, its OUTCOME
# is a warning, and the run gives up after LEAST s (and well before the
# hook's own end), leaving nothing behind.
deadline_in_hook() {
	local t
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -m 500ms -k 100ms \
	    --on-retry="$1" -- false
	expect_stderr "$(failed 1 3 "exit 1")" \
	    "retry: --on-retry failed ($2)" \
	    "retry: giving up after 1 attempt in Ts: exit 1 (--max-time reached)"
	t=$(gave_up_after)
	fcmp "$t" '>=' "$3"
	fcmp "$t" '<' 3
	wait_markers_gone
}

@test "the deadline during --on-retry: TERM ends it, the run gives up" {
	require_linux_capability "leftover tracking"
	deadline_in_hook 'sleep "$MARK"' "timed out" 0.5
}

@test "the deadline during --on-retry that ignores TERM: KILL after --kill-after" {
	require_linux_capability "leftover tracking"
	deadline_in_hook 'trap "" TERM; sleep "$MARK"' "timed out, killed" 0.6
}

@test "--on-give-up runs when --max-time ends the run" {
	# Giving up at the deadline is giving up: the hook that posts the
	# news must get to run, not be cut off before it starts.
	run -124 --separate-stderr "$RETRY" -n 3 -b 0 -m 300ms \
	    --on-give-up='sleep 0.1; echo "gave up: $RETRY_STATUS"' -- \
	    sleep "$MARK"
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: timed out (--max-time reached)" \
	    "gave up: 124"
	wait_markers_gone
}

@test "an empty hook is a usage error" {
	local hook
	for hook in on-retry on-give-up; do
		run -125 --separate-stderr "$RETRY" "--$hook=" -- true
		[ "$output" = "" ]
		expect_stderr "retry: invalid --$hook '': empty command; try 'retry --help'"
	done
}

@test "hooks with stderr closed: the run goes on and exits as the attempt did" {
	run -3 --separate-stderr sh -c 'exec "$@" 2>&-' sh "$PROC_RETRY" -n 3 -b 0 \
	    --on-retry='echo "hook $RETRY_ATTEMPT" >>"$WORK/hooks"; echo lost' \
	    --on-give-up='echo "give-up $RETRY_ATTEMPT" >>"$WORK/hooks"' \
	    -- sh -c 'echo "$RETRY_ATTEMPT" >>"$WORK/attempts"; exit 3'
	expect_stderr
	[ "$(cat "$WORK/attempts")" = $'1\n2\n3' ]
	[ "$(cat "$WORK/hooks")" = $'hook 1\nhook 2\ngive-up 3' ]
}

# Issue 19 item 13.
@test "a hook's background job is the hook's: not cleared as an attempt's leftover" {
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 \
	    --on-retry='[ "$RETRY_ATTEMPT" = 1 ] &&
	        { sleep "$MARK" >/dev/null 2>&1 & echo $! >"$WORK/job"; }; :' \
	    -- sh -c 'pgrep -f -x "$1" >"$2/seen.$RETRY_ATTEMPT"; exit 1' \
	    sh "$MARK_RE" "$WORK"
	expect_stderr "$(failed 1 3 "exit 1")" "$(failed 2 3 "exit 1")" \
	    "retry: giving up after 3 attempts in Ts: exit 1 (no attempts left)"
	[ ! -s "$WORK/seen.1" ]
	[ "$(<"$WORK/seen.2")" = "$(<"$WORK/job")" ]
	[ "$(<"$WORK/seen.3")" = "$(<"$WORK/job")" ]
	kill -0 "$(<"$WORK/job")"
}

@test "TERM during --on-retry reaches the hook's background jobs too" {
	# The hook leads a process group of its own: a stop signal must reach
	# all of it, not only its shell, or its jobs outlive retry.
	bg_retry -n 3 -b 0 \
	    --on-retry='sleep "$MARK" & echo $$ >"$WORK/ready"; wait' -- false
	wait_for_file "$WORK/ready"
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	stderr=$(<"$WORK/err")
	expect_stderr "$(failed 1 3 "exit 1")" \
	    "retry: --on-retry failed (signal TERM)" \
	    "retry: stopped by TERM after attempt 1/3 in Ts"
	wait_markers_gone
}

@test "a hook that cannot get descriptors to start (ulimit -n) is a warning: the run goes on and keeps the command's status" {
	# fds 0-2 only, and room for 6: the attempt's pipe fits (3, 4), the
	# hook's stdin and stdout (3, 4) leave no room for the pipe that
	# brings back a failed exec's errno.  The portable build's self-pipe
	# for signals takes two more.
	local limit=6
	linux_capability || limit=8
	run -1 --separate-stderr bash -c 'ulimit -n "$1" && shift &&
	    exec "$@" 3>&- 4>&- 5>&- 6>&- 7>&-' _ "$limit" \
	    "$RETRY" -n 2 -b 0 --on-retry='echo hook' -- false
	[ "$output" = "" ]
	expect_stderr "$(failed 1 2 "exit 1")" \
	    "retry: --on-retry: cannot run /bin/sh: Too many open files" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)"
}
