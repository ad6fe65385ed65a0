#!/bin/bash
# make fuzz, make fuzz-ci: runs libFuzzer harnesses for a bounded time,
# a few side by side, and fails if any of them finds a crash, a leak, a
# hang or a broken property.
#
# usage: fuzz.sh SECONDS JOBS BINDIR OUTDIR NAME...
#   SECONDS  how long each harness runs (-max_total_time)
#   JOBS     how many harnesses run at once
#   BINDIR   where the harness binaries are (BINDIR/NAME)
#   OUTDIR   OUTDIR/NAME/ gets the inputs found (a corpus that grows from
#            run to run), the crashing inputs and the log
# Each harness starts from its seed corpus, fuzz/corpus/NAME/, with the
# dictionary fuzz/NAME.dict if there is one; NAME-nfa, a harness built
# again another way, shares NAME's.  A library's own harness keeps them
# beside it, in src/LIB/fuzz/ (src/ere/fuzz/ere-fuzz.c: corpus/ere/,
# ere.dict).
set -u

if [ $# -lt 5 ]; then
	echo "usage: $0 SECONDS JOBS BINDIR OUTDIR NAME..." >&2
	exit 2
fi
seconds=$1 jobs=$2 bindir=$3 outdir=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)

# fuzzdir NAME: the folder of NAME's harness, corpus and dictionary.
fuzzdir() {
	local d
	for d in "$root"/src/*/fuzz; do
		[[ -f $d/$1-fuzz.c ]] && echo "$d" && return
	done
	echo "$root/fuzz"
}

# Inputs longer than this find nothing new in a parser of one word.
max_len() {
	case $1 in
	options | http) echo 1024 ;;
	*) echo 256 ;;
	esac
}

# run_one NAME: one harness to its time limit; its status is libFuzzer's.
run_one() {
	local name=$1 dir=$outdir/$1 dict=() seed=${1%-nfa} fuzzdir

	fuzzdir=$(fuzzdir "$seed")
	mkdir -p "$dir/corpus"
	rm -f "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*
	[[ -f $fuzzdir/$seed.dict ]] && dict=("-dict=$fuzzdir/$seed.dict")
	"$bindir/$name" -max_total_time="$seconds" -timeout=10 \
	    -rss_limit_mb=1024 -max_len="$(max_len "$name")" \
	    -use_value_profile=1 -print_final_stats=1 \
	    -artifact_prefix="$dir/" "${dict[@]}" \
	    "$dir/corpus" "$fuzzdir/corpus/$seed" >"$dir/log" 2>&1
}

# summary NAME STATUS: one line per harness, and the evidence on failure.
summary() {
	local name=$1 status=$2 dir=$outdir/$1 runs cov artifact

	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
	cov=$(grep -oE 'cov: [0-9]+' "$dir/log" | tail -n 1)
	if [[ $status -eq 0 ]]; then
		printf '%-9s ok: %s runs in %ss, %s, corpus %s\n' "$name" \
		    "${runs:-?}" "$seconds" "${cov:-cov: ?}" \
		    "$(find "$dir/corpus" -type f | wc -l)"
		return 0
	fi
	printf '%-9s FAILED (status %s); the end of %s:\n' "$name" \
	    "$status" "$dir/log"
	tail -n 40 "$dir/log"
	for artifact in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* \
	    "$dir"/oom-*; do
		[[ -e $artifact ]] || continue
		echo "reproduce: $bindir/$name $artifact"
	done
	return 1
}

failed=0
running=0
for name in "$@"; do
	if [[ ! -x $bindir/$name ]]; then
		echo "fuzz: no harness $bindir/$name" >&2
		exit 2
	fi
	if ((running >= jobs)); then
		wait -n
		running=$((running - 1))
	fi
	mkdir -p "$outdir/$name"
	rm -f "$outdir/$name/status"
	{
		run_one "$name"
		echo $? >"$outdir/$name/status"
	} &
	running=$((running + 1))
done
wait
for name in "$@"; do
	summary "$name" "$(cat "$outdir/$name/status" 2>/dev/null || echo 2)" ||
	    failed=1
done
exit "$failed"
