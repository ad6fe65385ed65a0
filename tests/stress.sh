#!/usr/bin/env bash
# stress.sh: fires signals at retry at random moments, over a few hundred
# runs, and checks that nothing hangs, leaks or survives.
#
# usage: tests/stress.sh [RUNS [JOBS]]    (default: 300 runs, 2 at a time)
#
# Each run starts retry under tests/helpers/wstatus with one of several
# scenarios (attempts that time out, that fail at once and leave
# processes behind, that ignore TERM, with -I/-O, with a splay...), waits
# a random 0-150 ms and sends it a stop signal (HUP, INT, QUIT or TERM),
# sometimes after a signal that stops nothing (USR1, USR2, ALRM, WINCH)
# and sometimes followed by a second stop signal.  Then:
#   - retry must end within 10 s (no hang),
#   - by one of the signals it was sent, or with an exit status that an
#     attempt of the scenario can end with (retry exits as the attempt
#     did): its wait status is read by wstatus,
#   - no process of the run may remain (each is a "sleep MARK K", with a
#     marker unique to the run and K the attempt that started it) once 5 s
#     have passed, but those of the final attempt, which are left alone,
#   - retry never has more than 3 zombie children when sampled,
#   - retry writes nothing to stderr but its "attempt N/inf failed" lines.
# It prints one line per failure and a summary; exit 0 only if all pass.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# ROOT, RETRY, WSTATUS, poll_until and gone.
# shellcheck source=tests/helpers/common.bash
source "$ROOT/tests/helpers/common.bash"
RUNS=${1:-300}
JOBS=${2:-2}
STOP_SIGNALS=(HUP INT QUIT TERM)
OTHER_SIGNALS=(USR1 USR2 ALRM WINCH)

if [[ ! -x $RETRY || ! -x $WSTATUS ]]; then
	echo "stress: build first: make retry tests/helpers/wstatus" >&2
	exit 2
fi
ulimit -c 0	# a QUIT before retry catches it would dump core
TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-stress.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

# The retry options and the command of scenario $1, with marker $2, and
# in EXITS the exit statuses its attempts can end with.  Every attempt
# first adds its number to the file $3; every process it leaves is
# "sleep MARK K", K its attempt.
# shellcheck disable=SC2016 # the command's sh expands them
scenario() {
	local mark=$2 started=$3
	local s='echo "$RETRY_ATTEMPT" >>"$2"; '
	case $1 in
	0)	# attempts that time out; a tree in each
		ARGS=(-n inf -b 1ms -t 30ms -k 20ms -- sh -c "$s"'
		    sleep "$1" "$RETRY_ATTEMPT" & sleep "$1" "$RETRY_ATTEMPT"')
		EXITS="124 137" ;;
	1)	# attempts that fail at once and leave a process behind
		ARGS=(-n inf -b 0 -k 50ms -- sh -c "$s"'
		    sleep "$1" "$RETRY_ATTEMPT" & exit 1')
		EXITS="1" ;;
	2)	# a tree that ignores TERM: only KILL ends it
		ARGS=(-n inf -b 2ms -t 20ms -k 20ms -- sh -c "$s"'trap "" TERM
		    sleep "$1" "$RETRY_ATTEMPT" & sleep "$1" "$RETRY_ATTEMPT"')
		EXITS="124 137" ;;
	3)	# a random backoff, a stopped leftover
		ARGS=(-n inf -b 5ms -j full -k 50ms -- sh -c "$s"'
		    sleep "$1" "$RETRY_ATTEMPT" & kill -STOP $!; exit 3')
		EXITS="3" ;;
	4)	# -I and -O, the command reads its input; the leftover does
		# not hold the held stdout open (the attempt would not end)
		ARGS=(-n inf -b 1ms -I -O -k 50ms -- sh -c "$s"'cat >/dev/null
		    sleep "$1" "$RETRY_ATTEMPT" >/dev/null & exit 1')
		EXITS="1" ;;
	5)	# a splay first, then a deadline far away
		ARGS=(--splay 40ms -n inf -b 1ms -m 60s -t 25ms -k 50ms -- \
		    sh -c "$s"'exec sleep "$1" "$RETRY_ATTEMPT"')
		EXITS="124 137" ;;
	6)	# a double fork: the orphan is retry's to reap
		ARGS=(-n inf -b 1ms -k 50ms -- sh -c "$s"'
		    (sleep "$1" "$RETRY_ATTEMPT" &); sleep 0.01; exit 1')
		EXITS="1" ;;
	7)	# a leftover that ignores TERM: clearing it takes -k
		ARGS=(-n inf -b 1ms -k 100ms -- sh -c "$s"'
		    (trap "" TERM; exec sleep "$1" "$RETRY_ATTEMPT") & exit 1')
		EXITS="1" ;;
	esac
	ARGS+=(sh "$mark" "$started")
}

# Prints the marker processes of a run: "sleep MARK K" exactly; with $2,
# only those of attempts other than $2.
markers() {
	local pid args
	for pid in $(pgrep -f -x "sleep ${1//./\\.} [0-9]+"); do
		if [[ -n ${2:-} ]]; then
			args=$(ps -o args= -p "$pid") || continue
			[[ ${args##* } == "$2" ]] && continue
		fi
		echo "$pid"
	done
}

# no_markers MARK [K]: markers "$@" finds none.
no_markers() {
	[[ -z $(markers "$@") ]]
}

# One run; prints "FAIL ..." lines on failure.
one_run() {
	local i=$1 dir=$TMP/$1 mark sig sig2 other got ws_pid rpid n z ok
	local zmax=0 delay final code
	mkdir -p "$dir"
	mark="8$$.$((i * 100000 + RANDOM))"
	scenario $((RANDOM % 8)) "$mark" "$dir/started"
	sig=${STOP_SIGNALS[RANDOM % ${#STOP_SIGNALS[@]}]}
	sig2=""
	((RANDOM % 5 == 0)) && sig2=${STOP_SIGNALS[RANDOM % ${#STOP_SIGNALS[@]}]}
	other=""
	((RANDOM % 3 == 0)) && other=${OTHER_SIGNALS[RANDOM % ${#OTHER_SIGNALS[@]}]}
	printf 'input\n' | "$WSTATUS" -p "$dir/pid" "$dir/ws" "$RETRY" \
	    "${ARGS[@]}" >/dev/null 2>"$dir/err" &
	ws_pid=$!
	poll_until 5 test -s "$dir/pid" 2>/dev/null || true
	rpid=$(<"$dir/pid")
	printf -v delay '0.%03d' $((RANDOM % 150))
	sleep "$delay"
	# shellcheck disable=SC2009 # pgrep cannot select zombies
	z=$(ps -o stat= --ppid "$rpid" 2>/dev/null | grep -c Z)
	((z > zmax)) && zmax=$z
	[[ -n $other ]] && kill -s "$other" "$rpid" 2>/dev/null
	kill -s "$sig" "$rpid" 2>/dev/null
	[[ -n $sig2 ]] && kill -s "$sig2" "$rpid" 2>/dev/null
	poll_until 10 gone "$ws_pid" 2>/dev/null || true
	if kill -0 "$ws_pid" 2>/dev/null; then
		echo "FAIL run $i: hangs after $sig ${ARGS[*]}"
		ps -o pid,ppid,pgid,stat,args --ppid "$rpid" -p "$rpid"
		kill -KILL "$rpid" 2>/dev/null
	fi
	wait "$ws_pid"
	got=$(<"$dir/ws")
	# Dead by a signal it was sent (during a sleep, the splay or the
	# clearing of leftovers, or as the attempt died), or exited as an
	# attempt of the scenario can.
	ok=""
	for n in $other $sig $sig2; do
		[[ $got == "signal $(kill -l "$n")" ]] && ok=1
	done
	for code in $EXITS; do
		[[ $got == "exit $code" ]] && ok=1
	done
	if [[ -z $ok ]]; then
		echo "FAIL run $i: $got after ${other:+$other }$sig${sig2:+ $sig2}: ${ARGS[*]}"
	fi
	# What the final attempt (the last one that started) left behind is
	# left alone; anything older must be gone.
	final=$(tail -n 1 "$dir/started" 2>/dev/null)
	poll_until 5 no_markers "$mark" "$final" 2>/dev/null || true
	if [[ -n $(markers "$mark" "$final") ]]; then
		echo "FAIL run $i: left behind after $sig (final attempt $final): ${ARGS[*]}"
		ps -o pid,ppid,pgid,stat,args -p "$(markers "$mark" | paste -sd,)"
	fi
	for n in $(markers "$mark"); do
		kill -CONT "$n"
		kill -KILL "$n"
	done
	((zmax > 3)) && echo "FAIL run $i: $zmax zombies: ${ARGS[*]}"
	# The retry lines, and the one that says which stop signal ended it.
	if grep -Ev -e '^retry: attempt [0-9]+/inf failed \((exit [0-9]+|timed out( after [0-9.]+[a-z]+ \(-t\))?(, killed)?|signal (USR1|USR2|ALRM))\), next in [0-9]+\.[0-9]{3}s$' \
	    -e '^retry: stopped by (INT|TERM|HUP|QUIT) (during|after) attempt [0-9]+/inf (after|in) [0-9]+\.[0-9]{3}s$' \
	    -e '^retry: stopped by (INT|TERM|HUP|QUIT) during the splay after [0-9]+\.[0-9]{3}s$' \
	    "$dir/err"; then
		echo "FAIL run $i: unexpected stderr above: ${ARGS[*]}"
	fi
	rm -rf "$dir"
}

start=$SECONDS
running=0
for ((i = 1; i <= RUNS; i++)); do
	one_run "$i" >>"$TMP/report" &
	if ((++running >= JOBS)); then
		wait -n
		((running--))
	fi
done
wait
fails=$(grep -c '^FAIL' "$TMP/report")
cat "$TMP/report"
echo "stress: $RUNS runs, $fails failed, $((SECONDS - start)) s"
[[ $fails -eq 0 ]]
