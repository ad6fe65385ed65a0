#!/usr/bin/env bats
# Issue 14: --preset.  Each preset's --dry-run rows are checked against
# its source's own formula, computed here in awk, never read from retry:
# the window, min and max columns to the nanosecond (truncated, as retry
# keeps durations), and the draws of several seeds inside those bounds, in
# whole slots where the source counts slots.  Options given with a preset
# override it whatever their order; --preset=list shows every preset.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# The rows of the dry-run table in $output as "k window min max draw" in
# nanoseconds ("-" for row 1's window).
table_ns() {
	awk 'function ns(s,  p) {
		if (s == "-")
			return "-"
		split(s, p, ".")
		return sprintf("%.0f", p[1] * 1e9 + substr(p[2] "000000000", 1, 9))
	}
	$1 ~ /^[0-9]+$/ {
		print $1, ns($2), ns($3), ns($4), ns($5)
	}' <<<"$output"
}

# expected PRESET ROWS: "k window min max" in nanoseconds for rows 2 to
# ROWS, from the formula of the document the preset follows, where i is
# the number of failures before the sleep (i = k - 1).
expected() {
	awk -v p="$1" -v rows="$2" 'function min(a, b) { return a < b ? a : b }
	function out(k, w, lo, hi) {
		printf "%d %.0f %.0f %.0f\n", k, w, lo, hi
	}
	BEGIN {
		for (k = 2; k <= rows; k++) {
			i = k - 1
			if (p == "aws") {
				# transient: rand(0, 1) * min(50 ms * 2^(i-1), 20 s)
				w = min(50e6 * 2 ^ (i - 1), 20e9)
				out(k, w, 0, w)
			} else if (p == "aws-dynamodb") {
				# rand(0, 1) * min(25 ms * 2^(i-1), 20 s)
				w = min(25e6 * 2 ^ (i - 1), 20e9)
				out(k, w, 0, w)
			} else if (p == "aws-throttle" || p == "aws-legacy") {
				# t_i = rand(0, 1) * min(2^(i-1), 20) s
				w = min(2 ^ (i - 1), 20) * 1e9
				out(k, w, 0, w)
			} else if (p == "google-http") {
				# interval = min(60 s, 0.5 s * 1.5^(i-1)),
				# randomized in [interval * 0.5, interval * 1.5]
				w = int(min(60e9, 0.5e9 * 1.5 ^ (i - 1)))
				out(k, w, int(w * 0.5), int(w * 1.5))
			} else if (p == "google-drive") {
				# min(2^n s + random_number_milliseconds,
				# maximum_backoff 64 s), n from 0
				w = min(2 ^ (i - 1), 64) * 1e9
				out(k, w, w, min(w + 1e9, 64e9))
			} else if (p == "simpledb") {
				# random delay in [0, 4^currentRetry * 100 ms]
				w = 4 ^ i * 100e6
				out(k, w, 0, w)
			} else if (p == "airflow") {
				# d = retry_delay 300 s * 2^(i-1), delay =
				# min(max_retry_delay 1 day, d + hash % d) in
				# whole seconds
				d = 300 * 2 ^ (i - 1)
				out(k, min(d, 86400) * 1e9, min(d, 86400) * 1e9,
				    min(2 * d - 1, 86400) * 1e9)
			} else if (p == "kubernetes") {
				# at once, then 10 s, 20 s, 40 s, ...
				# capped at 5 min
				w = i == 1 ? 0 : min(10 * 2 ^ (i - 2), 300) * 1e9
				out(k, w, w, w)
			} else if (p == "ethernet") {
				# r slot times, r in [0, 2^min(n, 10) - 1],
				# after the n-th collision; a slot is 51.2 us
				s = 2 ^ min(i, 10)
				out(k, s * 51200, 0, (s - 1) * 51200)
			}
		}
	}'
}

# check_preset PRESET ROWS SLOT: retry --dry-run --preset=PRESET has ROWS
# rows whose window, min and max are the source's, and for seeds 1 to 8
# draws between min and max, whole multiples of SLOT ns (1 for none).
check_preset() {
	local preset=$1 rows=$2 slot=$3 seed got
	for seed in 1 2 3 4 5 6 7 8; do
		quick --dry-run --seed "$seed" --preset="$preset"
		quiet_success
		[ "$(table_rows | wc -l)" -eq "$rows" ] ||
		    { echo "$preset: $(table_rows | wc -l) rows" >&2; return 1; }
		got=$(table_ns | awk '$1 > 1 { print $1, $2, $3, $4 }')
		[ "$got" = "$(expected "$preset" "$rows")" ] ||
		    { diff <(echo "$got") <(expected "$preset" "$rows") >&2
		      return 1; }
		table_ns | awk -v slot="$slot" -v p="$preset" '$1 > 1 {
			if ($5 < $3 || $5 > $4 || $5 % slot != 0) {
				print p ": draw " $5 " of row " $1 " not in " \
				    $3 ".." $4 " in steps of " slot
				bad = 1
			}
		} END { exit bad }' >&2
	done
}

@test "aws: 3 attempts, U(0, 1) * min(50 ms * 2^(i-1), 20 s)" {
	check_preset aws 3 1
	# 20 s caps the window from the 11th retry on.
	quick --dry-run --preset=aws -n 13
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = \
	    "- 0.050 0.100 0.200 0.400 0.800 1.600 3.200 6.400 12.800 20.000 20.000 20.000 " ]
}

@test "aws-dynamodb: 4 attempts, U(0, 1) * min(25 ms * 2^(i-1), 20 s)" {
	check_preset aws-dynamodb 4 1
}

@test "aws-throttle: 3 attempts, U(0, 1) * min(2^(i-1), 20) s" {
	check_preset aws-throttle 3 1
	# 20 s caps the window from the 6th retry on.
	quick --dry-run --preset=aws-throttle -n 8
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = \
	    "- 1.000 2.000 4.000 8.000 16.000 20.000 20.000 " ]
}

@test "aws-legacy: the aws preset before 2026, 1 s base for every error" {
	check_preset aws-legacy 3 1
	quick --dry-run --seed 9 --preset=aws-legacy
	quiet_success
	local want=$output
	quick --dry-run --seed 9 --preset=aws-throttle
	quiet_success
	[ "$output" = "$want" ]
}

@test "google-http: 0.5 s * 1.5^(i-1) up to 60 s, randomized after the cap" {
	check_preset google-http 20 1
	# Past the cap the sleeps reach 90 s, as the client library's do.
	quick --dry-run --seed 1 --preset=google-http
	quiet_success
	[ "$(cell 20 4)" = 90.000000000 ]
	[ "${lines[-1]}" = "# attempts are unlimited: the first 20 are shown" ]
	# 15 minutes in all: -m 15m.
	quick --dry-run --seed 1 --preset=google-http -n 40
	quiet_success
	[[ ${lines[-2]} =~ ^'# --max-time=900.000s ends the run before attempt '[0-9]+$ ]]
}

@test "google-drive: min(64 s, 2^(i-1) s + U(0, 1 s))" {
	check_preset google-drive 5 1
	quick --dry-run --preset=google-drive -n 9 -j none
	quiet_success
	[ "$(table_col 2 | tr '\n' ' ')" = \
	    "- 1.000 2.000 4.000 8.000 16.000 32.000 64.000 64.000 " ]
}

@test "simpledb: U(0, 4^i * 100 ms)" {
	check_preset simpledb 5 1
}

@test "airflow: d = 300 s * 2^(i-1), d + whole seconds in [0, d), at most a day" {
	check_preset airflow 5 1000000000
	# Past a day the sleep is the day itself.
	quick --dry-run --seed 3 --preset=airflow -n 12
	quiet_success
	got=$(table_ns | awk '$1 > 1 { print $1, $2, $3, $4 }')
	[ "$got" = "$(expected airflow 12)" ]
	[ "$(cell 12 5)" = 86400.000 ]
}

@test "kubernetes: at once, then 10 s doubling to 5 min, no jitter, reset after 10 min" {
	check_preset kubernetes 20 1
	quick --dry-run --preset=kubernetes
	quiet_success
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.000 10.000 20.000 40.000 80.000 160.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 300.000 " ]
	[ "${lines[-2]}" = "# --reset-after=600.000s starts the schedule over after an attempt that runs that long; a dry run cannot know how long attempts run" ]
}

@test "ethernet: whole 51.2 us slots in [0, 2^min(n, 10) - 1], 16 attempts" {
	check_preset ethernet 16 51200
	# Every draw a whole slot, over many seeds: the first retry draws 0
	# or 1 slot, and both come up.
	local seed draws=""
	for seed in $(seq 1 40); do
		quick --dry-run --seed "$seed" --preset=ethernet -n 2
		quiet_success
		draws+=" $(sec_to_ns "$(cell 2 5)")"
	done
	[ "$(tr ' ' '\n' <<<"$draws" | sed '/^$/d' | sort -un | tr '\n' ' ')" = \
	    "0 51200 " ]
}

@test "options override a preset, before it or after it" {
	local order
	for order in "--preset=aws -n 6 -j none -b 2s" \
	    "-n 6 -j none -b 2s --preset=aws" "-n 6 --preset=aws -j none -b 2s"; do
		# shellcheck disable=SC2086
		quick --dry-run $order
		quiet_success
		[ "$(table_col 5 | tr '\n' ' ')" = \
		    "0.000 2.000 4.000 8.000 16.000 20.000 " ]
	done
	# The last preset counts; a jitter replaces a preset's whole slots.
	quick --dry-run --preset=aws --preset=kubernetes -n 3
	quiet_success
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000 0.000 10.000 " ]
	quick --dry-run --seed 2 --preset=ethernet -j none -n 3
	quiet_success
	[ "$(table_col 5 | tr '\n' ' ')" = "0.000000000 0.000102400 0.000204800 " ]
	# A cap below the preset's base names the preset.
	quick --dry-run --preset=kubernetes -c 5s
	usage_error "invalid --cap '5s': below the base of --preset=kubernetes, 10.000s"
}

@test "a preset's options line gives the same table, where options can say it" {
	local preset opts
	# Not kubernetes: no option makes the first retry come at once.
	for preset in aws aws-throttle aws-dynamodb aws-legacy google-drive \
	    simpledb; do
		run -0 --separate-stderr "$RETRY" --preset=list
		[ "$stderr" = "" ]
		opts=$(sed -n "s/^$preset  *//p" <<<"$output")
		[ -n "$opts" ]
		quick --dry-run --seed 5 --preset="$preset"
		quiet_success
		local want=$output
		# shellcheck disable=SC2086
		quick --dry-run --seed 5 $opts
		quiet_success
		[ "$output" = "$want" ] ||
		    { echo "$preset: $opts differs" >&2; return 1; }
	done
}

@test "--preset=list: each preset, its options, its source; exit 0" {
	run -0 --separate-stderr "$RETRY" --preset=list
	[ "$stderr" = "" ]
	[ "$(grep -E '^[a-z]' <<<"$output" | awk '{ print $1 }' |
	    tr '\n' ' ')" = \
	    "aws aws-throttle aws-dynamodb aws-legacy google-http google-drive simpledb airflow kubernetes ethernet " ]
	[ "$(grep -c '^             Follows: ' <<<"$output")" -eq 10 ]
	[[ $output == *'Follows: AWS SDKs and Tools Reference Guide, "Retry behavior".'* ]]
	[[ $output == *'Follows: IEEE 802.3, CSMA/CD (10 Mb/s slot time).'* ]]
	[ "$(awk 'length > 80' <<<"$output")" = "" ]
	# After the options, as --help would be.
	run -0 --separate-stderr "$RETRY" -n 3 --preset=list
	[ "$stderr" = "" ]
	[[ ${lines[0]} == "aws "* ]]
	# shellcheck disable=SC2016
	run -125 --separate-stderr bash -c '"$RETRY" --preset=list >/dev/full'
	[ "$stderr" = "retry: standard output: No space left on device" ]
}

@test "--preset: an unknown name is an error" {
	run -125 --separate-stderr "$RETRY" --preset=azure true
	usage_error "invalid --preset 'azure': expected aws, aws-throttle, aws-dynamodb, aws-legacy, google-http, google-drive, simpledb, airflow, kubernetes, ethernet or list"
	run -125 --separate-stderr "$RETRY" --preset= true
	usage_error "invalid --preset '': expected aws, aws-throttle, aws-dynamodb, aws-legacy, google-http, google-drive, simpledb, airflow, kubernetes, ethernet or list"
}

@test "a preset runs for real: the JSON log shows its schedule" {
	run -1 --separate-stderr "$RETRY" --preset=ethernet -n 3 \
	    --log-format=json false
	[ "$output" = "" ]
	run -0 --separate-stderr jq -sc '[.[0].base, .[0].cap, .[0].jitter,
	    .[0].attempts, (.[] | select(.event == "sleep") | .window)]' \
	    <<<"$stderr"
	[ "$output" = '[0.0001024,0.0524288,"full, in steps of 0.0000512s",3,0.0001024,0.0002048]' ]
}

@test "kubernetes: after a reset the next retry comes at once again (issue 19 item 20)" {
	# Attempt 2 runs past --reset-after: the schedule starts over, and
	# its first retry is at once, as the kubelet's is.
	cat >"$WORK/cmd" <<'SH'
#!/bin/sh
[ "$RETRY_ATTEMPT" = 2 ] && sleep 0.3
exit 3
SH
	chmod +x "$WORK/cmd"
	quick --preset=kubernetes -n 4 -b 20ms --reset-after=200ms "$WORK/cmd"
	[ "$status" -eq 3 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/4 failed (exit 3), next in 0.000s" ]
	[ "${stderr_lines[1]}" = "retry: attempt 2/4 failed (exit 3), next in 0.000s" ]
	[ "${stderr_lines[2]}" = "retry: attempt 3/4 failed (exit 3), next in 0.020s" ]
	[[ ${stderr_lines[3]} == "retry: giving up after 4 attempts in "*"s: exit 3 (no attempts left)" ]]
	[ "${#stderr_lines[@]}" -eq 4 ]
}
