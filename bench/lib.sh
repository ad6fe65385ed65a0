#!/usr/bin/env bash
# bench/lib.sh: what the measurement scripts share (sourced, not run):
# the sizes, messages, clean-up, statistics and hyperfine in rounds.
# fig NAME... records figures in $RAW/figures.tsv, the one table that
# bench/render.sh reads besides the raw data.
# Figures go out by name (fig), which shellcheck cannot follow:
# shellcheck shell=bash disable=SC2034

cd "$(dirname "$0")/.." || exit
ROOT=$PWD
BENCH=$ROOT/bench
RETRY=${RETRY:-$ROOT/retry}
CC=${CC:-cc}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	STARTUP_ROUNDS=2 LOOP_RUNS=3 SLEEPS=${BENCH_SLEEPS:-50}
	RSS_RUNS=5 PIPE_SIZE=64M PIPE_RUNS=2
	LEFTOVER_WAIT=1s LEFTOVER_CROWD=100
	HERD_ROUNDS=${BENCH_HERD_ROUNDS:-1}
else
	STARTUP_ROUNDS=10 LOOP_RUNS=10 SLEEPS=${BENCH_SLEEPS:-300}
	RSS_RUNS=20 PIPE_SIZE=1G PIPE_RUNS=10
	LEFTOVER_WAIT=5s LEFTOVER_CROWD=1500
	HERD_ROUNDS=${BENCH_HERD_ROUNDS:-5}
fi
HERD_CLIENTS=${BENCH_HERD_CLIENTS:-50}
HERD_MODES=(none full equal decorrelated 0.5..1.5)
HERD_BASE=5ms HERD_CAP=1s HERD_HOLD_NS=10000000
# The outage: the herd's clients as jobs that run until they succeed,
# once every OUTAGE_PERIOD, against a dependency down for OUTAGE_NS.
OUTAGE_NS=1000000000 OUTAGE_PERIOD=0.1 OUTAGE_RUNS_MAX=1000
OUTAGE_OPTS=(-q -n 10 -b 10ms -c 200ms -m 60s)
OUTAGE_BUDGET=--budget=outage
OUTAGE_MODES=(none budget)
SLEEP_OPTS=(-b 1ms -c 20ms --jitter=full --seed 1)

say() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

# Everything temporary lives in $TMP; background clients are in $BGPIDS.
TMP=
BGPIDS=()
cleanup() {
	local pid
	for pid in "${BGPIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	if [[ -n $TMP ]]; then
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'printf "bench: error: line %s: %s failed\n" "$LINENO" \
    "$BASH_COMMAND" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- set-up ---------------------------------------------------------------

install_tools() {
	# build-aux/deps.sh installs a list of Debian packages with apt-get,
	# as root or through sudo, or names them and fails.
	sh build-aux/deps.sh packages "$BENCH/packages.txt" ||
	    die "cannot install the packages listed in bench/packages.txt"
	local t
	for t in hyperfine gnuplot jq /usr/bin/time /usr/bin/retry timeout \
	    head numfmt; do
		command -v "$t" >/dev/null || die "$t is missing"
	done
}

build_helpers() {
	local h flags=(-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra)
	[[ -x $RETRY ]] || die "$RETRY is not built: run make first"
	# A private copy: a rebuild during the run cannot change or break it.
	cp "$RETRY" "$BIN/retry"
	# Named from the checkout, so that no machine's path is written.
	RETRY_BUILT=$RETRY RETRY=$BIN/retry
	[[ $RETRY_BUILT == "$ROOT"/* ]] && RETRY_BUILT=./${RETRY_BUILT#"$ROOT"/}
	for h in floor loop nap herd spoolfloor holdfloor; do
		"$CC" "${flags[@]}" -o "$BIN/$h" "$BENCH/$h.c" ||
		    die "cannot compile bench/$h.c"
	done
	# stamp is static where libc.a exists: no dynamic loader in the gap.
	if "$CC" "${flags[@]}" -static -o "$BIN/stamp" "$BENCH/stamp.c" \
	    2>/dev/null; then
		STAMP_LINK=static
	else
		"$CC" "${flags[@]}" -o "$BIN/stamp" "$BENCH/stamp.c" ||
		    die "cannot compile bench/stamp.c"
		STAMP_LINK=dynamic
	fi
}

loadavg() { cut -d' ' -f1 /proc/loadavg; }

describe_machine() {
	local cpu libc
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	libc=$(ldd --version 2>&1 | sed -n 1p)
	M_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
	M_NPROC=$(nproc)
	M_CPU=${cpu:-$(uname -m)}
	M_KERNEL="$(uname -s) $(uname -r) $(uname -m)"
	M_LIBC=${libc:-unknown}
	M_CC=$("$CC" --version | sed -n 1p)
	M_RETRY=$("$RETRY" --version)
	M_TOOLS="$(hyperfine --version), $(dpkg-query -W \
	    -f '${Package} ${Version}' retry 2>/dev/null || echo 'retry ?')"
	M_TMPFS=$(df -P -T "${TMPDIR:-/tmp}" | awk 'NR == 2 { print $2 }')
	M_LOAD0=$(loadavg)
	{
		echo "date: $M_DATE"
		echo "nproc: $M_NPROC"
		echo "cpu: $M_CPU"
		echo "kernel: $M_KERNEL"
		echo "libc: $M_LIBC"
		echo "compiler: $M_CC"
		echo "retry: $M_RETRY ($RETRY_BUILT)"
		echo "tools: $M_TOOLS"
		echo "TMPDIR filesystem: $M_TMPFS"
		echo "load average at start: $M_LOAD0"
	} >"$RAW/machine.txt"
	fig M_DATE M_NPROC M_CPU M_KERNEL M_LIBC M_CC M_RETRY M_TOOLS M_TMPFS \
	    M_LOAD0 RETRY_BUILT STAMP_LINK
}

# --- arithmetic -----------------------------------------------------------

# Reads numbers, one a line; prints "n median p99 min max" (nearest rank).
stats() {
	sort -g | awk '{ a[NR] = $1 }
	END {
		if (NR == 0) { print "0 0 0 0 0"; exit }
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		r = int(0.99 * NR); if (r < 0.99 * NR) r++
		printf "%d %.0f %.0f %.0f %.0f\n", NR, m, a[r], a[1], a[NR]
	}'
}

calc() { awk "BEGIN { printf \"$1\", $2 }"; }
ms() { calc '%.3f' "$1 / 1e6"; }
mbs() { calc '%.0f' "$P_BYTES / 1048576 / $1"; }	# MiB/s from seconds
verdict() { awk "BEGIN { exit !($1) }" && echo met || echo missed; }

# The median of one command of a hf_rounds JSON file, in seconds.
median_of() {
	jq -r --arg n "$2" '.results[] | select(.command == $n) | .median' "$1"
}

# min_of JSON NAME [SCALE]: the fastest run, in seconds times SCALE.
min_of() {
	calc '%.3f' "$(jq -r --arg n "$2" \
	    '.results[] | select(.command == $n) | .min' "$1") * ${3:-1}"
}

# hyperfine ARGS...: runs it quietly, showing its output only on failure.
hf() {
	hyperfine --style basic "$@" >"$TMP/hyperfine.log" 2>&1 || {
		cat "$TMP/hyperfine.log" >&2
		die "hyperfine failed"
	}
}

# hf_rounds JSON ROUNDS HYPERFINE-OPTION...: times the commands HF_CMDS,
# named HF_NAMES, in ROUNDS hyperfine runs, the order rotating from round
# to round, so that a load that comes and goes hits every command alike.
# JSON gets each command's pooled times, median and mean.
hf_rounds() {
	local json=$1 rounds=$2 r i k n=${#HF_CMDS[@]} names cmds
	shift 2
	rm -f "$TMP"/round-*.json
	for ((r = 0; r < rounds; r++)); do
		names=() cmds=()
		for ((i = 0; i < n; i++)); do
			k=$(((i + r) % n))
			names+=(-n "${HF_NAMES[k]}")
			cmds+=("${HF_CMDS[k]}")
		done
		hf "$@" --export-json "$TMP/round-$r.json" "${names[@]}" \
		    "${cmds[@]}"
	done
	jq -s '{ rounds: length, results: [map(.results[]) |
	    group_by(.command)[] |
	    { command: .[0].command, times: (map(.times[]) | sort) } |
	    .mean = ((.times | add) / (.times | length)) | .min = .times[0] |
	    .median = (.times | length as $n | if $n % 2 == 1
		then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2
		end)] }' "$TMP"/round-*.json >"$json"
}

# Quotes one word for hyperfine's command lines.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }


# fig NAME...: appends each named variable's value to figures.tsv.
fig() {
	local n
	for n in "$@"; do
		printf '%s\t%s\n' "$n" "${!n}" >>"$RAW/figures.tsv"
	done
}
