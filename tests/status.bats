#!/usr/bin/env bats
# The exit status.  retry exits with the final attempt's status:
# exit code N gives N, and death by signal S makes retry die by S itself,
# with core dumps off.  Checked from a real parent (helpers/wstatus),
# since $? cannot tell exit 130 from death by SIGINT.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# wstatus_run ARG...: runs retry ARG... under wstatus; sets $how to what
# the parent saw ("exit N" or "signal N") and $stderr to retry's stderr.
wstatus_run() {
	"$WSTATUS" "$WORK/how" "$RETRY" "$@" >"$WORK/out" 2>"$WORK/err"
	slurp how "$WORK/how"
	slurp stderr "$WORK/err"
	stderr_lines=()
	if [[ -n $stderr ]]; then
		mapfile -t stderr_lines <<<"$stderr"
	fi
}

@test "all 256 exit codes pass through, as exits" {
	# A plain bash loop: bats' own tracing would triple its time.  Only
	# 129-192 could also be a signal death (128 + 1 to 64) in $?: those
	# go through wstatus, which tells them apart.
	cat >"$WORK/loop" <<-'EOF'
	re='^retry: giving up after 1 attempt in [0-9]+\.[0-9]{3}s: '
	for ((code = 0; code < 256; code++)); do
		if ((code > 128 && code <= 192)); then
			"$WSTATUS" "$WORK/how" "$RETRY" -n 1 -b 0 \
			    sh -c "exit $code" 2>"$WORK/err"
			read -r how <"$WORK/how"
		else
			"$RETRY" -n 1 -b 0 sh -c "exit $code" 2>"$WORK/err"
			how="exit $?"
		fi
		IFS= read -r -d '' err <"$WORK/err" || true
		case $code in
		0) want= ;;
		126 | 127) want="exit $code (not retried)" ;;
		*) want="exit $code (no attempts left)" ;;
		esac
		if [[ $how != "exit $code" ]]; then
			echo "exit $code came back as $how"
		elif [[ -z $want && -n $err ]]; then
			echo "exit $code: stderr $err"
		elif [[ -n $want && ! ( $err =~ $re && \
		    ${err#"${BASH_REMATCH[0]}"} == "$want"$'\n' ) ]]; then
			echo "exit $code: stderr $err"
		else
			echo ok
		fi
	done | sort | uniq -c | sed 's/^ *//'
	EOF
	run -0 --separate-stderr bash "$WORK/loop"
	[ -z "$stderr" ]
	[ "$output" = "256 ok" ]
}

@test "the final attempt's status is the one retry exits with" {
	run -3 --separate-stderr "$RETRY" -n 3 -b 0 -j none \
	    sh -c 'exit $((RETRY_ATTEMPT))'
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/3 failed (exit 1), next in 0.000s" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/3 failed (exit 2), next in 0.000s" ]
	giving_up "${stderr_lines[2]}" 3 "exit 3" "no attempts left"
}

@test "retry's own errors exit 125, also as an exit" {
	wstatus_run -n 0 true
	[ "$how" = "exit 125" ]
	[ "$stderr" = "retry: invalid --attempts '0': expected a whole number of at least 1, or inf$HINT" ]
}

# dies_by NAME RETRIED: a command that kills itself with SIGNAME makes
# retry die by that signal, after 2 attempts if RETRIED is yes, else 1.
dies_by() {
	local name=$1 num
	num=$(kill -l "$name")
	wstatus_run -n 2 -b 0 -j none sh -c "kill -$num \$\$; sleep 5"
	[[ $how == "signal $num" ]] ||
	    { echo "SIG$name: the parent saw $how" >&2; return 1; }
	if [[ $2 == yes ]]; then
		[[ ${#stderr_lines[@]} -eq 2 && ${stderr_lines[0]} == \
		    "retry: attempt 1/2 failed (signal $name), next in 0.000s" ]] ||
		    { echo "SIG$name: $stderr" >&2; return 1; }
		giving_up "${stderr_lines[1]}" 2 "signal $name" "no attempts left"
	else
		giving_up "$stderr" 1 "signal $name" "not retried"
	fi
}

@test "death by a signal is retried by default, and re-raised at the end" {
	qemu_cannot "a silent death by a core-dumping signal"
	local sig
	for sig in SEGV KILL USR1 USR2 ABRT ALRM TRAP FPE BUS SYS XCPU XFSZ \
	    VTALRM PROF; do
		dies_by "$sig" yes
	done
}

@test "death by a real-time signal is retried and re-raised" {
	musl_cannot "real-time signals numbered as the shell numbers them"
	qemu_cannot "real-time signals as Linux does"
	dies_by RTMIN yes
	dies_by RTMIN+1 yes
	wstatus_run -n 1 -b 0 sh -c "kill -$(kill -l RTMAX) \$\$"
	[ "$how" = "signal $(kill -l RTMAX)" ]
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ [0-9.]+s:\ signal\ [A-Z0-9+]+\ \(no\ attempts\ left\)$ ]]
}

@test "INT, TERM, HUP, QUIT and PIPE are not retried, and re-raised" {
	qemu_cannot "a silent death by a core-dumping signal"
	local sig
	for sig in INT TERM HUP QUIT PIPE; do
		dies_by "$sig" no
	done
}

@test "a signal death is re-raised after --success-on or --stop-on too" {
	qemu_cannot "a silent death by a core-dumping signal"
	wstatus_run -n 3 -b 0 --success-on=SEGV sh -c 'kill -SEGV $$'
	[ "$how" = "signal 11" ]
	[ -z "$stderr" ]
	wstatus_run -n 3 -b 0 -x USR1 sh -c 'kill -USR1 $$'
	[ "$how" = "signal $(kill -l USR1)" ]
	giving_up "$stderr" 1 "signal USR1" "not retried"
}

@test "an exit status above 128 stays an exit" {
	local code
	for code in 129 130 137 139 143 255; do
		wstatus_run -n 1 -b 0 -r 0 sh -c "exit $code"
		[ "$how" = "exit $code" ]
		giving_up "$stderr" 1 "exit $code" "not retried"
	done
}

@test "retry dies by the signal without dumping core; the command may" {
	qemu_cannot "a silent death by a core-dumping signal"
	# Not on a system that pipes core dumps to a handler: the kernel then
	# dumps whatever RLIMIT_CORE says, and the wait status cannot show
	# that retry turned its own core dumps off.
	local pattern
	pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo "?")
	if [[ $pattern == '|'* || $pattern == '?' ]]; then
		skip "core dumps go to '$pattern', not to a file"
	fi
	# Allow core dumps as far as the hard limit lets us; with none at
	# all there is nothing for retry to turn off.
	ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"
	if [[ $(ulimit -c) == 0 ]]; then
		skip "the hard limit forbids core dumps"
	fi
	mkdir "$WORK/sub"
	cd "$WORK"
	# The parent prints the signal and the core-dump flag of the status.
	# shellcheck disable=SC2016
	run -0 --separate-stderr perl -e 'system(@ARGV);
	    printf "signal %d core %d\n", $? & 127, ($? & 128) ? 1 : 0' \
	    "$RETRY" -n 1 -b 0 sh -c 'cd sub && kill -SEGV $$'
	[ "$output" = "signal 11 core 0" ]
	giving_up "$stderr" 1 "signal SEGV" "no attempts left"
	# retry's limit was its own: the command kept the one it was given.
	# (Only where the pattern names a plain file in the working directory.)
	if [[ $pattern == core* ]]; then
		compgen -G "$WORK/sub/core*" >/dev/null
	fi
	[ -z "$(compgen -G "$WORK/core*")" ]
}
