#!/usr/bin/env bats
# --replay-stdin (-I) gives every attempt the same standard input, whatever
# its kind and size, and --hold-stdout (-O) passes on only the final
# attempt's standard output; without them stdin is left alone.  Every attempt is tests/helpers/spool-attempt (or a
# small sh -c), which saves what it read in $WORK/in.K and what retry held
# open in $WORK/fds.K, so that the checks compare checksums and never
# depend on timing.

load helpers/common

ATTEMPT=$ROOT/tests/helpers/spool-attempt
SOCKET=$ROOT/tests/helpers/spool-socket
MIB=1048576

setup_file() {
	local n
	for n in 0 1 65535 65536 65537 $MIB $((3 * MIB)) $((50 * MIB)); do
		head -c "$n" /dev/urandom > "$BATS_FILE_TMPDIR/input.$n"
	done
}

setup() {
	common_setup
	INPUTS=$BATS_FILE_TMPDIR
	# A private, canonical $TMPDIR: /proc shows the spool's real path.
	TMPDIR=$(cd -P "$WORK" && pwd)/tmp
	mkdir "$TMPDIR"
	export TMPDIR
}

sum() {
	sha256sum | cut -d' ' -f1
}

# The log lines of attempts 1 to N-1 failing with exit 1 out of N, -b 0.
failed_lines() {
	local k
	for ((k = 1; k < $1; k++)); do
		printf 'retry: attempt %d/%d failed (exit 1), next in %s\n' \
		    "$k" "$1" 0.000s
	done
}

# The same, then attempt N's success, as untimed() shows it.
retried_lines() {
	failed_lines "$1"
	printf 'retry: succeeded on attempt %d/%d after Ts\n' "$1" "$1"
}

# The giving-up line $1 with its measured time, and only that, made "T".
no_time() {
	local re='^(retry: giving up after [0-9]+ attempts? in )'

	re+='[0-9]+\.[0-9]{3}s: '
	printf '%s\n' "$1" | sed -E "s/$re/\\1Ts: /"
}

# What spool-attempt prints for attempts 1 to N.
attempt_lines() {
	local k
	for ((k = 1; k <= $1; k++)); do
		printf 'attempt %d\n' "$k"
	done
}

# Checks that attempt K read what ACTION K says of INPUT (a file).
assert_replayed() {
	local input=$1 k=0 action want got
	shift
	for action; do
		k=$((k + 1))
		case $action in
		all | mark:*) want=$(sum < "$input") ;;
		none) want=$(sum < /dev/null) ;;
		*) want=$(head -c "${action#*:}" "$input" | sum) ;;
		esac
		got=$(sum < "$WORK/in.$k")
		if [[ $got != "$want" ]]; then
			echo "attempt $k ($action) read" \
			    "$(wc -c < "$WORK/in.$k") bytes, not the right" \
			    "ones" >&2
			return 1
		fi
	done
}

# Whether $1, a target from /proc/PID/fd, is one of retry's temporary
# files: O_TMPFILE's "#N (deleted)" or mkostemp's "retry.XXXXXXXXXX".
# (Under valgrind, valgrind's own files sit there too.)
is_retry_tmp() {
	[[ $1 == "$TMPDIR"/\#* || $1 == "$TMPDIR"/retry.* ]]
}

# Checks that the descriptor targets in file $1 include N (1 by default)
# temporary files of retry, every one of them unlinked.
assert_spooled() {
	local line n=0
	while read -r line; do
		is_retry_tmp "$line" || continue
		n=$((n + 1))
		[[ $line == *' (deleted)' ]] || {
			echo "named temporary file: $line" >&2
			return 1
		}
	done < "$1"
	[ "$n" -eq "${2:-1}" ] || {
		echo "$n temporary files, not ${2:-1}" >&2
		return 1
	}
}

assert_not_spooled() {
	assert_spooled "$1" 0
}

# Nothing is left in $TMPDIR (but the FIFOs of valgrind's gdb server).
assert_tmpdir_empty() {
	tmpdir_clean
}

# retry -I with stdin a pipe that carries INPUT (a file).
from_pipe() {
	local input=$1
	shift
	"$RETRY" "$@" < <(cat "$input")
}

replay_pipe() {
	local input=$INPUTS/input.$1
	local actions=(none part:1000 all part:65537 all)

	run -0 --separate-stderr from_pipe "$input" -I -b 0 -n 5 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}"
	[ "$(untimed "$stderr")" = "$(retried_lines 5)" ]
	[ "$output" = "$(attempt_lines 5)" ]
	assert_replayed "$input" "${actions[@]}"
	assert_spooled "$WORK/fds.1"
	assert_spooled "$WORK/fds.5"
	assert_tmpdir_empty
}

@test "-I replays a pipe of 0 bytes to attempts that read all, part, none" {
	replay_pipe 0
}

@test "-I replays a pipe of 1 byte" {
	replay_pipe 1
}

@test "-I replays a pipe of 64 KiB - 1" {
	replay_pipe 65535
}

@test "-I replays a pipe of 64 KiB" {
	replay_pipe 65536
}

@test "-I replays a pipe of 64 KiB + 1" {
	replay_pipe 65537
}

@test "-I replays a pipe of 1 MiB" {
	replay_pipe $MIB
}

@test "-I replays a pipe of 50 MiB" {
	replay_pipe $((50 * MIB))
}

@test "-I rewinds a regular file, without a copy" {
	local input=$INPUTS/input.65537
	local actions=(all part:1000 none all)

	run -0 --separate-stderr "$RETRY" -I -b 0 -n 4 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}" < "$input"
	[ "$(untimed "$stderr")" = "$(retried_lines 4)" ]
	[ "$output" = "$(attempt_lines 4)" ]
	assert_replayed "$input" "${actions[@]}"
	assert_not_spooled "$WORK/fds.1"
	assert_not_spooled "$WORK/fds.4"
	assert_tmpdir_empty
}

# Runs retry with stdin at byte SKIP of FILE: one read(2) of SKIP bytes
# from a regular file moves the shared offset by exactly SKIP.
at_offset() {
	local file=$1 skip=$2 pos
	shift 2
	{
		dd bs="$skip" count=1 of=/dev/null status=none
		pos=$(sed -n 's/^pos:[[:space:]]*//p' /proc/self/fdinfo/0)
		if [[ $pos != "$skip" ]]; then
			echo "stdin is at $pos, not $skip" >&2
			return 99
		fi
		"$RETRY" "$@"
	} < "$file"
}

@test "-I rewinds a regular file to the offset it found, not to 0" {
	local actions=(all part:1000 none all)

	tail -c +11 "$INPUTS/input.$MIB" > "$WORK/rest"
	run -0 --separate-stderr at_offset "$INPUTS/input.$MIB" 10 \
	    -I -b 0 -n 4 -- "$ATTEMPT" "$WORK" "${actions[@]}"
	[ "$(untimed "$stderr")" = "$(retried_lines 4)" ]
	[ "$output" = "$(attempt_lines 4)" ]
	assert_replayed "$WORK/rest" "${actions[@]}"
	assert_not_spooled "$WORK/fds.1"
	assert_tmpdir_empty
}

@test "-I with a regular file read to its end: every attempt reads nothing" {
	run -0 --separate-stderr at_offset "$INPUTS/input.65537" 65537 \
	    -I -b 0 -n 2 -- "$ATTEMPT" "$WORK" all all
	[ "$(untimed "$stderr")" = "$(retried_lines 2)" ]
	[ "$output" = "$(attempt_lines 2)" ]
	assert_replayed /dev/null all all
}

@test "-I replays a FIFO" {
	local input=$INPUTS/input.$MIB writer
	local actions=(part:1000 none all)

	mkfifo "$WORK/fifo"
	cat "$input" > "$WORK/fifo" 3>&- &
	writer=$!
	run -0 --separate-stderr "$RETRY" -I -b 0 -n 3 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}" < "$WORK/fifo"
	wait "$writer"
	[ "$(untimed "$stderr")" = "$(retried_lines 3)" ]
	[ "$output" = "$(attempt_lines 3)" ]
	assert_replayed "$input" "${actions[@]}"
	assert_spooled "$WORK/fds.1"
	assert_tmpdir_empty
}

@test "-I replays a socket" {
	local input=$INPUTS/input.$((3 * MIB))
	local actions=(all part:65537 none all)

	run -0 --separate-stderr "$SOCKET" "$input" "$RETRY" -I -b 0 -n 4 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}"
	[ "$(untimed "$stderr")" = "$(retried_lines 4)" ]
	[ "$output" = "$(attempt_lines 4)" ]
	assert_replayed "$input" "${actions[@]}"
	assert_spooled "$WORK/fds.1"
	assert_tmpdir_empty
}

@test "-I with /dev/null: every attempt reads nothing" {
	run -0 --separate-stderr "$RETRY" -I -b 0 -n 2 -- \
	    "$ATTEMPT" "$WORK" all all < /dev/null
	[ "$(untimed "$stderr")" = "$(retried_lines 2)" ]
	[ "$output" = "$(attempt_lines 2)" ]
	assert_replayed /dev/null all all
}

# Under make check-valgrind, valgrind's log file takes the lowest free
# descriptor: one that retry should have found closed.
skip_under_valgrind() {
	if [[ $RETRY == */quality-valgrind ]]; then
		skip "valgrind's log takes the closed descriptor"
	fi
}

closed_stdin() {
	"$RETRY" "$@" <&-
}

@test "-I with stdin closed: the command gets it closed, without a warning" {
	skip_under_valgrind
	run -0 --separate-stderr closed_stdin -I -- \
	    bash -c '[[ ! -e /proc/self/fd/0 ]]'
	[ "$stderr" = "" ]
	assert_tmpdir_empty
}

# Sends the first 100000 bytes of $1, and the rest only once attempt 2 has
# read those from the spool.
trickle() {
	head -c 100000 "$1"
	wait_for_file "$WORK/mark.2" || return
	tail -c +100001 "$1"
}

@test "-I feeds the spooled bytes, then what is still to come" {
	local input=$INPUTS/input.$MIB
	local actions=(part:100000 mark:100000)

	run -0 --separate-stderr "$RETRY" -I -b 0 -n 2 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}" < <(trickle "$input")
	[ "$(untimed "$stderr")" = "$(retried_lines 2)" ]
	[ "$output" = "$(attempt_lines 2)" ]
	assert_replayed "$input" "${actions[@]}"
}

@test "-I: an attempt that closes stdin early breaks nothing" {
	local input=$INPUTS/input.$((3 * MIB))
	local actions=(close:1000 none close:65537 all)

	# spool-attempt's close waits until retry has let go of the pipe.
	run -0 --separate-stderr from_pipe "$input" -I -b 0 -n 4 -- \
	    "$ATTEMPT" "$WORK" "${actions[@]}"
	[ "$(untimed "$stderr")" = "$(retried_lines 4)" ]
	[ "$output" = "$(attempt_lines 4)" ]
	assert_replayed "$input" "${actions[@]}"
}

@test "-I: the final attempt may close stdin early and succeed" {
	run -0 --separate-stderr from_pipe "$INPUTS/input.$((3 * MIB))" \
	    -I -- "$ATTEMPT" "$WORK" close:10
	[ "$stderr" = "" ]
	[ "$output" = "attempt 1" ]
	assert_replayed "$INPUTS/input.$((3 * MIB))" close:10
}

@test "-I on a terminal warns and lets every attempt read the terminal" {
	local cmd

	cmd=$(printf '%q ' "$RETRY" -I -b 0 -n 2 -- sh -c \
	    'test -t 0 && [ "$RETRY_ATTEMPT" = 2 ]')
	run -0 --separate-stderr script -qec "$cmd 2>$(printf %q "$WORK/err")" \
	    /dev/null < /dev/null
	[ "$stderr" = "" ]
	run -0 cat "$WORK/err"
	[ "$(untimed "$output")" = "retry: --replay-stdin: standard input is a terminal;\
 every attempt reads it directly
$(retried_lines 2)" ]
	assert_tmpdir_empty
}

through_cat() {
	local - input=$1
	set -o pipefail
	shift
	cat "$input" | "$RETRY" "$@" -- cat | sum > "$WORK/sum"
}

@test "-I: no deadlock when cat writes 1 MiB while it still has input" {
	run -0 --separate-stderr through_cat "$INPUTS/input.$MIB" -I
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/sum")" = "$(sum < "$INPUTS/input.$MIB")" ]
}

@test "-I -O: no deadlock when cat writes 1 MiB while it still has input" {
	run -0 --separate-stderr through_cat "$INPUTS/input.$MIB" -I -O
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/sum")" = "$(sum < "$INPUTS/input.$MIB")" ]
	assert_tmpdir_empty
}

@test "-I: no deadlock when cat writes 50 MiB while it still has input" {
	run -0 --separate-stderr through_cat "$INPUTS/input.$((50 * MIB))" -I
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/sum")" = "$(sum < "$INPUTS/input.$((50 * MIB))")" ]
}

@test "-I -O: no deadlock when cat writes 50 MiB while it still has input" {
	run -0 --separate-stderr through_cat "$INPUTS/input.$((50 * MIB))" \
	    -I -O
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/sum")" = "$(sum < "$INPUTS/input.$((50 * MIB))")" ]
	assert_tmpdir_empty
}

@test "-I: a full spool ends retry with an error, never a cut input" {
	# RLIMIT_FSIZE stands in for a full disk; SIGXFSZ ignored makes the
	# write fail with EFBIG instead of killing retry.
	(
		ulimit -f 100
		exec "$WSTATUS" -i 25 "$WORK/ws" "$RETRY" -I -b 0 -n 2 -- \
		    sh -c 'sha256sum > "$0.$RETRY_ATTEMPT"' "$WORK/sum"
	) < <(cat "$INPUTS/input.$((3 * MIB))") 2> "$WORK/err"
	[ "$(cat "$WORK/ws")" = "exit 125" ]
	[ "$(cat "$WORK/err")" = \
	    "retry: --replay-stdin: temporary file: File too large" ]
	[ ! -e "$WORK/sum.2" ]
}

# retry -I with stdin a pipe that carries INPUT, and stderr closed.
closed_stderr() {
	local input=$1
	shift
	"$RETRY" "$@" < <(cat "$input") 2>&-
}

@test "-I: messages with stderr closed never land in the spool" {
	local input=$INPUTS/input.65537

	# Were the spool given descriptor 2, the "attempt 1 failed" line
	# would overwrite the start of the input that attempt 2 reads.
	run -0 --separate-stderr closed_stderr "$input" -I -b 0 -n 2 -- \
	    "$ATTEMPT" "$WORK" all all
	[ "$stderr" = "" ]
	[ "$output" = "$(attempt_lines 2)" ]
	assert_replayed "$input" all all
}

# ---- --hold-stdout ----------------------------------------------------

# Prints "out K" and "err K"; succeeds from attempt $0 on.
HOLD='printf "out %s\n" "$RETRY_ATTEMPT"
printf "err %s\n" "$RETRY_ATTEMPT" >&2
[ "$RETRY_ATTEMPT" -ge "$0" ]'

@test "-O: success on attempt 1 goes to stdout" {
	run -0 --separate-stderr "$RETRY" -O -b 0 -- sh -c "$HOLD" 1
	[ "$output" = "out 1" ]
	[ "$stderr" = "err 1" ]
	assert_tmpdir_empty
}

@test "-O: success on attempt 3: stdout has attempt 3, stderr the others" {
	run -0 --separate-stderr "$RETRY" -O -b 0 -- sh -c "$HOLD" 3
	[ "$output" = "out 3" ]
	[ "$(untimed "$stderr")" = "err 1
out 1
retry: attempt 1/5 failed (exit 1), next in 0.000s
err 2
out 2
retry: attempt 2/5 failed (exit 1), next in 0.000s
err 3
retry: succeeded on attempt 3/5 after Ts" ]
	assert_tmpdir_empty
}

# Each attempt after one that wrote gets a new held file; where none can
# be made ($TMPDIR gone), the old one is emptied instead, and none of
# attempt 1's longer output is left behind attempt 2's.
@test "-O: with \$TMPDIR gone after attempt 1, attempt 2's output is whole" {
	mkdir "$WORK/tdir"
	TMPDIR=$WORK/tdir run -0 --separate-stderr "$RETRY" -O -b 0 -n 2 -- \
	    sh -c 'if [ -d "$TMPDIR" ]; then printf "out 1, longer\n"
		rm -rf "$TMPDIR"; exit 1; fi; echo "out 2"'
	[ "$output" = "out 2" ]
	[ "$(untimed "$stderr")" = "out 1, longer
retry: attempt 1/2 failed (exit 1), next in 0.000s
retry: succeeded on attempt 2/2 after Ts" ]
}

@test "-O: no success: stdout has the last attempt, stderr the others" {
	run -1 --separate-stderr "$RETRY" -O -b 0 -n 3 -- sh -c "$HOLD" 99
	[ "$output" = "out 3" ]
	[ "${#stderr_lines[@]}" -eq 8 ]
	[ "$(printf '%s\n' "${stderr_lines[@]:0:7}")" = "err 1
out 1
retry: attempt 1/3 failed (exit 1), next in 0.000s
err 2
out 2
retry: attempt 2/3 failed (exit 1), next in 0.000s
err 3" ]
	[ "$(no_time "${stderr_lines[7]}")" = \
	    "retry: giving up after 3 attempts in Ts: exit 1 (no attempts left)" ]
	assert_tmpdir_empty
}

# retry with stdout to $WORK/stdout, to compare every byte.
to_file() {
	"$RETRY" "$@" > "$WORK/stdout"
}

to_file_appending() {
	"$RETRY" "$@" >> "$WORK/stdout"
}

# Attempts 1 and 2 print a short line, attempt 3 all of the file $0.
BIG='if [ "$RETRY_ATTEMPT" -lt 3 ]; then
	printf "short %s" "$RETRY_ATTEMPT"; exit 1
fi
cat "$0"'

@test "-O passes on every byte of the final attempt's output" {
	local input=$INPUTS/input.$MIB

	run -0 --separate-stderr to_file -O -b 0 -- sh -c "$BIG" "$input"
	[ "$(untimed "$stderr")" = "short 1retry: attempt 1/5 failed (exit 1), next in 0.000s
short 2retry: attempt 2/5 failed (exit 1), next in 0.000s
retry: succeeded on attempt 3/5 after Ts" ]
	[ "$(sum < "$WORK/stdout")" = "$(sum < "$input")" ]
}

@test "-O appends to a stdout opened in append mode" {
	local input=$INPUTS/input.65537

	printf 'before\n' > "$WORK/stdout"
	run -0 --separate-stderr to_file_appending -O -b 0 -q -- \
	    sh -c "$BIG" "$input"
	[ "$stderr" = "short 1short 2" ]
	[ "$(sum < "$WORK/stdout")" = \
	    "$({ echo before; cat "$input"; } | sum)" ]
}

@test "-O: a final attempt with no output leaves stdout empty" {
	run -0 --separate-stderr to_file -O -b 0 -- \
	    sh -c '[ "$RETRY_ATTEMPT" = 1 ] && echo first && exit 1; exit 0'
	[ "$(untimed "$stderr")" = "first
retry: attempt 1/5 failed (exit 1), next in 0.000s
retry: succeeded on attempt 2/5 after Ts" ]
	[ ! -s "$WORK/stdout" ]
}

closed_stdout() {
	"$RETRY" "$@" >&-
}

@test "-O with stdout closed is an error, not a silent loss" {
	skip_under_valgrind
	run -125 --separate-stderr closed_stdout -O -- echo hi
	[ "$stderr" = "retry: standard output: Bad file descriptor" ]
}

# Runs wstatus OUT retry ... with a reader that takes one byte and goes.
first_byte() {
	"$WSTATUS" "$@" | head -c1 > "$WORK/first"
}

@test "-O: a reader that goes away ends retry by SIGPIPE" {
	local input=$INPUTS/input.$MIB

	run -0 --separate-stderr first_byte "$WORK/ws" \
	    "$RETRY" -O -- head -c $MIB "$input"
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/ws")" = "signal 13" ]
	cmp "$WORK/first" <(head -c1 "$input")
}

@test "-O: a reader that goes away after a retry ends retry by SIGPIPE" {
	run -0 --separate-stderr first_byte "$WORK/ws" \
	    "$RETRY" -O -b 0 -- sh -c "$BIG" "$INPUTS/input.$MIB"
	[ "$stderr" = "short 1retry: attempt 1/5 failed (exit 1), next in 0.000s
short 2retry: attempt 2/5 failed (exit 1), next in 0.000s" ]
	[ "$(cat "$WORK/ws")" = "signal 13" ]
}

@test "-O with SIGPIPE ignored: a vanished reader is an error" {
	run -0 --separate-stderr first_byte -i 13 "$WORK/ws" \
	    "$RETRY" -O -- head -c $MIB "$INPUTS/input.$MIB"
	[ "$stderr" = "retry: standard output: Broken pipe" ]
	[ "$(cat "$WORK/ws")" = "exit 125" ]
}

@test "-I -O: a reader that goes away ends retry by SIGPIPE" {
	run -0 --separate-stderr first_byte "$WORK/ws" \
	    "$RETRY" -I -O -- cat < <(cat "$INPUTS/input.$MIB")
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/ws")" = "signal 13" ]
	assert_tmpdir_empty
}

@test "without -O, a reader that goes away kills the command, then retry" {
	run -0 --separate-stderr first_byte "$WORK/ws" \
	    "$RETRY" -- head -c $MIB "$INPUTS/input.$MIB"
	[ "$(no_time "$stderr")" = \
	    "retry: giving up after 1 attempt in Ts: signal PIPE (not retried)" ]
	[ "$(cat "$WORK/ws")" = "signal 13" ]
}

# The command of stalled_stderr: it fills the pipe on its stderr with
# NUL bytes and fails.  It writes from a non-blocking open of the pipe,
# all it can at once, so that it fills it whatever retry wrote there
# before it (--log-format=json's first lines) and never blocks; an empty
# pipe takes 64 KiB.  The open is a new one: a non-blocking stderr would
# be retry's too.
STALL_CMD='perl -MFcntl -e '\''sysopen(my $f, "/dev/stderr", O_WRONLY |'
STALL_CMD+=' O_NONBLOCK) or die "$!"; syswrite($f, "\0" x 1048576) or die'
STALL_CMD+=' "$!"'\''; echo done >"$0"; exit 1'

# stalled_stderr ARG...: runs wstatus WORK/ws retry ARG... -- sh -c
# STALL_CMD, with the reader of the pipe on its stderr one that reads
# nothing (descriptor 4 of this shell, WORK/fifo), and waits until the
# command is done; STALLED is the background job.
stalled_stderr() {
	mkfifo "$WORK/fifo"
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" "$@" -- \
	    sh -c "$STALL_CMD" "$WORK/done" 2>"$WORK/fifo" >/dev/null 3>&- &
	STALLED=$!
	exec 4<"$WORK/fifo"
	wait_for_file "$WORK/done"
	wait_for_file "$WORK/pid"
}

# stalled_stderr_end PID: waits until retry (PID) is gone, at most 5 s,
# takes what the pipe holds into WORK/err, and lets the reader go.
stalled_stderr_end() {
	local rc=0
	wait_gone "$1" 5 || rc=$?
	timeout 5 cat <&4 >"$WORK/err"
	exec 4<&-
	wait "$STALLED"
	return "$rc"
}

# Retry's line after the failure waits for a reader that does not read,
# as any writer into its pipe would, but not past a stop signal: before,
# it waited in write(2) with its signals blocked, deaf to TERM for good.
@test "a reader of stderr that reads nothing: TERM still ends retry, which drops its lines" {
	require_linux_capability "a non-blocking open of stderr's pipe"
	local pid
	stalled_stderr -n 3 -b 10s
	pid=$(cat "$WORK/pid")
	kill -TERM "$pid"
	stalled_stderr_end "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	# The command's bytes, then nothing: the pipe was full throughout.
	cmp "$WORK/err" <(head -c 65536 /dev/zero)
}

# The sleep of 10 s (no jitter: a full draw could be short) would pass
# -m 1s: retry gives up at once with the attempt's status, and its line
# waits for the reader only until then.
@test "a reader of stderr that reads nothing: retry's last line waits no longer than -m" {
	require_linux_capability "a non-blocking open of stderr's pipe"
	local pid
	stalled_stderr -n 3 -b 10s --jitter=none -m 1s
	pid=$(cat "$WORK/pid")
	stalled_stderr_end "$pid"
	[ "$(cat "$WORK/ws")" = "exit 1" ]
	cmp "$WORK/err" <(head -c 65536 /dev/zero)
}

# json_string TEXT: TEXT as a JSON string, for TEXT of printable ASCII,
# in which only quotes and backslashes are escaped.
json_string() {
	local t=${1//\\/\\\\}
	printf '"%s"' "${t//\"/\\\"}"
}

# stalled_json FIELDS: WORK/err is the JSON log's start event, FIELDS
# its last ones, and its attempt_start, as retry wrote them before
# stalled_stderr's command (the run's times made T), then that command's
# NUL bytes, then nothing: what else retry had to say was dropped.
stalled_json() {
	local n
	head -n 2 "$WORK/err" >"$WORK/log"
	n=$(($(stat -c %s "$WORK/err") - $(stat -c %s "$WORK/log")))
	[ "$n" -gt 0 ]
	cmp "$WORK/err" <(cat "$WORK/log"; head -c "$n" /dev/zero)
	[ "$(sed -E 's/"ts":"[^"]+","time":[0-9]+\.[0-9]{9}/"ts":"T","time":T/' \
	    "$WORK/log")" = '{"event":"start","ts":"T","time":T,"command":["sh","-c",'"$(json_string "$STALL_CMD"),$(json_string "$WORK/done")"'],"attempts":3,"base":10.000000000,"factor":2,"cap":60.000000000,'"$1"'}
{"event":"attempt_start","ts":"T","time":T,"attempt":1}' ]
}

# The same two with --log-format=json: its lines went to stderr with a
# blocking write(2), deaf to TERM and -m until the reader read.
@test "--log-format=json, a reader of stderr that reads nothing: TERM still ends retry, which drops its lines" {
	require_linux_capability "a non-blocking open of stderr's pipe"
	local pid
	stalled_stderr --log-format=json -n 3 -b 10s
	pid=$(cat "$WORK/pid")
	kill -TERM "$pid"
	stalled_stderr_end "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	stalled_json '"jitter":"full","timeout":null,"max_time":null'
}

@test "--log-format=json, a reader of stderr that reads nothing: retry's last line waits no longer than -m" {
	require_linux_capability "a non-blocking open of stderr's pipe"
	local pid
	stalled_stderr --log-format=json -n 3 -b 10s --jitter=none -m 1s
	pid=$(cat "$WORK/pid")
	stalled_stderr_end "$pid"
	[ "$(cat "$WORK/ws")" = "exit 1" ]
	stalled_json '"jitter":"none","timeout":null,"max_time":1.000000000'
}

# Fails until fixed: retry writes held output with every signal it
# handles blocked, so a reader that stops reading makes it deaf to TERM.
@test "-O: a signal still ends retry while a stalled reader holds up output" {
	local pid rc=0 bg

	mkfifo "$WORK/fifo"
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -O -- \
	    sh -c 'head -c 1048576 "$0"; echo done > "$1"' \
	    "$INPUTS/input.$MIB" "$WORK/done" \
	    > "$WORK/fifo" 2> "$WORK/err" 3>&- &
	bg=$!
	exec 4< "$WORK/fifo"	# a reader that reads nothing
	wait_for_file "$WORK/done"
	wait_for_file "$WORK/pid"
	pid=$(cat "$WORK/pid")
	kill -TERM "$pid"
	wait_gone "$pid" 5 || rc=$?
	exec 4<&-		# lets a stuck retry go
	wait "$bg"
	[ "$rc" -eq 0 ]
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	# The signal may come before or after retry has reaped the attempt.
	[[ $(untimed "$(cat "$WORK/err")") =~ ^'retry: stopped by TERM '('during attempt 1/5 after'|'after attempt 1/5 in')' Ts'$ ]]
}

# childless PID: PID has reaped every child (a zombie is still listed).
childless() {
	[[ -z $(<"/proc/$1/task/$1/children") ]]
}

# A stop taken after the attempt ended, in the wait for -v's line on a
# stderr that nobody reads, reached no command: retry dies by it, where
# it used to pass on what fitted of the output and exit 0.
@test "-O -v: a signal taken after a success, while a line waits, ends retry" {
	require_linux_capability "a non-blocking open of stderr's pipe"
	[[ -r /proc/self/task/$$/children ]] ||
	    skip "no /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)"
	local pid rc=0 out bg

	mkfifo "$WORK/fifo" "$WORK/outfifo"
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -v -O -n 1 -- \
	    sh -c 'head -c 1048576 "$1"; '"${STALL_CMD%exit 1}"'exit 0' \
	    "$WORK/done" "$INPUTS/input.$MIB" \
	    2>"$WORK/fifo" >"$WORK/outfifo" 3>&- &
	bg=$!
	exec 4<"$WORK/fifo" 5<"$WORK/outfifo"	# readers that read nothing
	wait_for_file "$WORK/done"
	wait_for_file "$WORK/pid"
	pid=$(cat "$WORK/pid")
	poll_until 10 childless "$pid"
	kill -TERM "$pid"
	wait_gone "$pid" 5 || rc=$?
	out=$(timeout 5 cat <&5 | wc -c)
	timeout 5 cat <&4 >"$WORK/err"
	exec 4<&- 5<&-
	wait "$bg"
	[ "$rc" -eq 0 ]
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	# The command's bytes after -v's first line, then nothing.
	[ "$(head -n 1 "$WORK/err")" = "retry: attempt 1/1 starting" ]
	[ "$(tail -n +2 "$WORK/err" | tr -d '\0')" = "" ]
	# What the reader had room for, no more.
	[ "$out" -le 1048576 ]
}

# A stop during the attempt that the command takes in its stride: it
# exits 0.  Its held output then goes on only as far as the reader has
# room, and the rest is lost: retry dies by the stop, where it exited 0
# on 64 KiB of 1 MiB (as it also did when TERM came just as a command
# exited 0, before retry reaped it).
@test "-O: a stop that cuts a success's held output short ends retry by it" {
	local pid rc=0 out bg

	mkfifo "$WORK/outfifo"
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -O -n 1 -- \
	    sh -c 'exec 2>/dev/null; trap "exit 0" TERM; head -c 1048576 "$1"
	    echo $$ >"$2"
	    while :; do sleep 0.01; done' sh "$INPUTS/input.$MIB" \
	    "$WORK/done" 2>"$WORK/err" >"$WORK/outfifo" 3>&- &
	bg=$!
	exec 5<"$WORK/outfifo"	# a reader that reads nothing yet
	wait_for_file "$WORK/done"
	wait_for_file "$WORK/pid"
	pid=$(cat "$WORK/pid")
	kill -TERM "$pid"
	wait_gone "$pid" 5 || rc=$?
	out=$(timeout 5 cat <&5 | wc -c)
	exec 5<&-
	wait "$bg"
	[ "$rc" -eq 0 ]
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	[ "$(untimed "$(cat "$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/1 after Ts" ]
	[ "$out" -lt 1048576 ]
}

# ---- timeouts, signals, temporary files --------------------------------

@test "-I -O: a timed-out attempt's input and output are a failed one's" {
	local input=$INPUTS/input.$MIB

	# The limit ends attempt 1, which sleeps once it has printed; it must
	# not end it before, nor attempt 2, which reads 1 MiB, at all.
	run -0 --separate-stderr from_pipe "$input" -I -O -b 0 -n 2 -t 2s -- \
	    "$ATTEMPT" "$WORK" hang:1000 all
	[ "$output" = "attempt 2" ]
	[ "$(untimed "$stderr")" = "attempt 1
retry: attempt 1/2 failed (timed out after 2s (-t)), next in 0.000s
retry: succeeded on attempt 2/2 after Ts" ]
	assert_replayed "$input" hang:1000 all
	assert_tmpdir_empty
}

@test "-I -O: the output of a final attempt that timed out goes to stdout" {
	# The limit must not end the attempt before it has printed.
	run -124 --separate-stderr from_pipe "$INPUTS/input.$MIB" \
	    -I -O -n 1 -t 2s -- "$ATTEMPT" "$WORK" hang:1000
	[ "$output" = "attempt 1" ]
	[ "$(no_time "$stderr")" = \
	    "retry: giving up after 1 attempt in Ts: timed out after 2s (-t) (no attempts left)" ]
	assert_tmpdir_empty
}

# Waits until process $1 has ended (at most 10 s).  Unlike wait_gone it
# takes a zombie for dead: who reaps an orphan is init's business.
wait_dead() {
	poll_until 10 dead "$1"
}

# dead PID: no process PID, or a zombie.
dead() {
	local state
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[[ $state == [ZX]* ]]
}

# Starts retry ARGS... in the background under wstatus, stdin a pipe
# carrying $1, stdout and stderr to files.
start_bg() {
	local input=$1
	shift
	cat "$input" | "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" "$@" \
	    > "$WORK/stdout" 2> "$WORK/stderr" 3>&- &
	BG=$!
	wait_for_file "$WORK/pid"
}

@test "-I -O: a forwarded signal passes on the held output, leaves no file" {
	local input=$INPUTS/input.65537

	start_bg "$input" -I -O -b 0 -n 2 -- \
	    "$ATTEMPT" "$WORK" part:10 hang:1000
	wait_for_file "$WORK/ready.2"
	assert_spooled "$WORK/fds.2" 2
	kill -TERM "$(cat "$WORK/pid")"
	wait "$BG"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	[ "$(cat "$WORK/stdout")" = "attempt 2" ]
	[ "$(untimed "$(cat "$WORK/stderr")")" = "attempt 1
$(failed_lines 2)
retry: stopped by TERM during attempt 2/2 after Ts" ]
	assert_replayed "$input" part:10 hang:1000
	assert_tmpdir_empty
}

@test "-I -O: the files have no name while retry runs, none after SIGKILL" {
	require_linux_capability "the command's death with retry (PR_SET_PDEATHSIG)"
	local pid fd

	start_bg "$INPUTS/input.$MIB" -I -O -- "$ATTEMPT" "$WORK" hang:10
	wait_for_file "$WORK/ready.1"
	pid=$(cat "$WORK/pid")
	for fd in /proc/"$pid"/fd/*; do
		readlink "$fd"
	done > "$WORK/fds.retry"
	assert_spooled "$WORK/fds.retry" 2
	kill -KILL "$pid"
	wait "$BG"
	[ "$(cat "$WORK/ws")" = "signal 9" ]
	[ "$(cat "$WORK/stderr")" = "" ]
	wait_dead "$(cat "$WORK/pid.1")"	# PR_SET_PDEATHSIG
	# RETRY_AFTER_FILE's directory is kept, and empty: the command
	# wrote nothing there.
	assert_tmpdir_empty
}

# ---- without -I, stdin is never read ------------------------------------

# Every item fails once, then succeeds.
ITEM='echo "$1 $RETRY_ATTEMPT" >> "$0"; [ "$RETRY_ATTEMPT" -ge 2 ]'

loop_file() {
	local x
	while read -r x; do
		"$RETRY" -b 0 "$@" -- sh -c "$ITEM" "$WORK/seen" "$x"
	done < "$WORK/list"
}

loop_pipe() {
	local x
	cat "$WORK/list" | while read -r x; do
		"$RETRY" -b 0 "$@" -- sh -c "$ITEM" "$WORK/seen" "$x"
	done
}

SEEN='alpha 1
alpha 2
beta 1
beta 2
gamma 1
gamma 2'

@test "without -I, retry in a while-read loop over a file leaves it alone" {
	printf '%s\n' alpha beta gamma > "$WORK/list"
	run -0 --separate-stderr loop_file -n 2
	[ "$(untimed "$stderr")" = "$(retried_lines 2)
$(retried_lines 2)
$(retried_lines 2)" ]
	[ "$(cat "$WORK/seen")" = "$SEEN" ]
}

@test "without -I, retry in a while-read loop over a pipe leaves it alone" {
	printf '%s\n' alpha beta gamma > "$WORK/list"
	run -0 --separate-stderr loop_pipe -n 2
	[ "$(untimed "$stderr")" = "$(retried_lines 2)
$(retried_lines 2)
$(retried_lines 2)" ]
	[ "$(cat "$WORK/seen")" = "$SEEN" ]
}

@test "-O without -I leaves stdin alone too" {
	printf '%s\n' alpha beta gamma > "$WORK/list"
	run -0 --separate-stderr loop_pipe -O -q
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/seen")" = "$SEEN" ]
}

@test "without -I, retry reads none of stdin, even after retries" {
	run -0 --separate-stderr bash -c \
	    'printf "abc\n" | { "$0" -b 0 -n 2 -q -- false; echo "$?"; cat; }' \
	    "$RETRY"
	[ "$output" = "1
abc" ]
	[ "$stderr" = "" ]
}

# Issue 19, item 1: a tee(2) that finds the attempt's pipe full once made
# retry poll a stdin that stays readable, at 100% of a core.  The attempt
# reads its parent's (retry's) CPU time from /proc before and after 1.5 s
# of not reading: 0.2 s is a generous bound on a resource, not a speed,
# and what retry's start-up costs (under valgrind, most) is left out.
@test "-I costs no CPU while the attempt does not read a busy pipe" {
	local before after
	require_tool getconf
	[ -r /proc/self/stat ] || skip "no /proc"
	run -0 --separate-stderr sh -c 'yes | "$1" -I -n1 -- sh -c \
	    "cat /proc/\$PPID/stat; sleep 1.5; cat /proc/\$PPID/stat"' \
	    sh "$RETRY"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 2 ]
	before=$(printf '%s\n' "${lines[0]}" | sed 's/.*) //' | cut -d' ' -f12,13)
	after=$(printf '%s\n' "${lines[1]}" | sed 's/.*) //' | cut -d' ' -f12,13)
	[ "$(( ${after% *} + ${after#* } - ${before% *} - ${before#* } ))" \
	    -lt "$(( $(getconf CLK_TCK) / 5 ))" ]
}
