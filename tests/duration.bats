#!/usr/bin/env bats
# DURATION.  A decimal number with an optional unit (ns us ms s m
# h d, seconds by default) or a compound such as 1m30s, kept as integer
# nanoseconds with fractions rounded to the nearest one.  Conversions are
# read back from the window column of --dry-run, which prints every
# nanosecond of a value.

load helpers/common
load helpers/core

setup() {
	common_setup
}

# converts DURATION SECONDS: --base=DURATION is SECONDS in the table, to
# the nanosecond (the table pads a column to 3 or 9 decimals).
converts() {
	quick --dry-run -n 2 -j none -c 36525d -b "$1"
	[[ $status -eq 0 && -z $stderr ]] ||
	    { echo "--base=$1: status $status: $stderr" >&2; return 1; }
	local got
	got=$(cell 2 2)
	[[ $got =~ ^[0-9]+\.([0-9]{3}|[0-9]{9})$ &&
	    $(sec_to_ns "$got") == "$(sec_to_ns "$2")" ]] ||
	    { echo "--base=$1 gave $got, expected $2" >&2; return 1; }
}

@test "every unit, and no unit meaning seconds" {
	converts 7ns 0.000000007
	converts 7us 0.000007
	converts 7ms 0.007
	converts 7s 7.000
	converts 7 7.000
	converts 7m 420.000
	converts 7h 25200.000
	converts 7d 604800.000
	converts 0 0.000
	converts 0ms 0.000
}

@test "fractions in every unit" {
	converts 1.6ns 0.000000002
	converts 1.5us 0.0000015
	converts 0.25ms 0.00025
	converts 2.5 2.500
	converts 0.001 0.001
	converts 1.5m 90.000
	converts 0.5h 1800.000
	converts 1.25d 108000.000
	converts 0.000000001 0.000000001
	converts 1.000000000 1.000
	converts 007.50ms 0.0075
}

@test "no digit before the point, as timeout(1) users write it" {
	converts .5 0.500
	converts .5s 0.500
	converts .25ms 0.00025
	converts 1m.5s 60.500
	converts .000000001 0.000000001
	# -t, -k and -b take it alike: a 0.1 s timeout, KILL after 0.05 s.
	run -137 --separate-stderr "$RETRY" -n 1 -b .2 -t .1 -k .05 -- \
	    sh -c 'trap "" TERM; sleep 5'
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ 0\.[0-9]{3}s:\ timed\ out\ after\ 100ms\ \(-t\),\ killed\ \(no\ attempts\ left\)$ ]]
}

@test "fractions round to the nearest nanosecond" {
	converts 0.0000000014 0.000000001
	converts 0.0000000016 0.000000002
	converts 0.4ns 0.000000001
	converts 0.6ns 0.000000001
	converts 1.0000000004 1.000
	converts 1.0000000006 1.000000001
	converts 0.0000000009999999999999999999 0.000000001
	# Digits far past the 18th still break a tie.
	converts 0.00000000050000000000000000001 0.000000001
	converts 0.33333333333333333333333333333us 0.000000333
	converts 0.6666666666666666666666666666us 0.000000667
	converts 0.1234567891d 10666.66657824
	converts 0.12345678912d 10666.666579968
}

@test "a value above 0 is never rounded down to 0, which means none" {
	converts 0.0000000001 0.000000001
	converts 0.00000000000000000000000000001 0.000000001
	converts 0.0000000000ns 0.000
	converts 0ms 0.000
	# -S 0.0000000001 is a stall timeout of 1 ns, not none: it cuts.
	run -124 --separate-stderr "$RETRY" -n 1 -S 0.0000000001 -- \
	    sleep 5
	[[ $stderr =~ ^retry:\ giving\ up\ after\ 1\ attempt\ in\ 0\.[0-9]{3}s:\ timed\ out:\ no\ output\ for\ 0\.000000001s\ \(no\ attempts\ left\)$ ]]
}

@test "compounds add their terms, in any order" {
	converts 1m30s 90.000
	converts 1h0m5.5s 3605.500
	converts 1d2h3m4s5ms6us7ns 93784.005006007
	converts 1s1m 61.000
	converts 1s1s 2.000
	converts 1ms500us 0.0015
	converts 0h0m0s 0.000
	converts 1.5m1.5s 91.500
}

@test "a bare number inside a compound is an error" {
	local v why="a number inside a compound needs a unit"
	for v in 1m30 1h0m5 1s1 0m0; do
		bad_value base "$v" "$why"
	done
}

@test "negative, NaN, inf, empty and blank durations are errors" {
	bad_value base -1 "negative duration"
	bad_value base -0 "negative duration"
	bad_value base -1s "negative duration"
	bad_value base '' "empty duration"
	local v
	for v in nan NaN inf infinity ' 1' ' ' +1 . .s ..5 .-5 s ms; do
		bad_value base "$v" "expected a number"
	done
}

@test "trailing garbage, hex, exponents and unknown units are errors" {
	local v why="unknown unit (use ns, us, ms, s, m, h or d)"
	for v in 1x 1S 1MS 1sec 1min '1 ' '1 s' 1e3 1E3 1e-3s 0x10 0x1p3 \
	    1m30sx 1µs 1y 1w; do
		bad_value base "$v" "$why"
	done
	bad_value base 1. "expected digits after the decimal point"
	bad_value base 1.s "expected digits after the decimal point"
	bad_value base 1,5 "$why"
	bad_value base 1..5 "expected digits after the decimal point"
	bad_value base 1m- "expected a number"
	bad_value base 1s- "expected a number"
	bad_value base 1m+1s "expected a number"
}

@test "100 years is the limit, in every unit and in compounds" {
	converts 3155760000 3155760000.000
	converts 36525d 3155760000.000
	converts 876600h 3155760000.000
	converts 3155760000000ms 3155760000.000
	converts 3155760000000000000ns 3155760000.000
	converts 36524d23h59m60s 3155760000.000
	converts 3155759999.9999999999 3155760000.000
	local why="too large (the limit is 100 years)" v
	for v in 3155760001 36526d 36525.1d 3155760000.000000001 \
	    3155760000000000001ns 36525d1ns 36524d23h59m60.000000001s \
	    36525d36525d 99999999999999999999 18446744073709551620ns \
	    18446744073709551616ns 1844674407370955162s \
	    123456789012345678901234567890; do
		bad_value base "$v" "$why"
	done
}

@test "huge numbers of digits neither wrap nor slow down" {
	local zeros
	zeros=$(printf '%0500d' 0)
	converts "${zeros}1ms" 0.001
	converts "1.${zeros}1" 1.000
	# The error quotes the first 100 bytes of such a value, not all.
	quick --dry-run -b "1${zeros}"
	usage_error "invalid --base '1${zeros:0:99}...': too large (the limit is 100 years)"
}

@test "every duration option parses the same way" {
	local opt
	for opt in base cap splay; do
		bad_value "$opt" 1m30 "a number inside a compound needs a unit"
		bad_value "$opt" 1e3 "unknown unit (use ns, us, ms, s, m, h or d)"
		bad_value "$opt" 36526d "too large (the limit is 100 years)"
		bad_value "$opt" -5ms "negative duration"
	done
	# +D of --jitter is a DURATION too.
	quick --dry-run -n 2 -j +1m30s -b 1ms -c 36525d
	quiet_success
	[ "$(cell 2 4)" = 90.001 ]
	bad_value jitter +1m30 "a number inside a compound needs a unit"
}

@test "--cap and --splay convert as --base does" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 -j none -b 1ms \
	    -c 1.5ms --splay 2m0.5s
	[ -z "$stderr" ]
	# Row 3's max, 1.5 ms, gives its whole column 9 decimals.
	[ "$(cell 1 4)" = 120.500000000 ]
	[ "$(cell 3 2)" = 0.001500000 ]
}
