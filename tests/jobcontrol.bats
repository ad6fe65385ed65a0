#!/usr/bin/env bats
# Job control and terminals: retry ignores SIGTTIN and
# SIGTTOU for itself, stays in its caller's process group whenever it has
# a controlling terminal, and does not send a signal that the terminal
# sent to the whole foreground job a second time.  Driven for real: an
# interactive bash in tmux, keys typed with send-keys.

load helpers/common
load helpers/proc-common
load helpers/field

setup() {
	proc_setup
}

teardown() {
	local f pid
	tmux_teardown
	for f in cat ready ppid; do
		[[ -s $WORK/$f ]] || continue
		pid=$(<"$WORK/$f")
		kill -CONT "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
	proc_teardown
}

# The command: records its attempt and pid, then becomes cat.
CAT='echo "$RETRY_ATTEMPT" >>"$1/attempts"; echo $$ >"$1/cat"; exec cat'

# After a job ends, the status the shell saw, through a line typed at the
# prompt (after Ctrl-C, bash drops the rest of the line the job was on).
shell_status() {
	type_line "echo \"rc=\$?\" >'$WORK/rc'"
	wait_for_file "$WORK/rc" "${1:-10}" || { show_pane; return 1; }
	cat "$WORK/rc"
}

@test "retry ignores TTIN and TTOU for itself, not for the command" {
	bg_retry -n 1 -- "$HELPERS/proc-hold" "$WORK"
	wait_for_file "$WORK/ready"
	sig_in_set "$RPID" 21 SigIgn
	sig_in_set "$RPID" 22 SigIgn
	not sig_in_set "$(<"$WORK/ready")" 21 SigIgn
	not sig_in_set "$(<"$WORK/ready")" 22 SigIgn
	echo 0 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/err")" = "" ]
}

@test "terminal: retry -t 2 -- cat & times out (124) and leaves nothing stopped" {
	tmux_setup
	# In the background, cat and, today, retry are stopped by SIGTTIN.
	type_line "'$RETRY' -n 1 -t 2 -- sh -c '$CAT' sh '$WORK' \
>'$WORK/out' 2>'$WORK/err' &"
	wait_for_file "$WORK/cat"
	type_line "wait %1; echo \"status=\$?\" >'$WORK/rc'; jobs >'$WORK/jobs'"
	wait_for_file "$WORK/rc" 10 || { show_pane; false; }
	[ "$(<"$WORK/rc")" = "status=124" ]
	[ "$(<"$WORK/jobs")" = "" ]
	wait_gone "$(<"$WORK/cat")" 2
	[ "$(<"$WORK/out")" = "" ]
	[[ $(<"$WORK/err") =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ timed\ out\ after\ 2s\ \(-t\)\ \(no\ attempts\ left\)$ ]]
	[ "$(<"$WORK/attempts")" = 1 ]
}

@test "terminal: sh -c 'retry -- cat' & then fg: cat reads the terminal, Ctrl-D ends it" {
	tmux_setup
	# sh stays the job's leader (it has more to do after retry); retry,
	# which is not, must stay in the job that fg brings to the foreground.
	type_line "sh -c '\"\$0\" -n 2 -b 1ms -- sh -c \"\$1\" sh \"\$2\"; exit \$?' \
'$RETRY' '$CAT' '$WORK' >'$WORK/out' 2>'$WORK/err' &"
	wait_for_file "$WORK/cat"
	local cat
	cat=$(<"$WORK/cat")
	# Reading the terminal from the background stops it.
	poll_until 5 is_stopped "$cat"
	type_line "fg"
	poll_until 5 in_foreground "$cat" || { show_pane; false; }
	poll_until 5 is_running "$cat" || { show_pane; false; }
	type_line "hello"
	wait_for_line "$WORK/out" '^hello$' 5
	keys C-d
	wait_gone "$cat" 5
	[ "$(shell_status)" = "rc=0" ]
	[ "$(<"$WORK/out")" = "hello" ]
	[ "$(<"$WORK/err")" = "" ]
	[ "$(<"$WORK/attempts")" = 1 ]
}

@test "terminal: with 0-2 redirected, Ctrl-C still ends sh -c 'retry -- sleep' at once" {
	tmux_setup
	# The terminal is retry's controlling terminal even though none of
	# its descriptors 0-2 is: retry must stay in the foreground job.
	type_line "sh -c '\"\$0\" -n 3 -b 1ms -- sleep \"\$1\" </dev/null \
>/dev/null 2>&1; exit \$?' '$RETRY' '$MARK'"
	wait_markers 1
	local t0 rc
	t0=$(now_us)
	keys C-c
	rc=$(shell_status 5)
	wait_markers_gone 2
	# Within a second or so: 2 s with margin for a busy machine.
	(($(now_us) - t0 < 2000000))
	[ "$rc" = "rc=130" ]
}

@test "terminal: one Ctrl-C reaches the command once; a kill -INT is forwarded" {
	require_linux_capability "a signal from the terminal told apart (SI_KERNEL)"
	tmux_setup
	type_line "'$RETRY' -n 3 -b 1ms -- '$FIELD_COUNT' '$WORK' INT \
2>'$WORK/err'"
	wait_for_file "$WORK/ready"
	keys C-c
	poll_until 5 has_lines "$WORK/caught" 1
	# Not a synchronisation: time for a second INT, a bug, to land.
	sleep 0.3
	[ "$(<"$WORK/caught")" = INT ]
	# INT sent by a process, not by the terminal: retry passes it on.
	kill -INT "$(<"$WORK/ppid")"
	poll_until 5 has_lines "$WORK/caught" 2
	sleep 0.3
	[ "$(<"$WORK/caught")" = $'INT\nINT' ]
	# A stop signal: the attempt that then ends with 0 is the last one.
	echo 0 >"$WORK/release"
	wait_gone "$(<"$WORK/ppid")" 5
	[ "$(shell_status)" = "rc=0" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by INT during attempt 1/3 after Ts" ]
}

@test "terminal: a window resize reaches the command once; a kill -WINCH is forwarded" {
	require_linux_capability "a signal from the terminal told apart (SI_KERNEL)"
	tmux_setup
	type_line "'$RETRY' -n 3 -b 1ms -- '$FIELD_COUNT' '$WORK' WINCH \
2>'$WORK/err'"
	wait_for_file "$WORK/ready"
	tmux -S "$SOCK" resize-window -t t -x 100 -y 25
	poll_until 5 has_lines "$WORK/caught" 1
	sleep 0.3
	[ "$(<"$WORK/caught")" = WINCH ]
	kill -WINCH "$(<"$WORK/ppid")"
	poll_until 5 has_lines "$WORK/caught" 2
	sleep 0.3
	[ "$(<"$WORK/caught")" = $'WINCH\nWINCH' ]
	# WINCH stops nothing: the attempt's exit 0 is a success.
	echo 0 >"$WORK/release"
	wait_gone "$(<"$WORK/ppid")" 5
	[ "$(shell_status)" = "rc=0" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(<"$WORK/err")" = "" ]
}

@test "terminal: Ctrl-C on retry -- sh -c 'sleep & sleep' returns once sh is gone" {
	tmux_setup
	type_line "'$RETRY' -- sh -c 'sleep \"\$1\" & sleep \"\$1\"' sh '$MARK' \
2>'$WORK/err'"
	wait_markers 2
	local t0 rc
	t0=$(now_us)
	keys C-c
	rc=$(shell_status 5)
	# Not after --kill-after (10 s): at once, with margin.
	(($(now_us) - t0 < 3000000))
	[ "$rc" = "rc=130" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by INT during attempt 1/5 after Ts" ]
	# The background sleep ignores INT (a background job of sh -c) and,
	# as after any final attempt, is left alone.
	[ "$(markers | wc -l)" -eq 1 ]
}
