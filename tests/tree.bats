#!/usr/bin/env bats
# The whole process tree of an attempt.  A timeout, the deadline
# or a forwarded signal reaches every process of the attempt that stayed
# in its process group; before a retry, none of them is left.  Processes
# are found by their marker ("sleep $MARK", see helpers/proc-common).

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
}

teardown() {
	proc_teardown
}

# Two markers: one in the background, then sh becomes the other one.
TREE='sleep "$2" & until pgrep -f -x "$3" >/dev/null; do sleep 0.01; done
    echo $$ >"$1/ready"; exec sleep "$2"'

# Runs retry "$@" -- sh -c "$TREE" until the tree was complete before the
# time ran out: each try gives it ten times as long.
run_tree() {
	local t
	for t in 50ms 500ms 5s 50s; do
		rm -f "$WORK/ready"
		run --separate-stderr "$RETRY" "${@//@T@/$t}" -- \
		    sh -c "$TREE" sh "$WORK" "$MARK" "$MARK_RE"
		[[ -s $WORK/ready ]] && return 0
		wait_markers_gone
	done
	return 1
}

@test "a timeout leaves nothing of sh -c 'sleep & sleep'" {
	require_linux_capability "leftover tracking"
	run_tree -n 1 -t @T@
	[ "$status" -eq 124 ]
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9.]+s:\ timed\ out\ after\ [0-9a-z.]+\ \(-t\)\ \(no\ attempts\ left\)$ ]]
	wait_markers_gone
}

@test "the deadline leaves nothing of sh -c 'sleep & sleep'" {
	require_linux_capability "leftover tracking"
	run_tree -n 3 -m @T@
	[ "$status" -eq 124 ]
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9.]+s:\ timed\ out\ \(--max-time\ reached\)$ ]]
	wait_markers_gone
}

forwarded_leaves_nothing() {
	bg_retry -n 3 -b 1ms -k 100ms -- \
	    sh -c "$TREE" sh "$WORK" "$MARK" "$MARK_RE"
	wait_for_file "$WORK/ready"
	wait_markers 2
	kill -s "$1" "$RPID"
	bg_wait
	[ "$WS" = "signal $(signum "$1")" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by $1 during attempt 1/3 after Ts" ]
	wait_markers_gone
}

@test "a forwarded TERM leaves nothing of sh -c 'sleep & sleep'" {
	require_linux_capability "leftover tracking"
	forwarded_leaves_nothing TERM
}

@test "a forwarded HUP leaves nothing of sh -c 'sleep & sleep'" {
	require_linux_capability "leftover tracking"
	forwarded_leaves_nothing HUP
}

# INT and QUIT: sh (then the foreground marker) dies by the signal, and
# retry with it, at once; the background marker, a background job of
# sh -c, ignores the signal and is left alone, as after any final
# attempt: no KILL, even with a short -k.
forwarded_leaves_background() {
	bg_retry -n 3 -b 1ms -k 100ms -- \
	    sh -c "$TREE" sh "$WORK" "$MARK" "$MARK_RE"
	wait_for_file "$WORK/ready"
	wait_markers 2
	kill -s "$1" "$RPID"
	bg_wait
	[ "$WS" = "signal $(signum "$1")" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by $1 during attempt 1/3 after Ts" ]
	# Not a synchronisation: time for a wrong KILL (after 100 ms) to land.
	sleep 0.3
	[ "$(markers | wc -l)" -eq 1 ]
	[ "$(markers)" != "$(<"$WORK/ready")" ]
}

@test "a forwarded INT: sh dies by it, the background job is left alone" {
	forwarded_leaves_background INT
}

@test "a forwarded QUIT: sh dies by it, the background job is left alone" {
	forwarded_leaves_background QUIT
}

# Attempt 1 runs $1 (with $1 the work directory and $2 the marker), waits
# until $2 markers (default 1) run, and fails; attempt 2 records the
# markers still running, which must be none.  $3 is --kill-after.  Every
# process that $1 starts ends as a marker, which holds no descriptor of
# bats (helpers/proc-sleep): a bug may leave it behind, not hang bats.
first_leaves() {
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -k "${3:-50ms}" \
	    -- sh -c 'if [ "$RETRY_ATTEMPT" = 1 ]; then eval "$3"
	        until [ "$(pgrep -c -f -x "$4")" -ge "$5" ]; do sleep 0.01; done
	        eval "${6:-}"; exit 1; fi
	    pgrep -f -x "$4" >"$1/left"; echo done >"$1/done"' \
	    sh "$WORK" "$MARK" "$1" "$MARK_RE" "${2:-1}" "${4:-}"
	[ "$(untimed "$stderr")" = "retry: attempt 1/2 failed (exit 1), next in 0.001s
retry: succeeded on attempt 2/2 after Ts" ]
	[ "$(<"$WORK/done")" = "done" ]
	[ "$(<"$WORK/left")" = "" ]
}

@test "before a retry, a background leftover is gone" {
	require_linux_capability "leftover tracking"
	first_leaves 'sleep "$2" &'
}

@test "before a retry, a leftover that ignores TERM is killed" {
	require_linux_capability "leftover tracking"
	first_leaves '(trap "" TERM; exec sleep "$2") &'
}

# Without the SIGCONT that goes with TERM, the stopped leftover would
# wait 60 s for KILL: longer than BATS_TEST_TIMEOUT.
@test "before a retry, a stopped leftover is continued and ended" {
	require_linux_capability "leftover tracking"
	first_leaves 'sleep "$2" & p=$!' 1 60s 'kill -STOP $p'
}

@test "before a retry, an orphaned grandchild (double fork) is gone" {
	require_linux_capability "leftover tracking"
	first_leaves '(sleep "$2" &)'
}

@test "before a retry, a deep tree is gone" {
	require_linux_capability "leftover tracking"
	first_leaves 'sh -c "sh -c \"exec sleep $2\" & exec sleep $2" &' 2
}

@test "leftovers of the final attempt are left alone (contract)" {
	run -1 --separate-stderr "$RETRY" -n 1 -- \
	    sh -c 'sleep "$1" & exit 1' sh "$MARK"
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9.]+s:\ exit\ 1\ \(no\ attempts\ left\)$ ]]
	wait_markers 1
}

# A process that blocks TERM keeps, pending, any TERM sent to it: that
# shows whether retry signalled it, whenever that happened.
untouched() {
	local pid=$1
	kill -0 "$pid"
	if sig_in_set "$pid" 15 ShdPnd || sig_in_set "$pid" 15 SigPnd; then
		echo "process $pid got TERM" >&2
		return 1
	fi
}

@test "a process that left the group (setsid) is left alone" {
	# Attempt 1 ends once its marker runs, in a session of its own.
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -k inf -- \
	    sh -c 'if [ "$RETRY_ATTEMPT" = 1 ]; then
	        setsid "$2/proc-sigmask" TERM sleep "$3" &
	        echo $! >"$1/away"
	        until pgrep -f -x "$4" >/dev/null; do sleep 0.01; done
	        exit 1; fi' sh "$WORK" "$HELPERS" "$MARK" "$MARK_RE"
	[ "$(untimed "$stderr")" = "retry: attempt 1/2 failed (exit 1), next in 0.001s
retry: succeeded on attempt 2/2 after Ts" ]
	[ "$(markers)" = "$(<"$WORK/away")" ]
	untouched "$(<"$WORK/away")"
}

@test "--foreground: a process of the caller's group is left alone" {
	require_linux_capability "leftover tracking"
	"$HELPERS/proc-sigmask" TERM sleep "$MARK" &
	local sib=$!
	wait_markers 1
	run -1 --separate-stderr "$RETRY" --foreground -n 2 -b 1ms -j none \
	    -k inf -- sh -c 'if [ "$RETRY_ATTEMPT" = 1 ]; then
	        sleep "$1" & fi; exit 1' sh "$MARK"
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 1), next in 0.001s" ]
	# The attempt's leftover is gone, the sibling is not.
	[ "$(markers)" = "$sib" ]
	untouched "$sib"
	kill -KILL "$sib"
	wait "$sib" || true
}

@test "a signal while leftovers are cleared: they get it, USR1 stops nothing" {
	require_linux_capability "leftover tracking"
	# The leftover blocks TERM: once TERM is pending there, retry is
	# clearing (and would wait 60 s before KILL).  USR1, passed on, ends
	# the leftover; it is not a stop signal: attempt 2 runs.
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
	kill -USR1 "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/attempts")" = $'1\n2' ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: attempt 1/3 failed (exit 1), next in 0.001s
retry: succeeded on attempt 2/3 after Ts" ]
	wait_markers_gone
}

# Issue 19 item 11: a process whose main thread has exited while another
# thread runs shows a zombie leader, yet lives.  helpers/zombie-leader
# writes the running thread's id to the file it is given.
ZOMBIE_LEADER=$ROOT/tests/helpers/zombie-leader

@test "before a retry, a leftover whose main thread exited is gone" {
	require_linux_capability "leftover tracking"
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms -j none -k 50ms \
	    -- sh -c 'if [ "$RETRY_ATTEMPT" = 1 ]; then "$1" "$2/tid" &
	        until [ -s "$2/tid" ]; do sleep 0.01; done; exit 1; fi
	    if [ -d "/proc/$(cat "$2/tid")" ]; then echo alive; else echo gone
	    fi >"$2/left"' sh "$ZOMBIE_LEADER" "$WORK"
	[ "$(untimed "$stderr")" = "retry: attempt 1/2 failed (exit 1), next in 0.001s
retry: succeeded on attempt 2/2 after Ts" ]
	[ "$(<"$WORK/left")" = "gone" ]
}

@test "a timeout leaves nothing of a process whose main thread exited" {
	require_linux_capability "leftover tracking"
	run -124 --separate-stderr "$RETRY" -n 1 -t 1s -k 50ms \
	    -- sh -c '"$1" "$2/tid" & until [ -s "$2/tid" ]; do sleep 0.01
	    done; exec sleep "$3"' sh "$ZOMBIE_LEADER" "$WORK" "$MARK"
	[ "$(untimed "$stderr")" = "retry: giving up after 1 attempt in Ts: timed out after 1s (-t) (no attempts left)" ]
	[ -s "$WORK/tid" ]
	[ ! -d "/proc/$(<"$WORK/tid")" ]
}
