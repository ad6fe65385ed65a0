# Helpers for the suites of the core tool (options, durations, schedule,
# dry run, policy, status, messages): dry-run tables, times and the
# usage-error line.  Load after helpers/common.
# shellcheck shell=bash

# The hint that ends every usage error.
HINT="; try 'retry --help'"

# usage_error MESSAGE: the run exited 125 with exactly one stderr line,
# "retry: MESSAGE; try 'retry --help'", and printed nothing on stdout.
usage_error() {
	[[ $status -eq 125 ]] || { echo "status $status, not 125" >&2; return 1; }
	[[ $stderr == "retry: $1$HINT" ]] ||
	    { printf 'stderr: %s\nwanted: %s\n' "$stderr" "retry: $1$HINT" >&2
	      return 1; }
	[[ -z $output ]]
}

# slurp VAR FILE: the file's text in VAR, less trailing newlines, as $(<
# FILE) would give it but without a fork.
slurp() {
	local -n var=$1
	var=
	IFS= read -r -d '' var <"$2" || true
	var=${var%"${var##*[!$'\n']}"}
}

# quick ARG...: runs retry ARG... and sets $status, $output, $lines,
# $stderr and $stderr_lines as run --separate-stderr would, at a fraction
# of its cost, for the loops that try many values.
# shellcheck disable=SC2034 # the tests read them, as they read run's
quick() {
	status=0
	"$RETRY" "$@" >"$WORK/quick.out" 2>"$WORK/quick.err" || status=$?
	slurp output "$WORK/quick.out"
	slurp stderr "$WORK/quick.err"
	lines=() stderr_lines=()
	if [[ -n $output ]]; then
		mapfile -t lines <<<"$output"
	fi
	if [[ -n $stderr ]]; then
		mapfile -t stderr_lines <<<"$stderr"
	fi
}

# bad_value OPTION VALUE REASON: retry --dry-run --OPTION=VALUE fails with
# the one-line error that names the option and the value.
bad_value() {
	local opt=$1 val=$2 why=$3
	quick --dry-run "--$opt=$val"
	usage_error "invalid --$opt '$val': $why" ||
	    { echo "for --$opt='$val'" >&2; return 1; }
}

# The rows of a dry-run table (in $output) as "attempt window min max
# draw elapsed" lines, without the header and the # lines.
table_rows() {
	awk '$1 ~ /^[0-9]+$/' <<<"$output"
}

# table_col N: field N of every row of the dry-run table in $output.
table_col() {
	awk -v n="$1" '$1 ~ /^[0-9]+$/ { print $n }' <<<"$output"
}

# cell ROW N: field N of one row of the dry-run table in $output.
cell() {
	awk -v r="$1" -v n="$2" '$1 == r { print $n }' <<<"$output"
}

# quiet_success: the last run or quick exited 0 and printed no stderr.
# (A plain [ a ] && [ b ] would not fail a bats test when a is false.)
quiet_success() {
	[[ $status -eq 0 && -z $stderr ]] ||
	    { echo "status $status, stderr: $stderr" >&2; return 1; }
}

# dry_tables FIRST LAST ARG...: the tables of retry --dry-run --seed S
# ARG... for every seed S from FIRST to LAST, one after the other, in
# $WORK/tables.  Each run must succeed and print nothing on stderr.
dry_tables() {
	local first=$1 last=$2 seed
	shift 2
	: >"$WORK/tables"
	for ((seed = first; seed <= last; seed++)); do
		if ! "$RETRY" --dry-run --seed "$seed" "$@" \
		    >>"$WORK/tables" 2>"$WORK/tables.err"; then
			echo "retry --dry-run --seed $seed $* failed" >&2
			return 1
		fi
		if [[ -s $WORK/tables.err ]]; then
			cat "$WORK/tables.err" >&2
			return 1
		fi
	done
}

# check_tables VAR=VALUE...: core-table.awk over $WORK/tables with those
# variables.  Sets SAMPLES, RESID, UMIN and UMAX from its summary.
check_tables() {
	local args=() v word
	for v; do
		args+=(-v "$v")
	done
	run -0 awk "${args[@]}" -f "$ROOT/tests/helpers/core-table.awk" \
	    "$WORK/tables"
	# shellcheck disable=SC2034 # read by the tests
	read -r word SAMPLES word RESID word UMIN word UMAX <<<"$output"
	[[ $word == umax ]]
}

# fcmp X OP Y: a floating-point comparison, such as fcmp "$x" '<' 0.5.
fcmp() {
	awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"
}

# sec_to_ns SECONDS: "0.0015" -> 1500000, exactly.
sec_to_ns() {
	local whole=${1%.*} frac=${1#*.}000000000
	echo $((10#$whole * 1000000000 + 10#${frac:0:9}))
}

# The giving-up line: giving_up LINE N OUTCOME REASON, where the time in
# LINE is measured and so only its form is checked.
giving_up() {
	local line=$1 n=$2 what=$3 why=$4 s=s re
	[[ $n == 1 ]] && s=
	re="^retry: giving up after $n attempt$s in [0-9]+\.[0-9]{3}s: "
	[[ $line =~ $re ]] || { echo "not a giving-up line: $line" >&2
	    return 1; }
	[[ ${line#"${BASH_REMATCH[0]}"} == "$what ($why)" ]] ||
	    { echo "giving up with '${line#"${BASH_REMATCH[0]}"}'," \
	    "not '$what ($why)'" >&2; return 1; }
}

# Writes an executable script to $1 that runs the shell lines $2, then
# fails as $CODES lists for this attempt ($RETRY_ATTEMPT; the last entry
# repeats): a number is an exit status, a name a signal it dies by.
codes_script() {
	{
		printf '#!/bin/sh\n%s\n' "$2"
		cat <<-'EOF'
		set -- $CODES
		shift $(( RETRY_ATTEMPT > $# ? $# - 1 : RETRY_ATTEMPT - 1 ))
		case $1 in
		[0-9]*) exit "$1" ;;
		*) kill -s "$1" $$ ;;
		esac
		EOF
	} >"$1"
	chmod +x "$1"
}
