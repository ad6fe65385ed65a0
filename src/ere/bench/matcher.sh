#!/usr/bin/env bash
# The sh -c scripts and the Markdown are single-quoted on purpose.
# shellcheck disable=SC2016
# src/ere/bench/matcher.sh: the output conditions' matcher against its targets
# (issue 27), behind `make bench-matcher`.  Targets are reported, never
# enforced.  Prints three tables in Markdown:
#
#  1. throughput: `retry -n1 --retry-if-output=ERE -- cat FILE | cat`
#     beside `cat FILE | cat`, `cat FILE | teefloor | cat` (bench/teefloor.c:
#     the least a process that sees every byte between them costs), `retry
#     -n1 -- cat FILE | cat` and `grep -E -c ERE FILE`, on base64 lines
#     and on a log-like file (short and long lines, mostly not matching),
#     runs interleaved, medians of wall time;
#  2. one long line: the DFA's milliseconds on a 64 KiB line (ereline);
#  3. how long TERM takes to end retry while the costliest ERE matches
#     lines on stdout and stderr at once.
#
# Environment: RETRY (default ./retry), MB (file size, default 128),
# RUNS (default 7), CC (default cc).
set -Eeuo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
RETRY=${RETRY:-$ROOT/retry}
MB=${MB:-128} RUNS=${RUNS:-7} CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-matcher.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

EREs=('error:' '^[a-z]+$' '(timeout|refused|reset by peer)'
    '^HTTP/1\.[01] 5[0-9][0-9]' '[0-9]+ (errors|failures)' '^\s*FAIL')

now_ns() { date +%s%N; }

# median: numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ms CMD...: the wall milliseconds of one run of CMD (its output dropped).
ms() {
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || true
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000000))
}

# Files of about MB MiB where no line matches any of the EREs.
make_files() {
	head -c $((MB * 1024 * 1024 * 3 / 4)) /dev/urandom | base64 -w 76 |
	    LC_ALL=C grep -Ev -e '^\s*FAIL' -e '^[a-z]+$' >"$TMP/b64"
	awk -v mb="$MB" 'BEGIN {
		srand(7)
		split("connection established user login request served " \
		    "cache hit miss GET POST /api/v1/items status ok took " \
		    "worker started shutting down retrying", w, " ")
		while (n < mb * 1048576) {
			if (rand() < 0.01) {
				m = 1000 + int(rand() * 20000)
				for (l = "x-"; length(l) < m; )
					l = l l
			} else {
				l = sprintf("2026-11-26T12:%02d:%02d INFO [%s]",
				    int(rand() * 60), int(rand() * 60),
				    w[1 + int(rand() * 24)])
				k = 3 + int(rand() * 22)
				for (i = 0; i < k; i++)
					l = l " " w[1 + int(rand() * 24)]
			}
			print l
			n += length(l) + 1
		}
	}' >"$TMP/log"
}

# A row of table 1 for FILE and the retry options given: cat | cat, the
# floor of a process that sees every byte between the two (teefloor),
# retry with no condition, retry with them, and grep -E -c, interleaved
# run by run, each started by the same shell.
throughput_row() {
	local file=$1 label=$2 i base=() floor=() plain=() with=() grep=()
	shift 2
	for ((i = 0; i < RUNS; i++)); do
		base+=("$(ms sh -c 'cat "$1" | cat' sh "$file")")
		floor+=("$(ms sh -c 'cat "$1" | "$2" | cat' sh "$file" \
		    "$TMP/teefloor")")
		plain+=("$(ms sh -c '"$1" -n1 -- cat "$2" | cat' sh "$RETRY" \
		    "$file")")
		with+=("$(ms sh -c 'r=$1 f=$2; shift 2
		    "$r" -n1 "$@" -- cat "$f" | cat' sh "$RETRY" "$file" "$@")")
		[[ $label == all* ]] ||
		    grep+=("$(ms env LC_ALL=C grep -E -c -- "$label" "$file")")
	done
	local b f p w g=-
	b=$(printf '%s\n' "${base[@]}" | median)
	f=$(printf '%s\n' "${floor[@]}" | median)
	p=$(printf '%s\n' "${plain[@]}" | median)
	w=$(printf '%s\n' "${with[@]}" | median)
	((${#grep[@]} == 0)) || g=$(printf '%s\n' "${grep[@]}" | median)
	printf '| %s | `%s` | %s | %s | %s | %s | %.2f | %.2f | %s |\n' \
	    "$(basename "$file")" "${label//|/\\|}" "$b" "$f" "$p" "$w" \
	    "$(echo "$w / $b" | bc -l)" "$(echo "$w / $f" | bc -l)" "$g"
}

table_throughput() {
	local f e
	"$CC" -O2 -D_GNU_SOURCE -o "$TMP/teefloor" "$ROOT/bench/teefloor.c"
	echo "| file | ERE | cat\\|cat ms | floor ms | retry ms | retry with" \
	    "ERE ms | ÷ cat\\|cat | ÷ floor | grep -E -c ms |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	for f in "$TMP/b64" "$TMP/log"; do
		for e in "${EREs[@]}"; do
			throughput_row "$f" "$e" --retry-if-output="$e"
		done
		throughput_row "$f" "all three kinds" \
		    --success-if-output='^HTTP/1\.[01] 2' \
		    --stop-if-output='[0-9]+ (errors|failures)' \
		    --retry-if-output='(timeout|refused|reset by peer)'
	done
}

table_line() {
	"$CC" -O2 -D_GNU_SOURCE -I"$ROOT/src" -o "$TMP/ereline" \
	    "$ROOT/src/ere/bench/ereline.c" "$ROOT"/src/ere/*.c
	echo "| line | ERE | ms (best of 5) | |"
	echo "|---|---|---:|---|"
	"$TMP/ereline" -a 65534 'a{1,1000}b' 'a.*b' '(a|aa)*c' \
	    '^(a|b)*c$' '[[:alpha:]]+[0-9]' | sed 's/^/| 64 KiB of a, then b | `/;
	    s/\t/` | /; s/ ms\t/ | /; s/$/ |/; s/(a|aa)/(a\\|aa)/; s/(a|b)/(a\\|b)/'
	"$TMP/ereline" -r 65534 '[ab]*a[ab]{12}c' '[ab]*a[ab]{100}c' \
	    '[ab]*a[ab]{1000}c' '[ab]*a[ab]{4085}c' | sed 's/^/| 64 KiB of random a b, then c | `/;
	    s/\t/` | /; s/ ms\t/ | /; s/$/ |/'
}

# How long TERM takes to end retry, matching on both streams.
table_term() {
	local i t0 pid out=()
	head -c 65536 /dev/urandom | LC_ALL=C tr '\000-\377' '[a*128][b*128]' \
	    >"$TMP/line"
	echo >>"$TMP/line"
	for i in $(seq 16); do cat "$TMP/line"; done >"$TMP/lines"
	for ((i = 0; i < RUNS; i++)); do
		rm -f "$TMP/started"
		"$RETRY" -n 5 --retry-if-output='[ab]*a[ab]{4085}c' -- sh -c \
		    'echo >"$1"; cat "$2" & cat "$2" >&2; wait; exec sleep 30' \
		    sh "$TMP/started" "$TMP/lines" >/dev/null 2>&1 &
		pid=$!
		while [[ ! -e $TMP/started ]]; do sleep 0.01; done
		sleep 0.3
		t0=$(now_ns)
		kill -TERM "$pid"
		wait "$pid" || true
		out+=($((($(now_ns) - t0) / 1000000)))
	done
	echo "| what | median ms | all runs |"
	echo "|---|---:|---|"
	echo "| TERM to exit, \`[ab]*a[ab]{4085}c\` on stdout and stderr |" \
	    "$(printf '%s\n' "${out[@]}" | median) | ${out[*]} |"
}

echo "machine: $(nproc) CPUs, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
make_files
echo
table_throughput
echo
table_line
echo
table_term
echo
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
