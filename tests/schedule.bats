#!/usr/bin/env bats
# The backoff schedule.  The sleep before attempt k+1 has the
# window w = min(cap, base * factor^(k-1)), then the jitter of its mode,
# then min(cap, s).  Seeded --dry-run tables show the draws; the checks
# on each row are in helpers/core-table.awk.
#
# The means: for each draw that comes from U(a, b), clipped by the cap,
# core-table.awk averages r = (draw - E) / (b - a), where E is the exact
# expected value of min(cap, U(a, b)).  r has mean 0 and a standard
# deviation of at most 1/sqrt(12) = 0.289, so over N >= 2000 draws the
# mean of r has a standard error of at most 0.0065; the tests allow 0.04,
# more than 6 standard errors, which a correct implementation misses with
# a probability below 1e-9 whatever the seeds.  A wrong mean is far off:
# equal jitter drawn as full, say, is off by 0.5.  The spread: the least
# and the most (draw - a) / (b - a) must come within 0.02 of 0 and 1; a
# correct implementation misses that with a probability of 2 * 0.98^N.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# The means and the spread of the last check_tables are as they should
# be (see above), over at least $1 draws.
fair_draws() {
	[[ $SAMPLES -ge $1 ]] || { echo "only $SAMPLES draws" >&2; return 1; }
	if ! fcmp "$RESID" '>' -0.04 || ! fcmp "$RESID" '<' 0.04; then
		echo "mean residual $RESID" >&2
		return 1
	fi
	if ! fcmp "$UMIN" '<' 0.02 || ! fcmp "$UMAX" '>' 0.98; then
		echo "draws span only $UMIN to $UMAX" >&2
		return 1
	fi
}

@test "none: the window grows by the factor up to the cap" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 7 -j none -b 1ms -f 2 \
	    -c 10ms
	[ -z "$stderr" ]
	[ "$(table_rows)" = "\
      1              -          0.000          0.000          0.000          0.000
      2          0.001          0.001          0.001          0.001          0.001
      3          0.002          0.002          0.002          0.002          0.003
      4          0.004          0.004          0.004          0.004          0.007
      5          0.008          0.008          0.008          0.008          0.015
      6          0.010          0.010          0.010          0.010          0.025
      7          0.010          0.010          0.010          0.010          0.035" ]
}

@test "none: factor 1 is a constant delay, base 0 no delay at all" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 5 -j none -b 3ms -f 1
	[ -z "$stderr" ]
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.003 0.003 0.003 0.003 " ]
	local j
	for j in none full equal decorrelated 0.5..1.5 +0; do
		quick --dry-run -n 5 -j "$j" -b 0
		quiet_success
		[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.000 0.000 0.000 0.000 " ]
	done
}

@test "none: the defaults are 5 attempts, base 1s, factor 2, cap 60s" {
	run -0 --separate-stderr "$RETRY" --dry-run -j none
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = "- 1.000 2.000 4.000 8.000 " ]
	dry_tables 1 1 -j none -n 12 -f 3
	check_tables mode=none base=1 factor=3 cap=60 splay=0 rows=12
}

@test "the default jitter is full" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 5 -n 8
	[ -z "$stderr" ]
	local plain=$output
	run -0 --separate-stderr "$RETRY" --dry-run --seed 5 -n 8 -j full
	[ -z "$stderr" ]
	[ "$output" = "$plain" ]
}

@test "full: draws in [0, w] over many seeds, with mean w/2" {
	dry_tables 1 50 -j full -n 51 -b 1ms -f 2 -c 50ms --splay 3ms
	check_tables mode=full base=0.001 factor=2 cap=0.05 splay=0.003 rows=51
	fair_draws 2500
}

@test "equal: draws in [w/2, w] over many seeds, with mean 3w/4" {
	dry_tables 1 50 -j equal -n 51 -b 3ms -f 1.5 -c 40ms
	check_tables mode=equal base=0.003 factor=1.5 cap=0.04 splay=0 rows=51
	fair_draws 2500
}

@test "decorrelated: min(cap, U(base, 3 * previous)) over many seeds" {
	dry_tables 1 50 -j decorrelated -n 51 -b 1ms -c 1s --splay 1ms
	check_tables mode=decorrelated base=0.001 cap=1 splay=0.001 rows=51
	fair_draws 2500
	# A small cap clips most draws: their mean is still right.
	dry_tables 1 50 -j decorrelated -n 51 -b 2ms -c 20ms
	check_tables mode=decorrelated base=0.002 cap=0.02 splay=0 rows=51
	fair_draws 2500
}

@test "decorrelated: --factor does not apply" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 9 -n 12 \
	    -j decorrelated -b 1ms -c 1s
	[ -z "$stderr" ]
	local one=$output f
	for f in 1 2 7.5 1e300; do
		quick --dry-run --seed 9 -n 12 -j decorrelated -b 1ms -c 1s -f "$f"
		quiet_success
		[ "$output" = "$one" ]
	done
}

@test "A..B: w * U(A, B) over many seeds, capped" {
	dry_tables 1 50 -j 0.5..1.5 -n 51 -b 2ms -f 1.5 -c 30ms
	check_tables mode=range lo=0.5 hi=1.5 base=0.002 factor=1.5 cap=0.03 \
	    splay=0 rows=51
	fair_draws 2500
	dry_tables 1 50 -j 1..2 -n 51 -b 1ms -f 2 -c 1s
	check_tables mode=range lo=1 hi=2 base=0.001 factor=2 cap=1 splay=0 \
	    rows=51
	fair_draws 2500
}

@test "A..B: a degenerate range is a fixed multiple of the window" {
	dry_tables 1 20 -j 0.25..0.25 -n 8 -b 4ms -c 1s
	check_tables mode=range lo=0.25 hi=0.25 base=0.004 factor=2 cap=1 \
	    splay=0 rows=8
	[ "$SAMPLES" -eq 0 ]
	run -0 --separate-stderr "$RETRY" --dry-run -n 4 -j 0..0 -b 1s
	[ -z "$stderr" ]
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.000 0.000 0.000 " ]
}

@test "+D: w + U(0, D) over many seeds, capped" {
	dry_tables 1 50 -j +5ms -n 51 -b 1ms -f 2 -c 20ms --splay 2ms
	check_tables mode=add add=0.005 base=0.001 factor=2 cap=0.02 \
	    splay=0.002 rows=51
	fair_draws 2500
	dry_tables 1 50 -j +1s -n 51 -b 1ms -f 1.1 -c 1h
	check_tables mode=add add=1 base=0.001 factor=1.1 cap=3600 splay=0 \
	    rows=51
	fair_draws 2500
}

@test "jitter never takes a sleep past the cap" {
	local j
	# The window is the cap from the start: no draw may go above it.
	for j in none full equal decorrelated 1..2 5..7 +1s +36525d; do
		quick --dry-run --seed 3 -n 6 -j "$j" -b 10ms -c 10ms
		quiet_success
		table_rows | awk 'NR > 1 && ($4 != "0.010" || $5 > 0.010) {
			print "over the cap: " $0; bad = 1 } END { exit bad }'
	done
	# Jitter that can only add lands on the cap exactly.
	run -0 --separate-stderr "$RETRY" --dry-run --seed 3 -n 4 -j 5..7 \
	    -b 10ms -c 10ms
	[ -z "$stderr" ]
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.010 0.010 0.010 " ]
}

@test "saturation: a huge factor keeps every later window at the cap" {
	local j
	for j in none full equal 0.5..1.5 +1s; do
		dry_tables 1 5 -n inf -f 1e300 -b 1ms -c 1h -j "$j"
		case $j in
		*..*) check_tables mode=range lo=0.5 hi=1.5 base=0.001 \
		    factor=1e300 cap=3600 splay=0 rows=20 ;;
		+*) check_tables mode=add add=1 base=0.001 factor=1e300 \
		    cap=3600 splay=0 rows=20 ;;
		*) check_tables mode="$j" base=0.001 factor=1e300 cap=3600 \
		    splay=0 rows=20 ;;
		esac
	done
	run -0 --separate-stderr "$RETRY" --dry-run -n inf -f 1e308 -b 1ms \
	    -c 1h -j none
	[ -z "$stderr" ]
	[ "$(table_col 2 | sort | uniq -c | awk '{ print $1, $2 }' |
	    tr '\n' ' ')" = "1 - 1 0.001 18 3600.000 " ]
}

@test "saturation: 100-year windows, a huge A..B and the largest +D" {
	dry_tables 1 3 -n 40 -f 1e300 -b 36525d -c 36525d -j 0..1e300
	check_tables mode=range lo=0 hi=1e300 base=3155760000 factor=1e300 \
	    cap=3155760000 splay=0 rows=40
	dry_tables 1 3 -n 40 -b 1s -f 1e300 -c 36525d -j +36525d \
	    --splay 36525d
	check_tables mode=add add=3155760000 base=1 factor=1e300 \
	    cap=3155760000 splay=3155760000 rows=40
	dry_tables 1 3 -n 40 -b 36525d -j decorrelated
	check_tables mode=decorrelated base=3155760000 cap=3155760000 \
	    splay=0 rows=40
	# The sum of the sleeps no longer fits: it saturates to inf.
	run -0 --separate-stderr "$RETRY" --dry-run -n 5 -b 36525d -j none
	[ -z "$stderr" ]
	[ "$(table_col 6 | tr '\n' ' ')" = \
	    "0.000 3155760000.000 6311520000.000 inf inf " ]
	[ "${lines[6]}" = "# worst-case total sleep for the rows above: inf" ]
}

@test "saturation: attempt numbers far past any window overflow" {
	# By attempt 200, 1e300^199 is far past any float: the window stays
	# at the cap (1ns here, so that nothing sleeps).
	run -0 --separate-stderr "$RETRY" -n inf -b 1ns -c 1ns -f 1e300 \
	    -j none sh -c '[ "$RETRY_ATTEMPT" -ge 200 ]'
	[ "${#stderr_lines[@]}" -eq 199 ]
	[ "${stderr_lines[198]}" = \
	    "retry: attempt 199/inf failed (exit 1), next in 0.000s" ]
}

@test "a seed makes the whole table reproducible" {
	local j first
	for j in full equal decorrelated 0.5..1.5 +3ms; do
		run -0 --separate-stderr "$RETRY" --dry-run --seed 42 -n 10 \
		    -j "$j" -b 1ms -c 1s --splay 5ms
		[ -z "$stderr" ]
		first=$output
		run -0 --separate-stderr "$RETRY" --dry-run --seed 42 -n 10 \
		    -j "$j" -b 1ms -c 1s --splay 5ms
		[ -z "$stderr" ]
		[ "$output" = "$first" ]
	done
}

@test "different seeds give different draws" {
	local seed draws
	for seed in 0 1 2 3 4 5 6 7 8 9 10 100 9223372036854775807; do
		quick --dry-run --seed "$seed" -n 6 -b 1s --splay 1s
		quiet_success
		table_col 5 | tr '\n' ' '
		echo
	done >"$WORK/draws"
	[ "$(sort -u "$WORK/draws" | wc -l)" -eq 13 ]
	# Not one draw repeats: 78 values out of 10^9 or so each.
	[ "$(tr ' ' '\n' <"$WORK/draws" | grep . | sort -u | wc -l)" -eq 78 ]
}

@test "without a seed, every run draws anew" {
	local i
	for i in 1 2 3 4 5; do
		quick --dry-run -n 6 -b 1s --splay 1s
		quiet_success
		table_col 5 | tr '\n' ' '
		echo
	done >"$WORK/draws"
	[ "$(sort -u "$WORK/draws" | wc -l)" -eq 5 ]
}
