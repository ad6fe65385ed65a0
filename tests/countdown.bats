#!/usr/bin/env bats
# While waiting: on a terminal whose TERM is set and not dumb, one status
# line counts down in place and is replaced by the plain line before the
# next attempt starts; anywhere else, plain lines without a control
# character.  The terminal is real: script(1)
# records the bytes written to a pseudo-terminal, tmux renders the screen.

load helpers/common

setup() {
	common_setup
	CMD=(sh -c 'echo "out $RETRY_ATTEMPT"; exit 7')
	# The countdown needs a TERM that is not dumb: the tests must not
	# depend on the caller's.
	export TERM=xterm
}

teardown() {
	if [[ -S $WORK/tmux.sock ]]; then
		tmux -S "$WORK/tmux.sock" kill-server 2>/dev/null || true
	fi
}

# The giving-up line after N attempts that ended with exit STATUS, as
# a regular expression.
gave_up() {
	printf 'retry: giving up after %s attempts in [0-9]+\\.[0-9]{3}s: ' "$1"
	printf 'exit %s \\(no attempts left\\)' "$2"
}

# Writes a script that runs its arguments, so that no shell quoting stands
# between the test and the terminal.
command_file() {
	local file=$1
	shift
	{
		echo '#!/usr/bin/env bash'
		printf '%q ' "$@"
		echo
	} >"$file"
	chmod +x "$file"
}

# on_terminal ARG...: runs the command on a pseudo-terminal (script -e
# passes its status on); $output gets every byte written to the terminal.
on_terminal() {
	command_file "$WORK/run" "$@"
	run --separate-stderr script -qfec "$WORK/run" /dev/null </dev/null
}

# The terminal bytes in $output with CR as <CR> and erase-line as <EL>; it
# fails on any other control character but newline.
tokens() {
	local t
	t=$(printf '%s' "$output" | sed -e 's/\r/<CR>/g' -e 's/\x1b\[K/<EL>/g')
	if LC_ALL=C grep -q '[[:cntrl:]]' <<<"$t"; then
		echo "unexpected control characters:" >&2
		od -c <<<"$t" >&2
		return 1
	fi
	printf '%s\n' "$t"
}

@test "on a terminal, the wait counts down in place, then leaves the plain line" {
	local t status_re n values v prev=10
	on_terminal "$RETRY" -n 2 -b 1 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	t=$(tokens)
	mapfile -t lines <<<"$t"
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "out 1<CR>" ]
	# Each redraw starts at column 0 and erases the line: no newline until
	# the status line gives way to the plain one.
	status_re='<CR><EL>retry: attempt 1/2 failed \(exit 7\), next in [0-9]+\.[0-9]s'
	[[ ${lines[1]} =~ ^($status_re)+'<CR><EL>retry: attempt 1/2 failed (exit 7), next in 1.000s<CR>'$ ]]
	# The command's next output comes on a line of its own.
	[ "${lines[2]}" = "out 2<CR>" ]
	[[ ${lines[3]} =~ ^$(gave_up 2 7)'<CR>'$ ]]
	# At most four redraws a second (one more for the first), and a
	# count that never goes up.
	values=$(grep -oE 'next in [0-9]+\.[0-9]s' <<<"${lines[1]}" |
	    sed -E 's/next in ([0-9]+)\.([0-9])s/\1\2/')
	n=$(wc -l <<<"$values")
	[ "$n" -ge 1 ]
	[ "$n" -le 5 ]
	for v in $values; do
		v=$((10#$v))
		[ "$v" -le "$prev" ]
		[ "$v" -gt 0 ]
		prev=$v
	done
}

@test "on a terminal, -v adds its lines around the countdown, never inside it" {
	local t
	on_terminal "$RETRY" -v -n 2 -b 0.3 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	t=$(tokens)
	mapfile -t lines <<<"$t"
	[ "${#lines[@]}" -eq 8 ]
	[ "${lines[0]}" = "retry: attempt 1/2 starting<CR>" ]
	[ "${lines[1]}" = "out 1<CR>" ]
	[[ ${lines[2]} =~ ^retry:\ attempt\ 1/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 7'<CR>'$ ]]
	# However many redraws the sleep had time for, the plain line ends it.
	[[ ${lines[3]} =~ ^(('<CR><EL>retry: attempt 1/2 failed (exit 7), next in 0.'[1-3]s)+'<CR><EL>')?'retry: attempt 1/2 failed (exit 7), next in 0.300s<CR>'$ ]]
	[ "${lines[4]}" = "retry: attempt 2/2 starting<CR>" ]
	[ "${lines[5]}" = "out 2<CR>" ]
	[[ ${lines[6]} =~ ^retry:\ attempt\ 2/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 7'<CR>'$ ]]
	[[ ${lines[7]} =~ ^$(gave_up 2 7)'<CR>'$ ]]
}

@test "on a terminal, a sleep too short to draw still leaves the plain line" {
	local t
	on_terminal "$RETRY" -n 3 -b 0 "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	t=$(tokens)
	mapfile -t lines <<<"$t"
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "out 1<CR>" ]
	[ "${lines[1]}" = "retry: attempt 1/3 failed (exit 7), next in 0.000s<CR>" ]
	[ "${lines[2]}" = "out 2<CR>" ]
	[ "${lines[3]}" = "retry: attempt 2/3 failed (exit 7), next in 0.000s<CR>" ]
	[ "${lines[4]}" = "out 3<CR>" ]
	[[ ${lines[5]} =~ ^$(gave_up 3 7)'<CR>'$ ]]
}

@test "on a terminal, -q shows no status line and no message" {
	on_terminal "$RETRY" -q -n 3 -b 0.1 -f 1 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	[ "$(tokens)" = $'out 1<CR>\nout 2<CR>\nout 3<CR>' ]
}

@test "on a terminal, --log-format=json writes JSON lines and no status line" {
	on_terminal "$RETRY" --log-format=json -n 2 -b 0.1 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr jq -c '.event' <<<"$(tokens | sed 's/<CR>$//' |
	    grep -v '^out ')"
	[ "$stderr" = "" ]
	[ "$output" = $'"start"\n"attempt_start"\n"attempt_end"\n"sleep"\n"attempt_start"\n"attempt_end"\n"summary"' ]
}

@test "with --log-file, the terminal gets no status line and the file plain lines" {
	on_terminal "$RETRY" --log-file="$WORK/log" -n 2 -b 0.2 -j none \
	    "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "$stderr" = "" ]
	[ "$(tokens)" = $'out 1<CR>\nout 2<CR>' ]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 2 ]
	# A log file's lines start with the local time (log-ci.bats).
	[ "${lines[0]#* }" = "retry: attempt 1/2 failed (exit 7), next in 0.200s" ]
	[[ ${lines[1]#* } =~ ^$(gave_up 2 7)$ ]]
	run -1 grep -q $'[\r\e]' "$WORK/log"
}

@test "a signal during the countdown leaves the plain line, not a partial one" {
	local t pid
	command_file "$WORK/run" "$WSTATUS" -p "$WORK/pid" "$WORK/ws" \
	    "$RETRY" -n 2 -b 60 -j none "${CMD[@]}"
	script -qfec "$WORK/run" /dev/null </dev/null >"$WORK/tty" 2>&1 3>&- &
	pid=$!
	# Wait for the status line itself, then interrupt.
	poll_until 10 grep -qs 'next in' "$WORK/tty"
	wait_for_file "$WORK/pid"
	kill -INT "$(cat "$WORK/pid")"
	wait_for_file "$WORK/ws"
	wait "$pid"
	[ "$(cat "$WORK/ws")" = "signal 2" ]
	output=$(cat "$WORK/tty")
	t=$(tokens)
	mapfile -t lines <<<"$t"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "out 1<CR>" ]
	[[ ${lines[1]} =~ ^('<CR><EL>retry: attempt 1/2 failed (exit 7), next in '[0-9]+\.[0-9]s)+'<CR><EL>retry: attempt 1/2 failed (exit 7), next in 60.000s<CR>'$ ]]
	[[ ${lines[2]} =~ ^'retry: stopped by INT after attempt 1/2 in '[0-9]+\.[0-9]{3}s'<CR>'$ ]]
}

# plain_lines SLEEP: the terminal's bytes of a run of CMD with -n 2 that
# waits SLEEP (on_terminal's $output, $status and $stderr, passed on as
# $2 $3 $4) are plain lines, without the status line.
plain_lines() {
	local t
	[ "$3" -eq 7 ]
	[ "$4" = "" ]
	t=$(output=$2 tokens)
	mapfile -t lines <<<"$t"
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "out 1<CR>" ]
	[ "${lines[1]}" = \
	    "retry: attempt 1/2 failed (exit 7), next in $1<CR>" ]
	[ "${lines[2]}" = "out 2<CR>" ]
	[[ ${lines[3]} =~ ^$(gave_up 2 7)'<CR>'$ ]]
}

@test "on a terminal whose TERM is dumb or unset, plain lines only" {
	local e opt
	for e in TERM=dumb TERM= '-u TERM'; do
		read -ra opt <<<"$e"
		on_terminal env "${opt[@]}" "$RETRY" -n 2 -b 0.2 -j none \
		    "${CMD[@]}"
		plain_lines 0.200s "$output" "$status" "$stderr"
	done
}

@test "a --log-file that is the terminal: no time in front" {
	on_terminal "$RETRY" --log-file=/dev/tty -n 2 -b 0 -j none "${CMD[@]}"
	plain_lines 0.000s "$output" "$status" "$stderr"
}

# pane_over: the screen of the tmux pane, in $screen, shows rc=N.
pane_over() {
	screen=$(tmux -S "$WORK/tmux.sock" capture-pane -p -J)
	[[ $screen =~ (^|$'\n')rc=[0-9]+ ]]
}

# tmux_screen COLUMNS ARG...: runs the command in a tmux pane that wide
# and sets lines to what the screen shows when it is over, wrapped lines
# joined and trailing blank lines dropped; status to its exit status.
tmux_screen() {
	local cols=$1 i screen
	shift
	command_file "$WORK/pane" "$@"
	printf 'echo "rc=$?"\nexec sleep 60\n' >>"$WORK/pane"
	# The server must not keep bats' descriptor 3 open.
	tmux -S "$WORK/tmux.sock" -f /dev/null new-session -d -x "$cols" \
	    -y 20 "$WORK/pane" 3>&-
	# The last line says the command is over, with its status.
	poll_until 10 pane_over
	mapfile -t lines <<<"$screen"
	for i in "${!lines[@]}"; do
		lines[i]=${lines[i]%"${lines[i]##*[![:space:]]}"}
	done
	while ((${#lines[@]} > 0)) && [[ -z ${lines[-1]} ]]; do
		unset 'lines[-1]'
	done
	[[ ${lines[-1]} =~ ^rc=([0-9]+)$ ]]
	status=${BASH_REMATCH[1]}
	unset 'lines[-1]'
}

@test "in tmux, the screen keeps each plain line once and no partial line" {
	require_tool tmux
	tmux_screen 80 "$RETRY" -n 3 -b 1 -f 1 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "out 1" ]
	[ "${lines[1]}" = "retry: attempt 1/3 failed (exit 7), next in 1.000s" ]
	[ "${lines[2]}" = "out 2" ]
	[ "${lines[3]}" = "retry: attempt 2/3 failed (exit 7), next in 1.000s" ]
	[ "${lines[4]}" = "out 3" ]
	[[ ${lines[5]} =~ ^$(gave_up 3 7)$ ]]
}

@test "in a narrow terminal, the status line still redraws in place" {
	require_tool tmux
	# The status line is longer than 30 columns: cut to fit, it must not
	# wrap, or every redraw would leave a line behind.
	tmux_screen 30 "$RETRY" -n 2 -b 1 -j none "${CMD[@]}"
	[ "$status" -eq 7 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "out 1" ]
	[ "${lines[1]}" = "retry: attempt 1/2 failed (exit 7), next in 1.000s" ]
	[ "${lines[2]}" = "out 2" ]
	[[ ${lines[3]} =~ ^$(gave_up 2 7)$ ]]
}

@test "in a pipe, plain lines only, without any control character" {
	run -7 --separate-stderr bash -c '"$RETRY" -n 3 -b 0.05 -f 1 -j none \
	    sh -c "echo out; exit 7" 2>&1 >/dev/null | cat >"$WORK/err"
	    exit "${PIPESTATUS[0]}"'
	[ "$stderr" = "" ]
	[ "$output" = "" ]
	mapfile -t lines <"$WORK/err"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "retry: attempt 1/3 failed (exit 7), next in 0.050s" ]
	[ "${lines[1]}" = "retry: attempt 2/3 failed (exit 7), next in 0.050s" ]
	[[ ${lines[2]} =~ ^$(gave_up 3 7)$ ]]
	run -1 env LC_ALL=C grep -q '[[:cntrl:]]' "$WORK/err"
}

@test "in a pipe, -v gives plain lines too" {
	run -7 --separate-stderr bash -c '"$RETRY" -v -n 2 -b 0.05 -j none \
	    sh -c "exit 7" 2>&1 >/dev/null | cat >"$WORK/err"
	    exit "${PIPESTATUS[0]}"'
	[ "$stderr" = "" ]
	mapfile -t lines <"$WORK/err"
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "retry: attempt 1/2 starting" ]
	[[ ${lines[1]} =~ ^retry:\ attempt\ 1/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 7$ ]]
	[ "${lines[2]}" = "retry: attempt 1/2 failed (exit 7), next in 0.050s" ]
	[ "${lines[3]}" = "retry: attempt 2/2 starting" ]
	[[ ${lines[4]} =~ ^retry:\ attempt\ 2/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 7$ ]]
	[[ ${lines[5]} =~ ^$(gave_up 2 7)$ ]]
	run -1 env LC_ALL=C grep -q '[[:cntrl:]]' "$WORK/err"
}

# The screen of the tmux pane, wrapped lines joined, blank lines dropped,
# in the array shown.  (A resize makes tmux rewrap the screen and push
# rows into its history, where no redraw can reach them: only the screen
# is looked at.)
pane_lines() {
	mapfile -t shown < <(tmux -S "$WORK/tmux.sock" capture-pane -p -J |
	    sed -e 's/[[:space:]]*$//' -e '/^$/d')
}

# The screen shows at most "out 1" and then a status line that ends with
# the time left, its start matching $1: nothing of an earlier one.
counting_down() {
	pane_lines
	((${#shown[@]} == 1)) || { ((${#shown[@]} == 2)) &&
	    [[ ${shown[0]} == "out 1" ]]; } || return 1
	[[ ${shown[-1]} =~ $1"next in "[0-9]+\.[0-9]s$ ]]
}

# Issue 19 item 17.
@test "in a narrow terminal, the time left stays visible, and a resize redraws cleanly" {
	require_tool tmux
	command_file "$WORK/pane" "$RETRY" -n 2 -b 3 -j none \
	    sh -c 'echo "out $RETRY_ATTEMPT"; exit 22'
	printf 'echo "rc=$?"\nexec sleep 60\n' >>"$WORK/pane"
	tmux -S "$WORK/tmux.sock" -f /dev/null new-session -d -x 40 \
	    -y 20 "$WORK/pane" 3>&-
	# 40 columns: the middle of the status gives way, not the time.
	poll_until 5 counting_down '^retry: atte\.\.\.d \(exit 22\), '
	[ "${#shown[@]}" -eq 2 ]
	((${#shown[1]} <= 39))
	# Narrower: the line drawn at 40 columns wrapped; none of it may
	# stay on the screen.
	tmux -S "$WORK/tmux.sock" resize-window -x 30
	poll_until 5 counting_down '^retry:\.\.\.it 22\), '
	((${#shown[-1]} <= 29))
	# Too narrow for any of the status: the time alone.
	tmux -S "$WORK/tmux.sock" resize-window -x 16
	poll_until 5 counting_down '^'
	tmux -S "$WORK/tmux.sock" resize-window -x 80
	poll_until 10 pane_over
	pane_lines
	[ "${shown[-4]}" = "retry: attempt 1/2 failed (exit 22), next in 3.000s" ]
	[ "${shown[-3]}" = "out 2" ]
	[[ ${shown[-2]} =~ ^$(gave_up 2 22)$ ]]
	[ "${shown[-1]}" = "rc=22" ]
}
