#!/usr/bin/env bats
# The GitHub job summary: with --log-format=github and GITHUB_STEP_SUMMARY
# set, the run ends by appending a Markdown account of itself to that
# file: the command, a row per attempt, the result.  Text from outside is
# inert (no Markdown, no HTML); the file is appended to, never truncated;
# a file that cannot be written gets one warning, and nothing hangs.

load helpers/common

setup() {
	common_setup
	cd "$WORK" || return 1
	# Fails twice, then succeeds: the count is kept in ./count.
	cat >flaky <<'EOF'
#!/bin/sh
n=$(($(cat count 2>/dev/null || echo 0) + 1))
echo "$n" >count
[ "$n" -ge 3 ]
EOF
	chmod +x flaky
	export GITHUB_STEP_SUMMARY=$WORK/summary.md
}

# The summary with the measured times masked: starts, durations, elapsed.
masked() {
	sed -E 's/^\| ([0-9]+) \| \+[0-9]+\.[0-9]{3}s \| [0-9]+\.[0-9]{3}s \|/| \1 | +S | D |/;
	    s/ after [0-9]+\.[0-9]{3}s;/ after Es;/; s/ in [0-9]+\.[0-9]{3}s:/ in Es:/' \
	    "$GITHUB_STEP_SUMMARY"
}

@test "three attempts: the exact Markdown, appended to what was there" {
	printf 'an earlier step wrote this' >"$GITHUB_STEP_SUMMARY"
	run -0 --separate-stderr "$RETRY" --log-format=github -n 5 \
	    --delays=10ms,20ms -- ./flaky
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/5 failed (exit 1), next in 0.010s" ]
	[ "${stderr_lines[1]}" = "retry: attempt 2/5 failed (exit 1), next in 0.020s" ]
	[[ ${stderr_lines[2]} =~ ^retry:\ succeeded\ on\ attempt\ 3/5\ after\ [0-9]+\.[0-9]{3}s$ ]]
	[ "$(masked)" = "an earlier step wrote this
### retry: ./flaky

| attempt | start | duration | outcome | then waited |
|---:|---:|---:|---|---:|
| 1 | +S | D | exit 1 | 0.010s |
| 2 | +S | D | exit 1 | 0.020s |
| 3 | +S | D | exit 0 | |

**Result:** succeeded on attempt 3 after Es; exit status 0" ]
}

@test "giving up: the result says why, and a second run appends" {
	run -3 --separate-stderr "$RETRY" --log-format=github -q -n 2 \
	    --delays=1ms -- sh -c 'exit 3'
	[ "$stderr" = "" ]
	run -3 --separate-stderr "$RETRY" --log-format=github -q -n 1 \
	    -- sh -c 'exit 3'
	[ "$stderr" = "" ]
	[ "$(masked)" = "### retry: sh -c 'exit 3'

| attempt | start | duration | outcome | then waited |
|---:|---:|---:|---|---:|
| 1 | +S | D | exit 3 | 0.001s |
| 2 | +S | D | exit 3 | |

**Result:** gave up after 2 attempts in Es: exit 3 (no attempts left); exit status 3

### retry: sh -c 'exit 3'

| attempt | start | duration | outcome | then waited |
|---:|---:|---:|---|---:|
| 1 | +S | D | exit 3 | |

**Result:** gave up after 1 attempt in Es: exit 3 (no attempts left); exit status 3" ]
}

@test "a hostile command line makes no markup" {
	local evil
	evil=$(printf '| x | `code` <img src=x onerror=alert(1)> **b** [l](javascript:y) &amp; @team #1 ~~s~~ _i_ \\ !\nnext line')
	run -1 --separate-stderr "$RETRY" --log-format=github -q -n 1 -- \
	    sh -c 'exit 1' "$evil"
	[ "$stderr" = "" ]
	[ "$(sed -n 1p "$GITHUB_STEP_SUMMARY")" = "### retry: sh -c \
'exit 1' '\\| x \\| \\\`code\\\` \\<img src=x \
onerror=alert(1)\\> \\*\\*b\\*\\* \\[l\\](javascript:y) \
\\&amp; \\@team \\#1 \\~\\~s\\~\\~ \\_i\\_ \
\\\\ !\\nnext line'" ]
	# One line for the command: the newline in it is shown as \n.
	[ "$(grep -c '^### ' "$GITHUB_STEP_SUMMARY")" = 1 ]
	# Every line but the heading is the fixed frame.
	run -1 --separate-stderr grep -v -e '^### ' -e '^| [0-9]' \
	    -e '^| attempt |' -e '^|---:|' -e '^\*\*Result:\*\* ' -e '^$' \
	    "$GITHUB_STEP_SUMMARY"
	[ "$stderr" = "" ]
	# The heading's text holds no markup character but one escaped by a
	# backslash.
	run -1 --separate-stderr grep '[][<>`*_|&#~$@\\]' \
	    <(sed -n '1s/^### //p' "$GITHUB_STEP_SUMMARY" |
	    sed -E 's/\\[][<>`*_|&#~$@\\]//g; s/\\[a-z]//g')
	[ "$stderr" = "" ]
}

@test "the summary escapes only what is markup, and reads as text" {
	run -1 --separate-stderr "$RETRY" --log-format=github -q -n 1 -- \
	    sh -c 'exit 1' 'http://127.0.0.1:18099/a;b snake_case $HOME' \
	    '%0A::warning::x' $'\r\n'
	[ "$stderr" = "" ]
	[ "$(sed -n 1p "$GITHUB_STEP_SUMMARY")" = "### retry: sh -c \
'exit 1' 'http://127.0.0.1:18099/a;b snake_case \\\$HOME' \
%0A::warning::x '\\r\\n'" ]
	[[ $(tail -n 1 "$GITHUB_STEP_SUMMARY") =~ ^\*\*Result:\*\*\ gave\ up\ after\ 1\ attempt\ in\ [0-9.]+s:\ exit\ 1 ]]
}

@test "bidirectional and invisible characters are escaped, as controls are" {
	run -1 --separate-stderr "$RETRY" --log-format=github -q -n 1 -- \
	    sh -c 'exit 1' $'a\u202eb\u2066c\u2069\u200bd\ufeff\u2028e'
	[ "$stderr" = "" ]
	[ "$(sed -n 1p "$GITHUB_STEP_SUMMARY")" = "### retry: sh -c \
'exit 1' 'a\\u202eb\\u2066c\\u2069\\u200bd\\ufeff\\u2028e'" ]
}

@test "no summary when GITHUB_STEP_SUMMARY is unset or empty, or not --log-format=github" {
	unset GITHUB_STEP_SUMMARY
	run -0 --separate-stderr "$RETRY" --log-format=github -n 1 true
	[ "$stderr" = "" ]
	GITHUB_STEP_SUMMARY='' run -0 --separate-stderr "$RETRY" \
	    --log-format=github -n 1 true
	[ "$stderr" = "" ]
	GITHUB_STEP_SUMMARY=$WORK/summary.md run -0 --separate-stderr \
	    "$RETRY" -n 1 true
	[ "$stderr" = "" ]
	[ ! -e "$WORK/summary.md" ]
}

@test "a directory: one warning, and the command's status" {
	mkdir dir
	GITHUB_STEP_SUMMARY=$WORK/dir run -3 --separate-stderr "$RETRY" \
	    --log-format=github -q -n 2 -b 1ms -- sh -c 'exit 3'
	[ "$stderr" = "retry: GITHUB_STEP_SUMMARY $WORK/dir: Is a directory; \
no job summary written" ]
}

@test "a FIFO that nobody reads: one warning, no hang" {
	mkfifo fifo
	GITHUB_STEP_SUMMARY=$WORK/fifo run -0 --separate-stderr timeout 10 \
	    "$RETRY" --log-format=github -n 1 true
	[ "$stderr" = "retry: GITHUB_STEP_SUMMARY $WORK/fifo: No such device \
or address; no job summary written" ]
	# A reader that never reads: retry never writes to it either.
	sleep 20 <>fifo &
	local holder=$!
	GITHUB_STEP_SUMMARY=$WORK/fifo run -0 --separate-stderr timeout 10 \
	    "$RETRY" --log-format=github -n 1 true
	kill "$holder"
	[ "$stderr" = "retry: GITHUB_STEP_SUMMARY $WORK/fifo: not a regular \
file; no job summary written" ]
}

@test "a file that cannot be written: one warning" {
	touch ro.md
	chmod 444 ro.md
	local as=()
	if ((EUID == 0)); then
		# root writes through the mode: run retry as nobody.
		require_tool setpriv
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chmod 755 "$WORK"
	fi
	GITHUB_STEP_SUMMARY=$WORK/ro.md run -0 --separate-stderr "${as[@]}" \
	    "$RETRY" --log-format=github -n 1 true
	[ "$stderr" = "retry: GITHUB_STEP_SUMMARY $WORK/ro.md: Permission \
denied; no job summary written" ]
	[ ! -s ro.md ]
	# A file that opens but takes no byte.
	GITHUB_STEP_SUMMARY=/proc/version run -0 --separate-stderr "$RETRY" \
	    --log-format=github -n 1 true
	[ "$stderr" = "retry: GITHUB_STEP_SUMMARY /proc/version: Input/output \
error; no job summary written" ]
}

@test "a long run shows its first and last 50 attempts, a huge argv is cut" {
	local long
	long=$(printf '%02000d' 0)
	run -1 --separate-stderr "$RETRY" --log-format=github -q -n 120 \
	    --delays=0 -- sh -c 'exit 1' "$long"
	[ "$stderr" = "" ]
	[ "$(sed -n 1p "$GITHUB_STEP_SUMMARY")" = "### retry: sh -c \
'exit 1' ${long:0:1009}…" ]
	[ "$(grep -c '^| [0-9]' "$GITHUB_STEP_SUMMARY")" = 100 ]
	[ "$(masked | sed -n '54,56p')" = "| 50 | +S | D | exit 1 | 0.000s |
| … | | | 20 attempts not shown | |
| 71 | +S | D | exit 1 | 0.000s |" ]
}

@test "one attempt not shown is said in the singular" {
	run -1 --separate-stderr "$RETRY" --log-format=github -q -n 101 \
	    --delays=0 -- false
	[ "$stderr" = "" ]
	[ "$(grep -c '^| [0-9]' "$GITHUB_STEP_SUMMARY")" = 100 ]
	[ "$(masked | sed -n '55p')" = "| … | | | 1 attempt not shown | |" ]
}
