# Helpers of the suites on process control in the field (jobcontrol,
# forward, limits, held): load it after helpers/common and
# helpers/proc-common.
# shellcheck shell=bash

FIELD_COUNT=$ROOT/tests/helpers/field-count
export FIELD_COUNT

# The time in microseconds, from bash's own clock: no fork.
now_us() {
	local t=${EPOCHREALTIME/[.,]/}
	echo "$((10#$t))"
}

# Whether process $1 has ended: gone, or a zombie (who reaps an orphan is
# init's business).
is_dead() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[[ $state == [ZX]* ]]
}

# Whether process $1 is stopped (state T).
is_stopped() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ $state == T* ]]
}

# Whether process $1 is in the foreground process group of its terminal
# (the 8th field of /proc/PID/stat, tpgid, is its group, the 5th).
in_foreground() {
	local f
	read -ra f <<<"$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)" || return 1
	((${#f[@]} > 5)) && [[ ${f[2]} == "${f[5]}" ]]
}

# Succeeds if the command fails: `! cmd` in a test would never fail it
# (set -e ignores a negated command).
not() {
	! "$@"
}

# Whether process $1 runs: alive and not stopped.
is_running() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ $state != [TtZX]* ]]
}

# The number of lines of file $1 (0 if there is none).
lines_of() {
	if [[ -e $1 ]]; then
		wc -l <"$1"
	else
		echo 0
	fi
}

# Whether file $1 has at least $2 lines.
has_lines() {
	(($(lines_of "$1") >= $2))
}

# ---- a real terminal: tmux ---------------------------------------------

# Starts a tmux server with an interactive bash in a 120x30 window, and
# waits until it runs commands.  Skips (fails under CI=true) without tmux.
tmux_setup() {
	require_tool tmux
	SOCK=$WORK/tmux.sock
	export SOCK
	# The server must not hold a descriptor of bats.
	(detached tmux -S "$SOCK" -f /dev/null new-session -d -s t -x 120 \
	    -y 30 "env PS1='$ ' bash --norc --noprofile -i")
	type_line "echo up >'$WORK/up'"
	wait_for_file "$WORK/up"
}

tmux_teardown() {
	[[ -n ${SOCK:-} ]] && tmux -S "$SOCK" kill-server 2>/dev/null
	return 0
}

# Types a line into the shell of the terminal, then Enter.
type_line() {
	tmux -S "$SOCK" send-keys -t t -l "$1"
	tmux -S "$SOCK" send-keys -t t Enter
}

# Sends keys (tmux names: C-c, C-d, C-z) to the terminal.
keys() {
	tmux -S "$SOCK" send-keys -t t "$@"
}

# What the terminal shows, for a failing test's output.
show_pane() {
	echo "--- the terminal:" >&2
	tmux -S "$SOCK" capture-pane -p -t t >&2
}

# field_teardown: the command that wrote its pid to $WORK/ready is
# killed, whatever the test left it doing, then proc_teardown.
field_teardown() {
	if [[ -s $WORK/ready ]]; then
		kill -KILL "$(<"$WORK/ready")" 2>/dev/null
	fi
	proc_teardown
}
