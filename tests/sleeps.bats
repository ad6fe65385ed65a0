#!/usr/bin/env bats
# A seeded run sleeps exactly what the seeded --dry-run draws.
# The command appends the time at which each attempt starts to a file;
# each gap between attempts must be at least the drawn sleep (the rest of
# the gap is process start-up), and at most the draw plus a generous
# 500 ms, which a loaded machine cannot miss.  Draws of tens of
# milliseconds catch a run that sleeps less than it drew; a draw of less
# than 100 ms from a 1 s window catches one that sleeps more, such as the
# whole window.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# sleeps_match ARG...: runs retry --seed $SEED ARG... (7 by default) with
# a command that always fails and records its start times, and checks the
# gaps against retry --dry-run --seed $SEED ARG....  Also checks the
# "next in" lines.
sleeps_match() {
	local draws=() times=() i gap draw ms start seed=${SEED:-7}
	run -0 --separate-stderr "$RETRY" --dry-run --seed "$seed" "$@"
	[ -z "$stderr" ]
	mapfile -t draws < <(table_col 5)
	start=$(date +%s%N)
	run -1 --separate-stderr "$RETRY" --seed "$seed" "$@" \
	    sh -c 'date +%s%N >>"$WORK/times"; exit 1'
	mapfile -t times <"$WORK/times"
	rm "$WORK/times"
	[ "${#times[@]}" -eq "${#draws[@]}" ]
	[ "${#stderr_lines[@]}" -eq "${#draws[@]}" ]
	for ((i = 0; i < ${#draws[@]}; i++)); do
		draw=$(sec_to_ns "${draws[i]}")
		if ((i == 0)); then
			gap=$((times[0] - start))	# the splay
		else
			gap=$((times[i] - times[i - 1]))
			# The message shows the draw rounded to the millisecond.
			ms=$(((draw + 500000) / 1000000))
			printf -v ms '%d.%03d' $((ms / 1000)) $((ms % 1000))
			[ "${stderr_lines[i - 1]}" = \
			    "retry: attempt $i/${#draws[@]} failed (exit 1), next in ${ms}s" ]
		fi
		((gap >= draw)) ||
		    { echo "gap $i: $gap ns < draw $draw ns"; return 1; }
		((gap <= draw + 500000000)) ||
		    { echo "gap $i: $gap ns > draw $draw ns + 500 ms"; return 1; }
	done
	giving_up "${stderr_lines[-1]}" "${#draws[@]}" "exit 1" \
	    "no attempts left"
}

@test "full jitter: the real sleeps are the seeded draws" {
	sleeps_match -n 4 -b 40ms -c 200ms -j full
}

@test "decorrelated jitter and a splay: the real sleeps are the seeded draws" {
	sleeps_match -n 4 -b 20ms -c 150ms -j decorrelated --splay 60ms
}

@test "A..B and +D jitter: the real sleeps are the seeded draws" {
	sleeps_match -n 3 -b 30ms -j 0.5..1.5
	sleeps_match -n 3 -b 10ms -j +40ms
}

@test "no jitter: the sleeps grow by the factor" {
	sleeps_match -n 4 -b 10ms -f 3 -j none
}

# small_draw ROW ARG...: the first seed from 1 up whose dry-run draw in
# ROW is below 0.1 s, in $SEED.  With full jitter on a 1 s window that is
# one seed in ten, so the search ends within a few dozen tries.
small_draw() {
	local row=$1
	shift
	for ((SEED = 1; SEED <= 1000; SEED++)); do
		quick --dry-run --seed "$SEED" "$@"
		quiet_success
		fcmp "$(cell "$row" 5)" '<' 0.1 && return 0
	done
	return 1
}

@test "a small draw from a large window is slept, not the window" {
	small_draw 2 -n 2 -b 1s -j full
	sleeps_match -n 2 -b 1s -j full
}

@test "a small splay from a large one is slept, not the whole splay" {
	small_draw 1 -n 1 --splay 10s
	run -0 --separate-stderr "$RETRY" --dry-run --seed "$SEED" -n 1 \
	    --splay 10s
	[ -z "$stderr" ]
	local draw start first
	draw=$(sec_to_ns "$(cell 1 5)")
	start=$(date +%s%N)
	run -0 --separate-stderr "$RETRY" --seed "$SEED" -n 1 --splay 10s \
	    date +%s%N
	[ -z "$stderr" ]
	first=$output
	(( first - start >= draw ))
	# Far from the whole 10 s, with room for a loaded machine's start-up.
	(( first - start <= draw + 5000000000 ))
}

# Issue 38: under -v the splay was invisible, a cron job seemed late.
@test "-v says the splay drawn and when, on the wall clock, attempt 1 starts" {
	local draw said at first
	run -0 --separate-stderr "$RETRY" --dry-run --seed 7 -n 1 --splay 300ms
	draw=$(printf '%.3f' "$(cell 1 5)")
	run -0 --separate-stderr "$RETRY" -v --seed 7 -n 1 --splay 300ms \
	    date +%s%N
	first=$output
	[ "${#stderr_lines[@]}" -eq 4 ]
	said=${stderr_lines[0]}
	[[ $said =~ ^"retry: splay: ${draw}s drawn up to 0.300s; attempt 1 starts at "(.*)$ ]]
	at=$(date -d "${BASH_REMATCH[1]}" +%s%N)
	# The attempt starts at the time said, give or take its start-up.
	(( first >= at - 1000000 && first <= at + 2000000000 ))
	[ "${stderr_lines[1]}" = "retry: attempt 1/1 starting" ]
	# Without -v, or without a splay, no such line.
	run -0 --separate-stderr "$RETRY" --seed 7 -n 1 --splay 300ms true
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$RETRY" -v -n 1 true
	[ "${stderr_lines[0]}" = "retry: attempt 1/1 starting" ]
}

# The JSON log's start event carries the splay too: the draw and its bound.
@test "the JSON log's start event has the splay drawn and its bound" {
	local draw
	run -0 --separate-stderr "$RETRY" --dry-run --seed 7 -n 1 --splay 300ms
	[ "$stderr" = "" ]
	draw=$(cell 1 5)
	run -0 --separate-stderr "$RETRY" --seed 7 -n 1 --splay 300ms \
	    --json-log="$WORK/log" true
	[ "$stderr" = "" ]
	[[ $(head -n 1 "$WORK/log") =~ \"splay\":([0-9.]+),\"splay_max\":0\.300000000\}$ ]]
	[ "$(printf '%.3f' "${BASH_REMATCH[1]}")" = "$(printf '%.3f' "$draw")" ]
	# Without --splay, neither field.
	run -0 --separate-stderr "$RETRY" -n 1 --json-log="$WORK/log2" true
	[ "$stderr" = "" ]
	[ "$(grep -c splay "$WORK/log2")" = 0 ]
}
