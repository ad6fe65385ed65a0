#!/usr/bin/env bats
# --hold-stderr (-E) passes on only the final attempt's standard error,
# byte for byte, as -O does standard output: the failed attempts' goes
# where --failed-stderr says (nowhere by default), retry's own messages
# are never held, and a stop signal passes on what the attempt wrote.
# Every attempt writes a different megabyte, checked by its bytes.

load helpers/common
load helpers/proc-common

MIB=1048576

setup() {
	proc_setup
	local k
	for k in 1 2 3; do
		head -c "$MIB" /dev/urandom >"$WORK/err.$k"
	done
	TMPDIR=$WORK/tmp
	mkdir "$TMPDIR"
	export TMPDIR
}

teardown() {
	[[ -s $WORK/bg ]] && kill -KILL "$(<"$WORK/bg")" 2>/dev/null
	proc_teardown
}

# Attempt K (counted in $WORK/n) writes $WORK/err.K to stderr and "out K"
# to stdout, and succeeds at attempt $1 (0: never).
attempt() {
	printf '%s\n' 'n=$(cat "$0/n" 2>/dev/null || echo 0); n=$((n + 1))
	echo "$n" >"$0/n"; echo "out $n"; cat "$0/err.$n" >&2
	[ "$n" = "$1" ]'
}

@test "-E: the command's stderr is a pipe, its stdout is left alone" {
	run -0 --separate-stderr sh -c '"$1" -n 1 -E -- sh -c \
	    "[ -p /dev/stderr ] && [ -f /dev/stdout ] && echo yes" >"$2"
	    cat "$2"' sh "$RETRY" "$WORK/out"
	[ "$output" = "yes" ]
	[ "$stderr" = "" ]
}

@test "-E: stderr is the final attempt's megabyte exactly, and retry's lines" {
	"$RETRY" -E -n 3 -b 0 -- sh -c "$(attempt 3)" "$WORK" 3 \
	    >"$WORK/out" 2>"$WORK/got"
	[ "$(<"$WORK/out")" = $'out 1\nout 2\nout 3' ]
	# retry's own lines are not held: the failures come before the
	# megabyte, the success after it.
	head -n 2 "$WORK/got" >"$WORK/first"
	[ "$(<"$WORK/first")" = "retry: attempt 1/3 failed (exit 1), next in 0.000s
retry: attempt 2/3 failed (exit 1), next in 0.000s" ]
	local n
	n=$(wc -c <"$WORK/first")
	tail -c +$((n + 1)) "$WORK/got" | head -c "$MIB" >"$WORK/held"
	cmp "$WORK/err.3" "$WORK/held"
	tail -c +$((n + MIB + 1)) "$WORK/got" >"$WORK/last"
	[ "$(untimed "$(<"$WORK/last")")" = "retry: succeeded on attempt 3/3 after Ts" ]
	[ "$(wc -c <"$WORK/got")" -eq $((n + MIB + $(wc -c <"$WORK/last"))) ]
	tmpdir_clean
}

@test "-E -O: each stream has the final attempt's bytes only, when all fail" {
	run -1 --separate-stderr sh -c '"$1" -E -O -q -n 3 -b 0 -- \
	    sh -c "$2" "$3" 0 >"$3/out" 2>"$3/got"' sh "$RETRY" "$(attempt)" \
	    "$WORK"
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	[ "$(<"$WORK/out")" = "out 3" ]
	# -O sends the failed attempts' stdout to stderr, as ever.
	{ printf 'out 1\nout 2\n'; cat "$WORK/err.3"; } >"$WORK/want"
	cmp "$WORK/want" "$WORK/got"
}

@test "--failed-stderr: dropped by default, a file, stderr, or dropped" {
	run -0 --separate-stderr sh -c '"$1" -E -q -n 3 -b 0 -- sh -c \
	    "$2" "$3" 3 2>&1 >/dev/null | wc -c' sh "$RETRY" "$(attempt)" \
	    "$WORK"
	[ "$output" = "$MIB" ]
	echo earlier >"$WORK/failed"
	rm "$WORK/n"
	"$RETRY" --failed-stderr="$WORK/failed" -q -n 3 -b 0 -- \
	    sh -c "$(attempt)" "$WORK" 3 >/dev/null 2>"$WORK/got"
	cmp "$WORK/err.3" "$WORK/got"
	cat <(echo earlier) "$WORK/err.1" "$WORK/err.2" >"$WORK/want"
	cmp "$WORK/want" "$WORK/failed"
	rm "$WORK/n"
	"$RETRY" --failed-stderr=stderr -n 2 -b 0 -- \
	    sh -c "$(attempt)" "$WORK" 2 >/dev/null 2>"$WORK/got"
	{
		cat "$WORK/err.1"
		echo "retry: attempt 1/2 failed (exit 1), next in 0.000s"
		cat "$WORK/err.2"
	} >"$WORK/want"
	head -c "$(wc -c <"$WORK/want")" "$WORK/got" | cmp "$WORK/want" -
	rm "$WORK/n"
	run -0 --separate-stderr "$RETRY" --failed-stderr=drop -q -n 2 -b 0 \
	    -- sh -c 'echo "$0" >&2; [ "$0" = 2 ]' 2
	[ "$stderr" = "2" ]
	# A file that cannot be written: one warning, the run goes on.
	run -0 --separate-stderr "$RETRY" --failed-stderr=/dev/full -q -n 3 \
	    -b 0 -- sh -c 'n=$(cat "$0" 2>/dev/null || echo 0); n=$((n + 1))
	    echo "$n" >"$0"; echo "e$n" >&2; [ "$n" = 3 ]' "$WORK/k"
	[ "$stderr" = "retry: --failed-stderr /dev/full: No space left on device
e3" ]
	run -125 --separate-stderr "$RETRY" --failed-stderr="$WORK/no/dir" \
	    -- touch "$WORK/ran"
	[ "$stderr" = "retry: --failed-stderr $WORK/no/dir: No such file or directory" ]
	[ ! -e "$WORK/ran" ]
	run -125 --separate-stderr "$RETRY" --failed-stderr= -- true
	[ "$stderr" = "retry: invalid --failed-stderr '': empty file name; try 'retry --help'" ]
}

@test "-E: stderr without a newline, binary, keeps every byte" {
	printf 'a\0b\xff\xfe\r\x1b[31mno newline' >"$WORK/bin.dat"
	"$RETRY" -E -q -n 1 -- sh -c 'cat "$0" >&2' "$WORK/bin.dat" \
	    2>"$WORK/got"
	cmp "$WORK/bin.dat" "$WORK/got"
}

# 100 MiB of stderr go through the held file: retry's memory stays small.
@test "-E: 100 MiB of stderr, held on disk, memory bounded" {
	require_tool /usr/bin/time
	local n
	n=$( { /usr/bin/time -f %M -o "$WORK/rss" "$RETRY" -E -q -n 1 -- \
	    sh -c 'head -c 104857600 /dev/zero >&2; exit 3' 2>&1 >/dev/null |
	    wc -c; } ) || true
	[ "$n" -eq 104857600 ]
	grep -q 'exited with non-zero status 3' "$WORK/rss"
	echo "peak RSS $(tail -n 1 "$WORK/rss") KiB" >&2
	(($(tail -n 1 "$WORK/rss") < $(rss_limit_kib)))
}

@test "-E: a command that closes its stderr still ends, and retry still speaks" {
	run -1 --separate-stderr "$RETRY" -E -n 2 -b 0 -- \
	    sh -c 'exec 2>&-; echo out; exit 1'
	[ "$output" = $'out\nout' ]
	[ "$(untimed "$stderr")" = "retry: attempt 1/2 failed (exit 1), next in 0.000s
retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)" ]
}

@test "-E: a background child's late stderr is held too; -t bounds the wait" {
	run -0 --separate-stderr "$RETRY" -E -n 1 -- \
	    sh -c 'echo a >&2; (sleep 0.3; echo b >&2) &'
	[ "$stderr" = $'a\nb' ]
	require_linux_capability "leftover tracking"
	ws_run "$RETRY" -n 1 -E -t 500ms -- sh -c 'echo a >&2
	    sh -c '\''echo $$ >"$1/bg"; exec sleep 30'\'' sh "$1" &
	    exit 0' sh "$WORK"
	[ "$WS" = "exit 124" ]
	[ "$output" = "" ]
	[ "$(untimed "$stderr")" = "a
retry: giving up after 1 attempt in Ts: timed out after 500ms (-t) (no attempts left)" ]
	wait_gone "$(<"$WORK/bg")" 2
}

# TERM while attempt 2 holds a megabyte of stderr and sleeps: retry passes
# it on, then says it stopped, and dies by TERM.
@test "-E: TERM during the hold passes on the attempt's stderr, then stops" {
	local cmd
	cmd='n=$(cat "$0/n" 2>/dev/null || echo 0); n=$((n + 1))
	echo "$n" >"$0/n"; cat "$0/err.$n" >&2
	[ "$n" = 1 ] && exit 1
	echo ready >"$0/ready"; exec sleep 30'
	detached "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -E -n 3 -b 0 \
	    -- sh -c "$cmd" "$WORK" >"$WORK/out" 2>"$WORK/got" &
	BG=$!
	wait_for_file "$WORK/ready"
	kill -TERM "$(<"$WORK/pid")"
	bg_wait
	[ "$WS" = "signal 15" ]
	[ ! -s "$WORK/out" ]
	echo "retry: attempt 1/3 failed (exit 1), next in 0.000s" >"$WORK/want"
	cat "$WORK/err.2" >>"$WORK/want"
	head -c "$(wc -c <"$WORK/want")" "$WORK/got" | cmp "$WORK/want" -
	tail -c +$(($(wc -c <"$WORK/want") + 1)) "$WORK/got" >"$WORK/last"
	[ "$(untimed "$(<"$WORK/last")")" = "retry: stopped by TERM during attempt 2/3 after Ts" ]
	tmpdir_clean
}

@test "--dry-run says where each held stream goes, and runs nothing" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 -E -O -- \
	    touch "$WORK/ran"
	[ "${lines[3]}" = "# --hold-stdout: only the final attempt's stdout reaches stdout; a failed attempt's goes to stderr" ]
	[ "${lines[4]}" = "# --hold-stderr: only the final attempt's stderr reaches stderr; a failed attempt's is dropped" ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
	    --failed-output=drop --failed-stderr=$'a\x1bb' -- true
	[ "${lines[3]}" = "# --hold-stdout: only the final attempt's stdout reaches stdout; a failed attempt's is dropped" ]
	[ "${lines[4]}" = "# --hold-stderr: only the final attempt's stderr reaches stderr; a failed attempt's is appended to 'a\\eb'" ]
	[ ! -e "$WORK/ran" ] && [ ! -e "a"$'\x1b'"b" ]
}

# A reader of stderr that reads nothing: the held megabyte cannot go out,
# and TERM still ends retry (its own last line waits a second at most).
@test "-E: TERM ends retry while a stalled stderr reader holds up the held stderr" {
	require_linux_capability "a pipe on stderr opened again non-blocking (fd.c)"
	local pid rc=0
	mkfifo "$WORK/fifo"
	detached "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -E -n 1 -- \
	    sh -c 'head -c 1048576 /dev/zero >&2; echo done >"$0"' \
	    "$WORK/done" 2>"$WORK/fifo" &
	BG=$!
	exec 4<"$WORK/fifo"	# a reader that reads nothing
	wait_for_file "$WORK/done"
	wait_for_file "$WORK/pid"
	pid=$(<"$WORK/pid")
	kill -TERM "$pid"
	wait_gone "$pid" 5 || rc=$?
	exec 4<&-		# lets a stuck retry go
	bg_wait
	[ "$rc" -eq 0 ]
	[ "$WS" = "signal 15" ]
}

@test "-E: a full disk kills the attempt and says which file, 125" {
	[[ $(id -u) == 0 ]] || skip "needs root to mount a 1 MiB tmpfs"
	mkdir "$WORK/small"
	mount -t tmpfs -o size=1m tmpfs "$WORK/small" ||
	    skip "cannot mount a tmpfs here"
	TMPDIR=$WORK/small run -125 --separate-stderr "$RETRY" -E -n 2 -- \
	    sh -c 'head -c 3145728 /dev/zero >&2; echo whole >"$0"' \
	    "$WORK/whole"
	umount "$WORK/small"
	[ "$output" = "" ]
	[ "$stderr" = "retry: --hold-stderr: temporary file: No space left on device" ]
	[ ! -e "$WORK/whole" ]
}

# Not through helpers/proc-detach ($RETRY): Perl would open /dev/null on
# a closed descriptor 2.
@test "-E --log-file with stderr closed: the held stderr never lands in the log" {
	run -1 --separate-stderr sh -c '"$1" -E --log-file="$2" -n 2 -b 0 \
	    -- sh -c "echo secret >&2; exit 1" 2>&-' sh "$PROC_RETRY" \
	    "$WORK/log"
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	[ "$(grep -c 'retry: ' "$WORK/log")" -eq 2 ]
	[ "$(grep -c secret "$WORK/log" || true)" = 0 ]
}

# A reader of stderr that goes away loses the held stderr, as it would
# lose the command's own; the status stays the command's.
@test "-E: a stderr reader that went away changes nothing but what it reads" {
	run -0 --separate-stderr sh -c '"$1" -E -n 1 -- sh -c \
	    "head -c 1048576 /dev/zero >&2" 2>&1 >/dev/null | head -c 1 |
	    wc -c' sh "$RETRY"
	[ "$output" = 1 ]
	"$RETRY" -E -n 1 -- sh -c 'head -c 1048576 /dev/zero >&2; exit 3' \
	    2> >(head -c 1 >/dev/null) && rc=0 || rc=$?
	[ "$rc" -eq 3 ]
}
