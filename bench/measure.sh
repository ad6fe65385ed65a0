# bench/measure.sh: measurements 1 to 4 (sourced by bench/run.sh): start-up,
# the static start-up, the attempt loop, sleep accuracy, memory, pipeline
# throughput, output conditions and leftovers.  Each bench_* function
# writes its raw table under $RAW and its figures through fig; it judges
# nothing (bench/render.sh does).
# Figures go out by name (fig), which shellcheck cannot follow:
# shellcheck shell=bash disable=SC2034

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
	fig S_TRUE S_FLOOR S_RETRY S_TIMEOUT S_DEB R_FLOOR R_TIMEOUT R_DEB
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
	fig L_BARE L_RETRY L_QUIET R_LOOP R_LOOPQ
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
	fig SL_N SL_MED SL_P99 SL_MIN SL_MAX SL_EARLY Z_MED Z_P99 B_MED B_P99 \
	    LS_MED LS_P99 LS_MIN LS_MAX N_MED N_P99 N_MAX SL_NET
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
	fig RSS_TRUE RSS_TRUE_MAX RSS_FLOOR RSS_FLOOR_MAX RSS_RETRY RSS_RETRY_MAX
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
	# --stall-timeout puts retry's own pipes between cat and the reader
	# (issue 28): it must keep the pass-through's throughput.
	HF_NAMES=(cat retry retry-plain retry-I retry-O spoolfloor retry-stall)
	HF_CMDS=("$src | cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -I -O -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -I -- cat | cat >/dev/null"
	    "$src | $(q "$RETRY") -O -- cat | cat >/dev/null"
	    "$src | $(q "$BIN/spoolfloor")"
	    "$src | $(q "$RETRY") -S 1m -- cat | cat >/dev/null")
	hf_rounds "$json" "$PIPE_RUNS" --runs 1
	P_CAT=$(median_of "$json" cat)
	P_RETRY=$(median_of "$json" retry)
	P_PLAIN=$(median_of "$json" retry-plain)
	P_I=$(median_of "$json" retry-I)
	P_O=$(median_of "$json" retry-O)
	P_FLOOR=$(median_of "$json" spoolfloor)
	P_STALL=$(median_of "$json" retry-stall)
	R_STALL=$(calc '%.3f' "$P_PLAIN / $P_STALL")
	P_BYTES=$bytes
	P_CAT_MBS=$(mbs "$P_CAT")
	P_RETRY_MBS=$(mbs "$P_RETRY")
	R_PIPE=$(calc '%.3f' "$P_CAT / $P_RETRY")
	# Two spool copies, made one after the other by one process.
	R_PIPE_BOUND=$(calc '%.3f' "$P_CAT / (2 * $P_FLOOR)")
	fig P_RSS P_CAT P_RETRY P_PLAIN P_I P_O P_FLOOR P_BYTES P_CAT_MBS \
	    P_RETRY_MBS R_PIPE R_PIPE_BOUND P_STALL R_STALL
}

# --- 4a. -O against its own bound (issue 27) -----------------------------

# Holding the output means writing it once and copying it once: the bound
# is cat FILE > held, then cat held | cat, and -O reads the same FILE.
# The two alone, side by side, so that the spools of the other pipelines
# (two copies of PIPE_SIZE each) do not leave their dirty pages to one of
# them; sync before each run, untimed, for the same reason.  held is
# removed before each run, untimed too: the bound does not pay to free the
# page cache that -O frees as it closes its file, nor does it pay what
# ext4 does with a file that `>` cut to nothing (auto_da_alloc: written
# out to disk as cat closes it, 0.5 s for 1 GiB here).
bench_hold() {
	local json=$RAW/hold.json
	say "4a/6 -O: $PIPE_SIZE held, beside cat FILE > held && cat held | cat"
	head -c "$PIPE_SIZE" /dev/zero >"$TMP/hold-src"
	# holdfloor: the same two copies with the attempt's stdout a pipe,
	# as -O's is, where the bound's cat copies within the kernel.
	HF_NAMES=(held-bound retry-O-file hold-floor)
	HF_CMDS=("cat $(q "$TMP/hold-src") >$(q "$TMP/hold-held") &&
	    cat $(q "$TMP/hold-held") | cat >/dev/null"
	    "$(q "$RETRY") -n1 -O -- cat $(q "$TMP/hold-src") | cat >/dev/null"
	    "cat $(q "$TMP/hold-src") | $(q "$BIN/holdfloor") | cat >/dev/null")
	hf_rounds "$json" "$PIPE_RUNS" --runs 1 \
	    --prepare "rm -f $(q "$TMP/hold-held") && sync"
	rm -f "$TMP/hold-src" "$TMP/hold-held"
	P_HELD_BOUND=$(median_of "$json" held-bound)
	P_O_FILE=$(median_of "$json" retry-O-file)
	P_HOLD_FLOOR=$(median_of "$json" hold-floor)
	R_HOLD=$(calc '%.3f' "$P_O_FILE / $P_HELD_BOUND")
	R_HOLD_FLOOR=$(calc '%.3f' "$P_HOLD_FLOOR / $P_HELD_BOUND")
	fig P_HELD_BOUND P_O_FILE R_HOLD P_HOLD_FLOOR R_HOLD_FLOOR
}

# --- 4b. waiting for leftovers ----------------------------------------------

# retry's CPU time while it clears a leftover that ignores TERM for -k,
# on a host with LEFTOVER_CROWD other processes: the cost of the wait
# must not grow with what else runs.  /usr/bin/time counts the children
# retry reaped too (sh, sleep), a few milliseconds at most.
bench_leftover() {
	local i crowd=()
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
	fig LT_CPU LT_MAX
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
	fig M_BYTES M_ZP M_ZM M_TP M_TM R_MATCH_Z R_MATCH_T M_RSS
}


# --- 4d. the costliest EREs on one long line (issue 37) -------------------

# The EREs retry accepts that cost its DFA most: a new state at nearly
# every byte, and then an NFA step over thousands of threads.  Each runs
# over 64 KiB lines on which it finds no match, so that the whole line is
# scanned: random a and b, a alone, random printable ASCII.
# ereline (src/ere/bench/ereline.c) feeds the line as match.c does and
# prints the best of five runs.  The target: 100 ms a line at most.
ERE_SLOW=('[ab]*a[ab]{4085}c' '[ab]*a[ab]{4091}c' 'a[ab]{4000}c'
    '(a[ab]{1000}){3}c' '[ab]*a[ab]{1000}(c|b[ab]{1000}c)'
    '(x[ab]{2000}|a[ab]{2000})c' '[^c]*a[^c]{4000}c' '(.*a){1000}c'
    '.*a.{4000}c')

# ere_line NAME: 64 KiB of bytes from NAME's alphabet, a newline.
ere_line() {
	case $1 in
	ab) head -c 65535 /dev/urandom |
	    LC_ALL=C tr '\000-\377' '[a*128][b*128]' ;;
	a) head -c 65535 /dev/zero | tr '\000' a ;;
	printable) head -c 1000000 /dev/urandom | LC_ALL=C tr -dc ' -~' |
	    head -c 65535 ;;
	esac
	echo
}

bench_ereline() {
	local l
	say "4/5 the costliest EREs retry accepts, on a 64 KiB line"
	"$CC" -O2 -D_GNU_SOURCE -I"$ROOT/src" -o "$BIN/ereline" \
	    "$ROOT/src/ere/bench/ereline.c" "$ROOT"/src/ere/*.c ||
	    die "cannot compile src/ere/bench/ereline.c"
	printf 'line\tere\tms\n' >"$RAW/ereline.tsv"
	for l in ab a printable; do
		ere_line "$l" >"$TMP/ere-$l"
		"$BIN/ereline" "$TMP/ere-$l" "${ERE_SLOW[@]}" |
		    awk -F'\t' -v l="$l" '{ sub(/ ms$/, "", $2)
			printf "%s\t%s\t%s\n", l, $1, $2 }' >>"$RAW/ereline.tsv"
		rm -f "$TMP/ere-$l"
	done
	IFS=$'\t' read -r ERE_WORST_LINE ERE_WORST_RE ERE_WORST < <(
	    awk -F'\t' 'NR > 1' "$RAW/ereline.tsv" | sort -t$'\t' -k3 -g |
	    tail -1)
	fig ERE_WORST ERE_WORST_RE ERE_WORST_LINE
}

# --- 1b. static start-up (issue 20) ---------------------------------------

# instructions NAME COMMAND...: appends "NAME count" to static-instr.tsv:
# the instructions the process itself executes (callgrind, children not
# traced), a figure that a busy machine does not disturb.
instructions() {
	local name=$1 n
	shift
	n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
	    2>&1 >/dev/null | awk '/Collected :/ { print $NF }')
	[[ -n $n ]] || die "callgrind could not count $*"
	printf '%s\t%s\n' "$name" "$n" >>"$RAW/static-instr.tsv"
}

# retry -n1 -- /bin/true, dynamic and static, against Debian's retry and
# the fork/exec floor, side by side.  build/static/retry is `make
# static`'s; without it the static rows say "not built".
bench_static() {
	local json=$RAW/static.json st=$ROOT/build/static/retry
	say "1b start-up, static: $STARTUP_ROUNDS x 100 runs each"
	HF_NAMES=(floor dynamic debian-retry)
	HF_CMDS=("$(q "$BIN/floor") /bin/true"
	    "$(q "$RETRY") -n1 -- /bin/true" '/usr/bin/retry -t 1 -- /bin/true')
	printf 'command\tinstructions\n' >"$RAW/static-instr.tsv"
	ST_BUILT=no
	if [[ -x $st ]]; then
		cp "$st" "$BIN/retry-static"
		"$BIN/retry-static" -n1 -- /bin/true ||
		    die "build/static/retry -n1 -- /bin/true fails"
		ST_BUILT=yes
		HF_NAMES+=(static)
		HF_CMDS+=("$(q "$BIN/retry-static") -n1 -- /bin/true")
		instructions static "$BIN/retry-static" -n1 -- /bin/true
	fi
	instructions floor "$BIN/floor" /bin/true
	instructions dynamic "$RETRY" -n1 -- /bin/true
	instructions debian-retry /usr/bin/retry -t 1 -- /bin/true
	hf_rounds "$json" "$STARTUP_ROUNDS" -N --warmup 20 --runs 100
	ST_FLOOR=$(median_of "$json" floor)
	ST_DYN=$(median_of "$json" dynamic)
	ST_DEB=$(median_of "$json" debian-retry)
	ST_STATIC=-
	[[ $ST_BUILT == yes ]] && ST_STATIC=$(median_of "$json" static)
	fig ST_BUILT ST_FLOOR ST_DYN ST_DEB ST_STATIC
}
