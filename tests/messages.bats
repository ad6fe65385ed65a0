#!/usr/bin/env bats
# What retry says.  Only stderr, each line starting "retry: ":
# one line per failed attempt that will be retried (the attempt, the
# outcome, the sleep), one line on giving up.  -q silences these but not
# the errors; -v adds a line as each attempt starts and as it ends.

load helpers/common
load helpers/core
load helpers/attempts

setup() {
	common_setup
}

@test "one line per failed attempt that will be retried, one on giving up" {
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -j none false
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/3 failed (exit 1), next in 0.000s" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/3 failed (exit 1), next in 0.000s" ]
	giving_up "${stderr_lines[2]}" 3 "exit 1" "no attempts left"
}

@test "the line names the sleep, in seconds rounded to the millisecond" {
	run -1 --separate-stderr "$RETRY" -n 4 -b 1ms -f 2.5 -j none false
	[ "${#stderr_lines[@]}" -eq 4 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/4 failed (exit 1), next in 0.001s" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/4 failed (exit 1), next in 0.003s" ]
	[ "${stderr_lines[2]}" = \
	    "retry: attempt 3/4 failed (exit 1), next in 0.006s" ]
	giving_up "${stderr_lines[3]}" 4 "exit 1" "no attempts left"
}

@test "unlimited attempts show as N/inf" {
	run -0 --separate-stderr "$RETRY" -n inf -b 0 \
	    sh -c '[ "$RETRY_ATTEMPT" -ge 3 ]'
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/inf failed (exit 1), next in 0.000s" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/inf failed (exit 1), next in 0.000s" ]
	[[ ${stderr_lines[2]} =~ ^retry:\ succeeded\ on\ attempt\ 3/inf\ after\ [0-9]+\.[0-9]{3}s$ ]]
}

@test "a run that ends on a non-retried failure gives up at once" {
	run -2 --separate-stderr "$RETRY" -n 5 -b 0 -r 1 sh -c 'exit 2'
	giving_up "$stderr" 1 "exit 2" "not retried"
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "there is no sleep after the last attempt" {
	# A day-long window: the test would time out if retry slept.
	run -1 --separate-stderr "$RETRY" -n 1 -b 1d -j none false
	giving_up "$stderr" 1 "exit 1" "no attempts left"
	run -0 --separate-stderr "$RETRY" -n 3 -b 1d -j none true
	[ -z "$stderr" ]
}

@test "a first-try success is silent" {
	run -0 --separate-stderr "$RETRY" -n 3 -b 0 true
	[ -z "$stderr" ]
	[ -z "$output" ]
}

@test "a success after retries ends with one line, once even with -v" {
	local ok='^retry: succeeded on attempt 3/5 after [0-9]+\.[0-9]{3}s$'
	run -0 --separate-stderr "$RETRY" -n 5 -b 0 \
	    sh -c '[ "$RETRY_ATTEMPT" -ge 3 ]'
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/5 failed (exit 1), next in 0.000s" ]
	[[ ${stderr_lines[2]} =~ $ok ]]
	run -0 --separate-stderr "$RETRY" -v -n 5 -b 0 \
	    sh -c '[ "$RETRY_ATTEMPT" -ge 3 ]'
	[ "${#stderr_lines[@]}" -eq 9 ]
	[ "$(grep -c 'succeeded' <<<"$stderr")" -eq 1 ]
	[[ ${stderr_lines[8]} =~ $ok ]]
	run -0 --separate-stderr "$RETRY" -q -n 5 -b 0 \
	    sh -c '[ "$RETRY_ATTEMPT" -ge 3 ]'
	[ -z "$stderr" ]
}

@test "stdout belongs to the command" {
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    sh -c 'echo "out $RETRY_ATTEMPT"; echo "err $RETRY_ATTEMPT" >&2; exit 1'
	[ "$output" = "out 1
out 2" ]
	[ "${stderr_lines[0]}" = "err 1" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
	[ "${stderr_lines[2]}" = "err 2" ]
	giving_up "${stderr_lines[3]}" 2 "exit 1" "no attempts left"
	[ "${#stderr_lines[@]}" -eq 4 ]
}

@test "-q silences the progress and the giving-up lines" {
	local q
	for q in -q --quiet; do
		run -1 --separate-stderr "$RETRY" "$q" -n 3 -b 0 false
		[ -z "$stderr" ]
		run -9 --separate-stderr "$RETRY" "$q" -n 3 -b 0 -r 1 \
		    sh -c 'exit 9'
		[ -z "$stderr" ]
	done
}

@test "-q does not silence errors" {
	run -127 --separate-stderr "$RETRY" -q -n 3 -b 0 retry-no-such-command
	[ "$stderr" = \
	    "retry: cannot run retry-no-such-command: No such file or directory" ]
	run -125 --separate-stderr "$RETRY" -q -n 0 true
	usage_error "invalid --attempts '0': expected a whole number of at least 1, or inf"
}

@test "-v adds a line as each attempt starts and ends" {
	local v
	for v in -v --verbose; do
		run -1 --separate-stderr "$RETRY" "$v" -n 2 -b 0 -j none false
		[ "${#stderr_lines[@]}" -eq 6 ]
		[ "${stderr_lines[0]}" = "retry: attempt 1/2 starting" ]
		[[ ${stderr_lines[1]} =~ ^retry:\ attempt\ 1/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 1$ ]]
		[ "${stderr_lines[2]}" = \
		    "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
		[ "${stderr_lines[3]}" = "retry: attempt 2/2 starting" ]
		[[ ${stderr_lines[4]} =~ ^retry:\ attempt\ 2/2\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 1$ ]]
		giving_up "${stderr_lines[5]}" 2 "exit 1" "no attempts left"
	done
}

@test "-v reports success too" {
	run -0 --separate-stderr "$RETRY" -v -n 3 -b 0 true
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/3 starting" ]
	[[ ${stderr_lines[1]} =~ ^retry:\ attempt\ 1/3\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 0$ ]]
	[[ ${stderr_lines[2]} =~ ^retry:\ succeeded\ on\ attempt\ 1/3\ after\ [0-9]+\.[0-9]{3}s$ ]]
}

@test "-v names a signal death by its name" {
	qemu_cannot "a silent death by a core-dumping signal"
	run -139 --separate-stderr "$RETRY" -v -n 1 -b 0 \
	    sh -c 'kill -SEGV $$'
	[ "${stderr_lines[0]}" = "retry: attempt 1/1 starting" ]
	[[ ${stderr_lines[1]} =~ ^retry:\ attempt\ 1/1\ ended\ after\ [0-9]+\.[0-9]{3}s:\ signal\ SEGV$ ]]
	giving_up "${stderr_lines[2]}" 1 "signal SEGV" "no attempts left"
	[ "${#stderr_lines[@]}" -eq 3 ]
}

@test "every line retry writes starts with 'retry: '" {
	run -127 --separate-stderr "$RETRY" -v -n 3 -b 0 retry-no-such-command
	[ "${#stderr_lines[@]}" -eq 4 ]
	local line
	for line in "${stderr_lines[@]}"; do
		[[ $line == "retry: "* ]]
	done
	[ "${stderr_lines[1]}" = \
	    "retry: cannot run retry-no-such-command: No such file or directory" ]
}

# Issue 19 item 7: no control character of outside text reaches stderr.
@test "text from outside is shown with visible escapes, never raw control characters" {
	run -127 --separate-stderr "$RETRY" -n 1 $'bad\e[2Jname\r\x9b'
	[ "${stderr_lines[0]}" = \
	    'retry: cannot run bad\e[2Jname\r\x9b: No such file or directory' ]
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    --retry-if-output=$'x|\e\\]0;title\a' -- sh -c 'echo x; exit 1'
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 1, output matched 'x|\\e\\]0;title\\x07'), next in 0.000s" ]
	run -125 --separate-stderr "$RETRY" -b $'1\e[31m' true
	[ "$stderr" = \
	    "retry: invalid --base '1\\e[31m': unknown unit (use ns, us, ms, s, m, h or d); try 'retry --help'" ]
}

# Issue 37 item 6: nor a bidirectional control or an invisible character,
# which can show a line reversed or hide a word.
@test "bidirectional controls and invisible characters are shown escaped" {
	run -127 --separate-stderr "$RETRY" -n 1 \
	    $'a\xe2\x80\xaeb\xe2\x81\xa6c\xe2\x81\xa9d\xe2\x80\x8be\xef\xbb\xbff\xe2\x80\xa8g\xc2\xadh'
	[ "$stderr" = \
	    'retry: cannot run a\u202eb\u2066c\u2069d\u200be\ufefff\u2028g\u00adh: No such file or directory
retry: giving up after 1 attempt in '"${stderr_lines[1]#*attempt in }" ]
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none --log-format=github \
	    --retry-if-output=$'\xe2\x81\xa6|x' -- sh -c 'echo x; exit 1'
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 1, output matched '\\u2066|x'), next in 0.000s" ]
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    --retry-if-output=$'\xe2\x80\xae|x' -- sh -c 'echo x; exit 1'
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 1, output matched '\\u202e|x'), next in 0.000s" ]
}

# Issue 37 item 4: runs that share one stderr must not tear each other's
# lines: every message of retry's is one write(2), err(3)-style ones too.
@test "each message of retry's is one write(2): warnings, errors, usage" {
	require_tool strace
	qemu_cannot ptrace
	musl_cannot "its stdio writes with writev(2), which this trace does not read"
	local out=$WORK/trace
	# writes_whole ARGS...: retry ARGS under strace; every write(2) of
	# retry's own to stderr ends its line.
	# LeakSanitizer cannot run under ptrace: a sanitized retry's leak
	# check is off here (the rest of the suite keeps it).
	writes_whole() {
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		    strace -f -qq -s 4096 -e trace=write -o "$out" "$RETRY" "$@" \
		    2>/dev/null >/dev/null || true
		grep -E '^[0-9]+ +write\(2, "retry: ' "$out" >"$WORK/mine" ||
		    { echo "no message traced: $*" >&2; return 1; }
		if grep -E '^[0-9]+ +write\(2, ' "$out" |
		    grep -vE '\\n", [0-9]+\) += [0-9]+$' >&2; then
			echo "a message in pieces: $*" >&2
			return 1
		fi
	}
	writes_whole --bogus
	writes_whole -n 1 -- "$WORK/no such command"
	writes_whole -n 1 --on-retry='exit 3' -n 2 -b 0 -- false
	writes_whole -n 1 --budget=redis://127.0.0.1:1/x -- true
	writes_whole -n 2 -b 0 --failed-output=/dev/full -- \
	    sh -c 'echo x; exit 1'
	writes_whole -n 1 --log-file=/dev/full -- false
}

@test "a command named like a unit: a value was given apart from its unit (issue 38)" {
	run -127 --separate-stderr "$RETRY" -n 3 -b 5 sec -- true
	expect_stderr \
	    "retry: cannot run sec: No such file or directory (a unit apart from its number? a duration is one word, as in -b 5s: ns, us, ms, s, m, h or d)" \
	    "retry: giving up after 1 attempt in Ts: exit 127 (not retried)"
	# A program of that name found on PATH runs as any other.
	mkdir "$WORK/bin"
	printf '#!/bin/sh\nexit 0\n' >"$WORK/bin/s"
	chmod +x "$WORK/bin/s"
	PATH=$WORK/bin:$PATH run -0 --separate-stderr "$RETRY" -n 1 s
	[ -z "$stderr" ]
}
