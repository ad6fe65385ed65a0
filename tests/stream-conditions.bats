#!/usr/bin/env bats
# The output conditions of one stream (--retry-if-stdout,
# --stop-if-stderr, ...) look at that stream alone, where --*-if-output
# look at both; -F makes every condition a literal string, as grep -F
# does.  The commands are sh and grep, whose stderr is their own.

load helpers/common

setup() {
	common_setup
}

# sh -c that prints $1 on stderr only, then exits 0.
ERR_ONLY='echo "$0" >&2'

@test "--retry-if-stdout does not see a word that only stderr has" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 0 --retry-if-stdout=boom \
	    -- sh -c "$ERR_ONLY" boom
	[ "$output" = "" ]
	[ "$stderr" = "boom" ]
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 --retry-if-stderr=boom \
	    -- sh -c "$ERR_ONLY" boom
	[ "$output" = "" ]
	[ "$(untimed "$stderr")" = "boom
retry: attempt 1/2 failed (exit 0, output matched 'boom'), next in 0.000s
boom
retry: giving up after 2 attempts in Ts: exit 0, output matched 'boom' (no attempts left; exiting 1)" ]
	# The form for both streams sees it, as it always did.
	run -1 --separate-stderr "$RETRY" -n 1 --retry-if-output=boom \
	    -- sh -c "$ERR_ONLY" boom
	[ "$(untimed "$stderr")" = "boom
retry: giving up after 1 attempt in Ts: exit 0, output matched 'boom' (no attempts left; exiting 1)" ]
}

@test "--retry-if-stderr does not see a word that only stdout has" {
	run -0 --separate-stderr "$RETRY" -n 2 -b 0 --retry-if-stderr=boom \
	    -- echo boom
	[ "$output" = "boom" ]
	[ "$stderr" = "" ]
	run -1 --separate-stderr "$RETRY" -n 1 --retry-if-stdout=boom \
	    -- echo boom
	[ "$output" = "boom" ]
	[ "$(untimed "$stderr")" = "retry: giving up after 1 attempt in Ts: exit 0, output matched 'boom' (no attempts left; exiting 1)" ]
}

# grep names a missing file on stderr and exits 2, which is retried; the
# condition on stderr stops it at once, the one on stdout never sees it.
@test "grep's own error on stderr: --stop-if-stderr stops, --stop-if-stdout does not" {
	run -2 --separate-stderr "$RETRY" -n 3 -b 0 -q \
	    --stop-if-stderr='No such file' -- grep x "$WORK/none"
	[ "$output" = "" ]
	[ "$stderr" = "grep: $WORK/none: No such file or directory" ]
	run -2 --separate-stderr "$RETRY" -n 3 -b 0 -q \
	    --stop-if-stdout='No such file' -- grep x "$WORK/none"
	[ "$stderr" = "grep: $WORK/none: No such file or directory
grep: $WORK/none: No such file or directory
grep: $WORK/none: No such file or directory" ]
}

@test "--success-if-stdout: grep's match on stdout is a success; the same on stderr is not" {
	printf 'ready\n' >"$WORK/log"
	run -1 --separate-stderr "$RETRY" -n 1 -q --success-if-stdout=ready \
	    -- sh -c 'grep ready "$0"; exit 1' "$WORK/log"
	[ "$output" = "ready" ]
	[ "$stderr" = "" ]
	run -1 --separate-stderr "$RETRY" -n 1 -q --success-if-stdout=ready \
	    -- sh -c 'grep ready "$0" >&2; exit 1' "$WORK/log"
	[ "$output" = "" ]
	[ "$stderr" = "ready" ]
	run -1 --separate-stderr "$RETRY" -n 1 -q --success-if-stderr=ready \
	    -- sh -c 'grep ready "$0" >&2; exit 1' "$WORK/log"
	[ "$stderr" = "ready" ]
}

# A stream that no condition looks at passes by: the command has retry's
# own descriptor, here a regular file, not a pipe.
@test "a stream that no condition looks at stays the command's own" {
	local probe='if [ -f /dev/stdout ]; then echo file; else echo pipe; fi'
	run -0 --separate-stderr sh -c '"$1" -n 1 --retry-if-stderr=x \
	    -- sh -c "$2" >"$3"; cat "$3"' sh "$RETRY" "$probe" "$WORK/out"
	[ "$output" = "file" ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr sh -c '"$1" -n 1 --retry-if-output=x \
	    -- sh -c "$2" >"$3"; cat "$3"' sh "$RETRY" "$probe" "$WORK/out"
	[ "$output" = "pipe" ]
	probe='if [ -f /dev/stderr ]; then echo file; else echo pipe; fi'
	run -0 --separate-stderr sh -c '"$1" -n 1 --stop-if-stdout=x \
	    -- sh -c "$2" 2>"$3"' sh "$RETRY" "$probe" "$WORK/err"
	[ "$output" = "file" ]
	[ "$stderr" = "" ]
}

@test "each stream's last line counts without a newline, and only there" {
	run -1 --separate-stderr "$RETRY" -n 1 --retry-if-stderr='end$' \
	    -- sh -c 'printf "the end" >&2; printf "no end\n"'
	[ "$output" = "no end" ]
	[ "$(untimed "$stderr")" = "the endretry: giving up after 1 attempt in Ts: exit 0, output matched 'end\$' (no attempts left; exiting 1)" ]
	# stdout's unfinished line does not run on into stderr's.
	run -0 --separate-stderr "$RETRY" -n 1 --retry-if-stderr='^xy$' \
	    -- sh -c 'printf x; printf "y\n" >&2'
	[ "$output" = "x" ]
	[ "$stderr" = "y" ]
}

@test "-F: every condition is a literal string, as grep -F reads it" {
	local lit='[ERROR] a.b*c+d?(e)|{2}^$\z'
	printf 'x%sx\n' "$lit" >"$WORK/hit"
	printf 'E\n' >"$WORK/miss"
	# The same literal as an ERE matches the line "E" (a bracket).
	run -1 --separate-stderr "$RETRY" -n 1 -q \
	    --retry-if-output='[ERROR]' -- cat "$WORK/miss"
	run -0 --separate-stderr "$RETRY" -n 1 -q -F \
	    --retry-if-output='[ERROR]' -- cat "$WORK/miss"
	[ "$output" = "E" ]
	[ "$stderr" = "" ]
	# grep -F agrees on every line.
	run -0 grep -F -- "$lit" "$WORK/hit"
	run -1 grep -F -- "$lit" "$WORK/miss"
	run -1 --separate-stderr "$RETRY" -n 1 -F --retry-if-stdout="$lit" \
	    -- cat "$WORK/hit"
	[ "$output" = "x${lit}x" ]
	[ "$(untimed "$stderr")" = "retry: giving up after 1 attempt in Ts: exit 0, output matched '$lit' (no attempts left; exiting 1)" ]
	# And on every kind of condition, wherever -F stands.
	run -1 --separate-stderr "$RETRY" -n 1 -q --stop-if-stderr='a.b' -F \
	    -- sh -c 'echo a.b >&2; exit 1'
	[ "$stderr" = "a.b" ]
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -q -F \
	    --stop-if-stderr='a.b' -- sh -c 'echo axb >&2; exit 1'
	[ "$stderr" = $'axb\naxb\naxb' ]
}

@test "-F: an empty string matches every line, as with grep -F" {
	run -1 --separate-stderr "$RETRY" -n 1 -q -F --retry-if-stderr= \
	    -- sh -c 'echo >&2'
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$RETRY" -n 1 -q -F --retry-if-stderr= \
	    -- true
	[ "$stderr" = "" ]
}

@test "usage errors name the option as given" {
	run -125 --separate-stderr "$RETRY" --retry-if-stderr='a\1' -- true
	[ "$stderr" = "retry: invalid --retry-if-stderr 'a\\1': back-references are not supported; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --success-if-stdout='(' -- true
	[[ $stderr == "retry: invalid --success-if-stdout '(': "*"; try 'retry --help'" ]]
	run -125 --separate-stderr "$RETRY" -F --stop-if-stdout=$'a\nb' \
	    -- true
	[ "$stderr" = "retry: invalid --stop-if-stdout: a fixed string cannot contain a newline; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --stop-if-stderr=$'a\nb' -- true
	[ "$stderr" = "retry: invalid --stop-if-stderr: an ERE cannot contain a newline; try 'retry --help'" ]
	# -F: what an ERE refuses is a string like any other.
	run -0 --separate-stderr "$RETRY" -n 1 -F --retry-if-stderr='a\1(' \
	    -- true
	[ "$stderr" = "" ]
}

@test "the 16 conditions of a kind are shared by its three forms" {
	local args=() i
	for ((i = 0; i < 8; i++)); do
		args+=("--retry-if-stdout=o$i" "--retry-if-stderr=e$i")
	done
	run -0 --separate-stderr "$RETRY" -n 1 "${args[@]}" -- true
	[ "$stderr" = "" ]
	run -125 --separate-stderr "$RETRY" -n 1 "${args[@]}" \
	    --retry-if-output=x -- true
	[ "$stderr" = "retry: invalid --retry-if-output 'x': too many, the limit is 16; try 'retry --help'" ]
	# Another kind has its own 16.
	run -0 --separate-stderr "$RETRY" -n 1 "${args[@]}" \
	    --stop-if-stderr=x -- true
}

@test "RETRY_OPTIONS: a condition of a kind in argv replaces that kind's, whatever the stream" {
	RETRY_OPTIONS='--retry-if-output=boom -F' run -0 --separate-stderr \
	    "$RETRY" -n 1 --retry-if-stdout=boom -- sh -c "$ERR_ONLY" boom
	[ "$stderr" = "boom" ]
	RETRY_OPTIONS='--retry-if-output=b.om -F' run -0 --separate-stderr \
	    "$RETRY" -n 1 -- sh -c "$ERR_ONLY" boom
	[ "$stderr" = "boom" ]
	RETRY_OPTIONS='--retry-if-stderr=b.om' run -1 --separate-stderr \
	    "$RETRY" -n 1 -q -- sh -c "$ERR_ONLY" boom
	[ "$stderr" = "boom" ]
}

@test "binary stderr: a NUL ends what is matched of a line, bytes pass unchanged" {
	printf 'ab\0err\n\xff\xfeerr\n' >"$WORK/bin"
	run -1 --separate-stderr "$RETRY" -n 1 -q -F --retry-if-stderr=err \
	    -- sh -c 'cat "$0" >&2' "$WORK/bin"
	run -0 --separate-stderr "$RETRY" -n 1 -q -F --retry-if-stderr=err \
	    -- sh -c 'head -c 6 "$0" >&2' "$WORK/bin"
	"$RETRY" -n 1 -q -F --retry-if-stderr=zz -- sh -c 'cat "$0" >&2' \
	    "$WORK/bin" 2>"$WORK/got"
	cmp "$WORK/bin" "$WORK/got"
}

@test "--dry-run lists the conditions, strongest first, each on its streams" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
	    --retry-if-output=busy --stop-if-stderr=$'No\x1b such' \
	    --success-if-stdout='^ok$' -- true
	[ "${lines[3]}" = "# --success-if-stdout='^ok\$': an attempt with a line on stdout that matches is a success" ]
	[ "${lines[4]}" = "# --stop-if-stderr='No\\e such': an attempt with a line on stderr that matches is not retried" ]
	[ "${lines[5]}" = "# --retry-if-output='busy': an attempt with a line on stdout or stderr that matches is retried" ]
	[ "${#lines[@]}" -eq 6 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 -F \
	    --retry-if-stderr='[x]' -- true
	[ "${lines[3]}" = "# --retry-if-stderr='[x]' (-F): an attempt with a line on stderr that contains it is retried" ]
	run -125 --separate-stderr "$RETRY" --dry-run --retry-if-stderr='(' \
	    -- true
	[[ $stderr == "retry: invalid --retry-if-stderr '(': "* ]]
}

@test "-F and RETRY_OPTIONS: the variable's conditions are checked as it reads them" {
	RETRY_OPTIONS='--retry-if-output=(' run -125 --separate-stderr \
	    "$RETRY" -F -n 1 -- true
	[ "$stderr" = "retry: RETRY_OPTIONS: invalid --retry-if-output '(': Unmatched ( or \\(; try 'retry --help'" ]
	RETRY_OPTIONS='-F --retry-if-output=(' run -1 --separate-stderr \
	    "$RETRY" -n 1 -q -- sh -c 'echo "(" >&2'
	[ "$stderr" = "(" ]
	# -F on the command line makes the variable's condition literal.
	RETRY_OPTIONS='--retry-if-output=a.c' run -0 --separate-stderr \
	    "$RETRY" -F -n 1 -q -- echo abc
	[ "$output" = "abc" ]
	[ "$stderr" = "" ]
}
