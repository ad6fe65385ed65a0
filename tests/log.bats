#!/usr/bin/env bats
# --log-format and --log-file.  JSON lines are read by real parsers: jq for
# the fields, and Python's json module on strictly decoded UTF-8 for the
# escaping, which jq would forgive.  log-ci.bats has --json-log, the
# timestamps, the number forms and the github format.

load helpers/common

setup() {
	common_setup
}

# The giving-up line after N attempts that ended with exit STATUS, as
# a regular expression.
gave_up() {
	printf 'retry: giving up after %s attempts in [0-9]+\\.[0-9]{3}s: ' "$1"
	printf 'exit %s \\(no attempts left\\)' "$2"
}

# strict_json FILE: every line is one JSON object, in valid UTF-8.
strict_json() {
	run -0 --separate-stderr python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1], "rb"), 1):
    if not line.endswith(b"\n"):
        sys.exit("line %d: no newline" % n)
    try:
        obj = json.loads(line.decode("utf-8"))
    except ValueError as e:
        sys.exit("line %d: %s" % (n, e))
    if not isinstance(obj, dict):
        sys.exit("line %d: not an object" % n)
' "$1"
	[ "$stderr" = "" ]
}

# jq_true FILE FILTER: the filter, run on every line of FILE slurped into
# one array, says true.
jq_true() {
	run -0 --separate-stderr jq -se "$2" "$1"
	[ "$stderr" = "" ]
	[ "$output" = "true" ]
}

@test "--log-format=json: one event a line, each with its fields" {
	run -3 --separate-stderr "$RETRY" --log-format=json -n 3 -b 0.01 -f 1 \
	    -j none sh -c 'echo out; exit 3'
	[ "$output" = $'out\nout\nout' ]
	printf '%s\n' "$stderr" >"$WORK/log"
	strict_json "$WORK/log"
	jq_true "$WORK/log" '[.[].event] == ["start",
	    "attempt_start", "attempt_end", "sleep",
	    "attempt_start", "attempt_end", "sleep",
	    "attempt_start", "attempt_end", "summary"]'
	jq_true "$WORK/log" '.[0] | (keys == ["attempts", "base", "cap",
	    "command", "event", "factor", "jitter", "max_time", "time",
	    "timeout", "ts"]) and .command == ["sh", "-c", "echo out; exit 3"] and
	    .attempts == 3 and .base == 0.01 and .factor == 1 and
	    .cap == 60 and .jitter == "none" and .timeout == null and
	    .max_time == null'
	jq_true "$WORK/log" '[.[] | select(.event == "attempt_start")] |
	    map(keys == ["attempt", "event", "time", "ts"]) == [true, true, true]
	    and map(.attempt) == [1, 2, 3]'
	jq_true "$WORK/log" '[.[] | select(.event == "attempt_end")] |
	    all(keys == ["attempt", "duration", "event", "outcome", "status",
	    "time", "ts", "value"] and .outcome == "exit" and .value == 3 and
	    .status == 3 and .duration >= 0) and map(.attempt) == [1, 2, 3]'
	jq_true "$WORK/log" '[.[] | select(.event == "sleep")] |
	    all(keys == ["attempt", "event", "jitter", "seconds", "time", "ts",
	    "window"] and .seconds == 0.01 and .window == 0.01 and
	    .jitter == "none") and map(.attempt) == [1, 2]'
	jq_true "$WORK/log" '.[-1] | keys == ["attempts", "elapsed", "event",
	    "reason", "status", "time", "ts"] and .attempts == 3 and .status == 3
	    and .reason == "no attempts left" and .elapsed >= 0.02'
	# Time runs from the first attempt and never goes back.
	jq_true "$WORK/log" '[.[].time] | .[0] >= 0 and . == sort'
}

@test "--log-format=json: success, and the options in the start event" {
	run -0 --separate-stderr "$RETRY" --log-format=json -n inf -b 0.01 \
	    -c 2s -f 1.5 -j 0.5..1.5 -t 1.5 -m 10 \
	    sh -c '[ "$RETRY_ATTEMPT" -ge 2 ]'
	[ "$output" = "" ]
	printf '%s\n' "$stderr" >"$WORK/log"
	strict_json "$WORK/log"
	jq_true "$WORK/log" '.[0] | .attempts == null and .base == 0.01 and
	    .cap == 2 and .factor == 1.5 and .jitter == "0.5..1.5" and
	    .timeout == 1.5 and .max_time == 10'
	jq_true "$WORK/log" '[.[] | select(.event == "attempt_end") |
	    [.outcome, .value, .status]] == [["exit", 1, 1], ["exit", 0, 0]]'
	jq_true "$WORK/log" '[.[] | select(.event == "sleep")] |
	    length == 1 and (.[0] | .jitter == "0.5..1.5" and .window == 0.01
	    and .seconds >= 0.005 and .seconds <= 0.015)'
	jq_true "$WORK/log" '.[-1] | .event == "summary" and .attempts == 2
	    and .status == 0 and .reason == "success"'
}

@test "--log-format=json: a signal, a timeout and a command that cannot run" {
	run -137 --separate-stderr "$RETRY" --log-format=json -n 1 \
	    sh -c 'kill -KILL $$'
	printf '%s\n' "$stderr" >"$WORK/signal"
	strict_json "$WORK/signal"
	jq_true "$WORK/signal" '[.[] | select(.event == "attempt_end") |
	    [.outcome, .value, .status]] == [["signal", "KILL", 137]] and
	    (.[-1] | .status == 137 and .reason == "no attempts left")'

	run -124 --separate-stderr "$RETRY" --log-format=json -n 1 -t 0.05 \
	    sleep 10
	printf '%s\n' "$stderr" >"$WORK/timeout"
	strict_json "$WORK/timeout"
	jq_true "$WORK/timeout" '[.[] | select(.event == "attempt_end") |
	    [.outcome, .value, .status]] == [["timeout", 124, 124]] and
	    .[0].timeout == 0.05 and (.[-1] | .status == 124)'

	# Errors stay text on stderr; the JSON log goes to its file.
	run -127 --separate-stderr "$RETRY" --log-format=json \
	    --log-file="$WORK/noexec" -n 2 "$WORK/no such command"
	[ "$output" = "" ]
	[ "$stderr" = "retry: cannot run $WORK/no such command: No such file or directory" ]
	strict_json "$WORK/noexec"
	jq_true "$WORK/noexec" '[.[] | select(.event == "attempt_end") |
	    [.outcome, .value, .status]] == [["noexec", 127, 127]] and
	    (.[-1] | .status == 127 and .reason == "not retried")'
}

@test "--log-format=json: the summary says why the run ended" {
	run -3 --separate-stderr "$RETRY" --log-format=json -x 3 \
	    sh -c 'exit 3'
	printf '%s\n' "$stderr" >"$WORK/stop"
	jq_true "$WORK/stop" '.[-1] | .reason == "not retried" and
	    .attempts == 1 and .status == 3'

	run -1 --separate-stderr "$RETRY" --log-format=json -m 5 -b 10 \
	    -j none -n 5 false
	printf '%s\n' "$stderr" >"$WORK/deadline"
	jq_true "$WORK/deadline" '([.[].event] | index("sleep") == null) and
	    (.[-1] | .reason == "the next sleep would pass --max-time" and
	    .attempts == 1 and .status == 1)'

	run -124 --separate-stderr "$RETRY" --log-format=json -m 0.05 -n 5 \
	    sleep 10
	printf '%s\n' "$stderr" >"$WORK/maxtime"
	jq_true "$WORK/maxtime" '.[-1] | .reason == "--max-time reached" and
	    .status == 124'
}

@test "--log-format=json: retry killed by a signal still writes its summary" {
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" --log-format=json \
	    --log-file="$WORK/log" -n 3 -b 60 -j none false 3>&- &
	local pid=$!
	# The sleep event says retry is waiting for the next attempt.
	poll_until 10 grep -qs '"event":"sleep"' "$WORK/log"
	wait_for_file "$WORK/pid"
	kill -TERM "$(cat "$WORK/pid")"
	wait "$pid"
	[ "$(cat "$WORK/ws")" = "signal 15" ]
	strict_json "$WORK/log"
	jq_true "$WORK/log" '.[-1] | .event == "summary" and
	    .reason == "signal TERM" and .status == 143 and .attempts == 1'
}

@test "--log-format=json: -q and -v change nothing in the JSON log" {
	local opt
	for opt in -q -v; do
		run -1 --separate-stderr "$RETRY" --log-format=json "$opt" \
		    -n 2 -b 0 false
		printf '%s\n' "$stderr" >"$WORK/log$opt"
		strict_json "$WORK/log$opt"
		jq_true "$WORK/log$opt" '[.[].event] == ["start",
		    "attempt_start", "attempt_end", "sleep", "attempt_start",
		    "attempt_end", "summary"]'
	done
}

@test "--log-format=json: odd command arguments are escaped and still parse" {
	local -a args=(
		'say "hi"' 'back\slash' $'tab\there' $'new\nline' $'\x01\x1f\x7f'
		$'bad \xff' $'cut \xe2\x82' $'overlong \xc0\x80 \xe0\x80\x80'
		$'surrogate \xed\xa0\x80' $'beyond \xf4\x90\x80\x80'
		$'five \xf8\x88\x80\x80\x80' 'é € 😀 ok' $'\xed\x9f\xbf\xf4\x8f\xbf\xbf'
	)
	run -0 --separate-stderr "$RETRY" --log-format=json \
	    --log-file="$WORK/log" -n 1 -- true "${args[@]}"
	[ "$stderr" = "" ]
	strict_json "$WORK/log"
	# Valid text comes back as it was; each bad byte is U+FFFD.
	run -0 --separate-stderr python3 -c '
import json, sys
cmd = json.loads(open(sys.argv[1], "rb").readline().decode("utf-8"))["command"]
for got in cmd:
    print(got.encode("unicode_escape").decode("ascii"))
' "$WORK/log"
	[ "$stderr" = "" ]
	[ "${lines[0]}" = 'true' ]
	[ "${lines[1]}" = 'say "hi"' ]
	[ "${lines[2]}" = 'back\\slash' ]
	[ "${lines[3]}" = 'tab\there' ]
	[ "${lines[4]}" = 'new\nline' ]
	[ "${lines[5]}" = '\x01\x1f\x7f' ]
	[ "${lines[6]}" = 'bad \ufffd' ]
	[ "${lines[7]}" = 'cut \ufffd\ufffd' ]
	[ "${lines[8]}" = 'overlong \ufffd\ufffd \ufffd\ufffd\ufffd' ]
	[ "${lines[9]}" = 'surrogate \ufffd\ufffd\ufffd' ]
	[ "${lines[10]}" = 'beyond \ufffd\ufffd\ufffd\ufffd' ]
	[ "${lines[11]}" = 'five \ufffd\ufffd\ufffd\ufffd\ufffd' ]
	[ "${lines[12]}" = '\xe9 \u20ac \U0001f600 ok' ]
	[ "${lines[13]}" = '\ud7ff\U0010ffff' ]
	[ "${#lines[@]}" -eq 14 ]
}

# Issue 37 item 6: invisible characters are escaped as \uXXXX, and the
# line still parses to the very same text.
@test "--log-format=json: bidirectional controls are escaped, and parse back" {
	run -0 --separate-stderr "$RETRY" --log-format=json \
	    --log-file="$WORK/log" -n 1 -- true $'a\u202eb\u2066\u200b\ufeff' \
	    $'c1 \xc2\x85 tag \xf3\xa0\x81\x81'
	[ "$stderr" = "" ]
	strict_json "$WORK/log"
	run -1 grep -c $'\u202e\|\u2066\|\u200b\|\ufeff\|\xc2\x85\|\xf3\xa0' "$WORK/log"
	[ "$output" = 0 ]
	run -0 --separate-stderr grep -o 'a\\u202eb\\u2066\\u200b\\ufeff' "$WORK/log"
	run -0 --separate-stderr grep -o 'c1 \\u0085 tag \\udb40\\udc41' "$WORK/log"
	jq_true "$WORK/log" '.[0].command[1] == "a\u202eb\u2066\u200b\ufeff" and
	    .[0].command[2] == "c1 \u0085 tag \udb40\udc41"'
}

@test "--log-format=json: a very long command line makes one whole line" {
	local big
	big=$(head -c 100000 /dev/zero | tr '\0' '"')
	run -0 --separate-stderr "$RETRY" --log-format=json \
	    --log-file="$WORK/log" -n 1 -- true "$big" "$big"
	[ "$stderr" = "" ]
	strict_json "$WORK/log"
	jq_true "$WORK/log" '.[0].command | length == 3 and
	    (.[1] | length) == 100000 and .[1] == .[2]'
}

# The local time that starts a line of a --log-file, as a regular
# expression: ISO 8601 with milliseconds and the offset.
STAMP='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2} '

@test "--log-file: text messages go to the file, appended, not to stderr" {
	echo "earlier line" >"$WORK/log"
	run -7 --separate-stderr "$RETRY" --log-file="$WORK/log" -n 2 -b 0.01 \
	    -j none sh -c 'echo out; echo err >&2; exit 7'
	[ "$output" = $'out\nout' ]
	[ "$stderr" = $'err\nerr' ]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "earlier line" ]
	[[ ${lines[1]} =~ ^${STAMP}'retry: attempt 1/2 failed (exit 7), next in 0.010s'$ ]]
	[[ ${lines[2]} =~ ^${STAMP}$(gave_up 2 7)$ ]]
}

@test "--log-file: -v lines go there too, and the command does not inherit it" {
	run -0 --separate-stderr "$RETRY" -v --log-file "$WORK/log" -n 1 \
	    sh -c 'ls -l /proc/$$/fd'
	[ "$stderr" = "" ]
	[[ $output != *"$WORK/log"* ]]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} =~ ^${STAMP}'retry: attempt 1/1 starting'$ ]]
	[[ ${lines[1]} =~ ^${STAMP}retry:\ attempt\ 1/1\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 0$ ]]
	[[ ${lines[2]} =~ ^${STAMP}retry:\ succeeded\ on\ attempt\ 1/1\ after\ [0-9]+\.[0-9]{3}s$ ]]
}

@test "--log-file: a path that cannot be opened is an error, and nothing runs" {
	run -125 --separate-stderr "$RETRY" --log-file="$WORK/no/such/dir" \
	    touch "$WORK/ran"
	[ "$output" = "" ]
	[ "$stderr" = "retry: --log-file $WORK/no/such/dir: No such file or directory" ]
	[ ! -e "$WORK/ran" ]

	run -125 --separate-stderr "$RETRY" --log-file "$WORK" touch "$WORK/ran"
	[ "$stderr" = "retry: --log-file $WORK: Is a directory" ]
	[ ! -e "$WORK/ran" ]

	run -125 --separate-stderr "$RETRY" --log-file= touch "$WORK/ran"
	[ "$stderr" = "retry: invalid --log-file '': empty file name; try 'retry --help'" ]
	[ ! -e "$WORK/ran" ]
}

@test "--log-format: only text, json and github" {
	run -125 --separate-stderr "$RETRY" --log-format=xml true
	[ "$output" = "" ]
	[ "$stderr" = "retry: invalid --log-format 'xml': expected text, json or github; try 'retry --help'" ]
	run -1 --separate-stderr "$RETRY" --log-format=text -n 2 -b 0 false
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
	[[ ${stderr_lines[1]} =~ ^$(gave_up 2 1)$ ]]
}

# Issue 37 item 2: a log that cannot be written says so, once, and counts.
@test "a log on a full disk: one warning at the first failed line, and a count at the end" {
	run -1 --separate-stderr "$RETRY" --log-file=/dev/full -n 3 -b 0 -- false
	[ "$stderr" = "retry: --log-file /dev/full: No space left on device
retry: --log-file /dev/full: 3 of 3 lines not written" ]
	run -1 --separate-stderr "$RETRY" --log-format=json \
	    --log-file=/dev/full -n 2 -b 0 -- false
	[ "$stderr" = "retry: --log-file /dev/full: No space left on device
retry: --log-file /dev/full: 7 of 7 lines not written" ]
	run -1 --separate-stderr "$RETRY" -q --json-log=/dev/full -n 1 -- false
	[ "$stderr" = "retry: --json-log /dev/full: No space left on device
retry: --json-log /dev/full: 4 of 4 lines not written" ]
	# --log-on-failure writes its held lines at once: each one counts.
	run -1 --separate-stderr "$RETRY" --log-on-failure \
	    --log-file=/dev/full -n 3 -b 0 -- false
	[ "$stderr" = "retry: --log-file /dev/full: No space left on device
retry: --log-file /dev/full: 3 of 3 lines not written" ]
	# A log that takes every line says nothing.
	run -1 --separate-stderr "$RETRY" --log-file=/dev/null -n 2 -b 0 -- false
	[ "$stderr" = "" ]
}

# Issue 37 item 3: -q quiets the terminal, not the file the user named.
@test "-q --log-file: the file still gets the retries and the giving-up line" {
	run -1 --separate-stderr "$RETRY" -q --log-file="$WORK/log" -n 2 -b 0 \
	    -j none -- false
	[ "$stderr" = "" ]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} =~ ^${STAMP}'retry: attempt 1/2 failed (exit 1), next in 0.000s'$ ]]
	[[ ${lines[1]} =~ ^${STAMP}$(gave_up 2 1)$ ]]
}

# Issue 37 item 3: chronic(1) for retry: nothing while it works, the whole
# story when it finally fails.
@test "--log-on-failure: a run that succeeds says nothing, one that fails says everything" {
	run -0 --separate-stderr "$RETRY" --log-on-failure -n 3 -b 0 -j none \
	    -- sh -c 'n=$(cat "$1" 2>/dev/null); echo x >>"$1"; [ -n "$n" ]' \
	    sh "$WORK/count"
	[ "$stderr" = "" ]
	run -1 --separate-stderr "$RETRY" --log-on-failure -n 2 -b 0 -j none \
	    -- false
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
	[[ ${stderr_lines[1]} =~ ^$(gave_up 2 1)$ ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	# Into a --log-file, with -q, the same: nothing on a success.
	run -0 --separate-stderr "$RETRY" -q --log-on-failure \
	    --log-file="$WORK/log" -n 2 -b 0 -- true
	[ "$stderr" = "" ]
	[ ! -s "$WORK/log" ]
	run -7 --separate-stderr "$RETRY" -q --log-on-failure \
	    --log-file="$WORK/log" -n 2 -b 0 -j none -- sh -c 'exit 7'
	[ "$stderr" = "" ]
	mapfile -t lines <"$WORK/log"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} =~ ^${STAMP}$(gave_up 2 7)$ ]]
}

# A warning is no progress message: --log-on-failure does not keep it, on
# a terminal as in a pipe.  On a terminal it used to be kept with the
# lines, and dropped with them when the run succeeded.
@test "--log-on-failure: a warning on a terminal is written at once" {
	require_linux_capability "bounded errors on a terminal (fopencookie)"
	musl_cannot "bounded errors on a terminal (fopencookie)"
	require_tool python3
	run -0 --separate-stderr python3 -c 'import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
out = b""
while True:
    try:
        b = os.read(m, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
sys.stdout.write(out.decode().replace("\r\n", "\n"))
print("exit", p.wait())' "$RETRY" --log-on-failure -n 3 -b 0 -j none \
	    --on-retry='exit 4' -- sh -c 'n=$(cat "$1" 2>/dev/null)
	    echo x >>"$1"; [ -n "$n" ]' sh "$WORK/count"
	[ "$output" = $'retry: --on-retry failed (exit 4)\nexit 0' ]
	[ "$stderr" = "" ]
}

@test "--log-on-failure: a long run keeps its last lines, and counts the rest" {
	local y n
	# Lines of 3 KiB, that quote the ERE: 400 of them pass the 1 MiB kept.
	y=$(printf '%03000d' 0 | tr 0 y)
	run -1 --separate-stderr "$RETRY" --log-on-failure -n 400 -b 0 \
	    --retry-if-output="x|$y" -- sh -c 'echo x; exit 1'
	[[ ${stderr_lines[0]} =~ ^retry:\ [0-9]+\ earlier\ lines\ not\ kept$ ]]
	n=${stderr_lines[0]#retry: }
	n=${n%% *}
	[ $((n + ${#stderr_lines[@]} - 1)) -eq 400 ]
	[ "$n" -gt 100 ]
	[[ ${stderr_lines[1]} == "retry: attempt $((n + 1))/400 failed (exit 1, output matched 'x|$y'), next in 0.000s" ]]
	[[ ${stderr_lines[-1]} =~ ^retry:\ giving\ up\ after\ 400\ attempts ]]
}
