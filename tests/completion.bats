#!/usr/bin/env bats
# The bash, zsh and fish completions, asked for real in each shell: bash
# runs _retry with bash-completion loaded (tests/helpers/compl-bash), zsh
# completes in a pseudo-terminal (compl-zsh), fish answers complete -C
# (compl-fish).  A shell that is not installed has its tests skipped
# (require_tool).

load helpers/common
load helpers/compl-common

setup_file() {
	make_zsh_dump
}

setup() {
	common_setup
	make_fake_command
}

SIGNALS=(HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM
	TERM STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF
	WINCH IO PWR SYS RTMIN RTMAX)

# after_eq SHELL --opt WORD...: the words as SHELL offers the values of
# --opt=...: fish repeats the option, bash and zsh give the value alone.
after_eq() {
	local sh=$1 opt=$2 w
	shift 2
	for w; do
		if [[ $sh == fish ]]; then
			printf '%s\n' "$opt=$w"
		else
			printf '%s\n' "$w"
		fi
	done
}

# An option as offered: bash ends one that takes a value with =.
long_opt() {
	case $1:$2 in
	bash:--foreground | bash:--dry-run | bash:--replay-stdin | \
	    bash:--hold-stdout | bash:--hold-stderr | bash:--fixed-strings | \
	    bash:--quiet | bash:--verbose | bash:--help | \
	    bash:--version | zsh:* | fish:*)
		printf '%s\n' "$2"
		;;
	*)
		printf '%s=\n' "$2"
		;;
	esac
}

check_options() {
	local sh=$1
	require_completion "$sh"
	complete_in "$sh" 'retry --jit'
	expect_exactly "$(long_opt "$sh" --jitter)"
	complete_in "$sh" 'retry --s'
	expect_exactly "$(long_opt "$sh" --splay)" "$(long_opt "$sh" --seed)" \
	    "$(long_opt "$sh" --stop-on)" "$(long_opt "$sh" --success-on)" \
	    "$(long_opt "$sh" --signal)" \
	    "$(long_opt "$sh" --stall-timeout)" \
	    "$(long_opt "$sh" --stop-if-output)" \
	    "$(long_opt "$sh" --stop-if-stdout)" \
	    "$(long_opt "$sh" --stop-if-stderr)" \
	    "$(long_opt "$sh" --success-if-output)" \
	    "$(long_opt "$sh" --success-if-stdout)" \
	    "$(long_opt "$sh" --success-if-stderr)"
	complete_in "$sh" 'retry -q --dr'
	expect_exactly --dry-run
	complete_in "$sh" 'retry --hold-'
	expect_exactly --hold-stdout --hold-stderr
	complete_in "$sh" 'retry -'
	expect_includes -n -E -F -I -O -q -v -h -V "$(long_opt "$sh" --attempts)" \
	    "$(long_opt "$sh" --log-file)" --foreground
}

@test "bash: options complete, long and short" {
	check_options bash
}

@test "zsh: options complete, long and short" {
	check_options zsh
}

@test "fish: options complete, long and short" {
	check_options fish
}

check_jitter() {
	local sh=$1 modes=(none full equal decorrelated) w
	local -a want
	require_completion "$sh"
	complete_in "$sh" 'retry -j '
	expect_exactly "${modes[@]}"
	complete_in "$sh" 'retry -n 3 --jitter='
	mapfile -t want < <(after_eq "$sh" --jitter "${modes[@]}")
	expect_exactly "${want[@]}"
	complete_in "$sh" 'retry --jitter=de'
	expect_exactly "$(after_eq "$sh" --jitter decorrelated)"
	complete_in "$sh" 'retry --jitter '
	expect_exactly "${modes[@]}"
	for w in "${modes[@]}"; do
		run -0 --separate-stderr "$RETRY" --dry-run -n 1 -j "$w"
		[ "$stderr" = "" ]
	done
}

@test "bash: the jitter modes complete" {
	check_jitter bash
}

@test "zsh: the jitter modes complete" {
	check_jitter zsh
}

@test "fish: the jitter modes complete" {
	check_jitter fish
}

check_signals() {
	local sh=$1
	require_completion "$sh"
	complete_in "$sh" 'retry -s '
	expect_exactly "${SIGNALS[@]}"
	complete_in "$sh" 'retry --signal=KI'
	expect_exactly "$(after_eq "$sh" --signal KILL)"
	complete_in "$sh" 'retry -s SIGK'
	if [[ $sh == zsh ]]; then
		expect_exactly KILL	# SIG stays on the line, out of the match
	else
		expect_exactly SIGKILL
	fi
	# Any case goes: zsh matches te to TERM, bash and fish keep the case.
	complete_in "$sh" 'retry -s te'
	if [[ $sh == zsh ]]; then
		expect_exactly TERM
	else
		expect_exactly term
	fi
}

@test "bash: signal names complete for --signal" {
	check_signals bash
}

@test "zsh: signal names complete for --signal" {
	check_signals zsh
}

@test "fish: signal names complete for --signal" {
	check_signals fish
}

check_lists() {
	local sh=$1 opt
	local -a want
	require_completion "$sh"
	for opt in -r -x; do
		complete_in "$sh" "retry $opt "
		expect_exactly "${SIGNALS[@]}" timeout
	done
	complete_in "$sh" 'retry --success-on='
	mapfile -t want < <(after_eq "$sh" --success-on "${SIGNALS[@]}" timeout)
	expect_exactly "${want[@]}"
	# The item after the last comma completes; zsh keeps the head on the
	# line, bash and fish offer whole words.
	complete_in "$sh" 'retry -r 1-125,TERM,I'
	if [[ $sh == zsh ]]; then
		expect_exactly INT ILL IO
	else
		expect_exactly 1-125,TERM,INT 1-125,TERM,ILL 1-125,TERM,IO
	fi
	complete_in "$sh" 'retry --stop-on=ti'
	expect_exactly "$(after_eq "$sh" --stop-on timeout)"
}

@test "bash: --retry-on, --stop-on and --success-on complete signals and timeout" {
	check_lists bash
}

@test "zsh: --retry-on, --stop-on and --success-on complete signals and timeout" {
	check_lists zsh
}

@test "fish: --retry-on, --stop-on and --success-on complete signals and timeout" {
	check_lists fish
}

check_values() {
	local sh=$1 opt want
	require_completion "$sh"
	complete_in "$sh" 'retry -n '
	expect_exactly inf
	complete_in "$sh" 'retry -q -k '
	expect_exactly inf
	complete_in "$sh" 'retry --kill-after=i'
	expect_exactly "$(after_eq "$sh" --kill-after inf)"
	complete_in "$sh" 'retry --log-format='
	expect_exactly "$(after_eq "$sh" --log-format text)" \
	    "$(after_eq "$sh" --log-format json)" \
	    "$(after_eq "$sh" --log-format github)"
	complete_in "$sh" 'retry --preset='
	mapfile -t want < <(after_eq "$sh" --preset aws aws-throttle \
	    aws-dynamodb aws-legacy google-http google-drive simpledb airflow \
	    kubernetes ethernet list)
	expect_exactly "${want[@]}"
	complete_in "$sh" 'retry --preset=aws-'
	mapfile -t want < <(after_eq "$sh" --preset aws-throttle aws-dynamodb \
	    aws-legacy)
	expect_exactly "${want[@]}"
	complete_in "$sh" 'retry -q --preset=goo'
	mapfile -t want < <(after_eq "$sh" --preset google-http google-drive)
	expect_exactly "${want[@]}"
	# A duration or a number has no fixed set: nothing, not command names.
	for opt in -b --base -f -c -t -m --splay --seed; do
		complete_in "$sh" "retry $opt "
		expect_exactly
	done
}

@test "bash: inf, log formats and presets complete; durations offer nothing" {
	check_values bash
}

@test "zsh: inf, log formats and presets complete; durations offer nothing" {
	check_values zsh
}

@test "fish: inf, log formats and presets complete; durations offer nothing" {
	check_values fish
}

check_log_file() {
	local sh=$1
	require_completion "$sh"
	mkdir "$WORK/logs"
	: >"$WORK/logs/run-a.log"
	: >"$WORK/logs/run-b.log"
	complete_in "$sh" "retry --log-file $WORK/logs/run-"
	case $sh in
	zsh) expect_exactly run-a.log run-b.log ;;
	*) expect_exactly "$WORK/logs/run-a.log" "$WORK/logs/run-b.log" ;;
	esac
	complete_in "$sh" "retry --log-file=$WORK/logs/run-b"
	case $sh in
	bash) expect_exactly "$WORK/logs/run-b.log" ;;
	zsh) expect_exactly run-b.log ;;
	fish) expect_exactly "--log-file=$WORK/logs/run-b.log" ;;
	esac
	complete_in "$sh" "retry --json-log=$WORK/logs/run-a"
	case $sh in
	bash) expect_exactly "$WORK/logs/run-a.log" ;;
	zsh) expect_exactly run-a.log ;;
	fish) expect_exactly "--json-log=$WORK/logs/run-a.log" ;;
	esac
}

# --http=FILE completes file names as --log-file does.
check_http_file() {
	local sh=$1
	require_completion "$sh"
	mkdir "$WORK/heads"
	: >"$WORK/heads/h-1.txt"
	: >"$WORK/heads/h-2.txt"
	complete_in "$sh" "retry --http $WORK/heads/h-"
	case $sh in
	zsh) expect_exactly h-1.txt h-2.txt ;;
	*) expect_exactly "$WORK/heads/h-1.txt" "$WORK/heads/h-2.txt" ;;
	esac
	complete_in "$sh" "retry --http=$WORK/heads/h-2"
	case $sh in
	bash) expect_exactly "$WORK/heads/h-2.txt" ;;
	zsh) expect_exactly h-2.txt ;;
	fish) expect_exactly "--http=$WORK/heads/h-2.txt" ;;
	esac
}

@test "bash: --http completes file names" {
	check_http_file bash
}

@test "zsh: --http completes file names" {
	check_http_file zsh
}

@test "fish: --http completes file names" {
	check_http_file fish
}

@test "bash: --log-file and --json-log complete file names" {
	check_log_file bash
}

@test "zsh: --log-file and --json-log complete file names" {
	check_log_file zsh
}

@test "fish: --log-file and --json-log complete file names" {
	check_log_file fish
}

check_handover() {
	local sh=$1
	require_completion "$sh"
	complete_in "$sh" 'retry -n 3 --jitter=none fakecmd al'
	expect_exactly alpha
	complete_in "$sh" 'retry -- fakecmd '
	expect_exactly alpha beta gamma
	# Values in the next word are not the command.
	complete_in "$sh" 'retry -qn 3 -s KILL -k 1s fakecmd b'
	expect_exactly beta
	complete_in "$sh" 'retry --att 3 --retry-on 1 fakecmd g'
	expect_exactly gamma
	# After the command, its own options, not retry's.
	complete_in "$sh" 'retry -v fakecmd --'
	expect_exactly --fake-one --fake-two
	complete_in "$sh" 'retry -n 3 -- fakecmd alpha --fake-t'
	expect_exactly --fake-two
	# On the command's name: command names.
	complete_in "$sh" 'retry -n3 fakec'
	expect_includes fakecmd
	expect_excludes -n --attempts
	complete_in "$sh" 'retry -- fakec'
	expect_includes fakecmd
}

@test "bash: after the options, the command's own completion takes over" {
	check_handover bash
}

@test "zsh: after the options, the command's own completion takes over" {
	check_handover zsh
}

@test "fish: after the options, the command's own completion takes over" {
	check_handover fish
}

check_git() {
	local sh=$1
	require_completion "$sh"
	require_tool git
	complete_in "$sh" 'retry git ch'
	expect_includes checkout cherry-pick
	expect_excludes --jitter
	complete_in "$sh" 'retry -n 5 -b 2s -- git checko'
	expect_includes checkout
}

@test "bash: retry git ch completes like git ch" {
	check_git bash
}

@test "zsh: retry git ch completes like git ch" {
	check_git zsh
}

@test "fish: retry git ch completes like git ch" {
	check_git fish
}

@test "the signal names offered are the ones retry accepts" {
	local name
	local -a accepted
	for name in "${SIGNALS[@]}"; do
		run -0 --separate-stderr "$RETRY" --dry-run -n 1 -s "$name"
		[ "$stderr" = "" ]
		run -0 --separate-stderr "$RETRY" --dry-run -n 1 -r "$name,timeout"
		[ "$stderr" = "" ]
	done
	# Every canonical name of this system that retry takes is offered
	# (RTMIN+n and RTMAX-n are typed, not listed).
	mapfile -t accepted < <(kill -l | tr -s '[:blank:]' '\n' |
	    grep -E '^SIG[A-Z0-9]+$' | sed 's/^SIG//')
	[ "${#accepted[@]}" -gt 25 ]
	for name in "${accepted[@]}"; do
		"$RETRY" --dry-run -n 1 -s "$name" >/dev/null 2>&1 || continue
		[[ " ${SIGNALS[*]} " == *" $name "* ]] ||
		    { echo "retry accepts $name, not offered" >&2; return 1; }
	done
}

@test "bash: the completion script and its helpers pass bash -n and shellcheck" {
	require_tool shellcheck
	run -0 --separate-stderr bash -n "$ROOT/completions/retry.bash"
	[ "$stderr" = "" ]
	run -0 --separate-stderr shellcheck -s bash "$ROOT/completions/retry.bash" \
	    "$ROOT/tests/helpers/compl-bash" "$ROOT/tests/helpers/compl-fish" \
	    "$ROOT/tests/helpers/compl-common.bash"
	[ "$stderr" = "" ]
}

@test "zsh: the completion function and its harness pass zsh -n" {
	require_tool zsh
	run -0 --separate-stderr zsh -n "$ROOT/completions/_retry"
	[ "$stderr" = "" ]
	run -0 --separate-stderr zsh -n "$ROOT/tests/helpers/compl-zsh"
	[ "$stderr" = "" ]
}

@test "fish: the completion script passes fish --no-execute" {
	require_tool fish
	run -0 --separate-stderr fish --no-execute "$ROOT/completions/retry.fish"
	[ "$stderr" = "" ]
}

# install_completions: make install into $WORK/dest with PREFIX=/usr/local
# (the retry already built); sets share to its share directory.
install_completions() {
	run -0 --separate-stderr make -s -C "$ROOT" -o retry install \
	    DESTDIR="$WORK/dest" PREFIX=/usr/local
	[ "$stderr" = "" ]
	share=$WORK/dest/usr/local/share
}

@test "make install puts each completion where its shell looks" {
	local share
	install_completions
	cmp "$ROOT/completions/retry.bash" \
	    "$share/bash-completion/completions/retry"
	cmp "$ROOT/completions/_retry" "$share/zsh/site-functions/_retry"
	cmp "$ROOT/completions/retry.fish" \
	    "$share/fish/vendor_completions.d/retry.fish"
}

@test "bash: bash-completion loads the installed completion on demand" {
	local share
	require_tool bash-completion
	install_completions
	# bash-completion finds it through $XDG_DATA_DIRS.
	run -0 --separate-stderr env XDG_DATA_DIRS="$share" bash -c '
		source "${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}"
		__load_completion retry && complete -p retry'
	[ "$stderr" = "" ]
	[ "$output" = "complete -F _retry retry" ]
}

@test "zsh: compinit finds the installed completion" {
	local share
	require_tool zsh
	install_completions
	run -0 --separate-stderr env HOME="$WORK" zsh -fc '
		fpath=($1 $fpath)
		autoload -Uz compinit && compinit -u -D
		print -r -- $_comps[retry]' zsh "$share/zsh/site-functions"
	[ "$stderr" = "" ]
	[ "$output" = "_retry" ]
}

@test "fish: the installed completion is loaded from vendor_completions.d" {
	local share
	require_tool fish
	install_completions
	# fish completes only a command that it finds on $PATH.
	run -0 --separate-stderr env XDG_DATA_DIRS="$share" \
	    XDG_CONFIG_HOME="$WORK/config" XDG_DATA_HOME="$WORK/data" \
	    PATH="$WORK/dest/usr/local/bin:$PATH" \
	    fish -c 'complete -C "retry --jit"'
	[ "$stderr" = "" ]
	[ "$output" = $'--jitter\tjitter mode (or A..B or +DURATION)' ]
}
