#!/usr/bin/env bats
# retry leaves nothing behind.  Killed with SIGKILL, it takes the running
# command with it (PR_SET_PDEATHSIG), in a PID namespace too, where it also
# works as PID 1; the command inherits only the descriptors that retry was
# given, with -I and -O too; retry reaps its children and the orphans it
# inherits, so that no zombie accumulates.

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
}

teardown() {
	proc_teardown
}

@test "retry killed with SIGKILL: the running command dies too" {
	require_linux_capability "the command's death with retry (PR_SET_PDEATHSIG)"
	bg_retry -n 3 -- sh -c 'trap "" HUP INT TERM; echo $$ >"$1/ready"
	    exec sleep "$2"' sh "$WORK" "$MARK"
	wait_for_file "$WORK/ready"
	wait_markers 1
	kill -KILL "$RPID"
	bg_wait
	[ "$WS" = "signal 9" ]
	wait_markers_gone
}

# unshare(1) as root gives a new PID namespace with its own /proc.
need_pidns() {
	unshare --pid --fork --mount-proc true 2>/dev/null ||
	    skip "unshare --pid --fork --mount-proc does not work here (needs root)"
}

@test "as PID 1 of a namespace retry runs, times out and retries" {
	need_pidns
	run -0 --separate-stderr unshare --pid --fork --mount-proc \
	    "$RETRY" -n 1 -- sh -c 'echo "$PPID"'
	[ "$output" = 1 ]
	[ "$stderr" = "" ]
	run -124 --separate-stderr unshare --pid --fork --mount-proc \
	    "$RETRY" -n 2 -b 1ms -j none -t 20ms -- \
	    sh -c 'sleep "$1" & exec sleep "$1"' sh "$MARK"
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (timed out after 20ms (-t)), next in 0.001s" ]
	wait_markers_gone
}

@test "in a PID namespace, retry killed with SIGKILL: the command dies" {
	require_linux_capability "the command's death with retry (PR_SET_PDEATHSIG)"
	need_pidns
	# PID 1 is sh, retry is PID 2: only PDEATHSIG can end the command.
	# shellcheck disable=SC2016 # expanded by that sh
	printf '%s\n' '"$RETRY" -n 3 -- sh -c '\''echo $$ >"$1/ready"
	    exec sleep "$2"'\'' sh "$WORK" "$MARK"' 'echo $? >"$WORK/rc"' \
	    'while :; do sleep 0.1; done' >"$WORK/pid1"
	detached unshare --pid --fork --mount-proc --kill-child \
	    sh "$WORK/pid1" >/dev/null 2>&1 &
	BG=$!
	wait_for_file "$WORK/ready"
	wait_markers 1
	local cmd
	cmd=$(markers)
	kill -KILL "$(ps -o ppid= -p "$cmd")"
	wait_for_file "$WORK/rc"
	[ "$(<"$WORK/rc")" = 137 ]
	wait_gone "$cmd"
	kill -KILL "$BG"
	wait "$BG" || true
	BG=""
}

# The command run without retry, with the descriptors that retry gets
# (see helpers/proc-detach).
direct() {
	"$HELPERS/proc-detach" "$@"
}

@test "the command inherits only the descriptors retry was given" {
	run -0 --separate-stderr direct ls /proc/self/fd
	local plain=$output
	run -0 --separate-stderr "$RETRY" -n 1 -- ls /proc/self/fd
	[ "$output" = "$plain" ]
	run -0 --separate-stderr direct ls /proc/self/fd 9</dev/null
	[ "$output" != "$plain" ]
	plain=$output
	run -0 --separate-stderr "$RETRY" -n 1 --log-file "$WORK/log" -- \
	    ls /proc/self/fd 9</dev/null
	[ "$output" = "$plain" ]
}

# Every attempt lists its descriptors; the first fails, so that the
# second runs after whatever retry did in between.
fds_of_attempts() {
	printf 'input\n' | "$RETRY" "$@" -n 2 -b 1ms -- sh -c \
	    'ls /proc/self/fd >"$1/fds.$RETRY_ATTEMPT"; [ "$RETRY_ATTEMPT" = 2 ]' \
	    sh "$WORK" >/dev/null 2>&1
	printf 'input\n' | direct sh -c 'ls /proc/self/fd >"$1/fds.direct"' \
	    sh "$WORK" >/dev/null 2>&1
	[ "$(<"$WORK/fds.1")" = "$(<"$WORK/fds.direct")" ]
	[ "$(<"$WORK/fds.2")" = "$(<"$WORK/fds.direct")" ]
}

@test "descriptors with -I: only those retry was given" {
	fds_of_attempts -I
}

@test "descriptors with -O: only those retry was given" {
	fds_of_attempts -O
}

@test "descriptors with -I -O and a timeout: only those retry was given" {
	fds_of_attempts -I -O -t 60s
}

@test "no zombie accumulates over many attempts" {
	# Each attempt orphans two processes that end at once; the last one
	# counts retry's zombie children.
	run -1 --separate-stderr "$RETRY" -q -n 100 -b 0 -- sh -c '
	    true & true &
	    if [ "$RETRY_ATTEMPT" = 100 ]; then
	        ps -o stat= --ppid "$PPID" >"$1/children"; fi
	    exit 1' sh "$WORK"
	[ "$stderr" = "" ]
	[ "$(grep -c Z "$WORK/children")" -le 2 ]
}

@test "orphans that end during an attempt are reaped during it" {
	run -0 --separate-stderr "$RETRY" -n 1 -- sh -c '
	    i=0; while [ $i -lt 20 ]; do (true &); i=$((i + 1)); done
	    n=0
	    while ps -o stat= --ppid "$PPID" | grep -q Z; do
	        n=$((n + 1)); [ $n -lt 500 ] || exit 1; sleep 0.01
	    done'
	[ "$stderr" = "" ]
}
