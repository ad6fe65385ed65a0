#!/usr/bin/env bats
# Issue 14: logs for CI and cron.  --json-log beside the text; ts, the wall
# clock, in every JSON event and one form for every number of seconds; the
# local time in front of each line of a --log-file; the line that says a
# signal stopped the run; --log-format=github, byte for byte, and
# $GITHUB_OUTPUT.  JSON is read by jq, and by Python's json module where
# the literal text of a number matters (jq 1.6 reads numbers as doubles).

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
	unset GITHUB_OUTPUT
}

teardown() {
	proc_teardown
}

# jq_true FILE FILTER: the filter, run on FILE's lines slurped into one
# array, says true.
jq_true() {
	run -0 --separate-stderr jq -se "$2" "$1"
	[ "$stderr" = "" ]
	[ "$output" = "true" ]
}

# The fields of the JSON log that are numbers of seconds.
SECONDS_FIELDS='time base cap timeout max_time duration seconds window elapsed'

# number_forms FILE: in every event of FILE, each field that is a number
# of seconds is written with exactly 9 decimals (or is null), and ts is
# RFC 3339 in UTC with milliseconds; read from the literal text.
number_forms() {
	run -0 --separate-stderr python3 -c '
import json, re, sys
secs = sys.argv[2].split()
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    ev = json.loads(line, parse_float=lambda s: ("float", s),
                    parse_int=lambda s: ("int", s))
    for k, v in ev.items():
        if k in secs and v is not None and not (v[0] == "float" and
                re.fullmatch(r"[0-9]+\.[0-9]{9}", v[1])):
            sys.exit("line %d: %s is %r" % (n, k, v))
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", ev["ts"]):
        sys.exit("line %d: ts is %r" % (n, ev["ts"]))
' "$1" "$SECONDS_FIELDS"
	[ "$stderr" = "" ]
}

@test "--json-log: JSON lines in the file, the text on stderr as before" {
	echo '{"event":"earlier"}' >"$WORK/json"
	run -7 --separate-stderr "$RETRY" --json-log="$WORK/json" -n 2 -b 0 \
	    -j none sh -c 'echo out; exit 7'
	[ "$output" = $'out\nout' ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 7), next in 0.000s" ]
	[[ $(untimed "${stderr_lines[1]}") == \
	    "retry: giving up after 2 attempts in Ts: exit 7 (no attempts left)" ]]
	# Appended to what was there.
	jq_true "$WORK/json" '[.[].event] == ["earlier", "start",
	    "attempt_start", "attempt_end", "sleep", "attempt_start",
	    "attempt_end", "summary"]'
	jq_true "$WORK/json" '.[-1] | .status == 7 and .attempts == 2 and
	    .reason == "no attempts left"'
}

@test "--json-log: -q silences stderr, not the file" {
	run -1 --separate-stderr "$RETRY" -q --json-log "$WORK/json" -n 2 \
	    -b 0 false
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	jq_true "$WORK/json" '[.[].event] == ["start", "attempt_start",
	    "attempt_end", "sleep", "attempt_start", "attempt_end", "summary"]'
}

@test "--json-log with --log-format=json: the same events in both places" {
	run -0 --separate-stderr "$RETRY" --log-format=json \
	    --log-file="$WORK/log" --json-log="$WORK/json" -n 3 -b 0 \
	    sh -c '[ "$RETRY_ATTEMPT" = 2 ]'
	[ "$stderr" = "" ]
	[ "$(jq -c 'del(.ts, .time, .duration, .elapsed, .seconds)' \
	    "$WORK/log")" = "$(jq -c 'del(.ts, .time, .duration, .elapsed,
	    .seconds)' "$WORK/json")" ]
	jq_true "$WORK/json" 'length == 7 and .[-1].reason == "success"'
}

@test "--json-log: a file that cannot be opened is an error; nothing runs" {
	run -125 --separate-stderr "$RETRY" --json-log="$WORK/no/such" \
	    touch "$WORK/ran"
	[ "$output" = "" ]
	[ "$stderr" = "retry: --json-log $WORK/no/such: No such file or directory" ]
	run -125 --separate-stderr "$RETRY" --json-log= touch "$WORK/ran"
	[ "$stderr" = "retry: invalid --json-log '': empty file name; try 'retry --help'" ]
	[ ! -e "$WORK/ran" ]
}

@test "JSON: ts is the wall clock in UTC, and every number of seconds has 9 decimals" {
	local before after
	before=$(date +%s)
	run -3 --separate-stderr "$RETRY" --json-log="$WORK/json" -n 3 -b 1ms \
	    -c 1s -f 1 -j none -t 5s -m 1m sh -c 'exit 3'
	after=$(date +%s)
	number_forms "$WORK/json"
	# The values themselves: 1 ms, 1 s and 60 s whatever their form.
	jq_true "$WORK/json" '.[0] | .base == 0.001 and .cap == 1 and
	    .timeout == 5 and .max_time == 60 and .factor == 1'
	jq_true "$WORK/json" '[.[] | select(.event == "sleep") | .seconds] ==
	    [0.001, 0.001]'
	# ts parses as UTC and lies within the run, to the second.
	jq_true "$WORK/json" "[.[].ts | sub(\"\\\\.[0-9]{3}Z$\"; \"Z\") |
	    fromdateiso8601] | all(. >= $before and . <= $after)"
	jq_true "$WORK/json" '[.[].ts] == ([.[].ts] | sort)'
	# Nulls stay null: no timeout, no deadline.
	run -0 --separate-stderr "$RETRY" --json-log="$WORK/json2" -n 1 true
	number_forms "$WORK/json2"
	jq_true "$WORK/json2" '.[0] | .timeout == null and .max_time == null'
}

# The local time in front of a line of a --log-file, as a regular
# expression, with the offset group captured.
STAMP='^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{3}([+-][0-9]{2}:[0-9]{2}) '

# stamped_run TZ: a failing run with TZ, its --log-file lines in $lines;
# checks each line's stamp: its offset is $2, and the time it names,
# read back with that offset, lies within the run.
stamped_run() {
	local tz=$1 offset=$2 before after line t
	rm -f "$WORK/log"
	before=$(date +%s)
	TZ=$tz run -1 --separate-stderr "$RETRY" --log-file="$WORK/log" \
	    -n 2 -b 0 false
	after=$(date +%s)
	[ "$stderr" = "" ]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 2 ]
	for line in "${lines[@]}"; do
		[[ $line =~ $STAMP ]] ||
		    { echo "no stamp: $line" >&2; return 1; }
		[ "${BASH_REMATCH[2]}" = "$offset" ]
		t=$(date -d "${BASH_REMATCH[1]}${BASH_REMATCH[2]}" +%s)
		((t >= before && t <= after)) ||
		    { echo "$line: not within $before..$after" >&2; return 1; }
	done
	[[ ${lines[0]#* } == "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]]
}

@test "--log-file: each line starts with the local time and its offset" {
	stamped_run UTC0 +00:00
	stamped_run IST-5:30 +05:30
	stamped_run NST3:30 -03:30
}

@test "--log-file that is a pipe: no time in front" {
	# shellcheck disable=SC2016
	run -1 --separate-stderr bash -c 'set -o pipefail
	    "$RETRY" --log-file=/dev/stdout \
	    -n 2 -b 0 false | cat'
	[ "$stderr" = "" ]
	[ "${lines[0]}" = "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
	[[ $(untimed "${lines[1]}") == \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)" ]]
	# JSON lines and github commands in a log file have no time in front.
	run -1 --separate-stderr "$RETRY" --log-file="$WORK/gh" \
	    --log-format=github -n 2 -b 0 false
	[ "$(head -1 "$WORK/gh")" = \
	    "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
}

# stalled_log OPTION ARG...: runs wstatus WORK/ws retry OPTION=WORK/fifo
# ARG... -- sh -c 'exit 1' in the background (STALLED), the FIFO's one
# reader descriptor 4 of this shell, which reads nothing, its pipe made
# 4 KiB so that retry's lines fill it within a few dozen attempts.  With
# STALL_FULL=1 the pipe is full before retry starts, so that its first
# line finds no room however slowly it runs.  The open is read and
# write, so that neither end waits for the other.
stalled_log() {
	local opt=$1
	shift
	mkfifo "$WORK/fifo"
	exec 4<>"$WORK/fifo"
	"$ROOT/tests/helpers/pipe-size" -s 4096 4 >/dev/null
	if [ "${STALL_FULL:-}" = 1 ]; then
		head -c 4096 /dev/zero >&4
		fifo_full
	fi
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" "$opt=$WORK/fifo" "$@" \
	    -- sh -c 'exit 1' 2>"$WORK/err" 4>&- &
	STALLED=$!
	wait_for_file "$WORK/pid"
}

# fifo_full: the FIFO of stalled_log has no room for another line.
fifo_full() {
	[ "$(python3 -c 'import array, fcntl, termios
a = array.array("i", [0])
fcntl.ioctl(4, termios.FIONREAD, a)
print(a[0])')" -gt 3900 ]
}

# stalled_log_end PID [SECONDS]: waits until retry (PID) is gone, at most
# SECONDS (5), then lets the reader go.
stalled_log_end() {
	local rc=0
	wait_gone "$1" "${2:-5}" || rc=$?
	exec 4<&-
	wait "$STALLED"
	return "$rc"
}

# Before, open(2) waited for a reader, deaf to -m (only TERM ended it).
@test "--log-file, --json-log, --failed-output: a FIFO with no reader is refused at once" {
	local opt
	mkfifo "$WORK/fifo"
	for opt in --log-file --json-log --failed-output; do
		run -125 --separate-stderr timeout 10 "$RETRY" -O -m 1 \
		    "$opt=$WORK/fifo" -n 1 -- touch "$WORK/ran"
		[ "$output" = "" ]
		[ "$stderr" = "retry: $opt $WORK/fifo: a FIFO with no reader; start its reader first" ]
		[ ! -e "$WORK/ran" ]
	done
}

# Before, a line to a FIFO nobody read waited in write(2), signals
# blocked, past -m and deaf to TERM, for good.
@test "--log-file that is a FIFO nobody reads: retry waits for room no longer than -m" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local pid max=1 bound=5
	# Under valgrind on a loaded host, a few dozen attempts took longer
	# than -m, which cut one short (124): the FIFO is full from the start,
	# and -m leaves attempt 1 time enough.
	slow_build && max=4 bound=9
	STALL_FULL=1 stalled_log --log-file -n 100000 -b 0 -m "${max}s"
	pid=$(cat "$WORK/pid")
	stalled_log_end "$pid" "$bound"
	[ "$(cat "$WORK/ws")" = "exit 1" ]
	[ "$(cat "$WORK/err")" = "" ]
}

@test "--json-log that is a FIFO nobody reads: TERM still ends retry, which drops its lines" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local pid
	stalled_log --json-log -q -n 100000 -b 0
	pid=$(cat "$WORK/pid")
	poll_until 10 fifo_full
	kill -TERM "$pid"
	stalled_log_end "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	[ "$(cat "$WORK/err")" = "" ]
}

# A reader that goes away in the middle of a line longer than the pipe's
# atomic write (4 KiB) leaves the line cut short in the FIFO, for the
# next reader.  Before, the next line ran on in it, and a reader of the
# JSON log lost that event too.
@test "--json-log into a FIFO whose reader goes mid-line: the next reader's events start on a line of their own" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local long pid cat rc=0
	long=$(printf "%6000s" "" | tr " " a)
	mkfifo "$WORK/fifo"
	exec 4<>"$WORK/fifo"
	"$ROOT/tests/helpers/pipe-size" -s 4096 4 >/dev/null
	"$RETRY" --json-log="$WORK/fifo" -q -n 1 -- sh -c 'echo >"$0"
	    until [ -e "$1" ]; do sleep 0.01; done; exit 3' \
	    "$WORK/ready" "$WORK/go" "$long" 2>"$WORK/err" 4>&- &
	pid=$!
	poll_until 10 fifo_full
	exec 4<&-
	# The start line met no reader, and was given up: attempt 1 runs.
	wait_for_file "$WORK/ready"
	# The new reader opens the FIFO before retry can write and go.
	exec 5<"$WORK/fifo"
	cat <&5 >"$WORK/got" &
	cat=$!
	exec 5<&-
	touch "$WORK/go"
	wait "$pid" || rc=$?
	wait "$cat"
	[ "$rc" -eq 3 ]
	[ "$(cat "$WORK/err")" = "" ]
	run -0 --separate-stderr python3 -c 'import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
print(len(lines[0]), lines[-1] == b"")
for line in lines[1:-1]:
    print(json.loads(line)["event"])' "$WORK/got"
	[ "$stderr" = "" ]
	[ "$output" = "4096 True
attempt_end
summary" ]
}

# fifo_room N ARG...: makes WORK/fifo, held open on descriptor 4 of this
# shell and read by nobody, its pipe 4 KiB and so full that the first N
# JSON lines of retry --json-log ARG... fit, and 40 bytes more.  The
# lines are measured in a run into a regular file first (WORK/room).
fifo_room() {
	local n=$1 room
	shift
	"$RETRY" --json-log="$WORK/room" "$@" 2>/dev/null || true
	room=$(($(head -"$n" "$WORK/room" | wc -c) + 40))
	mkfifo "$WORK/fifo"
	exec 4<>"$WORK/fifo"
	"$ROOT/tests/helpers/pipe-size" -s 4096 4 >/dev/null
	head -c $((4096 - room)) /dev/zero >&4
}

# fifo_left N: the FIFO of fifo_room has N bytes of room left.
fifo_left() {
	[ "$(python3 -c 'import array, fcntl, termios
a = array.array("i", [0])
fcntl.ioctl(4, termios.FIONREAD, a)
print(4096 - a[0])')" -eq "$1" ]
}

# The sleep ends before -m, and attempt 2's first JSON line finds the FIFO
# full: it waits up to -m.  Before, attempt 2 started after that wait, and
# -m ended it at once: 124, where the run's status is attempt 1's.
@test "-m passes while attempt 2's line waits for a FIFO nobody reads: no attempt starts after it" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local opts=(-n 3 -b 200ms -j none -m 700ms)
	local cmd=(sh -c 'echo >>"$0"; exit 1' "$WORK/starts")
	fifo_room 4 "${opts[@]}" -- "${cmd[@]}"
	: >"$WORK/starts"
	run -1 --separate-stderr "$RETRY" "${opts[@]}" \
	    --json-log="$WORK/fifo" -- "${cmd[@]}" 4>&-
	exec 4<&-
	[ "$(wc -l <"$WORK/starts")" -eq 1 ]
	[ "$(untimed "$stderr")" = "retry: attempt 1/3 failed (exit 1), next in 0.200s
retry: giving up after 1 attempt in Ts: exit 1 (--max-time reached)" ]
}

# Before, a stop signal that came while attempt 2's line waited for the
# FIFO let attempt 2 start after it: "stopped by TERM during attempt 2/3",
# with that attempt's status.
@test "TERM while attempt 2's line waits for a FIFO nobody reads: attempt 2 does not start" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local opts=(-n 3 -b 1ms -j none) pid
	local cmd=(sh -c 'echo >>"$0"; exit 1' "$WORK/starts")
	fifo_room 4 "${opts[@]}" -- "${cmd[@]}"
	: >"$WORK/starts"
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" "${opts[@]}" \
	    --json-log="$WORK/fifo" -- "${cmd[@]}" 2>"$WORK/err" 4>&- &
	STALLED=$!
	wait_for_file "$WORK/pid"
	pid=$(cat "$WORK/pid")
	# The four lines are in: attempt 2's waits.
	poll_until 10 fifo_left 40
	kill -TERM "$pid"
	stalled_log_end "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	[ "$(wc -l <"$WORK/starts")" -eq 1 ]
	[ "$(untimed "$(cat "$WORK/err")")" = "retry: attempt 1/3 failed (exit 1), next in 0.001s
retry: stopped by TERM after attempt 1/3 in Ts" ]
}

# The JSON start line goes to --log-file first, then waits for the FIFO.
# Before, a stop that came then let attempt 1 start after it.
@test "TERM while the start line waits for a FIFO nobody reads: attempt 1 does not start" {
	require_linux_capability "a non-blocking open of a FIFO log"
	local pid
	STALL_FULL=1 stalled_log --json-log --log-format=json \
	    --log-file="$WORK/json" -n 3 -b 1ms
	pid=$(cat "$WORK/pid")
	wait_for_file "$WORK/json"
	kill -TERM "$pid"
	stalled_log_end "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	[ "$(cat "$WORK/err")" = "" ]
	jq_true "$WORK/json" '[.[].event] == ["start", "summary"] and
	    .[1].attempts == 0 and .[1].reason == "signal TERM"'
}

# stalled_tty_log OPTION ARG...: runs retry OPTION=TTY ARG..., TTY a
# terminal (a pty) whose master nobody reads, as under Ctrl-S or a
# stalled ssh, full before retry starts; with TTY_STOP=S, sends retry TERM
# after S seconds.  Prints "exit N" or "signal N", or says that retry
# still ran after 3.5 s and kills it.  TERM is TTY_TYPE, or dumb: the
# plain lines, no countdown.
stalled_tty_log() {
	local opt=$1
	shift
	TERM=${TTY_TYPE:-dumb} python3 -c 'import os, pty, subprocess, sys, time
m, s = pty.openpty()
tty = os.ttyname(s)
fill = os.open(tty, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
def fill_up():
    n = 0
    try:
        while True:
            n += os.write(fill, b"x" * 4096)
    except BlockingIOError:
        return n
# The kernel moves what was written on to the master later, which makes
# room again: full is when a while later nothing more goes in.
fill_up()
for _ in range(100):
    time.sleep(0.02)
    if fill_up() == 0:
        break
os.close(fill)
p = subprocess.Popen([sys.argv[2], sys.argv[3] + "=" + tty] + sys.argv[4:],
    stdout=subprocess.DEVNULL)
if sys.argv[1]:
    time.sleep(float(sys.argv[1]))
    p.terminate()
try:
    rc = p.wait(timeout=3.5)
    print("exit %d" % rc if rc >= 0 else "signal %d" % -rc)
except subprocess.TimeoutExpired:
    p.kill()
    print("still running after 3.5 s")' "${TTY_STOP:-}" "$RETRY" "$opt" "$@"
}

# Before, a --log-file or --json-log that named a terminal (/dev/tty,
# /dev/stderr on one) was written blocking: one that nobody read held
# retry in write(2), signals blocked, past -m and deaf to TERM, for good.
@test "--log-file that is a terminal nobody reads: its lines wait a second, once, and -m ends the run" {
	require_linux_capability "a non-blocking open of a terminal log"
	require_tool python3
	run -0 --separate-stderr stalled_tty_log --log-file -n inf -b 1ms \
	    -c 1ms -m 1s -- sh -c 'exit 3'
	[ "$output" = "exit 3" ]
	[ "$stderr" = "" ]
}

# Should the terminal take a line after all, TERM finds the attempt, and
# its status is the same.
@test "--json-log that is a terminal nobody reads: TERM still ends retry" {
	require_linux_capability "a non-blocking open of a terminal log"
	require_tool python3
	TTY_STOP=0.5 run -0 --separate-stderr stalled_tty_log --json-log -q \
	    -n inf -b 1ms -- sleep 10
	[ "$output" = "signal 15" ]
	[ "$stderr" = "" ]
}

# The countdown's first tick, at the start of the sleep, waits a second
# for the terminal, past -m.  Before, attempt 2 started after it, and -m
# ended it at once: 124.  The JSON log does not announce the attempt that
# does not start.
@test "-m passes while the countdown waits for a terminal log nobody reads: no attempt starts after it" {
	require_linux_capability "a non-blocking open of a terminal log"
	require_tool python3
	TTY_TYPE=xterm run -0 --separate-stderr stalled_tty_log --log-file \
	    --json-log="$WORK/json" -n 3 -b 100ms -j none -m 800ms -- \
	    sh -c 'echo >>"$0"; sleep 0.2; exit 3' "$WORK/starts"
	[ "$output" = "exit 3" ]
	[ "$stderr" = "" ]
	[ "$(wc -l <"$WORK/starts")" -eq 1 ]
	jq_true "$WORK/json" '[.[].event] == ["start", "attempt_start",
	    "attempt_end", "sleep", "summary"] and .[-1].attempts == 1'
}

# ---- stopped by a signal -------------------------------------------------
# The line during an attempt is checked in tree.bats and hooks.bats, during
# the splay and the sleep in signals.bats, on a terminal in terminal.bats.

@test "a signal between attempts: 'stopped by INT after attempt 1/3'" {
	local line="retry: attempt 1/3 failed (exit 1), next in 60.000s"
	bg_retry -n 3 -b 60s -j none -- false
	wait_for_line "$WORK/err" "^${line//[().]/\\&}\$"
	kill -INT "$RPID"
	bg_wait
	[ "$WS" = "signal 2" ]
	[ "$(untimed "$(<"$WORK/err")")" = "$line
retry: stopped by INT after attempt 1/3 in Ts" ]
}

@test "-q hides the stop line; the JSON log has its summary" {
	bg_retry -q --json-log="$WORK/json" -n 3 -b 60s -j none -- false
	wait_for_line "$WORK/json" '"event":"sleep"'
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	[ "$(<"$WORK/err")" = "" ]
	jq_true "$WORK/json" '.[-1] | .event == "summary" and
	    .reason == "signal TERM" and .status == 143 and .attempts == 1'
}

# ---- --log-format=github ---------------------------------------------------

# same_bytes FILE TEXT: FILE holds exactly TEXT (printf %s), byte for byte.
same_bytes() {
	printf '%s' "$2" >"$WORK/want"
	cmp "$1" "$WORK/want" ||
	    { od -c "$1" >&2; od -c "$WORK/want" >&2; return 1; }
}

# Runs retry with --log-format=github and stderr to $WORK/err; $1 the
# status it must exit with.  The giving-up time is made T.
gh_run() {
	local want=$1
	shift
	status=0
	"$RETRY" --log-format=github "$@" >"$WORK/out" 2>"$WORK/raw" ||
	    status=$?
	[ "$status" -eq "$want" ] ||
	    { echo "status $status, not $want" >&2; return 1; }
	sed -E 's/(attempts? in |[0-9] after |ended after )[0-9]+\.[0-9]{3}s/\1Ts/' \
	    "$WORK/raw" >"$WORK/err"
}

@test "github: retries are plain lines, one error titled with the command on giving up" {
	# Issue 38: at most one annotation a run, for its outcome.
	gh_run 7 -n 3 -b 0 -j none -- sh -c 'echo out; exit 7'
	same_bytes "$WORK/out" $'out\nout\nout\n'
	same_bytes "$WORK/err" "\
retry: attempt 1/3 failed (exit 7), next in 0.000s
retry: attempt 2/3 failed (exit 7), next in 0.000s
::error title=retry sh -c echo out; exit 7::giving up after 3 attempts in Ts: exit 7 (no attempts left)
"
	# A run that is not retried gives up at once.
	gh_run 2 -n 3 -b 0 -x 2 -- sh -c 'exit 2'
	same_bytes "$WORK/err" "\
::error title=retry sh -c exit 2::giving up after 1 attempt in Ts: exit 2 (not retried)
"
	# A long command is cut to 80 bytes, at a character's start.
	gh_run 1 -n 1 -- sh -c "exit 1 # $(printf 'é%.0s' {1..40})"
	same_bytes "$WORK/err" "\
::error title=retry sh -c exit 1 # $(printf 'é%.0s' {1..27})...::giving up after 1 attempt in Ts: exit 1 (no attempts left)
"
}

@test "github: a success after retries is a plain line; -v lines are debug lines" {
	gh_run 0 -n 3 -b 0 -j none -- sh -c '[ "$RETRY_ATTEMPT" = 2 ]'
	same_bytes "$WORK/err" "\
retry: attempt 1/3 failed (exit 1), next in 0.000s
retry: succeeded on attempt 2/3 after Ts
"
	gh_run 0 -v -n 3 -b 0 -j none -- true
	[ "$(<"$WORK/err")" = "::debug::attempt 1/3 starting
::debug::attempt 1/3 ended after Ts: exit 0
retry: succeeded on attempt 1/3 after Ts" ]
	gh_run 1 -q -n 2 -b 0 -- false
	same_bytes "$WORK/err" ""
}

@test "github: the title is escaped as a property, % , and :" {
	# The title is the program's name: that of a link to retry here.
	if [[ $PROC_RETRY == */quality-valgrind ]]; then
		skip "under valgrind, retry runs under its own name"
	fi
	ln -s "$PROC_RETRY" "$WORK/re%try,a:b"
	status=0
	"$WORK/re%try,a:b" --log-format=github -n 2 -b 0 -j none false \
	    2>"$WORK/raw" || status=$?
	[ "$status" -eq 1 ]
	sed -E 's/attempts in [0-9]+\.[0-9]{3}s/attempts in Ts/' "$WORK/raw" \
	    >"$WORK/err"
	same_bytes "$WORK/err" "\
re%try,a:b: attempt 1/2 failed (exit 1), next in 0.000s
::error title=re%25try%2Ca%3Ab false::giving up after 2 attempts in Ts: exit 1 (no attempts left)
"
}

@test "github: GITHUB_OUTPUT gets attempts and status appended at the end" {
	printf 'earlier=1\n' >"$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout gh_run 7 -n 3 -b 0 -- sh -c 'exit 7'
	same_bytes "$WORK/ghout" $'earlier=1\nattempts=3\nstatus=7\n'
	GITHUB_OUTPUT=$WORK/ghout gh_run 0 -n 3 -b 0 -- \
	    sh -c '[ "$RETRY_ATTEMPT" = 2 ]'
	same_bytes "$WORK/ghout" \
	    $'earlier=1\nattempts=3\nstatus=7\nattempts=2\nstatus=0\n'
	# -q silences the annotations, not the outputs.
	: >"$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout gh_run 1 -q -n 1 -- false
	same_bytes "$WORK/err" ""
	same_bytes "$WORK/ghout" $'attempts=1\nstatus=1\n'
	# Only with --log-format=github, and only when set and not empty.
	: >"$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout run -1 --separate-stderr "$RETRY" -q -n 1 \
	    false
	[ ! -s "$WORK/ghout" ]
	GITHUB_OUTPUT='' gh_run 1 -q -n 1 -- false
	run -125 --separate-stderr env GITHUB_OUTPUT="$WORK/no/such" \
	    "$RETRY" --log-format=github true
	[ "$stderr" = "retry: GITHUB_OUTPUT $WORK/no/such: No such file or directory" ]
}

@test "github: GITHUB_OUTPUT left without a newline: the outputs start a line of their own (issue 19 item 8)" {
	printf 'url=x' >"$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout gh_run 1 -q -n 1 -- false
	same_bytes "$WORK/err" ""
	same_bytes "$WORK/ghout" $'url=x\nattempts=1\nstatus=1\n'
}

# A FIFO as $GITHUB_OUTPUT that nobody empties: the outputs' write(2)
# blocked for ever, signals blocked, past -m and deaf to TERM.  They wait
# a second at most and are dropped.
@test "github: a full FIFO as GITHUB_OUTPUT does not hold retry" {
	require_linux_capability "a non-blocking GITHUB_OUTPUT FIFO"
	local rd
	mkfifo "$WORK/ghout"
	exec {rd}<>"$WORK/ghout"
	perl -MFcntl -e 'sysopen(my $f, $ARGV[0], O_WRONLY | O_NONBLOCK) or
	    die "$!"; 1 while syswrite($f, "#" x 512)' "$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout run -1 --separate-stderr timeout -s KILL 10 \
	    "$RETRY" --log-format=github -q -m 3 -n 1 -- false
	exec {rd}<&-
	[ "$stderr" = "" ]
}

@test "github: a run stopped by a signal still writes GITHUB_OUTPUT" {
	: >"$WORK/ghout"
	GITHUB_OUTPUT=$WORK/ghout bg_retry --log-format=github -n 3 -b 60s \
	    -j none -- false
	wait_for_line "$WORK/err" '^retry: attempt 1/3 failed'
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	same_bytes "$WORK/ghout" $'attempts=1\nstatus=143\n'
	[ "$(untimed "$(sed -n 2p "$WORK/err")")" = \
	    "retry: stopped by TERM after attempt 1/3 in Ts" ]
}

# Issue 19 item 7: text from outside is escaped for the format in force.
# Before, "partial::error title=..." was a line of text, not an
# annotation: the runner reads stderr, shared with the command, as lines.
@test "github: a command's stderr left mid-line does not swallow the annotation" {
	local want="::error title=retry sh -c printf partial >&2; exit 3::giving up after 1 attempt in Ts: exit 3 (no attempts left)"
	local re='s/(attempts? in )[0-9]+\.[0-9]{3}s/\1Ts/'
	run -0 --separate-stderr bash -c '"$0" --log-format=github -n 1 -- \
	    sh -c "printf partial >&2; exit 3" 2>&1 | cat' "$RETRY"
	[ "$(sed -E "$re" <<<"$output")" = "partial
$want" ]
	# A file that can be read is looked at: a newline only if needed.
	run -3 --separate-stderr bash -c '"$0" --log-format=github -n 1 -- \
	    sh -c "printf partial >&2; exit 3" 2<>"$1"' "$RETRY" "$WORK/rw"
	[ "$(sed -E "$re" "$WORK/rw")" = "partial
$want" ]
	run -3 --separate-stderr bash -c '"$0" --log-format=github -n 1 -- \
	    sh -c "echo whole >&2; exit 3" 2<>"$1"' "$RETRY" "$WORK/rw2"
	[ "$(sed -E "$re" "$WORK/rw2")" = "whole
${want/printf partial/echo whole}" ]
}

@test "github: a command name cannot start a workflow command" {
	gh_run 127 -n 1 -- $'nosuch\n::error::pwned%'
	same_bytes "$WORK/err" "\
retry: cannot run nosuch\\n::error::pwned%: No such file or directory
::error title=retry nosuch%0A%3A%3Aerror%3A%3Apwned%25::giving up after 1 attempt in Ts: exit 127 (not retried)
"
}

@test "github: an ERE in an annotation stays data" {
	gh_run 1 -n 2 -b 0 -j none --retry-if-output=$'x|%0A::error::pwned|\e\\[2J' \
	    -- sh -c 'echo x; exit 1'
	same_bytes "$WORK/err" "\
retry: attempt 1/2 failed (exit 1, output matched 'x|%0A::error::pwned|\\e\\[2J'), next in 0.000s
::error title=retry sh -c echo x; exit 1::giving up after 2 attempts in Ts: exit 1, output matched 'x|%250A::error::pwned|\\e\\[2J' (no attempts left)
"
}

@test "json: a command name and an ERE with control characters and bad UTF-8 stay JSON strings" {
	run -1 --separate-stderr "$RETRY" --log-format=json -n 2 -b 0 \
	    --retry-if-output=$'x|"}\e|\xff' -- sh -c $'echo x; exit 1 # \e"\n'
	[ "$output" = $'x\nx' ]
	printf '%s\n' "$stderr" >"$WORK/json"
	jq_true "$WORK/json" 'map(select(.event == "attempt_end") |
	    .output_matched) == ["x|\"}\u001b|\ufffd", "x|\"}\u001b|\ufffd"]
	    and (.[0].command[2] == "echo x; exit 1 # \u001b\"\n")'
}

# Issue 19 item 9: no fixed buffer cuts an event short.
@test "--json-log: an attempt_end with a long ERE is whole, and every line parses" {
	local ere
	ere="needle|$(printf 'a%.0s' {1..400})"
	run -1 --separate-stderr "$RETRY" --json-log="$WORK/json" -n 2 -b 0 \
	    --retry-if-output="$ere" -- sh -c 'echo needle; exit 1'
	[ "$output" = $'needle\nneedle' ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[0]} == "retry: attempt 1/2 failed (exit 1, output matched '$ere'), next in 0.000s" ]]
	run -0 --separate-stderr python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$WORK/json"
	[ "$stderr" = "" ]
	run -0 --separate-stderr jq -se --arg ere "$ere" \
	    'map(.event) == ["start", "attempt_start", "attempt_end", "sleep",
	    "attempt_start", "attempt_end", "summary"] and
	    (map(select(.event == "attempt_end") | .output_matched) ==
	    [$ere, $ere])' "$WORK/json"
	[ "$stderr" = "" ]
	[ "$output" = "true" ]
}
