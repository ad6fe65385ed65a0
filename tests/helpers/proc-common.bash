# Shared by the process-control suites (timeout, signals, tree, process,
# terminal): load it after helpers/common.
# shellcheck shell=bash
# shellcheck disable=SC2034 # RPID, WS and the like are for the suites

HELPERS=$ROOT/tests/helpers
export HELPERS

# Every test gets a marker: "sleep $MARK" names the processes it starts,
# so that a scan finds exactly the ones this test left behind.
proc_setup() {
	common_setup
	require_tool pgrep
	require_tool ps
	MARK="9${BASHPID}.${RANDOM}${RANDOM}"
	MARK_RE="sleep ${MARK//./\\.}"
	export MARK MARK_RE
	# "sleep" is helpers/proc-sleep, which detaches markers from bats.
	PROC_SLEEP=$(command -v sleep)
	mkdir -p "$WORK/bin"
	ln -sf "$HELPERS/proc-sleep" "$WORK/bin/sleep"
	PATH=$WORK/bin:$PATH
	export PROC_SLEEP PATH
	# "$RETRY" and "$WSTATUS" run through helpers/proc-detach, without
	# bats' own descriptors.
	local fd
	PROC_BATS_FDS=""
	for fd in "/proc/$BASHPID/fd/"*; do
		fd=${fd##*/}
		((fd > 2)) && PROC_BATS_FDS+=" $fd"
	done
	PROC_RETRY=$RETRY
	PROC_WSTATUS=$WSTATUS
	ln -sf "$HELPERS/proc-detach" "$WORK/bin/retry"
	ln -sf "$HELPERS/proc-detach" "$WORK/bin/wstatus"
	RETRY=$WORK/bin/retry
	WSTATUS=$WORK/bin/wstatus
	export PROC_BATS_FDS PROC_RETRY PROC_WSTATUS RETRY WSTATUS
	BG=""
	WS_OPTS=()
	PRE=()
}

# Ends what a failed test left running: its retry and its markers, by pid.
proc_teardown() {
	local pid
	if [[ -n $BG ]]; then
		[[ -s $WORK/pid ]] && kill -KILL "$(<"$WORK/pid")" 2>/dev/null
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
	fi
	for pid in $(pgrep -f -x "$MARK_RE"); do
		kill -CONT "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
	return 0
}

# The pids of this test's marker processes, one a line; zombies have no
# command line, so they do not count.
markers() {
	pgrep -f -x "$MARK_RE" || true
}

# Waits until no marker process is left (at most $1 s): a signalled
# process may need a moment to die, but a leak stays and fails.
wait_markers_gone() {
	poll_until "${1:-10}" no_markers && return 0
	echo "marker processes left behind:" >&2
	ps -o pid,ppid,pgid,stat,args -p "$(markers | paste -sd,)" >&2
	return 1
}

no_markers() {
	[[ -z $(markers) ]]
}

# Waits until $1 marker processes run (at most $2 s).
wait_markers() {
	poll_until "${2:-10}" markers_at_least "$1"
}

markers_at_least() {
	[[ $(markers | wc -l) -ge $1 ]]
}

# Waits until a line of file $1 matches the regex $2 (at most $3 s).
wait_for_line() {
	poll_until "${3:-10}" grep -Eqs -- "$2" "$1"
}

# Waits until process $1 catches signal $2 (a number): retry has set up
# its handlers.
wait_for_handler() {
	poll_until 10 sig_in_set "$1" "$2" SigCgt
}

# Whether signal $2 (a number) is in the set $3 (SigIgn, SigBlk, SigPnd,
# ShdPnd...) of /proc/PID/status for the pid $1.
sig_in_set() {
	local mask
	mask=$(awk -v f="$3:" '$1 == f { print $2 }' "/proc/$1/status" \
	    2>/dev/null) || true
	[[ -n $mask ]] && (( (16#$mask >> ($2 - 1)) & 1 ))
}

# Runs a command in the background (call it with &) with no descriptor
# of bats but 0, 1 and 2: were it to be left behind by a bug, bats would
# still see its output end.  It keeps the pid that $! gives.
detached() {
	local fd
	for fd in "/proc/$BASHPID/fd/"*; do
		fd=${fd##*/}
		((fd > 2)) && eval "exec $fd>&-"
	done
	exec "$@"
}

# Starts retry in the background under wstatus (with the options in the
# array WS_OPTS, and through the wrapper command in the array PRE, such
# as proc-sigmask, if any): retry's pid goes to $WORK/pid and $RPID, its
# stderr to $WORK/err, its wait status, once it ends, to $WORK/ws.
bg_retry() {
	local r=$RETRY
	# The wrapper (proc-sigmask) closes bats' descriptors itself; Perl
	# in between would reset an ignored CHLD.
	((${#PRE[@]} == 0)) || r=$PROC_RETRY
	rm -f "$WORK/pid" "$WORK/ws" "$WORK/err"
	detached "$WSTATUS" "${WS_OPTS[@]}" -p "$WORK/pid" "$WORK/ws" \
	    "${PRE[@]}" "$r" "$@" 2>"$WORK/err" &
	BG=$!
	wait_for_file "$WORK/pid"
	RPID=$(<"$WORK/pid")
}

# Waits for the retry of bg_retry to end (at most 20 s: a hang fails the
# test before BATS_TEST_TIMEOUT); its wait status is then in $WS.
bg_wait() {
	wait_for_file "$WORK/ws" 20 || return 1
	wait "$BG"
	BG=""
	WS=$(<"$WORK/ws")
}

# Like `run --separate-stderr "$WSTATUS" [-i N]... "$WORK/ws" command...`,
# but in the background and bounded by bg_wait: run would wait forever
# for the output of a hung retry, under a wstatus that ignores TERM.
# Sets output, stderr, stderr_lines and WS (the wait status).
ws_run() {
	local opts=()
	while [[ ${1:-} == -i ]]; do
		opts+=("$1" "$2")
		shift 2
	done
	rm -f "$WORK/pid" "$WORK/ws"
	detached "$WSTATUS" "${opts[@]}" -p "$WORK/pid" "$WORK/ws" "$@" \
	    >"$WORK/out" 2>"$WORK/err" &
	BG=$!
	bg_wait || return 1
	output=$(<"$WORK/out")
	stderr=$(<"$WORK/err")
	mapfile -t stderr_lines <"$WORK/err"
}

# The number of a signal name, as kill -l gives it.
signum() {
	kill -l "$1"
}
