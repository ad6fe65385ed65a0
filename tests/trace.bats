#!/usr/bin/env bats
# TRACEPARENT: a valid W3C traceparent gives each attempt one of its own,
# the same trace and flags with a new span id; the JSON log's attempt
# events carry the ids.  Anything else is passed on untouched and not
# used, and TRACESTATE always is.

load helpers/common

setup() {
	common_setup
	TRACE=4bf92f3577b34da6a3ce929d0e0e4736
	PARENT=00f067aa0ba902b7
}

# Runs a command of ATTEMPTS attempts under TRACEPARENT=$1 that writes
# its TRACEPARENT and TRACESTATE (or "unset") a line each to $WORK/env,
# with the JSON log in $WORK/log.
traced() {
	local tp=$1 attempts=$2
	rm -f "$WORK/env" "$WORK/log"
	run -1 --separate-stderr env TRACEPARENT="$tp" TRACESTATE=vendor=x,y=1 \
	    "$RETRY" -n "$attempts" -b 1ms --json-log="$WORK/log" -- sh -c '
	    printf "%s %s\n" "${TRACEPARENT-unset}" "${TRACESTATE-unset}" \
		>>"$WORK/env"; exit 1'
	[ "$output" = "" ]
}

@test "TRACEPARENT: each attempt a span of its own, the trace kept" {
	traced "00-$TRACE-$PARENT-01" 3
	[ "${#stderr_lines[@]}" = 3 ]
	mapfile -t env <"$WORK/env"
	[ "${#env[@]}" = 3 ]
	for line in "${env[@]}"; do
		[[ $line =~ ^00-$TRACE-([0-9a-f]{16})-01\ vendor=x,y=1$ ]]
		spans+=("${BASH_REMATCH[1]}")
	done
	# Three spans, none of them the caller's nor all zero.
	[ "$(printf '%s\n' "${spans[@]}" "$PARENT" 0000000000000000 |
	    sort -u | wc -l)" = 5 ]
	# The JSON log's attempt events carry the ids each attempt had.
	require_tool jq
	run -0 jq -r 'select(.event == "attempt_start" or
	    .event == "attempt_end") | "\(.attempt) \(.trace_id) \(.span_id)"' \
	    "$WORK/log"
	[ "$output" = "1 $TRACE ${spans[0]}
1 $TRACE ${spans[0]}
2 $TRACE ${spans[1]}
2 $TRACE ${spans[1]}
3 $TRACE ${spans[2]}
3 $TRACE ${spans[2]}" ]
	# No other event has them.
	run -0 jq -c 'select(has("trace_id") or has("span_id")) | .event' \
	    "$WORK/log"
	[ "${#lines[@]}" = 6 ]
}

@test "TRACEPARENT: the flags are kept; a later version is read, 00 is sent" {
	traced "00-$TRACE-$PARENT-00" 1
	[[ $(<"$WORK/env") =~ ^00-$TRACE-[0-9a-f]{16}-00\ vendor=x,y=1$ ]]
	[[ $(<"$WORK/env") != *"-$PARENT-"* ]]
	traced "cc-$TRACE-$PARENT-09-what-comes-later" 1
	[[ $(<"$WORK/env") =~ ^00-$TRACE-[0-9a-f]{16}-09\ vendor=x,y=1$ ]]
	traced "cc-$TRACE-$PARENT-09" 1
	[[ $(<"$WORK/env") =~ ^00-$TRACE-[0-9a-f]{16}-09\ vendor=x,y=1$ ]]
}

@test "TRACEPARENT: a value not valid is passed on untouched and not used" {
	local bad=(
		"00-${TRACE^^}-$PARENT-01"		# upper case
		"00-$TRACE-${PARENT^^}-01"
		"00-$TRACE-$PARENT-0A"
		"00-00000000000000000000000000000000-$PARENT-01"
		"00-$TRACE-0000000000000000-01"
		"ff-$TRACE-$PARENT-01"			# version ff
		"0-$TRACE-$PARENT-01"
		"00-$TRACE-$PARENT-01-"			# 00 is 55 characters
		"00-$TRACE-$PARENT-1"
		"cc-$TRACE-$PARENT-01x"			# no dash after the flags
		"00_${TRACE}-$PARENT-01"
		"00-${TRACE}x$PARENT-01"
		"00-$TRACE-${PARENT:1}g-01"
		""
		"garbage"
	)
	local tp
	for tp in "${bad[@]}"; do
		traced "$tp" 2
		[ "$(<"$WORK/env")" = "$tp vendor=x,y=1
$tp vendor=x,y=1" ]
		run -1 grep -c trace_id "$WORK/log"
	done
}

@test "TRACEPARENT: 10 kB of it is passed on whole, quickly" {
	tp=00-$TRACE-$PARENT-01-$(head -c 10240 /dev/zero | tr '\0' a)
	traced "$tp" 1
	[ "$(<"$WORK/env")" = "$tp vendor=x,y=1" ]
	run -1 grep -c trace_id "$WORK/log"
	# A later version may be that long: it is read by its first fields.
	traced "01${tp:2}" 1
	[[ $(<"$WORK/env") =~ ^00-$TRACE-[0-9a-f]{16}-01\ vendor=x,y=1$ ]]
}

@test "TRACEPARENT: absent, none is made, and the log has no ids" {
	run -1 --separate-stderr "$RETRY" -n 2 -b 1ms --json-log="$WORK/log" \
	    -- sh -c 'echo "${TRACEPARENT-unset} ${TRACESTATE-unset}"; exit 1'
	[ "$output" = "unset unset
unset unset" ]
	run -1 grep -c trace_id "$WORK/log"
}

@test "TRACEPARENT: the hooks get the last attempt's; --dry-run tells" {
	run -1 --separate-stderr env TRACEPARENT="00-$TRACE-$PARENT-01" \
	    "$RETRY" -n 2 -b 1ms \
	    --on-give-up='echo "$TRACEPARENT" >"$WORK/hook"' \
	    -- sh -c 'echo "$TRACEPARENT"; exit 1'
	[ "${#lines[@]}" = 2 ]
	[ "$(<"$WORK/hook")" = "${lines[1]}" ]
	run -0 --separate-stderr env TRACEPARENT="00-$TRACE-$PARENT-01" \
	    "$RETRY" --dry-run -n 1
	[ "${lines[-1]}" = "# TRACEPARENT: trace $TRACE; each attempt gets a span of its own under $PARENT" ]
	run -0 --separate-stderr env TRACEPARENT=x "$RETRY" --dry-run -n 1
	[ "${lines[-1]}" = "# TRACEPARENT is not a valid W3C traceparent: the attempts get it unchanged" ]
	run -0 --separate-stderr "$RETRY" --dry-run -n 1
	[[ $output != *TRACEPARENT* ]]
}
