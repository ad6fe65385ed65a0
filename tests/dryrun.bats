#!/usr/bin/env bats
# --dry-run.  A header, one row per attempt (attempt window min max draw
# elapsed, times in seconds with 3 decimals, or 9 for the whole column
# when a value has a sub-millisecond part), then lines that start with #.
# It runs nothing and writes only to stdout.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# Every line of $output is the header, a row of 6 fields, or a # line
# after the rows.
well_formed() {
	local line k=0 comments=0 num='^[0-9]+\.([0-9]{3}|[0-9]{9})$' f
	[[ ${lines[0]} =~ ^attempt\ +window\ +min\ +max\ +draw\ +elapsed$ ]] ||
	    { echo "bad header: ${lines[0]}" >&2; return 1; }
	for line in "${lines[@]:1}"; do
		if [[ $line == '#'* ]]; then
			comments=$((comments + 1))
			continue
		fi
		read -ra f <<<"$line"
		k=$((k + 1))
		[[ $comments -eq 0 && ${#f[@]} -eq 6 && ${f[0]} == "$k" ]] ||
		    { echo "bad row $k: $line" >&2; return 1; }
		[[ ($k -eq 1 && ${f[1]} == - || ${f[1]} =~ $num) &&
		    ${f[2]} =~ $num && ${f[3]} =~ $num && ${f[4]} =~ $num &&
		    (${f[5]} =~ $num || ${f[5]} == inf) ]] ||
		    { echo "bad times in row $k: $line" >&2; return 1; }
	done
	[[ $k -ge 1 ]]
}

@test "the header, the rows and the closing line" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 1 -n 5 -b 1ms \
	    --splay 2ms
	[ -z "$stderr" ]
	well_formed
	[ "${#lines[@]}" -eq 7 ]
	[ "${lines[0]}" = \
	    "attempt         window            min            max           draw        elapsed" ]
	[[ ${lines[6]} =~ ^#\ worst-case\ total\ sleep\ for\ the\ rows\ above:\ [0-9]+\.[0-9]{3,9}s$ ]]
}

@test "row 1 has no window and shows the splay" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 1
	[ -z "$stderr" ]
	[ "$(table_rows)" = \
	    "      1              -          0.000          0.000          0.000          0.000" ]
	run -0 --separate-stderr "$RETRY" --dry-run --seed 4 -n 1 --splay 2s
	[ -z "$stderr" ]
	well_formed
	[ "$(cell 1 2) $(cell 1 3) $(cell 1 4)" = "- 0.000 2.000" ]
	fcmp "$(cell 1 5)" '<=' 2
	[ "$(cell 1 6)" = "$(cell 1 5)" ]
	# The splay is random even without jitter.
	run -0 --separate-stderr "$RETRY" --dry-run --seed 4 -n 1 --splay 2s \
	    -j none
	[ -z "$stderr" ]
	fcmp "$(cell 1 5)" '>' 0
	fcmp "$(cell 1 5)" '<' 2
}

@test "times have 3 decimals, or 9 when a value needs them" {
	local b want
	for b in 2s:2.000 1500us:0.001500000 1ns:0.000000001 \
	    1.000001s:1.000001000 90m:5400.000 123456789ns:0.123456789 \
	    100us:0.000100000; do
		quick --dry-run -n 2 -j none -b "${b%%:*}"
		quiet_success
		want=${b#*:}
		[ "$(table_rows | sed -n 2p)" = "$(printf \
		    '%7s %14s %14s %14s %14s %14s' 2 "$want" "$want" "$want" \
		    "$want" "$want")" ]
	done
}

# Every value in column N of the table in $output has D decimals.
column_decimals() {
	local n=$1 d=$2 v
	while read -r v; do
		[[ $v == - || $v =~ ^[0-9]+\.[0-9]{$d}$ ]] ||
		    { echo "column $n: $v has not $d decimals" >&2; return 1; }
	done < <(table_col "$n")
}

@test "a column takes 9 decimals from any one value, and lines up" {
	# The draws have nanoseconds; the windows and bounds do not.
	run -0 --separate-stderr "$RETRY" --dry-run --seed 1 -n 6 -b 1s -c 10s
	[ -z "$stderr" ]
	well_formed
	column_decimals 2 3
	column_decimals 3 3
	column_decimals 4 3
	column_decimals 5 9
	column_decimals 6 9
	# Row 1's zeros take their column's form too.
	[ "$(table_rows | sed -n 1p)" = \
	    "      1              -          0.000          0.000    0.000000000    0.000000000" ]
	# Only the window column needs nanoseconds here.
	run -0 --separate-stderr "$RETRY" --dry-run -n 4 -j none -b 1ms -f 1.5
	[ -z "$stderr" ]
	[ "$(table_col 2 | tr '\n' ' ')" = "- 0.001000000 0.001500000 0.002250000 " ]
	column_decimals 6 9
	# Every line has its columns end at the same place, a value wider
	# than 14 characters included: the column widens for all rows.
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 -j none -b 1ns \
	    -f 1e30 -c 36525d
	[ -z "$stderr" ]
	[ "$(cell 3 2)" = 3155760000.000000000 ]
	[ "$(awk '{ print length($0) }' <<<"$(head -4 <<<"$output")" |
	    sort -u)" = $((7 + 5 * 21)) ]
}

@test "rows stop at --attempts" {
	local n
	for n in 1 2 7 33; do
		quick --dry-run -n "$n" -b 1ms
		quiet_success
		well_formed
		[ "$(table_rows | wc -l)" -eq "$n" ]
		[ "${#lines[@]}" -eq $((n + 2)) ]
	done
}

@test "with unlimited attempts the table stops after 20 rows and says so" {
	run -0 --separate-stderr "$RETRY" --dry-run -n inf -b 1ms
	[ -z "$stderr" ]
	well_formed
	[ "$(table_rows | wc -l)" -eq 20 ]
	[ "${#lines[@]}" -eq 23 ]
	[ "${lines[22]}" = "# attempts are unlimited: the first 20 are shown" ]
}

@test "a count too large to list shows its first 1000 rows at once and says so" {
	# It once measured every row before printing any: this ran until
	# BATS_TEST_TIMEOUT killed it.
	run -0 --separate-stderr "$RETRY" --dry-run -n 9223372036854775807 -b 0
	[ -z "$stderr" ]
	well_formed
	[ "$(table_rows | wc -l)" -eq 1000 ]
	[ "${#lines[@]}" -eq 1003 ]
	[ "${lines[1002]}" = "# 9223372036854775807 attempts are too many to list: the first 1000 are shown" ]
	# 1000 is listed whole, without the note.
	run -0 --separate-stderr "$RETRY" --dry-run -n 1000 -b 0
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 1002 ]
	[[ ${lines[1001]} == '# worst-case total sleep'* ]]
}

@test "elapsed adds up the draws, splay included" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 6 -j none -b 1ms -f 3 \
	    -c 50ms --splay 0
	[ -z "$stderr" ]
	[ "$(table_col 6 | tr '\n' ' ')" = "0.000 0.001 0.004 0.013 0.040 0.090 " ]
	run -0 --separate-stderr "$RETRY" --dry-run --seed 8 -n 6 -b 1ms \
	    --splay 5ms
	[ -z "$stderr" ]
	local sum=0 draw k=0
	while read -r draw; do
		sum=$((sum + $(sec_to_ns "$draw")))
		k=$((k + 1))
		[ "$(sec_to_ns "$(cell "$k" 6)")" -eq "$sum" ]
	done < <(table_col 5)
	[ "$k" -eq 6 ]
}

@test "the closing line is the sum of the max column" {
	local args
	for args in "-j none -n 5 -b 1ms" "-j full -n 8 -b 7ms -c 30ms" \
	    "-j +3ms -n 4 -b 1ms --splay 10ms" "-j decorrelated -b 1ms -n 9"; do
		# shellcheck disable=SC2086
		quick --dry-run --seed 2 $args
		quiet_success
		local sum=0 max
		while read -r max; do
			sum=$((sum + $(sec_to_ns "$max")))
		done < <(table_col 4)
		[[ ${lines[-1]} =~ ^#\ worst-case\ total\ sleep\ for\ the\ rows\ above:\ ([0-9.]+)s$ ]]
		[ "$(sec_to_ns "${BASH_REMATCH[1]}")" -eq "$sum" ]
	done
}

@test "--max-time cuts the table where the run would stop" {
	run -0 --separate-stderr "$RETRY" --dry-run -n inf -j none -b 1ms \
	    -m 10ms
	[ -z "$stderr" ]
	well_formed
	[ "$(table_col 6 | tr '\n' ' ')" = "0.000 0.001 0.003 0.007 " ]
	[ "${lines[5]}" = "# --max-time=0.010s ends the run before attempt 5" ]
	[ "${lines[6]}" = "# worst-case total sleep for the rows above: 0.007s" ]
	[ "${#lines[@]}" -eq 7 ]
	# A sleep that would end right at the deadline is not taken.
	run -0 --separate-stderr "$RETRY" --dry-run -n 9 -j none -b 1ms -m 7ms
	[ -z "$stderr" ]
	[ "$(table_rows | wc -l)" -eq 3 ]
	[ "${lines[4]}" = "# --max-time=0.007s ends the run before attempt 4" ]
	# The worst case never passes the deadline (issue 38).
	run -0 --separate-stderr "$RETRY" --dry-run --seed 1 -n 6 -b 1ms \
	    -c 1ms -m 4ms
	[ "${lines[-1]}" = "# worst-case total sleep for the rows above: 0.004s (--max-time ends the run first; their windows add up to 0.005s)" ]
}

@test "--max-time does not count the splay" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 1 -n inf -j none \
	    -b 1ms -m 10ms --splay 1h
	[ -z "$stderr" ]
	well_formed
	[ "$(table_rows | wc -l)" -eq 4 ]
	[ "${lines[5]}" = "# --max-time=0.010s ends the run before attempt 5" ]
}

@test "--max-time past the last row changes nothing; 0 means none" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 3 -n 6 -b 1ms
	[ -z "$stderr" ]
	local plain=$output
	run -0 --separate-stderr "$RETRY" --dry-run --seed 3 -n 6 -b 1ms -m 1h
	[ -z "$stderr" ]
	[ "$output" = "$plain" ]
	run -0 --separate-stderr "$RETRY" --dry-run --seed 3 -n 6 -b 1ms -m 0
	[ -z "$stderr" ]
	[ "$output" = "$plain" ]
}

@test "a dry run runs nothing, with or without --" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 touch "$WORK/ran"
	[ -z "$stderr" ]
	well_formed
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 -- touch "$WORK/ran"
	[ -z "$stderr" ]
	well_formed
	[ ! -e "$WORK/ran" ]
}

@test "a dry run writes only to stdout, whatever the verbosity" {
	run -0 --separate-stderr "$RETRY" --dry-run --seed 6 -n 3
	[ -z "$stderr" ]
	local plain=$output
	run -0 --separate-stderr "$RETRY" --dry-run --seed 6 -n 3 -v
	[ -z "$stderr" ]
	[ "$output" = "$plain" ]
	run -0 --separate-stderr "$RETRY" --dry-run --seed 6 -n 3 -q
	[ -z "$stderr" ]
	[ "$output" = "$plain" ]
}

@test "a dry run still rejects bad options" {
	run -125 --separate-stderr "$RETRY" --dry-run -n 3 -j bogus
	usage_error "invalid --jitter 'bogus': expected none, full, equal, decorrelated, A..B or +DURATION"
}

@test "a dry run that cannot write its table fails" {
	# shellcheck disable=SC2016
	run -125 --separate-stderr sh -c '"$RETRY" --dry-run -n 3 >/dev/full'
	[ -z "$output" ]
	[ "$stderr" = "retry: standard output: No space left on device" ]
}
