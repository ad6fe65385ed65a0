#!/usr/bin/env bash
# bench/render.sh RAW OUT: renders one run of the benchmarks.  From the
# raw tables in RAW (figures.tsv and the per-measurement files that
# bench/run.sh writes) it writes OUT/tables.md, the tables with each
# target judged met or missed, and OUT/herd.png, and prints the summary.
# It measures nothing: it can be rerun on an old bench/raw.  The prose
# around the figures is bench/results.md, written by hand.
# The figures are variables read from figures.tsv, unseen by shellcheck:
# shellcheck disable=SC2153
set -Eeuo pipefail
RAW=$(cd "$1" && pwd) OUT=$(cd "$2" && pwd)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
while IFS=$'\t' read -r k v; do
	printf -v "$k" '%s' "$v"
done <"$RAW/figures.tsv"

# outage_word "LIST" N: the Nth word of a list of medians.
outage_word() {
	local -a w
	read -ra w <<<"$1"
	echo "${w[$2 - 1]}"
}

verdicts() {
	V_STARTUP=$(verdict "$R_FLOOR <= 1.10 && $R_TIMEOUT < 1 && $R_DEB < 1")
	V_LOOP=$(verdict "$R_LOOP <= 1.10")
	V_SLEEP=$(verdict "$SL_MED <= 1e6 && $SL_P99 <= 5e6 && $SL_EARLY == 0")
	V_RSS=$(verdict "$RSS_RETRY_MAX <= 2048")
	V_PIPE=$(verdict "$R_PIPE >= 0.7 && $P_RSS <= 8192")
	V_HOLD=$(verdict "$R_HOLD <= 1.10")
	V_ERE=$(verdict "$ERE_WORST <= 100")
	V_LEFTOVER=$(verdict "$LT_MAX < 50")
	V_STATIC="not built"
	[[ $ST_BUILT == yes ]] && V_STATIC=$(verdict \
	    "$ST_STATIC <= 0.9 * $ST_DEB && $ST_STATIC <= $ST_FLOOR")
	local clear=no
	[[ $H_SLOWEST == none && $H_MOST == none ]] && clear=yes
	if [[ $clear == yes && $H_LEAST_AWS == full ]]; then
		V_HERD="as expected"
	elif [[ $clear == yes ]]; then
		V_HERD="none loses; of the article's four modes $H_LEAST_AWS,"
		V_HERD="$V_HERD not full, did the least work"
	else
		V_HERD="not as expected"
	fi
	[[ $H_LATE == 0 && $H_FAILED == 0 ]] ||
	    V_HERD="$V_HERD (invalid: $H_LATE late starts, $H_FAILED failures)"
	V_OUTAGE="$(calc '%.2f' "$(outage_word "$O_BUDGET" 1) / \
	    $(outage_word "$O_NONE" 1)") × the attempts while down, recovery \
$(calc '%.2f' "$(outage_word "$O_BUDGET" 3) / $(outage_word "$O_NONE" 3)") ×"
}

# ratio A B: A / B to two places, or "-" when either is missing.
ratio() {
	if [[ $1 == - || $2 == - ]]; then
		echo -
	else
		calc '%.2f' "$1 / $2"
	fi
}

# The dynamic start-up's instructions before issue 39's features
# (93f07ad, callgrind under env -i), which a run without them must not
# exceed.
BASE39_INSTR=197893

dyn_instr() {
	awk '$1 == "dynamic" { print $2 }' "$RAW/static-instr.tsv"
}

static_row() {
	local t=$1 name=$2 ins
	ins=$(awk -v n="$name" '$1 == n { print $2 }' "$RAW/static-instr.tsv")
	if [[ $t == - ]]; then
		echo "| $3 | not built | | | | |"
		return
	fi
	printf '| %s | %.3f | %s | %s | %s | %s |\n' "$3" "$(calc '%.6f' \
	    "$t * 1e3")" "$(ratio "$t" "$ST_DEB")" "$(ratio "$t" "$ST_FLOOR")" \
	    "$ins" "$(ratio "$ins" "$(awk '$1 == "debian-retry" { print $2 }' \
	    "$RAW/static-instr.tsv")")"
}

summary_table() {
	cat <<MD
| # | measurement | result (medians) | target | |
|---|---|---|---|---|
| 1 | start-up, \`retry -n1 -- true\` | $R_FLOOR × floor, $R_TIMEOUT × timeout, $R_DEB × Debian retry | ≤ 1.10 × floor, < 1 × both | $V_STARTUP |
| 1b | static start-up, \`retry -n1 -- /bin/true\` | $(ratio "$ST_STATIC" "$ST_DEB") × Debian retry, $(ratio "$ST_STATIC" "$ST_FLOOR") × floor (dynamic: $(ratio "$ST_DYN" "$ST_DEB") ×, $(ratio "$ST_DYN" "$ST_FLOOR") ×) | ≤ 0.9 × Debian retry, ≤ 1 × floor | $V_STATIC |
| 2 | attempt loop, 1000 × \`false\` | $R_LOOP × bare loop ($R_LOOPQ × with -q) | ≤ 1.10 × | $V_LOOP |
| 3 | sleep overshoot, $SL_N sleeps | median $(ms "$SL_MED") ms, p99 $(ms "$SL_P99") ms, $SL_EARLY early (bare loop, same sleeps: $(ms "$LS_MED"), $(ms "$LS_P99") ms) | ≤ 1 ms, ≤ 5 ms, none early | $V_SLEEP |
| 4 | peak RSS, \`retry -n1 -- true\` | $RSS_RETRY_MAX KiB (median $RSS_RETRY) | ≤ 2048 KiB | $V_RSS |
| 4 | $PIPE_SIZE through \`retry -I -O -- cat\` | $R_PIPE × cat's throughput (bound of two spool copies: $R_PIPE_BOUND ×), $P_RSS KiB peak RSS | ≥ 0.7 ×, ≤ 8192 KiB | $V_PIPE |
| 4 | $PIPE_SIZE file through \`retry -n1 -O -- cat FILE \| cat\` | $R_HOLD × its bound, \`cat FILE > held && cat held \| cat\` (the least with a pipe, holdfloor: $R_HOLD_FLOOR ×) | ≤ 1.10 × | $V_HOLD |
| 4 | the costliest EREs retry accepts (\`[ab]*a[ab]{4085}c\` and 8 more), on a 64 KiB line, bench/raw/ereline.tsv | worst $ERE_WORST ms: \`${ERE_WORST_RE//|/\\|}\` on random $ERE_WORST_LINE | ≤ 100 ms | $V_ERE |
| 4 | CPU while clearing a TERM-proof leftover for $LEFTOVER_WAIT, $LEFTOVER_CROWD other processes | median $LT_CPU ms, max $LT_MAX ms | < 50 ms | $V_LEFTOVER |
| 4 | $PIPE_SIZE through \`retry --retry-if-output=ERE -- cat\` | $R_MATCH_Z × the throughput of \`retry -- cat\` on zeros, $R_MATCH_T × on text lines; $M_RSS KiB peak RSS | none: reported | – |
| 4 | $PIPE_SIZE through \`retry --stall-timeout=1m -- cat\` | $R_STALL × the throughput of \`retry -- cat\` | none: reported | – |
| 5 | thundering herd, median attempts and time | slowest: $H_SLOWEST, most work: $H_MOST, least work: $H_LEAST ($H_LEAST_AWS of the article's four) | none loses, full least work | $V_HERD |
| 6 | a $((OUTAGE_NS / 1000000)) ms outage, attempts while down, recovery | without a budget: $(outage_word "$O_NONE" 1) attempts, $(outage_word "$O_NONE" 3) ms; with \`$OUTAGE_BUDGET\`: $(outage_word "$O_BUDGET" 1), $(outage_word "$O_BUDGET" 3) ms | fewer attempts while down | $V_OUTAGE |
MD
}

# row LABEL JSON NAME DIVISOR SCALE: "| label | median | ÷ | fastest |".
row() {
	local m
	m=$(median_of "$2" "$3")
	printf '| %s | %.3f | %s | %s |\n' "$1" "$(calc '%.6f' "$m * $5")" \
	    "$(calc '%.2f' "$m / $4")" "$(min_of "$2" "$3" "$5")"
}

detail_tables() {
	local s=$RAW/startup.json l=$RAW/loop.json p=$RAW/pipe.json
	local m=$RAW/match.json h=$RAW/hold.json
	cat <<MD
## 1. Start-up (raw/startup.json; ms)

| command | median | ÷ retry's median | fastest |
|---|---|---|---|
$(row '`true`' "$s" true "$S_RETRY" 1e3)
$(row '`floor true`' "$s" floor "$S_RETRY" 1e3)
$(row '`retry -n1 -- true`' "$s" retry "$S_RETRY" 1e3)
$(row '`timeout 10 true`' "$s" timeout "$S_RETRY" 1e3)
$(row '`/usr/bin/retry -t 1 -- true`' "$s" debian-retry "$S_RETRY" 1e3)

## 1b. Static start-up (raw/static.json, raw/static-instr.tsv)

| \`… -n1 -- /bin/true\` | median (ms) | ÷ Debian retry | ÷ floor | instructions | ÷ Debian retry |
|---|---|---|---|---|---|
$(static_row "$ST_FLOOR" floor 'floor (fork, exec, wait)')
$(static_row "$ST_DEB" debian-retry 'Debian retry (`-t 1`)')
$(static_row "$ST_DYN" dynamic 'retry, dynamic')
$(static_row "$ST_STATIC" static 'retry, static (build/static/retry)')

Issue 39 (features that a run without them must not pay for): the
dynamic start-up is $(dyn_instr) instructions, $(ratio "$(dyn_instr)" \
"$BASE39_INSTR") × the $BASE39_INSTR of 93f07ad, before them (target ≤ 1).

## 2. Attempt loop (raw/loop.json; s)

| command | median | ÷ bare loop | fastest |
|---|---|---|---|
$(row '`loop 1000 false`' "$l" loop "$L_BARE" 1)
$(row '`retry -n 1000 -b 0 -- false`' "$l" retry "$L_BARE" 1)
$(row '`retry -q -n 1000 -b 0 -- false`' "$l" retry-q "$L_BARE" 1)

## 3. Sleep accuracy (raw/sleep*.t*; ms)

| | median | p99 | min | max |
|---|---|---|---|---|
| overshoot over $SL_N sleeps, retry | $(ms "$SL_MED") | $(ms "$SL_P99") | $(ms "$SL_MIN") | $(ms "$SL_MAX") |
| overshoot, bare fork/exec/sleep loop | $(ms "$LS_MED") | $(ms "$LS_P99") | $(ms "$LS_MIN") | $(ms "$LS_MAX") |
| gap with \`-b 0\` (retry, no sleep) | $(ms "$Z_MED") | $(ms "$Z_P99") | | |
| gap in a bare fork/exec loop | $(ms "$B_MED") | $(ms "$B_P99") | | |
| late wake-up, bare \`ppoll()\` | $(ms "$N_MED") | $(ms "$N_P99") | | $(ms "$N_MAX") |

Early sleeps: $SL_EARLY; median overshoot less the zero-sleep gap:
$(ms "$SL_NET") ms.

## 4. Memory, pipeline, leftovers, output conditions

Peak RSS, KiB (raw/rss.tsv): \`true\` $RSS_TRUE (max $RSS_TRUE_MAX),
\`floor true\` $RSS_FLOOR (max $RSS_FLOOR_MAX), \`retry -n1 -- true\`
$RSS_RETRY (max $RSS_RETRY_MAX).

$PIPE_SIZE of zeros (raw/pipe.json, raw/pipe-rss.tsv; s):

| pipeline | median | ÷ cat | fastest |
|---|---|---|---|
$(row '`cat`' "$p" cat "$P_CAT" 1)
$(row '`retry -I -O -- cat`' "$p" retry "$P_CAT" 1)
$(row '`retry -- cat`' "$p" retry-plain "$P_CAT" 1)
$(row '`retry -I -- cat`' "$p" retry-I "$P_CAT" 1)
$(row '`retry -O -- cat`' "$p" retry-O "$P_CAT" 1)
$(row '`spoolfloor`' "$p" spoolfloor "$P_CAT" 1)

-O against its bound, $PIPE_SIZE of zeros in a file (raw/hold.json; s):

| pipeline | median | ÷ bound | fastest |
|---|---|---|---|
$(row '`cat FILE > held && cat held \| cat`' "$h" held-bound "$P_HELD_BOUND" 1)
$(row '`retry -n1 -O -- cat FILE \| cat`' "$h" retry-O-file "$P_HELD_BOUND" 1)
$(row '`cat FILE \| holdfloor \| cat`' "$h" hold-floor "$P_HELD_BOUND" 1)

Throughput $P_CAT_MBS MiB/s (cat), $P_RETRY_MBS MiB/s (\`-I -O\`);
peak RSS $P_RSS KiB.  Leftover wait (raw/leftover.tsv): CPU median
$LT_CPU ms, max $LT_MAX ms.

Output conditions, $PIPE_SIZE (raw/match.json, raw/match-rss.tsv; s):

| input | median | ÷ without | fastest |
|---|---|---|---|
$(row 'zeros, without' "$m" zeros-plain "$M_ZP" 1)
$(row 'zeros, with the condition' "$m" zeros-match "$M_ZP" 1)
$(row 'text lines, without' "$m" text-plain "$M_TP" 1)
$(row 'text lines, with the condition' "$m" text-match "$M_TP" 1)

## 5. Thundering herd (raw/herd.tsv, raw/herd-summary.tsv)

$HERD_ROUNDS rounds, $HERD_CLIENTS clients; late starts $H_LATE, failed
clients $H_FAILED.

| jitter | attempts: median | min | max | seconds: median | min | max |
|---|---|---|---|---|---|---|
$(awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %.3f | %.3f | %.3f |\n",
    $1, $2, $3, $4, $5, $6, $7 }' "$RAW/herd-summary.tsv")

![attempts and time per jitter mode](../herd.png)

## 6. Outage (raw/outage.tsv; medians over $HERD_ROUNDS rounds)

| mode | attempts while down | attempts after | recovery (ms) | runs given up |
|---|---|---|---|---|
| no budget | ${O_NONE// / | } |
| \`$OUTAGE_BUDGET\` | ${O_BUDGET// / | } |
MD
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

main() {
	verdicts
	{
		echo "# retry benchmarks: tables"
		echo
		echo "Rendered by bench/render.sh from one run of bench/run.sh" \
		    "(${M_DATE}, load $M_LOAD0 at start, $M_LOAD1 at end, on" \
		    "$M_NPROC CPUs$([[ $BENCH_QUICK == 1 ]] && echo ', quick mode'))."
		echo "Machine: raw/machine.txt.  Prose: results.md."
		echo
		summary_table
		echo
		detail_tables
	} >"$OUT/tables.md"
	herd_chart
	summary_table
}

main
