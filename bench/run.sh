#!/usr/bin/env bash
# bench/run.sh: the benchmark suite behind `make bench` (issues 4, 6, 20).
#
# Measures retry side by side with the alternatives in one run, writes the
# raw tables to bench/raw/ (figures.tsv and one file per measurement),
# then has bench/render.sh turn them into bench/raw/tables.md and
# bench/herd.png and print the summary.  The measurements live in
# bench/measure.sh (1 to 4) and bench/herd.sh (5 and 6), the shared
# helpers in bench/lib.sh; bench/results.md is the prose, written by hand
# from one run.  Targets are reported, never enforced: the script fails
# only when a measurement cannot be taken.
#
# Environment:
#   RETRY=PATH          the retry under test (default: ./retry)
#   CC=cc               compiler for the helper programs in bench/*.c
#   BENCH_QUICK=1       a smoke run: few repetitions, 64 MiB instead of 1 GiB
#   BENCH_HERD_ROUNDS, BENCH_HERD_CLIENTS, BENCH_SLEEPS: override the sizes
#   build/static/retry  if present (make static), measured in section 1b
set -Eeuo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=bench/measure.sh
. "$BENCH/measure.sh"
# shellcheck source=bench/herd.sh
. "$BENCH/herd.sh"

main() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-bench.XXXXXX")
	BIN=$TMP/bin RAW=$TMP/raw
	mkdir -p "$BIN" "$RAW"
	BENCH_QUICK=${BENCH_QUICK:-0}
	fig BENCH_QUICK STARTUP_ROUNDS LOOP_RUNS SLEEPS RSS_RUNS PIPE_SIZE \
	    PIPE_RUNS LEFTOVER_WAIT LEFTOVER_CROWD HERD_ROUNDS HERD_CLIENTS \
	    OUTAGE_NS OUTAGE_BUDGET
	install_tools
	build_helpers
	describe_machine
	bench_startup
	bench_static
	bench_loop
	bench_sleep
	bench_rss
	bench_pipe
	bench_hold
	bench_match
	bench_ereline
	bench_leftover
	bench_herd
	bench_outage
	# 7: the fleet's stores (issue 25): a guard's start-up cost over TLS,
	# and the herd through redis://, rediss:// and a Redis Cluster.
	say "7 the fleet's stores: bench/tls.sh"
	RETRY=$RETRY bash "$BENCH/tls.sh" | tee "$RAW/fleet.md"
	M_LOAD1=$(loadavg)
	echo "load average at end: $M_LOAD1" >>"$RAW/machine.txt"
	fig M_LOAD1
	# Replace the previous results only once every measurement is in.
	rm -rf "$BENCH/raw"
	cp -R "$RAW" "$BENCH/raw"
	bash "$BENCH/render.sh" "$BENCH/raw" "$BENCH/raw"
	mv "$BENCH/raw/herd.png" "$BENCH/herd.png"
	echo
	echo "Tables: bench/raw/tables.md, raw data: bench/raw/," \
	    "chart: bench/herd.png, prose: bench/results.md"
}

main "$@"
