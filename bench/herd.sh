# bench/herd.sh: measurements 5 and 6 (sourced by bench/run.sh): the
# thundering herd and an outage with and without a retry budget.  Raw
# rounds go to $RAW/herd.tsv and $RAW/outage.tsv, figures through fig.
# Figures go out by name (fig), which shellcheck cannot follow:
# shellcheck shell=bash disable=SC2034

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
	fig H_LATE H_FAILED H_SLOWEST H_MOST H_LEAST H_LEAST_AWS
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
	fig O_NONE O_BUDGET
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
