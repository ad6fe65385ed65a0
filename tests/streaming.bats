#!/usr/bin/env bats
# With an output condition, the command's stdout and stderr are
# pipes that retry reads and matches line by line.  The bytes must still
# reach their destinations unchanged (checked by sha256), each stream in
# its own order, at once, whatever the reader's pace; memory stays
# bounded; a reader that goes away or stalls must not change what
# happens to the command.  The decisions are in conditions.bats.

# Each test runs in a subshell of its own: $stderr set in one is not seen
# in another.
# shellcheck disable=SC2030,SC2031

load helpers/common
load helpers/attempts

MIB=1048576
# Conditions that random bytes will not match.
NEVER=(--retry-if-output='^never matches: retry$'
    --stop-if-output='^never matches: stop$'
    --success-if-output='^never matches: success$')

setup_file() {
	head -c "$MIB" /dev/urandom >"$BATS_FILE_TMPDIR/a"
	head -c $((3 * MIB)) /dev/urandom >"$BATS_FILE_TMPDIR/b"
}

setup() {
	common_setup
	A=$BATS_FILE_TMPDIR/a
	B=$BATS_FILE_TMPDIR/b
	export A B
}

# same_bytes FILE WANT: FILE holds exactly the bytes of WANT (a file).
same_bytes() {
	[[ $(sum <"$1") == "$(sum <"$2")" ]] ||
	    { echo "$1: $(wc -c <"$1") bytes, not those of $2" \
	    "($(wc -c <"$2"))" >&2; return 1; }
}

@test "binary data passes byte for byte, each stream to its own destination" {
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c 'cat "$A" & cat "$B" >&2; wait' \
	    >"$WORK/out" 2>"$WORK/err"
	same_bytes "$WORK/out" "$A"
	same_bytes "$WORK/err" "$B"
	# The other way round, through pipes.
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c 'cat "$B" & cat "$A" >&2
	    wait' 2>"$WORK/err" | cat >"$WORK/out"
	same_bytes "$WORK/out" "$B"
	same_bytes "$WORK/err" "$A"
}

@test "lines without a final newline, empty lines, CR and NUL pass unchanged" {
	local out='a\n\n\nb\r\n\0c\0\nlast' err='x\0y\n\nno newline'
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c 'printf "$1"; printf "$2" >&2' \
	    sh "$out" "$err" >"$WORK/out" 2>"$WORK/err"
	# shellcheck disable=SC2059 # formats
	printf "$out" >"$WORK/out.want"
	# shellcheck disable=SC2059
	printf "$err" >"$WORK/err.want"
	cmp "$WORK/out" "$WORK/out.want"
	cmp "$WORK/err" "$WORK/err.want"
}

@test "100 MiB on each stream, then a line that still matches" {
	local pids=() n=100
	# 20 MiB under the sanitizers, which make every byte dearer.
	[[ -z ${RETRY_SANITIZED:-} ]] || n=20
	mkfifo "$WORK/o" "$WORK/e"
	sum <"$WORK/o" >"$WORK/o.sum" &
	pids+=($!)
	sum <"$WORK/e" >"$WORK/e.sum" &
	pids+=($!)
	status=0
	N=$n "$RETRY" -n 1 "${NEVER[@]}" --success-if-output='^DONE$' -- sh -c '
	    i=0; while [ $i -lt $N ]; do cat "$B"; i=$((i + 1)); done >&2 &
	    i=0; while [ $i -lt $N ]; do cat "$A"; i=$((i + 1)); done
	    wait; printf "\nDONE\n"; exit 3' >"$WORK/o" 2>"$WORK/e" ||
	    status=$?
	wait "${pids[@]}"
	[ "$status" -eq 3 ]
	[ "$(<"$WORK/o.sum")" = "$( (for ((i = 0; i < n; i++)); do
	    cat "$A"; done; printf '\nDONE\n') | sum)" ]
	[ "$(<"$WORK/e.sum")" = "$(for ((i = 0; i < n; i++)); do
	    cat "$B"; done | sum)" ]
}

# at_once STREAM: the command prints "prompt> " (no newline) on STREAM
# (1 or 2) and waits for $WORK/go, which the reader makes once it has
# read those 8 bytes; retry's other stream goes to $WORK/other.
at_once() {
	local pid out=$WORK/fifo err=$WORK/other
	[[ $1 == 2 ]] && out=$WORK/other err=$WORK/fifo
	mkfifo "$WORK/fifo"
	(
		rc=0
		"$RETRY" -n 1 --retry-if-output=x -- sh -c '
		    printf "prompt> " >&"$1"; i=0
		    while [ ! -e "$WORK/go" ] && [ $i -lt 1000 ]; do
			sleep 0.01; i=$((i + 1))
		    done
		    [ -e "$WORK/go" ] || exit 9
		    echo done >&"$1"' sh "$1" >"$out" 2>"$err" || rc=$?
		echo "$rc" >"$WORK/rc"
	) &
	pid=$!
	{
		head -c 8 >"$WORK/first"
		: >"$WORK/go"
		cat >"$WORK/rest"
	} <"$WORK/fifo"
	wait "$pid"
	[ "$(<"$WORK/rc")" = 0 ]
	[ "$(<"$WORK/first")" = "prompt> " ]
	[ "$(<"$WORK/rest")" = "done" ]
	[ ! -s "$WORK/other" ]
}

@test "output is passed on at once: a prompt on stdout, without a newline" {
	at_once 1
}

@test "output is passed on at once: a prompt on stderr, without a newline" {
	at_once 2
}

# slowly FILE: copies stdin to FILE 32 KiB at a time, 10 ms apart.
slowly() {
	local n
	: >"$1"
	while :; do
		n=$(dd bs=32768 count=1 iflag=fullblock status=none |
		    tee -a "$1" | wc -c)
		((n > 0)) || return 0
		sleep 0.01
	done
}

@test "a slow reader gets every byte: one that starts late, one that reads in chunks" {
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c 'cat "$B" & cat "$A" >&2
	    wait' 2>"$WORK/err" | (sleep 0.3; cat >"$WORK/out")
	same_bytes "$WORK/out" "$B"
	same_bytes "$WORK/err" "$A"
	local pid
	mkfifo "$WORK/e"
	slowly "$WORK/err" <"$WORK/e" &
	pid=$!
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c 'cat "$A" & cat "$A" >&2
	    wait; exit 5' 2>"$WORK/e" | slowly "$WORK/out"
	status=${PIPESTATUS[0]}
	wait "$pid"
	[ "$status" -eq 5 ]
	same_bytes "$WORK/out" "$A"
	# retry's own line comes after the command's bytes.
	head -c "$MIB" "$WORK/err" >"$WORK/err.head"
	same_bytes "$WORK/err.head" "$A"
	stderr=$(tail -c +$((MIB + 1)) "$WORK/err")
	expect_stderr "retry: giving up after 1 attempt in Ts: exit 5 (no attempts left)"
}

# through_pipe_size SCRIPT [PIPE-SIZE-OPTION...]: retry, with conditions
# that never match, runs sh -c SCRIPT (given $1 the pipe-size helper and
# $2 $WORK/inner, $3 $WORK/ready) into pipe-size, which prints the size
# of that pipe once it has read all; retry's status.
through_pipe_size() {
	local script=$1 ps=$ROOT/tests/helpers/pipe-size
	shift
	"$RETRY" -n 1 "${NEVER[@]}" -- sh -c "$script" sh "$ps" \
	    "$WORK/inner" "$WORK/ready" | "$ps" "$@" -d
	return "${PIPESTATUS[0]}"
}

# Through a condition, a command that writes in bulk passes retry its
# pipe full again and again: retry then makes that pipe and its own
# stdout's 1 MiB, so that the three processes take fewer turns; one that
# writes a line leaves both as they were.  A pipe its owner made larger
# stays so.
@test "bulk output through a condition: 1 MiB pipes on both sides of retry; a line: the default" {
	require_linux_capability "pipe sizes (F_SETPIPE_SZ)"
	local default
	default=$(: | "$ROOT/tests/helpers/pipe-size" -d)
	run -0 --separate-stderr through_pipe_size \
	    'cat "$B"; "$1" 3 3>&1 >"$2"'
	[ "$output" = 1048576 ]
	[ "$(cat "$WORK/inner")" = 1048576 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr through_pipe_size \
	    'echo a line; "$1" 3 3>&1 >"$2"'
	[ "$output" = "$default" ]
	[ "$(cat "$WORK/inner")" = "$default" ]
	[ "$stderr" = "" ]
}

@test "bulk output through a condition: a pipe made larger than 1 MiB is not made smaller" {
	require_linux_capability "pipe sizes (F_SETPIPE_SZ)"
	: | "$ROOT/tests/helpers/pipe-size" -s 4194304 2>/dev/null ||
	    skip "a pipe of 4 MiB needs CAP_SYS_RESOURCE or fs.pipe-max-size"
	run -0 --separate-stderr through_pipe_size \
	    'i=0; until [ -e "$3" ] || [ $((i += 1)) -gt 1000 ]; do
	    sleep 0.01; done; cat "$B"' \
	    -s 4194304 -r "$WORK/ready"
	[ "$output" = 4194304 ]
	[ "$stderr" = "" ]
}

# peak_kib FILE-OF-/usr/bin/time: the peak RSS it reported, in KiB.
peak_kib() {
	tail -n 1 "$1"
}

@test "memory stays bounded: a 50 MiB line without a newline, on either stream" {
	require_tool /usr/bin/time
	local line='head -c 52428800 /dev/zero | tr "\0" a' n
	# A success only if the line was matched (on its first 64 KiB).
	n=$(/usr/bin/time -f %M -o "$WORK/rss" "$RETRY" -n 1 \
	    --success-if-output='^a+$' -- sh -c "$line; exit 3" \
	    2>"$WORK/err" | wc -c) || true
	[ "$n" -eq 52428800 ]
	[ ! -s "$WORK/err" ]
	grep -q 'exited with non-zero status 3' "$WORK/rss"
	# /usr/bin/time counts the largest child too: sh, head, tr are small.
	echo "peak RSS $(peak_kib "$WORK/rss") KiB" >&2
	(($(peak_kib "$WORK/rss") < $(rss_limit_kib)))
	n=$(/usr/bin/time -f %M -o "$WORK/rss" "$RETRY" -n 1 \
	    --success-if-output='^a+$' -- sh -c "$line >&2; exit 3" \
	    2>&1 >/dev/null | wc -c) || true
	[ "$n" -eq 52428800 ]
	grep -q 'exited with non-zero status 3' "$WORK/rss"
	echo "peak RSS $(peak_kib "$WORK/rss") KiB" >&2
	(($(peak_kib "$WORK/rss") < $(rss_limit_kib)))
}

@test "-O with a condition: the held output is whole, matched, and renewed" {
	# Attempt 1 holds 3 MiB and is retried; attempt 2 holds 1 MiB, less:
	# the held file must not keep attempt 1's tail.
	status=0
	"$RETRY" -O -n 3 -b 0 \
	    --retry-if-output='^again$' --success-if-output='^Ready$' -- \
	    sh -c 'if [ "$RETRY_ATTEMPT" = 1 ]; then
		cat "$B"; printf "\nagain\n"; exit 0
	    fi
	    cat "$A"; printf "\nReady\n"; exit 4' >"$WORK/out" 2>"$WORK/err" ||
	    status=$?
	[ "$status" -eq 4 ]
	{ cat "$A"; printf '\nReady\n'; } >"$WORK/out.want"
	{
		cat "$B"
		printf '\nagain\n'
		failed 1 3 "exit 0, output matched '^again\$'"
		echo "retry: succeeded on attempt 2/3 after Ts"
	} >"$WORK/err.want"
	same_bytes "$WORK/out" "$WORK/out.want"
	sed -Ei 's/^(retry: succeeded on attempt 2\/3 after )[0-9]+\.[0-9]{3}s$/\1Ts/' \
	    "$WORK/err"
	same_bytes "$WORK/err" "$WORK/err.want"
}

@test "-O with a condition: a final failure passes on its held output" {
	status=0
	"$RETRY" -O -n 1 --stop-if-output=denied -- \
	    sh -c 'cat "$A"; printf "\ndenied\n"; exit 2' >"$WORK/out" \
	    2>"$WORK/err" || status=$?
	[ "$status" -eq 2 ]
	{ cat "$A"; printf '\ndenied\n'; } >"$WORK/out.want"
	same_bytes "$WORK/out" "$WORK/out.want"
	stderr=$(<"$WORK/err")
	expect_stderr "retry: giving up after 1 attempt in Ts: exit 2, output matched 'denied' (not retried)"
}

# gone_reader CONDITION...: retry -n 2 -b 0 CONDITION... -- $CMD with its
# stdout read by head -c 10; sets status (retry's) and stderr.
gone_reader() {
	run --separate-stderr bash -c '"$@" | head -c 10 >/dev/null
	    exit "${PIPESTATUS[0]}"' bash "$RETRY" -n 2 -b 0 "$@" -- sh -c "$CMD"
}

@test "a reader that goes away: the command gets SIGPIPE, as without a condition" {
	local cond
	for cond in "" --retry-if-output=x; do
		# shellcheck disable=SC2086 # no word or one
		CMD='exec yes' gone_reader $cond
		[ "$status" -eq 141 ]
		expect_stderr "retry: giving up after 1 attempt in Ts: signal PIPE (not retried)"
	done
}

@test "a reader that goes away, SIGPIPE ignored: the command gets EPIPE, as without a condition" {
	local cond
	for cond in "" --retry-if-output=x; do
		CMD='trap "" PIPE; yes; echo "yes: $?" >&2; exit 3'
		# shellcheck disable=SC2086 # no word or one
		CMD=$CMD gone_reader $cond
		[ "$status" -eq 3 ]
		expect_stderr "yes: standard output: Broken pipe" "yes: 1" \
		    "$(failed 1 2 "exit 3")" \
		    "yes: standard output: Broken pipe" "yes: 1" \
		    "retry: giving up after 2 attempts in Ts: exit 3 (no attempts left)"
	done
}

# Issue 37 item 1: only EPIPE means the reader went away.
@test "a full disk on stdout is reported, 125, never taken for a reader that went away" {
	local opt
	# seq, not a file such as /etc/services, which a minimal root lacks.
	for opt in -S5 --retry-if-output=zz --stop-if-output=zz; do
		run -125 --separate-stderr sh -c '"$0" -n 2 -b 0 "$1" -- \
		    seq 20000 >/dev/full' "$RETRY" "$opt"
		[ "$stderr" = "retry: standard output: No space left on device" ]
	done
	# A full stderr: the bytes are lost, as without retry, and the
	# command goes on to its end.
	run -0 --separate-stderr sh -c '"$0" -n 2 -b 0 -S5 -- \
	    sh -c "seq 20000 >&2; echo done" 2>/dev/full' "$RETRY"
	[ "$output" = "done" ]
	[ "$stderr" = "" ]
}

# stalled CONDITION...: retry -n 1 -t 300ms -k 100ms CONDITION... -- yes
# with a reader of its stdout that reads nothing until retry has ended or
# 10 s passed.  The timeout must end the attempt all the same.
stalled() {
	rm -f "$WORK/ended" "$WORK/rc"
	{
		rc=0
		"$RETRY" -n 1 -t 300ms -k 100ms "$@" -- yes 2>"$WORK/err" ||
		    rc=$?
		echo "$rc" >"$WORK/rc"
		: >"$WORK/ended"
	} | {
		poll_until 10 test -e "$WORK/ended" &&
		    echo "ended first" >"$WORK/reader"
	}
	[ "$(<"$WORK/reader")" = "ended first" ]
	[ "$(<"$WORK/rc")" = 124 ]
	stderr=$(<"$WORK/err")
	expect_stderr "retry: giving up after 1 attempt in Ts: timed out after 300ms (-t) (no attempts left)"
}

@test "a reader that reads nothing: the timeout still ends the attempt" {
	rm -f "$WORK/reader"
	stalled
	rm -f "$WORK/reader"
	stalled --retry-if-output=x
}
