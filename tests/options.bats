#!/usr/bin/env bats
# The command line.  Every option of the core tool, its forms and
# its bad values: exit 125 and one exact line that names the option and
# the value.  Durations have their own suite, duration.bats.

load helpers/common
load helpers/core

setup() {
	common_setup
}

@test "--help and -h print the usage to stdout and exit 0" {
	run -0 --separate-stderr "$RETRY" --help
	[ -z "$stderr" ]
	[ "${lines[0]}" = "usage: retry [options] [--] command [argument ...]" ]
	[ "${lines[1]}" = \
	    "       retry --dry-run [options] [[--] command ...]" ]
	local help=$output opt
	# shellcheck disable=SC2258 # "-n," is what --help shows
	for opt in -n, --attempts= -b, --base= -f, --factor= -c, --cap= \
	    -j, --jitter= --splay= --seed= -r, --retry-on= -x, --stop-on= \
	    --success-on= --dry-run -q, --quiet -v, --verbose -h, --help \
	    -V, --version; do
		[[ $help == *" $opt"* ]] || { echo "no $opt in --help"; false; }
	done
	run -0 --separate-stderr "$RETRY" -h
	[ -z "$stderr" ]
	[ "$output" = "$help" ]
}

@test "--help shows the defaults of the contract" {
	run -0 --separate-stderr "$RETRY" --help
	[ -z "$stderr" ]
	[[ $output =~ --attempts=N[^$'\n']*\[5\] ]]
	[[ $output =~ --base=DURATION[^$'\n']*\[1s\] ]]
	[[ $output =~ --factor=X[^$'\n']*\[2\] ]]
	[[ $output =~ --cap=DURATION[^$'\n']*\[60s,\ or\ --base\ if\ larger\] ]]
	[[ $output =~ --splay=DURATION[^$'\n']*\[0\] ]]
	[[ $output =~ --jitter=MODE\ +none\|full\|equal\|decorrelated\|A\.\.B\|\+DURATION\ +\[full\] ]]
}

@test "--help wins over the options after it and runs nothing" {
	run -0 --separate-stderr "$RETRY" --help -n 3 touch "$WORK/ran"
	[ -z "$stderr" ]
	[ "${lines[0]}" = "usage: retry [options] [--] command [argument ...]" ]
	[ ! -e "$WORK/ran" ]
}

@test "--version and -V print the version to stdout and exit 0" {
	run -0 --separate-stderr "$RETRY" --version
	[ -z "$stderr" ]
	[[ $output =~ ^retry\ [0-9]+\.[0-9]+\.[0-9]+\ \(retry-backoff:\ exponential\ backoff\ and\ jitter\)$ ]]
	local version=$output
	run -0 --separate-stderr "$RETRY" -V
	[ -z "$stderr" ]
	[ "$output" = "$version" ]
}

# Before, --version failed in silence and --help, past its first buffer,
# exited 0 with SIGPIPE ignored.
@test "--help, --version, --preset=list: stdout errors as --dry-run's" {
	local opt
	for opt in --help --version --preset=list; do
		run -125 --separate-stderr sh -c '"$0" "$1" >/dev/full' \
		    "$RETRY" "$opt"
		[ "$stderr" = "retry: standard output: No space left on device" ]
		run -0 --separate-stderr closed_pipe "$WSTATUS" "$WORK/ws" \
		    "$RETRY" "$opt"
		[ "$stderr" = "" ]
		[ "$(cat "$WORK/ws")" = "signal 13" ]
		run -0 --separate-stderr closed_pipe "$WSTATUS" -i 13 \
		    "$WORK/ws" "$RETRY" "$opt"
		[ "$stderr" = "retry: standard output: Broken pipe" ]
		[ "$(cat "$WORK/ws")" = "exit 125" ]
	done
}

@test "no command is a usage error" {
	run -125 --separate-stderr "$RETRY"
	usage_error "no command given"
	run -125 --separate-stderr "$RETRY" -n 3 --
	usage_error "no command given"
}

@test "an unknown option is a usage error" {
	run -125 --separate-stderr "$RETRY" --bogus true
	usage_error "unknown option '--bogus'"
	run -125 --separate-stderr "$RETRY" --bogus=1 true
	usage_error "unknown option '--bogus=1'"
	run -125 --separate-stderr "$RETRY" -Z true
	usage_error "unknown option '-Z'"
	run -125 --separate-stderr "$RETRY" -qZ true
	usage_error "unknown option '-Z'"
}

@test "an unknown letter at the start of a cluster is named, not the option before" {
	run -125 --separate-stderr "$RETRY" --dry-run -Zq
	usage_error "unknown option '-Z'"
	run -125 --separate-stderr "$RETRY" --seed=1 -Zq true
	usage_error "unknown option '-Z'"
}

@test "a value given to an option that takes none is a usage error" {
	run -125 --separate-stderr "$RETRY" --dry-run=yes
	usage_error "option '--dry-run' takes no value"
	run -125 --separate-stderr "$RETRY" --quiet=1 true
	usage_error "option '--quiet' takes no value"
	run -125 --separate-stderr "$RETRY" --help=all
	usage_error "option '--help' takes no value"
}

@test "an option without its value is a usage error" {
	local opt
	for opt in n b f c j r x; do
		quick "-$opt"
		usage_error "option '-$opt' needs a value"
	done
	for opt in attempts base factor cap jitter splay seed retry-on \
	    stop-on success-on; do
		quick "--$opt"
		usage_error "option '--$opt' needs a value"
	done
	run -125 --separate-stderr "$RETRY" --dry-run -qn
	usage_error "option '-n' needs a value"
}

@test "an option takes the next word as its value, even one like an option" {
	run -125 --separate-stderr "$RETRY" -n --dry-run
	usage_error "invalid --attempts '--dry-run': expected a whole number of at least 1, or inf"
}

@test "the first bad option is the one reported" {
	run -125 --separate-stderr "$RETRY" -n 0 -b x -f 0 true
	usage_error "invalid --attempts '0': expected a whole number of at least 1, or inf"
}

@test "--attempts: short, long, attached and separate forms" {
	local form
	for form in "-n3" "-n 3" "--attempts=3" "--attempts 3"; do
		# shellcheck disable=SC2086
		quick --dry-run -b 0 $form
		quiet_success
		[ "$(table_rows | wc -l)" -eq 3 ]
	done
}

@test "--attempts: bad values" {
	local v why="expected a whole number of at least 1, or inf"
	for v in 0 -1 -0 +3 x 1.5 1e3 '' ' 3' '3 ' 3x 0x10 INF infinity +inf nan \
	    9223372036854775808; do
		bad_value attempts "$v" "$why"
	done
	run -125 --separate-stderr "$RETRY" -n0 true
	usage_error "invalid --attempts '0': $why"
}

@test "--attempts: 1 runs the command once, inf is unlimited" {
	run -1 --separate-stderr "$RETRY" -n 1 -b 0 \
	    sh -c 'echo x >>"$WORK/count"; exit 1'
	giving_up "$stderr" 1 "exit 1" "no attempts left"
	[ "$(wc -l <"$WORK/count")" -eq 1 ]
	rm "$WORK/count"
	run -0 --separate-stderr "$RETRY" -q -n inf -b 0 \
	    sh -c 'echo x >>"$WORK/count"; [ "$RETRY_ATTEMPT" -ge 30 ]'
	[ -z "$stderr" ]
	[ "$(wc -l <"$WORK/count")" -eq 30 ]
}

@test "--attempts accepts leading zeros and the largest whole number" {
	run -0 --separate-stderr "$RETRY" --dry-run -b 0 -n 003
	[ -z "$stderr" ]
	[ "$(table_rows | wc -l)" -eq 3 ]
	run -0 --separate-stderr "$RETRY" -n 9223372036854775807 sh -c \
	    'echo "$RETRY_MAX_ATTEMPTS"'
	[ -z "$stderr" ]
	[ "$output" = 9223372036854775807 ]
}

@test "--factor: bad values" {
	bad_value factor 0.5 "the factor must be at least 1"
	bad_value factor 0 "the factor must be at least 1"
	bad_value factor 0.999999 "the factor must be at least 1"
	bad_value factor 1e-1 "the factor must be at least 1"
	bad_value factor 1e400 "number out of range"
	local v
	for v in -2 '' x inf nan 0x2 +2 .5 2x ' 2' 2,5 1e 1e+; do
		case $v in
		1e | 1e+) bad_value factor "$v" "expected digits in the exponent" ;;
		*) bad_value factor "$v" "expected a decimal number" ;;
		esac
	done
	bad_value factor 2. "expected digits after the decimal point"
}

@test "--factor: decimals and exponents" {
	local f w
	for f in 1 1.5 3 1e0 15e-1 0.15e1 1.5E+0 2.50; do
		quick --dry-run -n 4 -j none -b 1s -f "$f"
		quiet_success
		w=$(awk -v f="$f" 'BEGIN { printf "%.3f", f * f }')
		[ "$(cell 4 2)" = "$w" ]
	done
}

@test "--cap: below --base is an error, equal is fine" {
	run -125 --separate-stderr "$RETRY" --dry-run -b 2s -c 1s
	usage_error "invalid --cap '1s': below --base '2s'"
	run -125 --separate-stderr "$RETRY" --dry-run -c 1ms -b 1001us
	usage_error "invalid --cap '1ms': below --base '1001us'"
	run -125 --separate-stderr "$RETRY" --dry-run -c 500ms
	usage_error "invalid --cap '500ms': below --base '1s'"
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 -j none -b 2s -c 2s
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = "- 2.000 2.000 " ]
}

@test "--cap: the default of 60s is raised to a larger --base" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 -j none -b 90s
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = "- 90.000 90.000 " ]
	run -0 --separate-stderr "$RETRY" --dry-run -n 9 -j none -b 1s
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = \
	    "- 1.000 2.000 4.000 8.000 16.000 32.000 60.000 60.000 " ]
}

@test "--cap: the order of --cap and --base does not matter" {
	run -125 --separate-stderr "$RETRY" --dry-run -c 1s -b 2s
	usage_error "invalid --cap '1s': below --base '2s'"
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 -j none -c 5s -b 3s
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = "- 3.000 5.000 " ]
}

@test "--cap and --splay: bad durations" {
	bad_value cap -1s "negative duration"
	bad_value cap '' "empty duration"
	bad_value cap 1x "unknown unit (use ns, us, ms, s, m, h or d)"
	bad_value splay -1 "negative duration"
	bad_value splay inf "expected a number"
	bad_value splay 1m30 "a number inside a compound needs a unit"
	bad_value splay 36526d "too large (the limit is 100 years)"
}

@test "--jitter: every mode is accepted" {
	local j
	for j in none full equal decorrelated 0.5..1.5 1..2 0..0 1e0..2e0 \
	    +1s +0 +500ms +1m30s; do
		quick --dry-run -n 2 -j "$j"
		quiet_success
		[ "$(table_rows | wc -l)" -eq 2 ]
	done
}

@test "--jitter: bad values" {
	local why="expected none, full, equal, decorrelated, A..B or +DURATION"
	local v
	for v in '' foo FULL None 'full ' 1 1.5 '-1' 'decorrelated,full'; do
		bad_value jitter "$v" "$why"
	done
	bad_value jitter 2..1 "in A..B, A must not exceed B"
	bad_value jitter 1.5..0.5 "in A..B, A must not exceed B"
	bad_value jitter ..1 "expected a decimal number"
	bad_value jitter 1.. "expected a decimal number"
	bad_value jitter -1..2 "expected a decimal number"
	bad_value jitter 0..-1 "expected a decimal number"
	bad_value jitter 0..inf "expected a decimal number"
	bad_value jitter nan..1 "expected a decimal number"
	bad_value jitter 0x1..2 "expected a decimal number"
	bad_value jitter 1..2..3 "expected digits after the decimal point"
	bad_value jitter 0..1e400 "number out of range"
	bad_value jitter + "empty duration"
	bad_value jitter +x "expected a number"
	bad_value jitter +-1s "negative duration"
	bad_value jitter +inf "expected a number"
	bad_value jitter +1m30 "a number inside a compound needs a unit"
	bad_value jitter +36526d "too large (the limit is 100 years)"
}

@test "--seed: bad values" {
	local v why="expected a whole number from 0 to 9223372036854775807"
	for v in -1 -0 +1 ' 1' x '' 1.5 1e3 0x10 9223372036854775808 \
	    99999999999999999999; do
		bad_value seed "$v" "$why"
	done
}

@test "--seed: 0 and the largest value are accepted" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 0
	[ -z "$stderr" ]
	run -0 --separate-stderr "$RETRY" --dry-run --seed 9223372036854775807
	[ -z "$stderr" ]
}

@test "--retry-on, --stop-on, --success-on: good lists" {
	local opt list
	for list in 0 255 1-125 0-255 75,1-3,200 TERM SIGKILL term sigSegv \
	    usr1 rtmin rtmin+1 rtmax-1 timeout 1,SEGV,timeout 007 3-3; do
		quick --dry-run -n 1 "--retry-on=$list"
		quiet_success
	done
	for opt in stop-on success-on; do
		for list in 1-125,SIGTERM,timeout 0; do
			quick --dry-run -n 1 "--$opt=$list"
			quiet_success
		done
	done
}

@test "--retry-on, --stop-on, --success-on: bad lists" {
	local opt
	local range="a range is two exit codes from 0 to 255, such as 1-125"
	local http="expected http:NNN or http:Nxx, such as http:503"
	for opt in retry-on stop-on success-on; do
		bad_value "$opt" 256 "item '256': exit codes go from 0 to 255"
		bad_value "$opt" '' "empty list"
		bad_value "$opt" + "empty list"
		bad_value "$opt" foo "unknown item 'foo'"
		bad_value "$opt" +foo "unknown item 'foo'"
	done
	opt=retry-on
	# The error names the item it rejects.
	bad_value "$opt" KILL,sig9 "unknown item 'sig9'"
	bad_value "$opt" 1,300 "item '300': exit codes go from 0 to 255"
	bad_value "$opt" -1 "unknown item '-1'"
	bad_value "$opt" 5-3 "item '5-3': a range must not go downwards"
	bad_value "$opt" 1- "item '1-': $range"
	bad_value "$opt" 1-256 "item '1-256': $range"
	bad_value "$opt" 1-x "item '1-x': $range"
	bad_value "$opt" 1-2-3 "item '1-2-3': $range"
	bad_value "$opt" 1, "empty item in list"
	bad_value "$opt" ,1 "empty item in list"
	bad_value "$opt" 1,,2 "empty item in list"
	bad_value "$opt" ++1 "unknown item '+1'"
	bad_value "$opt" 1,+2 "unknown item '+2'"
	bad_value "$opt" SIGFOO "unknown item 'SIGFOO'"
	bad_value "$opt" 'TERM ' "unknown item 'TERM ' (spaces are not allowed in a list)"
	bad_value "$opt" Timeout "unknown item 'Timeout'"
	bad_value "$opt" 1x "item '1x': exit codes go from 0 to 255"
	bad_value "$opt" "$(printf 'x%.0s' {1..70})" \
	    "item 'xxxxxxxxxxxxxxxxxxxx...' is too long"
	# HTTP statuses: final ones only, 200 to 599.
	bad_value "$opt" http:199 "item 'http:199': HTTP statuses go from 200 to 599"
	bad_value "$opt" http:600 "item 'http:600': HTTP statuses go from 200 to 599"
	bad_value "$opt" http:1xx "item 'http:1xx': HTTP statuses go from 200 to 599"
	bad_value "$opt" http:6xx "item 'http:6xx': HTTP statuses go from 200 to 599"
	bad_value "$opt" http:50 "item 'http:50': $http"
	bad_value "$opt" http:5030 "item 'http:5030': $http"
	bad_value "$opt" http:5x "item 'http:5x': $http"
	bad_value "$opt" http:5x0 "item 'http:5x0': $http"
	bad_value "$opt" http: "item 'http:': $http"
	bad_value "$opt" http:500-504 "item 'http:500-504': $http"
	bad_value "$opt" http503 "unknown item 'http503'"
}

@test "every option with a value takes it attached or as the next word" {
	local opt
	for opt in attempts base factor cap jitter splay seed retry-on \
	    stop-on success-on; do
		quick --dry-run "--$opt" nonsense
		[ "$status" -eq 125 ]
		[[ $stderr == "retry: invalid --$opt 'nonsense': "*"$HINT" ]]
		quick --dry-run "--$opt=nonsense"
		[ "$status" -eq 125 ]
		[[ $stderr == "retry: invalid --$opt 'nonsense': "*"$HINT" ]]
	done
	for opt in n b f c j r x; do
		quick --dry-run "-$opt" nonsense
		[ "$status" -eq 125 ]
		[[ $stderr == "retry: invalid --"*" 'nonsense': "*"$HINT" ]]
		quick --dry-run "-${opt}nonsense"
		[ "$status" -eq 125 ]
		[[ $stderr == "retry: invalid --"*" 'nonsense': "*"$HINT" ]]
	done
}

@test "option parsing stops at the first non-option" {
	run -0 --separate-stderr "$RETRY" -n 1 printf '%s|' -q --help -n 0
	[ -z "$stderr" ]
	[ "$output" = "-q|--help|-n|0|" ]
}

@test "-- ends the options, so a command may start with a dash" {
	run -0 --separate-stderr "$RETRY" -n 1 -- printf '%s|' -- -x
	[ -z "$stderr" ]
	[ "$output" = "--|-x|" ]
	run -127 --separate-stderr "$RETRY" -n 1 -- --bogus
	[ "$stderr" = "retry: cannot run --bogus: No such file or directory
retry: giving up after 1 attempt in ${stderr##* in }" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
}

@test "the command is found on PATH and run without a shell" {
	mkdir "$WORK/bin"
	printf '#!/bin/sh\necho "mine: $*"\n' >"$WORK/bin/mycmd"
	chmod +x "$WORK/bin/mycmd"
	PATH=$WORK/bin:$PATH run -0 --separate-stderr "$RETRY" -n 1 mycmd 'a b' '$HOME'
	[ -z "$stderr" ]
	[ "$output" = 'mine: a b $HOME' ]
	# One word with a blank, whose first part is a command: a shell's
	# command line.  The message says that no shell runs it.
	run -127 --separate-stderr "$RETRY" -n 1 'echo hi'
	[ "${stderr_lines[0]}" = "retry: cannot run echo hi: No such file or directory (the command is not run through a shell: give it and its arguments as separate words)" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
	[ "${#stderr_lines[@]}" -eq 2 ]
}

@test "Debian's retry spellings are refused naming the option here (issue 38)" {
	local w words bad said
	# The values given are carried over when they mean the same here.
	for w in "-d 1,2,4:-d:--delays=1s,2s,4s" "-d30:-d:--delays=30s" \
	    "-d soon:-d:--delays" "-d 0.5,1m:-d:--delays" "--times 3:--times:-n 3" \
	    "--times=3:--times=3:-n 3" "--times x:--times:-n, --attempts" \
	    "-u success:-u:the default\x3a no option" \
	    "-u 0,3-5:-u:--success-on=0,3-5" "-u fail:-u:--until-failure" \
	    "--until=false:--until=false:--until-failure" \
	    "--until:--until:--until-failure, or --success-on" \
	    "-w 1-5:-w:-r 1-5" "--while x:--while:-r, --retry-on" \
	    "-w fail:-w:the default\x3a no option"; do
		IFS=: read -r words bad said <<<"$w"
		said=$(printf '%b' "$said")
		# shellcheck disable=SC2086
		run -125 --separate-stderr "$RETRY" $words -- true
		[ "$output" = "" ]
		[ "$stderr" = "retry: unknown option '$bad' (Debian's retry? here: $said); try 'retry --help'" ]
	done
	# Other unknown options get no hint; --until-failure still works.
	run -125 --separate-stderr "$RETRY" -Z -- true
	[ "$stderr" = "retry: unknown option '-Z'; try 'retry --help'" ]
	run -0 --separate-stderr "$RETRY" --until-failure -n 2 -b 0 -- true
}

@test "--preset=list with a command is refused (issue 38)" {
	run -125 --separate-stderr "$RETRY" --preset=list -- true
	[ "$output" = "" ]
	[ "$stderr" = "retry: --preset=list prints the presets: it runs no command; try 'retry --help'" ]
	run -0 --separate-stderr "$RETRY" --preset=list
	[ -n "$output" ]
	[ "$stderr" = "" ]
}

@test "a space in a LIST: the error says spaces are not allowed (issue 38)" {
	run -125 --separate-stderr "$RETRY" -r '1, 2' -- true
	[ "$stderr" = "retry: invalid --retry-on '1, 2': unknown item ' 2' (spaces are not allowed in a list); try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --delays='1s, 2s' -- true
	[ "$stderr" = "retry: invalid --delays '1s, 2s': value 2: expected a number (spaces are not allowed in a list); try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" -r 'x' -- true
	[ "$stderr" = "retry: invalid --retry-on 'x': unknown item 'x'; try 'retry --help'" ]
}
