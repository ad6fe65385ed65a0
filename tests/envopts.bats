#!/usr/bin/env bats
# RETRY_OPTIONS: options read before the command line, split as sh(1)
# splits words but without any expansion; the command line wins where
# both set something, a LIST on the command line replaces the variable's
# unless it starts with +, and what makes no sense there is refused with
# an error that names the variable.  --verbose and --dry-run show the
# words taken from it.

load helpers/common
load helpers/core
load helpers/attempts

setup() {
	common_setup
	unset RETRY_OPTIONS
}

# renv VALUE ARG...: retry with RETRY_OPTIONS=VALUE, as quick() runs it.
renv() {
	local value=$1
	shift
	RETRY_OPTIONS=$value quick "$@"
}

# env_error VALUE MESSAGE: retry refuses VALUE with that message, 125.
env_error() {
	RETRY_OPTIONS=$1 run -125 --separate-stderr "$RETRY" -- true
	usage_error "RETRY_OPTIONS: $2"
}

@test "RETRY_OPTIONS: its options apply, the command line's win" {
	renv '-n 3 -b 1ms -j none' -- false
	[ "$status" -eq 1 ]
	expect_stderr "$(failed 1 3 "exit 1" 0.001s)" \
	    "$(failed 2 3 "exit 1" 0.002s)" \
	    "retry: giving up after 3 attempts in Ts: exit 1 (no attempts left)"
	renv '-n 3 -b 1ms -j none' -n 2 -b 5ms -- false
	[ "$status" -eq 1 ]
	expect_stderr "$(failed 1 2 "exit 1" 0.005s)" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)"
}

@test "RETRY_OPTIONS: unset, empty or blank changes nothing" {
	local value want
	quick --dry-run --seed 3
	quiet_success
	want=$output
	for value in '' ' ' $'\t\n  '; do
		renv "$value" --dry-run --seed 3
		quiet_success
		[ "$output" = "$want" ]
	done
}

@test "RETRY_OPTIONS: quotes and backslashes as in sh, nothing expanded" {
	cd "$WORK"
	# The literal name "$HOME x": no $ expansion, one word.
	# shellcheck disable=SC2016
	renv '--log-file="$HOME x" -n 2 -b 1ms' -- false
	[ "$status" -eq 1 ]
	[ "$stderr" = "" ]
	[ "$(grep -c 'giving up' "$WORK/\$HOME x")" -eq 1 ]
	renv "-n 2 -b 1ms --log-file='l *' --on-give-up=echo\\ \\'~\\'" -- false
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	# The hook got echo '~': its output goes to stderr, the log to l *.
	[ "$stderr" = "~" ]
	[ "$(grep -c 'giving up' "$WORK/l *")" -eq 1 ]
	# Inside double quotes a backslash escapes only \ " $ ` and newline.
	renv '-n 1 --log-file="a\\b\$c\"" --json-log="j\y"' -- false
	[ "$status" -eq 1 ]
	[ "$stderr" = "" ]
	[ "$(grep -c 'giving up' "$WORK/a\\b\$c\"")" -eq 1 ]
	[ "$(grep -c '"event":"summary"' "$WORK/j\\y")" -eq 1 ]
}

@test "RETRY_OPTIONS: a backslash-newline joins lines, as in sh, even before blanks" {
	local want
	renv '-n 2 -b 1ms' --dry-run --seed 3
	quiet_success
	want=$output
	# A value continued over lines, indented: the words are -n 2 -b 1ms,
	# no empty word between them; nor after a continuation at the end.
	renv $'-n 2 \\\n    -b 1ms' --dry-run --seed 3
	quiet_success
	[ "$output" = "$want" ]
	renv $'-n 2 -b 1ms \\\n' --dry-run --seed 3
	quiet_success
	[ "$output" = "$want" ]
}

@test "RETRY_OPTIONS: a quote left open or a last backslash is an error" {
	env_error "-n 2 '-b 1s" "unterminated single quote"
	env_error '-n 2 "-b 1s' "unterminated double quote"
	# shellcheck disable=SC1003 # a backslash at the end, on purpose
	env_error '-n 2 \' "it ends with a backslash"
}

@test "RETRY_OPTIONS: an error in a value or an option names the variable" {
	env_error "-n x" "invalid --attempts 'x': expected a whole number of at least 1, or inf"
	env_error "-b '1 ms'" "invalid --base '1 ms': unknown unit (use ns, us, ms, s, m, h or d)"
	env_error "--bogus" "unknown option '--bogus'"
	env_error "-n" "option '-n' needs a value"
	env_error "--dry-run=1" "option '--dry-run' takes no value"
	# The command line's own errors do not.
	RETRY_OPTIONS='-n 2' run -125 --separate-stderr "$RETRY" -n x true
	usage_error "invalid --attempts 'x': expected a whole number of at least 1, or inf"
}

# env_argv_error VALUE MESSAGE ARG...: with the command line ARG... and
# the command true, retry refuses VALUE with that message, 125.
env_argv_error() {
	local value=$1 message=$2
	shift 2
	RETRY_OPTIONS=$value run -125 --separate-stderr "$RETRY" "$@" -- true
	usage_error "$message"
}

@test "RETRY_OPTIONS: errors found after the words were read name the variable too" {
	env_error "--retry-if-output=(" \
	    "invalid --retry-if-output '(': Unmatched ( or \\("
	env_error "--stop-if-output='a{3,2}'" \
	    "invalid --stop-if-output 'a{3,2}': Invalid content of \\{\\}"
	env_error "-r http:503" \
	    "--retry-on names HTTP statuses, which need --http=FILE to be read"
	env_error "-b 5s -c 1s" "invalid --cap '1s': below --base '5s'"
	env_error "--until-failure --budget=x" "--until-failure and --budget cannot be combined: it stops at the first failure, so nothing is retried"
	# With the other half on the command line, the variable's half.
	env_argv_error "-c 1s" \
	    "invalid --cap '1s' (in RETRY_OPTIONS): below --base '5s'" -b 5s
	env_argv_error "-b 5s" \
	    "invalid --cap '1s': below --base '5s' (in RETRY_OPTIONS)" -c 1s
	env_argv_error "--preset=aws" "invalid --cap '1ms': below the base of --preset=aws (in RETRY_OPTIONS), 0.050s" -c 1ms
	env_argv_error "--budget=x" "--until-failure and --budget (in RETRY_OPTIONS) cannot be combined: it stops at the first failure, so nothing is retried" --until-failure
	env_argv_error "--until-failure" "--until-failure (in RETRY_OPTIONS) and --breaker cannot be combined: it stops at the first failure, so nothing is retried" --breaker=x
	# --http=FILE on the command line serves the variable's LIST too.
	RETRY_OPTIONS="-r http:503" run -0 --separate-stderr "$RETRY" \
	    --http=/dev/null -- true
	[ -z "$stderr" ]
}

@test "RETRY_OPTIONS: every word is checked, even one the command line replaces" {
	env_argv_error "--retry-if-output=(" "RETRY_OPTIONS: invalid --retry-if-output '(': Unmatched ( or \\(" --retry-if-output=x
	env_argv_error "--success-if-output='a\\'" "RETRY_OPTIONS: invalid --success-if-output 'a\\': Trailing backslash" --success-if-output=x
	env_argv_error "-r http:503" "RETRY_OPTIONS: --retry-on names HTTP statuses, which need --http=FILE to be read" -r 1
	# As -n 0 always was.
	env_argv_error "-n 0" "RETRY_OPTIONS: invalid --attempts '0': expected a whole number of at least 1, or inf" -n 2
	# A valid replaced ERE is not used.
	renv "-n 2 -b 1ms -j none --stop-if-output=foo" --stop-if-output=bar \
	    -- sh -c 'echo foo; exit 1'
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "RETRY_OPTIONS: a command, --, --help, --version, --preset=list and --dry-run are refused" {
	env_error "-n 2 make test" "'make' is not an option: the command goes on the command line"
	env_error "-n 2 --" "'--' is not allowed there: the command goes on the command line"
	env_error "-- make" "'--' is not allowed there: the command goes on the command line"
	env_error "--help" "--help is not allowed there"
	env_error "-h" "--help is not allowed there"
	env_error "-V" "--version is not allowed there"
	env_error "--preset=list" "--preset=list is not allowed there"
	env_error "--dry-run" "--dry-run is not allowed there"
	# "--" as an option's value is a value.
	RETRY_OPTIONS="-n 1 --on-give-up --" run -1 --separate-stderr \
	    "$RETRY" -- false
	[ "${stderr_lines[0]}" != "" ]
	[[ $stderr == *"retry: giving up after 1 attempt in "* ]]
}

@test "RETRY_OPTIONS: --help and --preset=list on the command line still work" {
	RETRY_OPTIONS='-n 2' run -0 --separate-stderr "$RETRY" --help
	[ "$stderr" = "" ]
	[[ ${lines[0]} == "usage: retry "* ]]
	RETRY_OPTIONS='-n 2' run -0 --separate-stderr "$RETRY" --preset=list
	[ "$stderr" = "" ]
	[[ ${lines[0]} == "aws "* ]]
}

@test "RETRY_OPTIONS: a LIST on the command line replaces the variable's, + adds to it" {
	local opts='-n 2 -b 1ms -j none -x 3'
	# The variable's -x 3 alone.
	renv "$opts" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 3 (not retried)"
	# -x 4 replaces it: 3 is retried again.
	renv "$opts" -x 4 -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	expect_stderr "$(failed 1 2 "exit 3" 0.001s)" \
	    "retry: giving up after 2 attempts in Ts: exit 3 (no attempts left)"
	# -x +4 adds to it: both are not retried.
	renv "$opts" -x +4 -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 3 (not retried)"
	renv "$opts" -x +4 -- sh -c 'exit 4'
	[ "$status" -eq 4 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 4 (not retried)"
	# --success-on and -r alike.
	renv '-n 2 -b 1ms --success-on=5' --success-on=+6 -- sh -c 'exit 5'
	[ "$status" -eq 5 ]
	[ "$stderr" = "" ]
	renv '-n 2 -b 1ms -j none -r 5' -r 6 -- sh -c 'exit 5'
	[ "$status" -eq 5 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 5 (not retried)"
}

@test "RETRY_OPTIONS: an output condition on the command line replaces the variable's of its kind" {
	local opts='-n 2 -b 1ms -j none --stop-if-output=foo'
	renv "$opts" -- sh -c 'echo foo; exit 1'
	[ "$status" -eq 1 ]
	[ "$output" = "foo" ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 1, output matched 'foo' (not retried)"
	renv "$opts" --stop-if-output=bar -- sh -c 'echo foo; exit 1'
	[ "$status" -eq 1 ]
	expect_stderr "$(failed 1 2 "exit 1" 0.001s)" \
	    "retry: giving up after 2 attempts in Ts: exit 1 (no attempts left)"
	# Another kind keeps the variable's.
	renv "$opts" --retry-if-output=bar -- sh -c 'echo foo; exit 1'
	[ "$status" -eq 1 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 1, output matched 'foo' (not retried)"
}

@test "RETRY_OPTIONS: a preset goes first, the command line's if both name one" {
	renv '--preset=aws' --dry-run --seed 1 -n 2
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = "- 0.050 " ]
	# The variable's -b overrides a preset named on the command line.
	renv '-b 2s' --dry-run --seed 1 -n 2 --preset=aws
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = "- 2.000 " ]
	renv '--preset=aws' --dry-run --seed 1 -n 2 --preset=aws-throttle
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = "- 1.000 " ]
}

@test "RETRY_OPTIONS: --verbose and --dry-run show the words taken from it" {
	RETRY_OPTIONS="-n 1 --on-give-up='echo \"\$HOME\" *' -v" run -1 \
	    --separate-stderr "$RETRY" -- false
	[ "${stderr_lines[0]}" = \
	    "retry: options from RETRY_OPTIONS: -n 1 '--on-give-up=echo \"\$HOME\" *' -v" ]
	renv "-n 2 -b 1ms --log-file=it\\'s" --dry-run --seed 1
	quiet_success
	[ "${lines[-1]}" = \
	    "# options from RETRY_OPTIONS: -n 2 -b 1ms '--log-file=it'\\''s'" ]
	# Not without -v.
	renv "-n 1" -- false
	[ "$status" -eq 1 ]
	expect_stderr \
	    "retry: giving up after 1 attempt in Ts: exit 1 (no attempts left)"
}
