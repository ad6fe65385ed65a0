#!/usr/bin/env bats
# Held output and replayed input lose nothing.  Under
# -O the command's stdout is a pipe that retry drains into its spool,
# complete once the pipe reaches end of file; a full -I spool kills the
# attempt before retry reports it; retry's own descriptors never land on
# 0, 1 or 2.

load helpers/common
load helpers/proc-common
load helpers/field

MIB=1048576

setup() {
	proc_setup
}

teardown() {
	local f
	for f in bg cmd; do
		[[ -s $WORK/$f ]] && kill -KILL "$(<"$WORK/$f")" 2>/dev/null
	done
	if [[ -n ${SMALL:-} ]] && mountpoint -q "$SMALL"; then
		umount "$SMALL" || umount -l "$SMALL"
	fi
	proc_teardown
}

# retry "$@" with its stdout read by cat: a pipe, as in `retry -O ... | cat`.
through_cat() {
	"$RETRY" "$@" | cat
}

@test "-O: the command's stdout is a pipe, not a file" {
	run -0 --separate-stderr "$RETRY" -n 1 -O -- \
	    sh -c 'if [ -p /dev/stdout ]; then echo pipe; else echo other; fi'
	[ "$output" = "pipe" ]
	[ "$stderr" = "" ]
}

# A reader that has taken more than its pipe held reads: retry makes
# its pipe 1 MiB for the rest, so that the two take fewer turns; a line
# leaves it as it was, and so does a reader that takes a byte and goes
# (spool.bats: it still ends retry by SIGPIPE).
@test "-O: a reader that takes more than its pipe held gets a pipe of 1 MiB; a line leaves it" {
	require_linux_capability "pipe sizes (F_SETPIPE_SZ)"
	local ps=$ROOT/tests/helpers/pipe-size default
	default=$(: | "$ps" -d)
	head -c $((3 * MIB)) /dev/urandom >"$WORK/big"
	"$RETRY" -n 1 -O -- cat "$WORK/big" | tee "$WORK/out" | "$ps" -d \
	    >"$WORK/size"
	[ "$(cat "$WORK/size")" = "$default" ]	# tee's pipe: not retry's
	cmp "$WORK/out" "$WORK/big"
	run -0 --separate-stderr sh -c '"$1" -n 1 -O -- cat "$2" | "$3" -d' \
	    sh "$RETRY" "$WORK/big" "$ps"
	[ "$output" = 1048576 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr sh -c '"$1" -n 1 -O -- echo a line | "$2" -d' \
	    sh "$RETRY" "$ps"
	[ "$output" = "$default" ]
	[ "$stderr" = "" ]
}

@test "-O: echo > /dev/stdout between two lines loses none of them" {
	run -0 --separate-stderr through_cat -n 1 -O -- \
	    sh -c 'echo first; echo second >/dev/stdout; echo third'
	[ "$output" = $'first\nsecond\nthird' ]
	[ "$stderr" = "" ]
}

@test "-O: tee /dev/stdout writes both copies" {
	run -0 --separate-stderr bash -c \
	    'printf "x\n" | "$0" -n 1 -O -- tee /dev/stdout | cat' "$RETRY"
	[ "$output" = $'x\nx' ]
	[ "$stderr" = "" ]
}

@test "-O: curl -o /dev/stdout between two lines loses nothing" {
	require_tool curl
	printf 'from curl\n' >"$WORK/data"
	run -0 --separate-stderr through_cat -n 1 -O -- sh -c 'echo before
	    curl -sS -o /dev/stdout "file://$1/data"; echo after' sh "$WORK"
	[ "$output" = $'before\nfrom curl\nafter' ]
	[ "$stderr" = "" ]
}

@test "-O: the held output ends at end of file: a background writer's line is kept" {
	run -0 --separate-stderr through_cat -n 1 -O -- \
	    sh -c 'echo a; (sleep 0.3; echo b) &'
	[ "$output" = $'a\nb' ]
	[ "$stderr" = "" ]
}

# The attempt's sh exits 0 at once, but a background process that it
# started holds the stdout pipe open, for 30 s; its pid is in $WORK/bg.
HOLDER='echo a
sh -c '\''echo $$ >"$1/bg"; exec sleep 30'\'' sh "$1" &
exit 0'

@test "-O: -t bounds the wait for end of file: the holder gets the timeout signal, 124" {
	require_linux_capability "leftover tracking"
	ws_run "$RETRY" -n 1 -O -t 500ms -- sh -c "$HOLDER" sh "$WORK"
	[ "$WS" = "exit 124" ]
	[ "$output" = "a" ]
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ timed\ out\ after\ 500ms\ \(-t\)\ \(no\ attempts\ left\)$ ]]
	wait_gone "$(<"$WORK/bg")" 2
}

@test "-O: -m bounds the wait for end of file too: 124" {
	require_linux_capability "leftover tracking"
	ws_run "$RETRY" -n 3 -O -m 500ms -- sh -c "$HOLDER" sh "$WORK"
	[ "$WS" = "exit 124" ]
	[ "$output" = "a" ]
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ timed\ out\ \(--max-time\ reached\)$ ]]
	wait_gone "$(<"$WORK/bg")" 2
}

# Mounts a 1 MiB tmpfs on $SMALL (root only): a disk that fills up.
small_disk() {
	SMALL=$WORK/small
	mkdir "$SMALL"
	if ! mount -t tmpfs -o size=1m tmpfs "$SMALL" 2>"$WORK/mount.err"; then
		if [[ ${CI:-} == true ]]; then
			echo "cannot mount a tmpfs: $(<"$WORK/mount.err")" >&2
			return 1
		fi
		SMALL=""
		skip "cannot mount a tmpfs here (needs root): $(<"$WORK/mount.err")"
	fi
}

@test "-I: a full spool kills the attempt before the error: it never sees end of file" {
	require_linux_capability "leftover tracking"
	small_disk
	# 3 MiB through a pipe, with TMPDIR on a 1 MiB disk: the spool fills
	# up while the command still reads.  The reader is a grandchild of
	# retry, named by $tag: nothing but retry can end it early.  The
	# input flows only once it reads.
	local tag="field-eof-$MARK"
	head -c $((3 * MIB)) /dev/urandom >"$WORK/input"
	{
		poll_until 10 test -e "$WORK/reading"
		cat "$WORK/input"
	} | TMPDIR=$SMALL detached "$WSTATUS" "$WORK/ws" \
	    "$RETRY" -I -n 2 -b 0 -- sh -c 'sh -c '\'': >"$1/reading"
	    cat >"$1/out" && echo eof >"$1/saw-eof"'\'' sh "$1" "$2"
	    exit 0' sh "$WORK" "$tag" 2>"$WORK/err" &
	BG=$!
	wait_for_file "$WORK/ws" 20
	wait "$BG"
	BG=""
	[ "$(<"$WORK/ws")" = "exit 125" ]
	[ "$(<"$WORK/err")" = \
	    "retry: --replay-stdin: temporary file: No space left on device" ]
	# Once every process of the attempt is gone: none saw end of file.
	poll_until 5 not pgrep -f -- "$tag"
	[ ! -e "$WORK/saw-eof" ]
}

# Not through helpers/proc-detach ($RETRY): Perl would open /dev/null on
# a closed descriptor 0, 1 or 2.
closed_stdout() {
	"$PROC_RETRY" "$@" >&-
}

closed_stdin_stdout() {
	"$PROC_RETRY" "$@" <&- >&-
}

@test "-O --log-file with stdout closed: the held output never goes to the log" {
	run -125 --separate-stderr closed_stdout -n 1 -O \
	    --log-file="$WORK/log" -- echo HELD
	[ "$stderr" = "retry: standard output: Bad file descriptor" ]
	[ "$output" = "" ]
	not grep -q HELD "$WORK/log"
}

@test "-O with stdin and stdout closed: a command that cannot run is still 127" {
	run -127 --separate-stderr closed_stdin_stdout -n 1 -O -- nosuchcmd
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: cannot run nosuchcmd: No such file or directory" ]
	[[ ${stderr_lines[1]} =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9]+\.[0-9]{3}s:\ exit\ 127\ \(not\ retried\)$ ]]
	[ "$output" = "" ]
}

# Issue 37 item 5: a failed attempt's held stdout goes to stderr, to a
# file, or nowhere, as --failed-output says; the final attempt's to stdout.
@test "--failed-output: stderr by default, dropped, or appended to a file" {
	local cmd='n=$(cat "$0" 2>/dev/null || echo 0); n=$((n + 1))
	    echo "$n" >"$0"; echo "out $n"; [ "$n" -ge 3 ]'
	run -0 --separate-stderr "$RETRY" -O -q -n 3 -b 0 -- sh -c "$cmd" \
	    "$WORK/n1"
	[ "$output" = "out 3" ]
	[ "$stderr" = $'out 1\nout 2' ]
	run -0 --separate-stderr "$RETRY" --failed-output=stderr -q -n 3 \
	    -b 0 -- sh -c "$cmd" "$WORK/n2"
	[ "$output" = "out 3" ]
	[ "$stderr" = $'out 1\nout 2' ]
	# drop implies -O: the failed attempts' output is gone.
	run -0 --separate-stderr "$RETRY" --failed-output=drop -q -n 3 -b 0 \
	    -- sh -c "$cmd" "$WORK/n3"
	[ "$output" = "out 3" ]
	[ "$stderr" = "" ]
	echo earlier >"$WORK/failed"
	run -0 --separate-stderr "$RETRY" --failed-output="$WORK/failed" -q \
	    -n 3 -b 0 -- sh -c "$cmd" "$WORK/n4"
	[ "$output" = "out 3" ]
	[ "$stderr" = "" ]
	[ "$(<"$WORK/failed")" = $'earlier\nout 1\nout 2' ]
	# A file that cannot be written: one warning, the run goes on.
	run -0 --separate-stderr "$RETRY" --failed-output=/dev/full -q \
	    -n 3 -b 0 -- sh -c "$cmd" "$WORK/n5"
	[ "$output" = "out 3" ]
	[ "$stderr" = "retry: --failed-output /dev/full: No space left on device" ]
	run -125 --separate-stderr "$RETRY" --failed-output="$WORK/no/dir" \
	    -- touch "$WORK/ran"
	[ "$stderr" = "retry: --failed-output $WORK/no/dir: No such file or directory" ]
	[ ! -e "$WORK/ran" ]
	run -125 --separate-stderr "$RETRY" --failed-output= -- true
	[ "$stderr" = "retry: invalid --failed-output '': empty file name; try 'retry --help'" ]
}
