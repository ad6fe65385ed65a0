#!/usr/bin/env bash
# bench/run.sh: the benchmark suite behind `make bench` (issues 4 and 6).
#
# Measures retry side by side with the alternatives in one run and writes
# bench/results.md, the raw data under bench/raw/ and the chart
# bench/herd.png, then prints a summary.  Figures are medians; targets are
# reported as met or missed, never enforced: a missed target is a finding,
# not a failed run.  The script fails only when a measurement cannot be
# taken (a tool is missing, a command misbehaves).
#
# Environment:
#   RETRY=PATH          the retry under test (default: ./retry)
#   CC=cc               compiler for the helper programs in bench/*.c
#   BENCH_QUICK=1       a smoke run: few repetitions, 64 MiB instead of 1 GiB
#   BENCH_HERD_ROUNDS, BENCH_HERD_CLIENTS, BENCH_SLEEPS: override the sizes
set -Eeuo pipefail

cd "$(dirname "$0")/.."
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
	[[ -n $TMP ]] && rm -rf "$TMP"
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
	for h in floor loop nap herd spoolfloor; do
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

# --- 1. start-up ----------------------------------------------------------

bench_startup() {
	local json=$RAW/startup.json
	say "1/6 start-up: 5 commands, $STARTUP_ROUNDS x 100 runs each"
	if ! { "$RETRY" -n1 -- true && "$BIN/floor" true &&
	    timeout 10 true && /usr/bin/retry -t 1 -- true </dev/null; }; then
		die "a start-up command does not succeed on its own"
	fi
	HF_NAMES=(true floor retry timeout debian-retry)
	HF_CMDS=(true "$(q "$BIN/floor") true" "$(q "$RETRY") -n1 -- true"
	    'timeout 10 true' '/usr/bin/retry -t 1 -- true')
	hf_rounds "$json" "$STARTUP_ROUNDS" -N --warmup 20 --runs 100
	S_TRUE=$(median_of "$json" true)
	S_FLOOR=$(median_of "$json" floor)
	S_RETRY=$(median_of "$json" retry)
	S_TIMEOUT=$(median_of "$json" timeout)
	S_DEB=$(median_of "$json" debian-retry)
	R_FLOOR=$(calc '%.3f' "$S_RETRY / $S_FLOOR")
	R_TIMEOUT=$(calc '%.3f' "$S_RETRY / $S_TIMEOUT")
	R_DEB=$(calc '%.3f' "$S_RETRY / $S_DEB")
	V_STARTUP=$(verdict "$R_FLOOR <= 1.10 && $R_TIMEOUT < 1 && $R_DEB < 1")
}

# --- 2. attempt loop ------------------------------------------------------

bench_loop() {
	local json=$RAW/loop.json rc=0 lines
	say "2/6 attempt loop: 1000 attempts of false, $LOOP_RUNS runs each"
	"$BIN/loop" 1000 false || rc=$?
	[[ $rc == 1 ]] || die "loop 1000 false exited $rc, not 1"
	rc=0
	"$RETRY" -n 1000 -b 0 -- false 2>"$TMP/loop.err" || rc=$?
	lines=$(wc -l <"$TMP/loop.err")
	# One line per retried attempt and the giving-up line: 1000 in all.
	[[ $rc == 1 && $lines == 1000 ]] ||
	    die "retry -n 1000 -b 0 -- false: exit $rc, $lines messages"
	HF_NAMES=(loop retry retry-q)
	HF_CMDS=("$(q "$BIN/loop") 1000 false"
	    "$(q "$RETRY") -n 1000 -b 0 -- false"
	    "$(q "$RETRY") -q -n 1000 -b 0 -- false")
	hf_rounds "$json" "$LOOP_RUNS" -N -i --runs 1
	L_BARE=$(median_of "$json" loop)
	L_RETRY=$(median_of "$json" retry)
	L_QUIET=$(median_of "$json" retry-q)
	R_LOOP=$(calc '%.3f' "$L_RETRY / $L_BARE")
	R_LOOPQ=$(calc '%.3f' "$L_QUIET / $L_BARE")
	V_LOOP=$(verdict "$R_LOOP <= 1.10")
}

# --- 3. sleep accuracy ----------------------------------------------------

# Gaps from each line's end stamp to the next line's start stamp, in ns.
gaps() { awk 'NR > 1 { print $2 - end } { end = $3 }' "$1"; }

# run_stamps N FILE COMMAND...: runs it; every attempt fails, N stamps.
run_stamps() {
	local n=$1 f=$2 rc=0 got=0
	shift 2
	rm -f "$f"
	"$@" || rc=$?
	[[ -f $f ]] && got=$(wc -l <"$f")
	[[ $rc == 1 && $got == "$n" ]] ||
	    die "$*: exit $rc and $got stamps, not exit 1 and $n stamps"
}

bench_sleep() {
	local n=$((SLEEPS + 1)) f=$TMP/stamps
	say "3/6 sleep accuracy: $SLEEPS sleeps (${SLEEP_OPTS[*]})"
	run_stamps "$n" "$f" "$RETRY" -q -n "$n" "${SLEEP_OPTS[@]}" -- \
	    "$BIN/stamp" "$f"
	# The seeded dry run prints the exact draw before each attempt.
	"$RETRY" --dry-run -n "$n" "${SLEEP_OPTS[@]}" |
	    awk '$1 ~ /^[0-9]+$/ && $1 > 1 { printf "%.0f\n", $5 * 1e9 }' \
	    >"$TMP/draws"
	[[ $(wc -l <"$TMP/draws") == "$SLEEPS" ]] ||
	    die "the dry run does not show $SLEEPS draws"
	gaps "$f" | paste "$TMP/draws" - | awk -v OFS='\t' '
	    BEGIN { print "attempt", "scheduled_ns", "gap_ns", "overshoot_ns" }
	    { print NR + 1, $1, $2, $2 - $1 }' >"$RAW/sleep.tsv"
	read -r SL_N SL_MED SL_P99 SL_MIN SL_MAX < <(awk 'NR > 1 { print $4 }' \
	    "$RAW/sleep.tsv" | stats)
	SL_EARLY=$(awk 'NR > 1 && $4 < 0' "$RAW/sleep.tsv" | wc -l)
	[[ $SL_N == "$SLEEPS" ]] || die "$SL_N sleeps measured, not $SLEEPS"

	# What the gap costs without any sleep: retry's, and a bare loop's.
	run_stamps "$n" "$f" "$RETRY" -q -n "$n" -b 0 -- "$BIN/stamp" "$f"
	gaps "$f" >"$RAW/sleep-zero-retry.txt"
	read -r _ Z_MED Z_P99 _ _ < <(stats <"$RAW/sleep-zero-retry.txt")
	run_stamps "$n" "$f" env RETRY_ATTEMPT=1 "$BIN/loop" "$n" \
	    "$BIN/stamp" "$f"
	gaps "$f" >"$RAW/sleep-zero-loop.txt"
	read -r _ B_MED B_P99 _ _ < <(stats <"$RAW/sleep-zero-loop.txt")
	# The same sleeps in a bare fork/exec/sleep loop: any tool's floor.
	run_stamps "$n" "$f" env RETRY_ATTEMPT=1 "$BIN/loop" -s "$TMP/draws" \
	    "$n" "$BIN/stamp" "$f"
	gaps "$f" | paste "$TMP/draws" - | awk '{ print $2 - $1 }' \
	    >"$RAW/sleep-bare-loop.txt"
	read -r _ LS_MED LS_P99 LS_MIN LS_MAX < <(stats \
	    <"$RAW/sleep-bare-loop.txt")
	# And how late this machine wakes from a bare ppoll() of each draw.
	"$BIN/nap" <"$TMP/draws" >"$RAW/sleep-nap.txt"
	read -r _ N_MED N_P99 _ N_MAX < <(stats <"$RAW/sleep-nap.txt")
	SL_NET=$((SL_MED - Z_MED))
	V_SLEEP=$(verdict "$SL_MED <= 1e6 && $SL_P99 <= 5e6 && $SL_EARLY == 0")
}

# --- 4. memory and pipeline throughput ------------------------------------

# peak_rss NAME COMMAND...: appends "NAME KiB" to rss.tsv.
peak_rss() {
	local name=$1
	shift
	/usr/bin/time -f %M -o "$TMP/rss" "$@" ||
	    die "$*: failed under /usr/bin/time"
	printf '%s\t%s\n' "$name" "$(tail -1 "$TMP/rss")" >>"$RAW/rss.tsv"
}

rss_of() { awk -v n="$1" '$1 == n { print $2 }' "$RAW/rss.tsv" | stats; }

bench_rss() {
	local i
	say "4/6 memory: peak RSS of $RSS_RUNS plain runs"
	printf 'command\tmaxrss_kib\n' >"$RAW/rss.tsv"
	for ((i = 0; i < RSS_RUNS; i++)); do
		peak_rss true true
		peak_rss floor "$BIN/floor" true
		peak_rss retry "$RETRY" -n1 -- true
	done
	read -r _ RSS_TRUE _ _ RSS_TRUE_MAX < <(rss_of true)
	read -r _ RSS_FLOOR _ _ RSS_FLOOR_MAX < <(rss_of floor)
	read -r _ RSS_RETRY _ _ RSS_RETRY_MAX < <(rss_of retry)
	V_RSS=$(verdict "$RSS_RETRY_MAX <= 2048")
}

bench_pipe() {
	local json=$RAW/pipe.json i count bytes src
	bytes=$(numfmt --from=iec "$PIPE_SIZE")
	src="head -c $PIPE_SIZE /dev/zero"	# for hyperfine's shell
	say "4/6 pipeline: $PIPE_SIZE through cat and retry -I -O -- cat"
	printf 'run\tmaxrss_kib\tbytes_out\n' >"$RAW/pipe-rss.tsv"
	for ((i = 1; i <= 3; i++)); do
		count=$(head -c "$PIPE_SIZE" /dev/zero |
		    /usr/bin/time -f %M -o "$TMP/rss" "$RETRY" -I -O -- cat |
		    wc -c) ||
		    die "$src | retry -I -O -- cat | wc -c failed"
		[[ $count == "$bytes" ]] ||
		    die "retry -I -O -- cat passed $count bytes, not $bytes"
		printf '%s\t%s\t%s\n' "$i" "$(tail -1 "$TMP/rss")" "$count" \
		    >>"$RAW/pipe-rss.tsv"
	done
	P_RSS=$(awk 'NR > 1 { print $2 }' "$RAW/pipe-rss.tsv" | stats |
	    cut -d' ' -f5)
	# retry alone, -I alone and -O alone show where the time goes; the
	# spool floor is one bare copy of the stream into a temporary file.
	HF_NAMES=(cat retry retry-plain retry-I retry-O spoolfloor)
	HF_CMDS=("$src | cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -I -O -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -I -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -O -- cat | cat >/dev/null"
	    "$src | $(q "$BIN/spoolfloor")")
	hf_rounds "$json" "$PIPE_RUNS" --runs 1
	P_CAT=$(median_of "$json" cat)
	P_RETRY=$(median_of "$json" retry)
	P_PLAIN=$(median_of "$json" retry-plain)
	P_I=$(median_of "$json" retry-I)
	P_O=$(median_of "$json" retry-O)
	P_FLOOR=$(median_of "$json" spoolfloor)
	P_BYTES=$bytes
	P_CAT_MBS=$(mbs "$P_CAT")
	P_RETRY_MBS=$(mbs "$P_RETRY")
	R_PIPE=$(calc '%.3f' "$P_CAT / $P_RETRY")
	# Two spool copies, made one after the other by one process.
	R_PIPE_BOUND=$(calc '%.3f' "$P_CAT / (2 * $P_FLOOR)")
	V_PIPE=$(verdict "$R_PIPE >= 0.7 && $P_RSS <= 8192")
}

# --- 4b. waiting for leftovers ----------------------------------------------

# retry's CPU time while it clears a leftover that ignores TERM for -k,
# on a host with LEFTOVER_CROWD other processes: the cost of the wait
# must not grow with what else runs.  /usr/bin/time counts the children
# retry reaped too (sh, sleep), a few milliseconds at most.
bench_leftover() {
	local i crowd=() cpu
	say "4/5 leftovers: CPU time of a ${LEFTOVER_WAIT} wait among" \
	    "$LEFTOVER_CROWD processes"
	for ((i = 0; i < LEFTOVER_CROWD; i++)); do
		sleep 300 &
		crowd+=("$!")
	done
	BGPIDS=("${crowd[@]}")
	printf 'run\tcpu_s\telapsed_s\n' >"$RAW/leftover.tsv"
	for ((i = 1; i <= 3; i++)); do
		/usr/bin/time -f '%U %S %e' -o "$TMP/lt" "$RETRY" -q -n2 -b0 \
		    -k "$LEFTOVER_WAIT" -- sh -c 'trap "" TERM; sleep 301 &
		    exit 1' || true
		read -r u s e <"$TMP/lt"
		printf '%s\t%s\t%s\n' "$i" "$(calc '%.3f' "$u + $s")" "$e" \
		    >>"$RAW/leftover.tsv"
	done
	kill "${crowd[@]}" 2>/dev/null || true
	wait "${crowd[@]}" 2>/dev/null || true
	BGPIDS=()
	# The final attempt's leftover is left alone, by design.
	pkill -x -f 'sleep 301' 2>/dev/null || true
	LT_CPU=$(awk 'NR > 1 { print $2 * 1000 }' "$RAW/leftover.tsv" | stats |
	    cut -d' ' -f2)
	LT_MAX=$(awk 'NR > 1 { print $2 * 1000 }' "$RAW/leftover.tsv" | stats |
	    cut -d' ' -f5)
	V_LEFTOVER=$(verdict "$LT_MAX < 50")
}

# --- 4c. output conditions ------------------------------------------------

# The cost of an output condition (issue 13): with one, the command's
# stdout and stderr are pipes that retry reads, matches line by line and
# copies on; without, the command writes to retry's stdout itself.  Both
# through `retry [--retry-if-output=ERE] -- cat | cat >/dev/null`, once
# with zeros (no newline: one line, matched on its first 64 KiB, so the
# cost of the copy alone) and once with short text lines (every line
# matched, the real cost).  No target: the issue asks for the figure.
MATCH_ERE='^NEVER MATCHES$'
MATCH_LINE='some line of text'

# match_check SOURCE NAME: the bytes pass whole through the condition;
# appends "NAME KiB" (peak RSS, the command's included) to match-rss.tsv.
match_check() {
	local count
	# yes dies of SIGPIPE when head is done: not a failure here.
	count=$( (set +o pipefail; eval "$1") |
	    /usr/bin/time -f %M -o "$TMP/rss" "$RETRY" \
	    --retry-if-output="$MATCH_ERE" -- cat | wc -c) ||
	    die "$1 | retry --retry-if-output -- cat | wc -c failed"
	[[ $count == "$M_BYTES" ]] ||
	    die "retry --retry-if-output -- cat passed $count bytes, not" \
	    "$M_BYTES"
	printf '%s\t%s\n' "$2" "$(tail -1 "$TMP/rss")" >>"$RAW/match-rss.tsv"
}

bench_match() {
	local json=$RAW/match.json zeros text cond
	M_BYTES=$(numfmt --from=iec "$PIPE_SIZE")
	zeros="head -c $PIPE_SIZE /dev/zero"
	text="yes $(q "$MATCH_LINE") | head -c $PIPE_SIZE"
	cond="--retry-if-output=$(q "$MATCH_ERE")"
	say "4/5 output conditions: $PIPE_SIZE through retry -- cat with and" \
	    "without $cond"
	printf 'input\tmaxrss_kib\n' >"$RAW/match-rss.tsv"
	match_check "$zeros" zeros
	match_check "$text" text
	HF_NAMES=(zeros-plain zeros-match text-plain text-match)
	HF_CMDS=("$zeros | $(q "$RETRY") -- cat | cat >/dev/null"
	    "$zeros | $(q "$RETRY") $cond -- cat | cat >/dev/null"
	    "$text | $(q "$RETRY") -- cat | cat >/dev/null"
	    "$text | $(q "$RETRY") $cond -- cat | cat >/dev/null")
	hf_rounds "$json" "$PIPE_RUNS" --runs 1
	M_ZP=$(median_of "$json" zeros-plain)
	M_ZM=$(median_of "$json" zeros-match)
	M_TP=$(median_of "$json" text-plain)
	M_TM=$(median_of "$json" text-match)
	# Throughput with the condition as a share of that without.
	R_MATCH_Z=$(calc '%.3f' "$M_ZP / $M_ZM")
	R_MATCH_T=$(calc '%.3f' "$M_TP / $M_TM")
	M_RSS=$(awk 'NR > 1 { print $2 }' "$RAW/match-rss.tsv" | stats |
	    cut -d' ' -f5)
}

match_row() {
	printf '| 4 | %s through `retry --retry-if-output=ERE -- cat` | %s × the throughput of `retry -- cat` on zeros, %s × on %d-byte text lines; %s KiB peak RSS | none: reported | – |\n' \
	    "$PIPE_SIZE" "$R_MATCH_Z" "$R_MATCH_T" $((${#MATCH_LINE} + 1)) \
	    "$M_RSS"
}

match_section() {
	local j=$RAW/match.json mib
	mib=$(calc '%.0f' "$M_BYTES / 1048576")
	cat <<MD
### Output conditions

The cost of an output condition: $PIPE_SIZE through
\`retry --retry-if-output='$MATCH_ERE' -- cat | cat >/dev/null\`, which
makes retry read the command's stdout and stderr, match every line and
copy the bytes on, against the same run without the condition, where
\`cat\` writes to the pipe itself.  Two inputs: zeros (\`head -c $PIPE_SIZE /dev/zero\`:
no newline, one line matched on its first 64 KiB, so the copy alone) and
text lines (\`yes '$MATCH_LINE' | head -c $PIPE_SIZE\`, $((${#MATCH_LINE} + 1)) bytes a
line: every line matched).  \`hyperfine\`, $PIPE_RUNS rounds of one run
per command, the order rotating (raw: \`raw/match.json\`); peak RSS of one
run of each that also checks the byte count (raw: \`raw/match-rss.tsv\`).

| input | without (s) | with the condition (s) | MiB/s without | MiB/s with | fastest with (s) | throughput ratio |
|---|---|---|---|---|---|---|
| zeros | $(calc '%.3f' "$M_ZP") | $(calc '%.3f' "$M_ZM") | $(calc '%.0f' "$mib / $M_ZP") | $(calc '%.0f' "$mib / $M_ZM") | $(min_of "$j" zeros-match) | $R_MATCH_Z × |
| text lines | $(calc '%.3f' "$M_TP") | $(calc '%.3f' "$M_TM") | $(calc '%.0f' "$mib / $M_TP") | $(calc '%.0f' "$mib / $M_TM") | $(min_of "$j" text-match) | $R_MATCH_T × |

Peak RSS with the condition: $M_RSS KiB.  Without a condition nothing
changes: the command writes to retry's own descriptors directly.

MD
}

# --- 5. thundering herd ---------------------------------------------------

# herd_round MODE: sets HERD_LINE to "clients attempts seconds late
# failed".  It
# runs in the main shell, so that cleanup can stop the clients on SIGINT.
# clients COMMAND...: runs HERD_CLIENTS copies of COMMAND at once, from
# the main shell, so that cleanup can stop them; CLIENTS_FAILED counts
# those that failed.
clients() {
	local i pid
	BGPIDS=()
	for ((i = 0; i < HERD_CLIENTS; i++)); do
		"$@" &
		BGPIDS+=("$!")
	done
	CLIENTS_FAILED=0
	for pid in "${BGPIDS[@]}"; do
		wait "$pid" || CLIENTS_FAILED=$((CLIENTS_FAILED + 1))
	done
	BGPIDS=()
}

# The common instant of a round: time enough for every client to start.
herd_start() {
	echo $(($("$BIN/herd" now) + 500000000 + HERD_CLIENTS * 20000000))
}

herd_round() {
	local dir=$TMP/herd start
	rm -rf "$dir"
	mkdir "$dir"
	start=$(herd_start)
	clients "$RETRY" -q -n inf -b "$HERD_BASE" -c "$HERD_CAP" -j "$1" \
	    -m 120s -- "$BIN/herd" "$dir/lock" "$HERD_HOLD_NS" "$start" \
	    "$dir/log"
	# shellcheck disable=SC2034 # rounds() reads it by name
	HERD_LINE=$HERD_CLIENTS\ $(awk -v t0="$start" \
	    -v failed="$CLIENTS_FAILED" '
	    $1 == "late" { late++; next }
	    { n += $1; if ($3 > end) end = $3 }
	    END { printf "%d %.3f %d %d\n", n, (end - t0) / 1e9, late, failed }
	' "$dir/log")
}

# rounds TSV LABEL FUNCTION VAR MODE...: HERD_ROUNDS rounds of FUNCTION
# MODE for each MODE, rounds outside and modes inside, so that a load that
# drifts hits every mode alike; after each, "MODE ROUND $VAR" goes to TSV,
# tab-separated.
rounds() {
	local tsv=$1 label=$2 fn=$3 var=$4 r mode
	shift 4
	for ((r = 1; r <= HERD_ROUNDS; r++)); do
		for mode in "$@"; do
			"$fn" "$mode"
			say "  round $r, $mode: $label: ${!var}"
			printf '%s\t%s\t%s\n' "$mode" "$r" "${!var// /$'\t'}" \
			    >>"$tsv"
		done
	done
}

bench_herd() {
	say "5/6 thundering herd: $HERD_CLIENTS clients, ${#HERD_MODES[@]}" \
	    "modes, $HERD_ROUNDS rounds"
	printf 'mode\tround\tclients\tattempts\tseconds\tlate\tfailed\n' \
	    >"$RAW/herd.tsv"
	rounds "$RAW/herd.tsv" "clients, attempts, seconds, late, failed" \
	    herd_round HERD_LINE "${HERD_MODES[@]}"
	herd_summary
	herd_chart
}

# herd-summary.tsv: per mode, median, min and max of attempts and time.
herd_summary() {
	local mode a t
	printf 'mode\tatt_med\tatt_min\tatt_max\tsec_med\tsec_min\tsec_max\n' \
	    >"$RAW/herd-summary.tsv"
	for mode in "${HERD_MODES[@]}"; do
		a=$(awk -v m="$mode" '$1 == m { print $4 }' "$RAW/herd.tsv" |
		    stats)
		t=$(awk -v m="$mode" '$1 == m { print $5 * 1000 }' \
		    "$RAW/herd.tsv" | stats)
		# stats prints n median p99 min max; time goes back to s.
		echo "$mode $a $t" | awk -v OFS='\t' '{ print $1, $3, $5, $6,
		    $8 / 1000, $10 / 1000, $11 / 1000 }' \
		    >>"$RAW/herd-summary.tsv"
	done
	H_LATE=$(awk 'NR > 1 { n += $6 } END { print n + 0 }' "$RAW/herd.tsv")
	H_FAILED=$(awk 'NR > 1 { n += $7 } END { print n + 0 }' "$RAW/herd.tsv")
	H_SLOWEST=$(awk 'NR > 1 && $5 > t { t = $5; m = $1 } END { print m }' \
	    "$RAW/herd-summary.tsv")
	H_MOST=$(awk 'NR > 1 && $2 > a { a = $2; m = $1 } END { print m }' \
	    "$RAW/herd-summary.tsv")
	H_LEAST=$(awk 'NR > 1 && (a == "" || $2 < a) { a = $2; m = $1 }
	    END { print m }' "$RAW/herd-summary.tsv")
	# The same among the four modes that the AWS article compares.
	H_LEAST_AWS=$(awk 'NR > 1 && $1 ~ /^(none|full|equal|decorrelated)$/ &&
	    (a == "" || $2 < a) { a = $2; m = $1 } END { print m }' \
	    "$RAW/herd-summary.tsv")
}

herd_chart() {
	local term=pngcairo
	gnuplot -e 'set terminal pngcairo' 2>/dev/null || term=png
	gnuplot <<GNUPLOT || die "gnuplot could not draw herd.png"
set terminal $term size 1100,500
set output '$OUT/herd.png'
set datafile separator '\t'
set key off
set style fill solid 0.5
set boxwidth 0.6
set grid ytics
set yrange [0:*]
set xrange [-0.6:${#HERD_MODES[@]} - 0.4]
set xlabel 'jitter mode'
set xtics rotate by -30
set multiplot layout 1,2 title "Thundering herd: $HERD_CLIENTS clients, \
one lock held ${HERD_HOLD_NS%000000} ms, -b $HERD_BASE -c $HERD_CAP \
(medians over rounds: $HERD_ROUNDS; bars: min to max)"
set title 'total attempts (work)'
plot '$RAW/herd-summary.tsv' skip 1 using 0:2:xtic(1) with boxes, \
    '' skip 1 using 0:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb 'black'
set title 'time until every client succeeded (s)'
plot '$RAW/herd-summary.tsv' skip 1 using 0:5:xtic(1) with boxes, \
    '' skip 1 using 0:5:6:7 with yerrorbars pt 7 ps 0.4 lc rgb 'black'
unset multiplot
GNUPLOT
}

# --- 6. an outage, with and without a retry budget -------------------------

# outage_client DIR START DOWN [OPTION]: one job, which runs retry until a
# run succeeds, waiting OUTAGE_PERIOD after each run that gave up, as a
# cron job would; each run that gave up adds a line to DIR/giveups.
outage_client() {
	local dir=$1 start=$2 down=$3 runs=0
	shift 3
	until XDG_RUNTIME_DIR=$dir/run "$RETRY" "${OUTAGE_OPTS[@]}" "$@" -- \
	    "$BIN/herd" "$dir/lock" "$HERD_HOLD_NS" "$start" "$dir/log" \
	    "$down"; do
		echo >>"$dir/giveups"
		((++runs < OUTAGE_RUNS_MAX)) || return 1
		sleep "$OUTAGE_PERIOD"
	done
}

# outage_round MODE: sets OUTAGE_LINE to "during after recovery giveups
# succeeded": the attempts while the dependency was down and after, the
# milliseconds from its return to the last client's success, the runs
# that gave up, and the clients that succeeded.
outage_round() {
	local dir=$TMP/outage start down opt=()
	rm -rf "$dir"
	mkdir "$dir"
	mkdir -m 700 "$dir/run"
	: >"$dir/giveups"
	[[ $1 == budget ]] && opt=("$OUTAGE_BUDGET")
	start=$(herd_start)
	down=$((start + OUTAGE_NS))
	clients outage_client "$dir" "$start" "$down" "${opt[@]}"
	((CLIENTS_FAILED == 0)) ||
	    die "$CLIENTS_FAILED outage clients never succeeded"
	# shellcheck disable=SC2034 # rounds() reads it by name
	OUTAGE_LINE=$(awk -v down="$down" -v giveups="$(wc -l \
	    <"$dir/giveups")" '
	    $2 < down { during++; next }
	    { after++ }
	    $3 == "ok" { ok++; if ($2 > last) last = $2 }
	    END { printf "%d %d %.0f %d %d\n", during, after,
		(last - down) / 1e6, giveups, ok }' "$dir/log")
}

bench_outage() {
	say "6/6 outage: $HERD_CLIENTS jobs, a $((OUTAGE_NS / 1000000)) ms" \
	    "outage, without and with $OUTAGE_BUDGET, $HERD_ROUNDS rounds"
	printf 'mode\tround\tduring\tafter\trecovery\tgiveups\tsucceeded\n' \
	    >"$RAW/outage.tsv"
	rounds "$RAW/outage.tsv" \
	    "attempts during, after, recovery ms, give-ups, succeeded" \
	    outage_round OUTAGE_LINE "${OUTAGE_MODES[@]}"
	# Medians per mode: during, after, recovery, give-ups.
	O_NONE=$(outage_medians none)
	O_BUDGET=$(outage_medians budget)
}

# outage_medians MODE: "during after recovery giveups", medians.
outage_medians() {
	local col out=()
	for col in 3 4 5 6; do
		out+=("$(awk -F'\t' -v m="$1" -v c="$col" '$1 == m { print $c }' \
		    "$RAW/outage.tsv" | stats | cut -d' ' -f2)")
	done
	echo "${out[*]}"
}

# --- results --------------------------------------------------------------

herd_verdict() {
	local clear=no least=no
	[[ $H_SLOWEST == none && $H_MOST == none ]] && clear=yes
	[[ $H_LEAST_AWS == full ]] && least=yes
	if [[ $clear == yes && $least == yes ]]; then
		V_HERD="as expected"
	elif [[ $clear == yes ]]; then
		V_HERD="none loses, as expected; of the article's four modes"
		V_HERD="$V_HERD $H_LEAST_AWS, not full, did the least work"
	else
		V_HERD="not as expected"
	fi
	[[ $H_LATE == 0 && $H_FAILED == 0 ]] ||
	    V_HERD="$V_HERD (invalid: $H_LATE late starts, $H_FAILED failures)"
}

outage_verdict() {
	local none budget
	none=$(outage_word "$O_NONE" 1)
	budget=$(outage_word "$O_BUDGET" 1)
	V_OUTAGE=$(calc '%.2f' "$budget / $none")
	V_OUTAGE="$V_OUTAGE × the attempts while down, recovery $(calc '%.2f' \
	    "$(outage_word "$O_BUDGET" 3) / $(outage_word "$O_NONE" 3)") ×"
}

summary_table() {
	cat <<MD
| # | measurement | result (medians) | target | |
|---|---|---|---|---|
| 1 | start-up, \`retry -n1 -- true\` | $R_FLOOR × floor, $R_TIMEOUT × timeout, $R_DEB × Debian retry | ≤ 1.10 × floor, < 1 × both | $V_STARTUP |
| 2 | attempt loop, 1000 × \`false\` | $R_LOOP × bare loop ($R_LOOPQ × with -q) | ≤ 1.10 × | $V_LOOP |
| 3 | sleep overshoot, $SL_N sleeps | median $(ms "$SL_MED") ms, p99 $(ms "$SL_P99") ms, $SL_EARLY early (bare loop, same sleeps: $(ms "$LS_MED"), $(ms "$LS_P99") ms) | ≤ 1 ms, ≤ 5 ms, none early | $V_SLEEP |
| 4 | peak RSS, \`retry -n1 -- true\` | $RSS_RETRY_MAX KiB (median $RSS_RETRY) | ≤ 2048 KiB | $V_RSS |
| 4 | $PIPE_SIZE through \`retry -I -O -- cat\` | $R_PIPE × cat's throughput (bound of two spool copies: $R_PIPE_BOUND ×), $P_RSS KiB peak RSS | ≥ 0.7 ×, ≤ 8192 KiB | $V_PIPE |
| 4 | CPU while clearing a TERM-proof leftover for $LEFTOVER_WAIT, $LEFTOVER_CROWD other processes | median $LT_CPU ms, max $LT_MAX ms | < 50 ms | $V_LEFTOVER |
$(match_row)
| 5 | thundering herd, median attempts and time | slowest: $H_SLOWEST, most work: $H_MOST, least work: $H_LEAST ($H_LEAST_AWS of the article's four) | none loses, full least work | $V_HERD |
| 6 | a $((OUTAGE_NS / 1000000)) ms outage, attempts while down, recovery | without a budget: $(outage_word "$O_NONE" 1) attempts, $(outage_word "$O_NONE" 3) ms; with \`$OUTAGE_BUDGET\`: $(outage_word "$O_BUDGET" 1), $(outage_word "$O_BUDGET" 3) ms | fewer attempts while down | $V_OUTAGE |
MD
}

# outage_word "LIST" N: the Nth word of a list of medians.
outage_word() {
	local -a w
	read -ra w <<<"$1"
	echo "${w[$2 - 1]}"
}

machine_section() {
	local busy
	busy=$(awk -v a="$M_LOAD0" -v b="$M_LOAD1" -v n="$M_NPROC" \
	    'BEGIN { print (a > n / 2 || b > n / 2) ? "yes" : "no" }')
	[[ $busy == yes ]] && cat <<MD
**The machine was busy** (load average $M_LOAD0 at the start, $M_LOAD1 at
the end, on $M_NPROC CPUs): other work competed for the CPUs, so these
figures are noisy; rerun \`make bench\` on an idle machine before relying
on them.

MD
	cat <<MD
| | |
|---|---|
| date | $M_DATE |
| CPUs (nproc) | $M_NPROC × $M_CPU |
| kernel | $M_KERNEL |
| libc | $M_LIBC |
| compiler | $M_CC |
| retry | $M_RETRY, \`$RETRY_BUILT\` |
| tools | $M_TOOLS, /usr/bin/time |
| \$TMPDIR file system | $M_TMPFS |
| load average (1 min) | $M_LOAD0 at start, $M_LOAD1 at end |
MD
}

startup_section() {
	local us_retry us_floor j=$RAW/startup.json
	us_retry=$(calc '%.0f' "($S_RETRY - $S_TRUE) * 1e6")
	us_floor=$(calc '%.0f' "($S_FLOOR - $S_TRUE) * 1e6")
	cat <<MD
## 1. Start-up overhead

\`hyperfine -N\` in $STARTUP_ROUNDS rounds of 100 runs per command, after
20 warm-up runs, the order of the commands rotating from round to round;
medians of the pooled $((STARTUP_ROUNDS * 100)) runs (raw:
\`raw/startup.json\`).  The floor is \`bench/floor.c\`: fork, execvp,
wait, the least any wrapper does.  On a busy machine the fastest run,
the least disturbed one, is steadier than the median; the targets are
judged on medians all the same.

| command | median (ms) | retry's median ÷ this | fastest (ms) |
|---|---|---|---|
| \`true\` | $(calc '%.3f' "$S_TRUE * 1e3") | $(calc '%.2f' "$S_RETRY / $S_TRUE") | $(min_of "$j" true 1e3) |
| \`floor true\` | $(calc '%.3f' "$S_FLOOR * 1e3") | $R_FLOOR | $(min_of "$j" floor 1e3) |
| \`retry -n1 -- true\` | $(calc '%.3f' "$S_RETRY * 1e3") | 1 | $(min_of "$j" retry 1e3) |
| \`timeout 10 true\` | $(calc '%.3f' "$S_TIMEOUT * 1e3") | $R_TIMEOUT | $(min_of "$j" timeout 1e3) |
| \`/usr/bin/retry -t 1 -- true\` (Debian) | $(calc '%.3f' "$S_DEB * 1e3") | $R_DEB | $(min_of "$j" debian-retry 1e3) |

retry adds $us_retry µs to \`true\`; the floor adds $us_floor µs.
Target: within 10% of the floor and faster than both alternatives:
**$V_STARTUP**.

MD
}

loop_section() {
	local j=$RAW/loop.json
	cat <<MD
## 2. Attempt loop

\`hyperfine -N\`, $LOOP_RUNS rounds of one run per command, the order
rotating (raw: \`raw/loop.json\`).  The bare loop is \`bench/loop.c\`:
fork, execvp, wait, 1000 times.  retry also prints 1000 lines on stderr (to /dev/null here);
the \`-q\` run shows what the messages cost.

| command | median (s) | ÷ bare loop | fastest (s) |
|---|---|---|---|
| \`loop 1000 false\` | $(calc '%.3f' "$L_BARE") | 1 | $(min_of "$j" loop) |
| \`retry -n 1000 -b 0 -- false\` | $(calc '%.3f' "$L_RETRY") | $R_LOOP | $(min_of "$j" retry) |
| \`retry -q -n 1000 -b 0 -- false\` | $(calc '%.3f' "$L_QUIET") | $R_LOOPQ | $(min_of "$j" retry-q) |

Target: within 10% of the bare loop: **$V_LOOP**.

MD
}

sleep_section() {
	cat <<MD
## 3. Sleep accuracy

\`retry -q -n $((SLEEPS + 1)) ${SLEEP_OPTS[*]} -- stamp FILE\`: every
attempt fails, and \`bench/stamp.c\` ($STAMP_LINK binary) appends its
CLOCK_MONOTONIC start and end.  The observed gap runs from one attempt's
end stamp to the next one's start stamp; the scheduled sleep is the
\`draw\` column of the same options' \`--dry-run\`, exact thanks to
\`--seed\`.  Overshoot = gap − scheduled (raw: \`raw/sleep.tsv\`).  The gap
also holds the exit, reaping, fork and exec around the sleep, so the
overshoot overstates the sleep's own error: the zero-sleep rows measure
that share, \`loop -s\` (\`bench/loop.c\`) runs the same schedule with
nothing but fork, exec, wait and ppoll(), the floor for any tool, and
\`bench/nap.c\` shows how late this machine wakes from the same sleeps
with no process around them (raw: \`raw/sleep-*.txt\`).

| | median (ms) | p99 (ms) | min (ms) | max (ms) |
|---|---|---|---|---|
| overshoot over $SL_N sleeps, retry | $(ms "$SL_MED") | $(ms "$SL_P99") | $(ms "$SL_MIN") | $(ms "$SL_MAX") |
| overshoot, bare fork/exec/sleep loop, same draws | $(ms "$LS_MED") | $(ms "$LS_P99") | $(ms "$LS_MIN") | $(ms "$LS_MAX") |
| gap with \`-b 0\` (retry, no sleep) | $(ms "$Z_MED") | $(ms "$Z_P99") | | |
| gap in a bare fork/exec loop | $(ms "$B_MED") | $(ms "$B_P99") | | |
| late wake-up, bare \`ppoll()\` of each draw | $(ms "$N_MED") | $(ms "$N_P99") | | $(ms "$N_MAX") |

Sleeps shorter than scheduled: $SL_EARLY.  Median overshoot less retry's
zero-sleep gap: $(ms "$SL_NET") ms.  Target (on the raw overshoot):
median ≤ 1 ms, p99 ≤ 5 ms, never early: **$V_SLEEP**.

MD
}

memory_section() {
	local j=$RAW/pipe.json
	cat <<MD
## 4. Memory and pipeline throughput

Peak RSS is \`/usr/bin/time -f %M\` (getrusage's ru_maxrss, KiB): the
largest of the process and the children it reaped, so the command's own
RSS is included.  $RSS_RUNS runs each (raw: \`raw/rss.tsv\`):

| command | median (KiB) | max (KiB) |
|---|---|---|
| \`true\` | $RSS_TRUE | $RSS_TRUE_MAX |
| \`floor true\` | $RSS_FLOOR | $RSS_FLOOR_MAX |
| \`retry -n1 -- true\` | $RSS_RETRY | $RSS_RETRY_MAX |

Target: ≤ 2048 KiB: **$V_RSS**.

$PIPE_SIZE of zeros (\`head -c $PIPE_SIZE /dev/zero\`) through
\`retry -I -O -- cat | cat >/dev/null\` against \`cat | cat >/dev/null\`:
\`hyperfine\`, $PIPE_RUNS rounds of one run per command, the order rotating
(raw: \`raw/pipe.json\`); peak RSS is the largest of 3 runs that also check the
byte count (raw: \`raw/pipe-rss.tsv\`).  The spools live in \$TMPDIR
($M_TMPFS).

| pipeline | median (s) | throughput (MiB/s) | fastest (s) |
|---|---|---|---|
| \`cat\` | $(calc '%.3f' "$P_CAT") | $P_CAT_MBS | $(min_of "$j" cat) |
| \`retry -I -O -- cat\` | $(calc '%.3f' "$P_RETRY") | $P_RETRY_MBS | $(min_of "$j" retry) |
| \`retry -- cat\` (no spool, for reference) | $(calc '%.3f' "$P_PLAIN") | $(mbs "$P_PLAIN") | $(min_of "$j" retry-plain) |
| \`retry -I -- cat\` (for reference) | $(calc '%.3f' "$P_I") | $(mbs "$P_I") | $(min_of "$j" retry-I) |
| \`retry -O -- cat\` (for reference) | $(calc '%.3f' "$P_O") | $(mbs "$P_O") | $(min_of "$j" retry-O) |
| \`spoolfloor\`: one bare splice of the stream into a temporary file | $(calc '%.3f' "$P_FLOOR") | $(mbs "$P_FLOOR") | $(min_of "$j" spoolfloor) |

Throughput ratio $R_PIPE × cat's, peak RSS $P_RSS KiB.  Target: ≥ 0.7 ×
and ≤ 8192 KiB: **$V_PIPE**.  \`-I -O\` keeps two copies of the stream
in \$TMPDIR, the input for a replay and the output until the attempt
ends, and one process makes both: $(calc '%.3f' "2 * $P_FLOOR") s for two
bare spool copies alone bounds the ratio at $R_PIPE_BOUND × cat's.

### Waiting for leftovers

\`retry -q -n2 -b0 -k $LEFTOVER_WAIT -- sh -c 'trap "" TERM; sleep 301 & exit 1'\`:
before attempt 2, retry sends TERM to the background \`sleep\`, which
ignores it, and waits $LEFTOVER_WAIT for it before SIGKILL, with
$LEFTOVER_CROWD other processes on the host.  CPU time is user + system
from \`/usr/bin/time\` (children included), 3 runs (raw:
\`raw/leftover.tsv\`): median $LT_CPU ms, max $LT_MAX ms.  Target: under
50 ms: **$V_LEFTOVER**.

MD
}

herd_section() {
	cat <<MD
## 5. Thundering herd

$HERD_CLIENTS clients, each \`retry -q -n inf -b $HERD_BASE -c $HERD_CAP
-j MODE -- herd ...\`, unseeded.  \`bench/herd.c\` makes every first attempt
wait for one common CLOCK_MONOTONIC instant, then each attempt takes an
exclusive \`flock(LOCK_EX|LOCK_NB)\` or fails at once; the holder keeps it
${HERD_HOLD_NS%000000} ms and succeeds.  Work is the sum of all clients'
attempts; time runs from the common instant to the last release.  The
hold is longer than it takes $HERD_CLIENTS processes to start on $M_NPROC CPUs,
so that clients firing together really collide.
$HERD_ROUNDS rounds, the modes taking turns in each (raw: \`raw/herd.tsv\`,
\`raw/herd-summary.tsv\`).  Late starts: $H_LATE, failed clients:
$H_FAILED (both must be 0).

| jitter | attempts: median | min | max | seconds: median | min | max |
|---|---|---|---|---|---|---|
$(awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %.3f | %.3f | %.3f |\n",
    $1, $2, $3, $4, $5, $6, $7 }' "$RAW/herd-summary.tsv")

![attempts and time per jitter mode](herd.png)

Expectation (AWS Architecture Blog, "Exponential Backoff And Jitter"): no
jitter is the clear loser, full jitter does the least work; the article
compares none, full, equal and decorrelated.  Here: slowest $H_SLOWEST,
most work $H_MOST, least work $H_LEAST, least work of the article's four
$H_LEAST_AWS: **$V_HERD**.

MD
}

outage_section() {
	cat <<MD
## 6. An outage, with and without a retry budget

$HERD_CLIENTS jobs, each a loop that runs \`retry ${OUTAGE_OPTS[*]}
[$OUTAGE_BUDGET] -- herd ...\` until a run succeeds and waits
$OUTAGE_PERIOD s after each run that gave up, as a cron job that runs
often would.  The dependency (\`bench/herd.c\` with an outage) fails
every attempt at once for $((OUTAGE_NS / 1000000)) ms from a common
start, then serves one client at a time for
${HERD_HOLD_NS%000000} ms, failing the others at once, as in section 5.
Every attempt is logged.  *During*: attempts while the dependency was
down; *after*: attempts after it came back, failed ones included;
*recovery*: from its return to the last job's success; *give-ups*: runs
that gave up (each followed by a new run).  The budget is gRFC A6's
default, 100 tokens and 0.1 back per success, shared by all the jobs
through its state file.  $HERD_ROUNDS rounds, the modes taking turns
(raw: \`raw/outage.tsv\`).

| mode | attempts while down | attempts after | recovery (ms) | runs given up |
|---|---|---|---|---|
| no budget | $(outage_word "$O_NONE" 1) | $(outage_word "$O_NONE" 2) | $(outage_word "$O_NONE" 3) | $(outage_word "$O_NONE" 4) |
| \`$OUTAGE_BUDGET\` | $(outage_word "$O_BUDGET" 1) | $(outage_word "$O_BUDGET" 2) | $(outage_word "$O_BUDGET" 3) | $(outage_word "$O_BUDGET" 4) |

Medians over the rounds.  Expectation: the budget cuts the load on the
dependency while it is down (gRFC A6, Envoy's and Finagle's retry
budgets); whether it slows the recovery depends on how fast the
successes refill the bucket.  Here: **$V_OUTAGE**.

MD
}

write_results() {
	cat <<MD
# retry benchmarks

Written by \`make bench\` (\`bench/run.sh\`)$( [[ ${BENCH_QUICK:-0} == 1 ]] &&
    echo ' in quick mode (BENCH_QUICK=1: few repetitions, not for citing)').
Every figure is a median of runs taken side by side in one run of the
script; targets are reported, never enforced.

## Machine

$(machine_section)

## Summary

$(summary_table)

$(startup_section)

$(loop_section)

$(sleep_section)

$(memory_section)

$(match_section)

$(herd_section)

$(outage_section)
MD
}

main() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-bench.XXXXXX")
	BIN=$TMP/bin OUT=$TMP/out RAW=$TMP/out/raw
	mkdir -p "$BIN" "$RAW"
	install_tools
	build_helpers
	describe_machine
	bench_startup
	bench_loop
	bench_sleep
	bench_rss
	bench_pipe
	bench_match
	bench_leftover
	bench_herd
	bench_outage
	M_LOAD1=$(loadavg)
	echo "load average at end: $M_LOAD1" >>"$RAW/machine.txt"
	herd_verdict
	outage_verdict
	write_results >"$OUT/results.md"
	# Replace the previous results only once every measurement is in.
	rm -rf "$BENCH/raw"
	cp -R "$RAW" "$BENCH/raw"
	cp "$OUT/herd.png" "$OUT/results.md" "$BENCH/"
	summary_table
	echo
	echo "Details: bench/results.md, raw data: bench/raw/," \
	    "chart: bench/herd.png"
}

main "$@"
