#!/usr/bin/env bats
# In a real terminal retry stays in the foreground job: the command reads
# the terminal, Ctrl-C ends the command and retry at once and retry dies
# by SIGINT, and from a script --foreground lets the command read it.
# tmux is the terminal: an interactive bash runs retry as a foreground
# job, keys are typed with send-keys.

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
	require_tool tmux
	SOCK=$WORK/tmux.sock
	# The server must not hold a descriptor of bats.
	(detached tmux -S "$SOCK" -f /dev/null new-session -d -s t -x 120 \
	    -y 30 "env PS1='$ ' bash --norc --noprofile -i")
	type_line "echo up >'$WORK/up'"
	wait_for_file "$WORK/up"
}

teardown() {
	[[ -n ${SOCK:-} ]] && tmux -S "$SOCK" kill-server 2>/dev/null
	proc_teardown
}

# Types a line into the shell of the terminal, then Enter.
type_line() {
	tmux -S "$SOCK" send-keys -t t -l "$1"
	tmux -S "$SOCK" send-keys -t t Enter
}

# The command: records its attempt and pid, then becomes cat.
CAT='echo "$RETRY_ATTEMPT" >>"$1/attempts"; echo $$ >"$1/cat"; exec cat'

# After Ctrl-C, bash drops the rest of the line if its job died by SIGINT
# (not if it exited 130): "after" must not be written.
ctrl_c_ends_the_job() {
	tmux -S "$SOCK" send-keys -t t C-c
	type_line "echo \"rc=\$?\" >'$WORK/rc'"
	wait_for_file "$WORK/rc"
	[ "$(<"$WORK/rc")" = "rc=130" ]
	[ ! -e "$WORK/after" ]
}

@test "terminal: retry -- cat reads the terminal; Ctrl-C ends both" {
	type_line "'$RETRY' -n 3 -b 1ms -- sh -c '$CAT' sh '$WORK' \
>'$WORK/out' 2>'$WORK/err'; echo after >'$WORK/after'"
	wait_for_file "$WORK/cat"
	type_line "hello"
	# Stopped by SIGTTIN, cat would never copy the line.
	wait_for_line "$WORK/out" '^hello$'
	ctrl_c_ends_the_job
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(<"$WORK/err")" = "" ]
	wait_gone "$(<"$WORK/cat")"
}

@test "terminal: Ctrl-C kills retry by SIGINT (seen by a job-control parent)" {
	type_line "'$HELPERS/proc-fgjob' '$WORK/ws' '$RETRY' -n 3 -b 1ms -- \
sh -c '$CAT' sh '$WORK' >'$WORK/out' 2>'$WORK/err'"
	wait_for_file "$WORK/cat"
	type_line "hello"
	wait_for_line "$WORK/out" '^hello$'
	tmux -S "$SOCK" send-keys -t t C-c
	wait_for_file "$WORK/ws"
	[ "$(<"$WORK/ws")" = "signal 2" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(<"$WORK/err")" = "" ]
	wait_gone "$(<"$WORK/cat")"
}

@test "terminal: Ctrl-C during the sleep ends retry at once" {
	type_line "'$RETRY' -n 3 -b 60s -j none -- sh -c 'echo x >>\"\$1/attempts\"; \
exit 1' sh '$WORK' 2>'$WORK/err'; echo after >'$WORK/after'"
	wait_for_line "$WORK/err" '^retry: attempt 1/3 failed \(exit 1\), next in 60\.000s$'
	ctrl_c_ends_the_job
	[ "$(<"$WORK/attempts")" = x ]
	[ "$(<"$WORK/err")" = \
	    "retry: attempt 1/3 failed (exit 1), next in 60.000s" ]
}

@test "terminal: from a script, --foreground lets the command read it" {
	type_line "bash -c '\"\$0\" --foreground -n 1 -- sh -c \"\$1\" sh \"\$2\"' \
'$RETRY' '$CAT' '$WORK' >'$WORK/out' 2>'$WORK/err'; echo \"rc=\$?\" >'$WORK/rc'"
	wait_for_file "$WORK/cat"
	type_line "hello"
	wait_for_line "$WORK/out" '^hello$'
	tmux -S "$SOCK" send-keys -t t C-d
	wait_for_file "$WORK/rc"
	[ "$(<"$WORK/rc")" = "rc=0" ]
	[ "$(<"$WORK/err")" = "" ]
}
