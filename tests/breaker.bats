#!/usr/bin/env bats
# Issue 15: --breaker on one host.  It counts whole runs: after N runs in
# a row that gave up it opens, and later runs exit 75 without starting
# the command until the cooldown has passed; then exactly one run probes,
# and its success closes the breaker, its failure reopens it for about
# twice as long.  A test that waits for the cooldown uses one of 300 ms
# and keeps trying until a run probes; a test that must see runs refused
# uses an hour, so that a slow machine cannot let the cooldown pass
# before the next run.  The probe's claim lasts at least a minute.

load helpers/common
load helpers/core
load helpers/guard

# A failed test must not leave a command behind, waiting for its cue.
teardown() {
	echo >"$WORK/release"
}

setup() {
	common_setup
	guard_setup
	SPEC=job,failures=2,cooldown=300ms
}

# An hour's cooldown, for the tests that see runs refused.
long_cooldown() {
	SPEC=job,failures=2,cooldown=1h
}

# give_up: one run that gives up, and says so.
give_up() {
	run -1 --separate-stderr "$RETRY" -n 1 --breaker="$SPEC" -- false
	giving_up "$stderr" 1 "exit 1" "no attempts left"
}

# check_refused STATUS OUTPUT STDERR [probing]: a run exited 75, printed
# the breaker's line and did not run its command (which would have
# created $WORK/ran).
check_refused() {
	local re
	re="^retry: circuit breaker 'job' is open: not running the command; "
	if [[ -n ${4-} ]]; then
		re+="a probe run is under way\$"
	else
		re+="next probe in [0-9]+\.[0-9]{3}s\$"
	fi
	[ "$1" -eq 75 ] || { echo "status $1, not 75" >&2; return 1; }
	[[ $3 =~ $re ]] || { echo "stderr: $3" >&2; return 1; }
	[ -z "$2" ]
	[ ! -e "$WORK/ran" ]
}

# refused: the same for the last `run`, which the next probe is due.
refused() {
	check_refused "$status" "$output" "$stderr"
}

# state_field NAME: the field NAME= of the record.
state_field() {
	tr ' ' '\n' <"$STATE/job" | sed -n "s/^$1=//p"
}

@test "the breaker opens after N runs in a row that gave up, and exits 75" {
	long_cooldown
	give_up
	[ "$(state_field breaker)" = closed ]
	[ "$(state_field failures)" = 1 ]
	give_up
	[ "$(state_field breaker)" = open ]
	[ "$(state_field cooldown)" = 3600000000000 ]
	run --separate-stderr "$RETRY" --breaker="$SPEC" -- touch "$WORK/ran"
	refused
	[[ $stderr == *"next probe in 359"[0-9].[0-9][0-9][0-9]s ]]
}

@test "a success resets the count of failed runs" {
	give_up
	run -0 --separate-stderr "$RETRY" --breaker="$SPEC" -- true
	[ -z "$stderr" ]
	[ "$(state_field failures)" = 0 ]
	give_up
	[ "$(state_field breaker)" = closed ]
}

@test "after the cooldown exactly one probe runs; its success closes the breaker" {
	local i rc prober
	local -a pids=()
	give_up
	give_up
	# Runs keep exiting 75 until the cooldown has passed; the first one
	# that does not is the probe, which holds on until told to finish.
	{
		for ((i = 0; i < 3000; i++)); do
			rc=0
			"$RETRY" -q --breaker="$SPEC" -- sh -c \
			    'echo >>"$1/ran"; echo >"$1/probing"
			    while [ ! -e "$1/release" ]; do sleep 0.01; done' \
			    sh "$WORK" || rc=$?
			[ "$rc" -ne 75 ] && break
			sleep 0.01
		done
		echo "$rc" >"$WORK/probe-status"
	} 3>&- &
	prober=$!
	wait_for_file "$WORK/probing"
	[ "$(state_field breaker)" = probing ]
	# Meanwhile every other run, even several at once, exits 75.
	mv "$WORK/ran" "$WORK/probe-ran"
	for i in 1 2 3 4 5; do
		"$RETRY" --breaker="$SPEC" -- touch "$WORK/ran" \
		    >"$WORK/out.$i" 2>"$WORK/err.$i" 3>&- &
		pids+=("$!")
	done
	for i in 1 2 3 4 5; do
		rc=0
		wait "${pids[i - 1]}" || rc=$?
		check_refused "$rc" "$(cat "$WORK/out.$i")" \
		    "$(cat "$WORK/err.$i")" probing
	done
	[ "$(wc -l <"$WORK/probe-ran")" -eq 1 ]
	echo >"$WORK/release"
	wait "$prober"
	[ "$(cat "$WORK/probe-status")" = 0 ]
	[ "$(cat "$STATE/job")" = \
	    "retry-state 1 tokens=full breaker=closed failures=0 until=0 cooldown=0 probe=0" ]
	run -0 --separate-stderr "$RETRY" --breaker="$SPEC" -- touch "$WORK/ran"
	[ -z "$stderr" ]
	[ -e "$WORK/ran" ]
}

# A probe whose held stdout meets a reader that went away dies by
# SIGPIPE, as the command would, but tells the breaker first: it died
# unheard, and every other run exited 75 for the probe's lease.
@test "a probe that dies by SIGPIPE on its held output still reports" {
	local i
	give_up
	give_up
	for ((i = 0; i < 3000; i++)); do
		closed_pipe "$WSTATUS" "$WORK/ws" "$RETRY" -O \
		    --breaker="$SPEC" -- echo probe 2>"$WORK/err" 3>&-
		[ "$(cat "$WORK/ws")" != "exit 75" ] && break
		sleep 0.01
	done
	[ "$(cat "$WORK/ws")" = "signal 13" ]
	[ ! -s "$WORK/err" ]
	[ "$(state_field breaker)" = closed ]
	run -0 --separate-stderr "$RETRY" --breaker="$SPEC" -- touch "$WORK/ran"
	[ -z "$stderr" ]
	[ -e "$WORK/ran" ]
}

# probe_until_it_runs ARG...: runs `retry --breaker=$SPEC ARG...` until
# it does not exit 75 (the cooldown has passed): PROBE_STATUS and
# PROBE_STDERR are then that run's.
probe_until_it_runs() {
	local rc i
	for ((i = 0; i < 3000; i++)); do
		rc=0
		"$RETRY" --breaker="$SPEC" "$@" >"$WORK/out" 2>"$WORK/err" 3>&- ||
		    rc=$?
		[ "$rc" -ne 75 ] && break
		check_refused "$rc" "$(cat "$WORK/out")" "$(cat "$WORK/err")"
		sleep 0.01
	done
	PROBE_STATUS=$rc
	PROBE_STDERR=$(cat "$WORK/err")
}

@test "a failed probe reopens the breaker for about twice as long" {
	local cooldown
	give_up
	give_up
	probe_until_it_runs -n 1 -- false
	[ "$PROBE_STATUS" -eq 1 ]
	giving_up "$PROBE_STDERR" 1 "exit 1" "no attempts left"
	[ "$(state_field breaker)" = open ]
	# Twice 300 ms, times 0.75 to 1.25.
	cooldown=$(state_field cooldown)
	[ "$cooldown" -ge 450000000 ]
	[ "$cooldown" -le 750000000 ]
	probe_until_it_runs -- true
	[ "$PROBE_STATUS" -eq 0 ]
	[ -z "$PROBE_STDERR" ]
	[ "$(state_field breaker)" = closed ]
}

@test "a run stopped by a signal counts as neither a success nor a failure" {
	local rc i
	give_up
	"$RETRY" --breaker="$SPEC" -- sh -c \
	    'echo >"$1/started"; exec sleep 60' sh "$WORK" 3>&- &
	wait_for_file "$WORK/started"
	kill -TERM "$!"
	rc=0
	wait "$!" || rc=$?
	[ "$rc" -eq 143 ]
	[ "$(state_field failures)" = 1 ]
	[ "$(state_field breaker)" = closed ]
	# Nor does a probe: the next run probes at once.
	give_up
	[ "$(state_field breaker)" = open ]
	rm "$WORK/started"
	{
		for ((i = 0; i < 3000; i++)); do
			rc=0
			"$RETRY" -q --breaker="$SPEC" -- sh -c \
			    'echo >"$1/started"; exec sleep 60' sh "$WORK" ||
			    rc=$?
			[ "$rc" -ne 75 ] && break
			sleep 0.01
		done
	} 3>&- &
	wait_for_file "$WORK/started"
	[ "$(state_field breaker)" = probing ]
	# The loop's retry is now the only child of the loop's subshell.
	pkill -TERM -P "$!"
	wait "$!"
	[ "$(state_field breaker)" = open ]
	run -0 --separate-stderr "$RETRY" --breaker="$SPEC" -- true
	[ -z "$stderr" ]
	[ "$(state_field breaker)" = closed ]
}

# The breaker's report of how the run ended can wait up to a second for
# the lock of its file: a stop signal taken there reached no command, and
# ends retry as one taken while the output waits does (it used to be
# lost: exit 0, and no line said that TERM came).  The attempt has a
# process other than retry lock the file, then succeeds.
@test "a stop signal while the breaker's report waits for its lock ends retry by it" {
	require_tool python3
	local how=lockf pid bg
	linux_capability || how=flock
	"$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -n 1 --breaker="$SPEC" \
	    -- sh -c '"$4" "$1/job" "$2" "$3" release &
	    until [ -s "$2/locked" ]; do sleep 0.01; done
	    echo "$$" >"$2/sh"' sh "$STATE" "$WORK" "$how" \
	    "$ROOT/tests/helpers/lock-hold" 2>"$WORK/err" 3>&- &
	bg=$!
	wait_for_file "$WORK/sh"
	# Once retry reaped the attempt, it waits for the lock.
	wait_gone "$(<"$WORK/sh")"
	kill -TERM "$(<"$WORK/pid")"
	wait "$bg"
	echo >"$WORK/release"
	[ "$(<"$WORK/ws")" = "signal 15" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM after attempt 1/1 in Ts" ]
	[ "$(state_field failures)" = 0 ]
}

@test "-q hides the breaker's line; the JSON log has it as a summary" {
	long_cooldown
	give_up
	give_up
	run -75 --separate-stderr "$RETRY" -q --breaker="$SPEC" -- true
	[ -z "$stderr" ]
	run -75 --separate-stderr "$RETRY" --log-format=json \
	    --breaker="$SPEC" -- true
	[[ $stderr =~ ^\{\"event\":\"summary\",\"ts\":\"[-0-9T:.]+Z\",\"time\":0\.000000000,\"attempts\":0,\"elapsed\":0\.000000000,\"status\":75,\"reason\":\"circuit\ breaker\ \'job\'\ is\ open\",\"next_probe\":3[0-9]{3}\.[0-9]{9}\}$ ]]
}

@test "a budget and a breaker of the same name share one file" {
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 --budget=job \
	    --breaker="$SPEC" -- false
	[ "$(untimed_record "$STATE/job")" = \
	    "retry-state 1 tokens=98000 breaker=closed failures=1 until=0 cooldown=0 probe=0" ]
}

@test "a give-up by the budget counts as a failed run" {
	run -1 --separate-stderr "$RETRY" -n 5 -b 0 --budget=api,tokens=1 \
	    --breaker="$SPEC" -- false
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
	[ "$(state_field failures)" = 1 ]
}

# open_record BOOT: an open breaker 'job' whose next probe is 30 minutes
# away on the boot-time clock, written under the boot numbered BOOT.
open_record() {
	local now
	now=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))')
	[ -d "$STATE" ] || mkdir -m 700 "$STATE"
	(umask 077 && printf 'retry-state 1 tokens=full breaker=open failures=3 until=%s cooldown=1800000000000 probe=0 boot=%s\n' \
	    $((now + 1800000000000)) "$1" >"$STATE/job")
}

@test "a breaker record from before a reboot is stale: the next run probes" {
	require_tool python3
	require_linux_capability "the boot's id, read from /proc"
	local boot
	[[ -r /proc/sys/kernel/random/boot_id ]] ||
	    skip "no boot id on this kernel: only the one-hour bound applies"
	boot=$((16#$(tr -d '-' </proc/sys/kernel/random/boot_id | cut -c1-15)))
	# Under this boot, the record holds the run back for 30 minutes.
	open_record "$boot"
	run -75 --separate-stderr "$RETRY" --breaker=job -- touch "$WORK/ran"
	[[ $stderr == "retry: circuit breaker 'job' is open: not running the command; next probe in "1[78]??.???s ]]
	[ ! -e "$WORK/ran" ]
	# Under another boot, its times mean nothing: this run probes.
	open_record $((boot ^ 1))
	run -0 --separate-stderr "$RETRY" --breaker=job -- touch "$WORK/ran"
	[ -z "$stderr" ]
	[ -e "$WORK/ran" ]
	[ "$(cat "$STATE/job")" = \
	    "retry-state 1 tokens=full breaker=closed failures=0 until=0 cooldown=0 probe=0" ]
}

@test "the portable build reads no boot id: a record from another boot waits out its time" {
	require_tool python3
	linux_capability && skip "the Linux build tells boots apart (the test before)"
	local boot=123456789
	[[ -r /proc/sys/kernel/random/boot_id ]] &&
	    boot=$((16#$(tr -d '-' </proc/sys/kernel/random/boot_id | cut -c1-15)))
	# Another boot's record, 30 minutes from its next probe: the portable
	# build cannot tell it from this boot's, and keeps to its times,
	# which breaker_admit() bounds by the cooldown's cap.
	open_record $((boot ^ 1))
	run -75 --separate-stderr "$RETRY" --breaker=job -- touch "$WORK/ran"
	[[ $stderr == "retry: circuit breaker 'job' is open: not running the command; next probe in "1[78]??.???s ]]
	[ ! -e "$WORK/ran" ]
}

@test "with --splay the probe's claim starts when the probe does" {
	require_tool python3
	local now until
	now=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))')
	[ -d "$STATE" ] || mkdir -m 700 "$STATE"
	# Open, its cooldown over: the next run probes.
	(umask 077 && printf 'retry-state 1 tokens=full breaker=open failures=3 until=%s cooldown=1000000000 probe=0\n' \
	    $((now - 1000000000)) >"$STATE/job")
	# --seed=1 draws a splay of 1.621 s of the 2 s: a claim taken after
	# it lasts until at least 61.621 s after now; one taken before the
	# splay, until about 60 s after now.
	run -0 --separate-stderr "$RETRY" --seed=1 --splay=2s --breaker=job \
	    -- cp "$STATE/job" "$WORK/rec"
	[ -z "$stderr" ]
	until=$(sed -n 's/.* until=\([0-9]*\) .*/\1/p' "$WORK/rec")
	((until - now > 61500000000))
}

@test "the probe's claim lasts as long as attempts with a timeout can" {
	require_tool python3
	local now until
	now=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_BOOTTIME))')
	[ -d "$STATE" ] || mkdir -m 700 "$STATE"
	(umask 077 && printf 'retry-state 1 tokens=full breaker=open failures=3 until=%s cooldown=1000000000 probe=0\n' \
	    $((now - 1000000000)) >"$STATE/job")
	# 10 attempts of at most 100 s (and 10 s to kill), sleeps of at most
	# 2 s: the claim must outlast 10 * (110 + 2 * 1) s, not a minute.
	run -0 --separate-stderr "$RETRY" -n 10 -t 100s -k 10s -c 1s \
	    --breaker=job -- cp "$STATE/job" "$WORK/rec"
	[ -z "$stderr" ]
	until=$(sed -n 's/.* until=\([0-9]*\) .*/\1/p' "$WORK/rec")
	((until - now >= 1120000000000))
}
