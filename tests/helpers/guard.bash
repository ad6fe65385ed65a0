# Shared by budget.bats, breaker.bats and fleet.bats: --budget and
# --breaker against a local state directory or a Redis server.  Load after
# helpers/common.
# shellcheck shell=bash

# Each test gets a state directory of its own: $XDG_RUNTIME_DIR/retry.
guard_setup() {
	XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/run
	STATE=$XDG_RUNTIME_DIR/retry
	export XDG_RUNTIME_DIR STATE
	mkdir -m 700 "$XDG_RUNTIME_DIR"
}

# needs REASON: skips the test on a developer's machine; under CI=true,
# where every tool is installed, fails it instead.
needs() {
	if [[ ${CI:-} == true ]]; then
		echo "CI=true, but: $1" >&2
		return 1
	fi
	skip "$1"
}

# Under valgrind each retry costs a second and tens of megabytes, and
# under the sanitizers 200 of them at once make Redis's answers miss their
# 500 ms, so that the runs go on without the budget, as they must: a herd
# of 20 stands in for 200 there.  The bound on the retries does not
# depend on the size of the herd, as long as it fails more times than the
# bucket has tokens.
herd_size() {
	if slow_build; then
		echo 20
	else
		echo 200
	fi
}

# wait_lines FILE N: waits until FILE has N lines (at most 60 s).
wait_lines() {
	local i n
	for ((i = 0; i < 6000; i++)); do
		n=0
		[[ -f $1 ]] && n=$(wc -l <"$1")
		((n >= $2)) && return 0
		sleep 0.01
	done
	echo "$1: $n lines, not $2" >&2
	return 1
}

# herd N SPEC: N processes run `retry -q -n3 -b0 --budget=SPEC` at once,
# each attempt appending "RETRY_PID ATTEMPT" to $WORK/attempts and failing
# (guard-attempt).  Every first attempt waits at a gate until all N wait
# there, so that they all fail together.  Sets HERD_FAILED to the number
# of processes that did not exit 1 or printed anything, each shown on
# stderr, and HERD_LEFT_OUT to the pids of those that went on without a
# local budget, as documented, after a second's wait for its lock; that
# is allowed in the slow builds only (see check_herd).  The budget does
# not refill (refill=0): a herd that a slow build spreads over more than
# the default 10 s would earn a token a refill, which the bound of
# check_herd does not count.
herd() {
	local n=$1 spec=$2,refill=0 i gate rc out left
	local -a pids=()
	left="retry: $STATE/${spec%%,*}: still locked after 1000 ms: going on"
	left+=" without retry budget '${spec%%,*}'"
	mkfifo "$WORK/gate"
	# The writing end that keeps the gate shut: no retry may inherit it,
	# nor bats's fd 3.
	exec {gate}<>"$WORK/gate"
	for ((i = 0; i < n; i++)); do
		"$RETRY" -q -n3 -b0 --budget="$spec" -- \
		    "$ROOT/tests/helpers/guard-attempt" "$WORK" \
		    >"$WORK/out.$i" 2>&1 3>&- {gate}>&- &
		pids+=("$!")
	done
	wait_lines "$WORK/ready" "$n"
	exec {gate}>&-
	HERD_FAILED=0
	HERD_LEFT_OUT=()
	for i in "${!pids[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		out=$(<"$WORK/out.$i")
		[[ $rc == 1 && -z $out ]] && continue
		if [[ $rc == 1 && $out == "$left" ]] && slow_build; then
			HERD_LEFT_OUT+=("${pids[i]}")
			continue
		fi
		echo "retry ${pids[i]} exited $rc: $out" >&2
		HERD_FAILED=$((HERD_FAILED + 1))
	done
}

# check_herd N TOKENS: what herd N left in $WORK/attempts, against the
# rule of a budget of TOKENS tokens (gRFC A6, no success to give any
# back).  The k-th failed attempt recorded in the budget, in the order in
# which the processes took the lock, leaves TOKENS - k tokens, and allows
# a retry only while that is more than TOKENS / 2: only the recorded
# failures k < TOKENS / 2 may be followed by a retry, so there are at
# most ceil(TOKENS / 2) - 1 retries, 9 for 20 tokens, however many
# processes there are.  And at least (2/3) of that: among those first
# failures, one that was a process's third attempt is followed by no
# retry, but it needs two earlier retries of the same process among them.
#
# A process that waited a whole second for the lock goes on without the
# budget for the rest of its run (HERD_LEFT_OUT): under valgrind, 20
# processes that each poll the lock every 5 ms while the holder runs
# translated code can keep it from them that long, one or two of them in
# most runs on one CPU.  Its retries after that are outside the budget,
# and its failures after that are not recorded: the upper bound is then
# on the retries of the processes that kept the budget, and the lower
# bound holds only while those recorded TOKENS / 2 failures at least.
# Sets HERD_KEPT_ATTEMPTS to the attempts of those processes, every one
# of them recorded.
check_herd() {
	local n=$1 tokens=$2 first retries kept most least left
	most=$(((tokens + 1) / 2 - 1))
	least=$(((most * 2 + 2) / 3))
	left=" ${HERD_LEFT_OUT[*]} "
	first=$(awk '$2 == 1' "$WORK/attempts" | wc -l)
	retries=$(awk '$2 > 1' "$WORK/attempts" | wc -l)
	kept=$(awk -v left="$left" '$2 > 1 && !index(left, " " $1 " ")' \
	    "$WORK/attempts" | wc -l)
	HERD_KEPT_ATTEMPTS=$(awk -v left="$left" '!index(left, " " $1 " ")' \
	    "$WORK/attempts" | wc -l)
	echo "$n processes: $first first attempts, $retries retries," \
	    "$kept of them by the $((n - ${#HERD_LEFT_OUT[@]})) that kept" \
	    "the budget, allowed $least to $most" >&2
	[ "$HERD_FAILED" -eq 0 ]
	[ "$first" -eq "$n" ]
	[ "$kept" -le "$most" ]
	[ "$HERD_KEPT_ATTEMPTS" -lt "$most" ] || [ "$retries" -ge "$least" ]
}

# as_guest COMMAND...: runs COMMAND as the user retry-guest, created for
# the test if need be, without XDG_RUNTIME_DIR.
as_guest() {
	runuser -u retry-guest -- env -u XDG_RUNTIME_DIR "$@"
}

# Sets GUEST (its uid), GUEST_RETRY and GUEST_BIN for the suites.
# shellcheck disable=SC2034
guest_setup() {
	[ "$(id -u)" -eq 0 ] || needs "another user needs root"
	require_tool useradd
	require_tool runuser
	# Two tests may get here at once: the loser of useradd's race finds
	# the user made.
	id retry-guest >/dev/null 2>&1 ||
	    useradd --system --no-create-home retry-guest 2>/dev/null ||
	    id retry-guest >/dev/null
	GUEST=$(id -u retry-guest)
	# A tree under a private directory (/root/retry, as in a fresh root)
	# is out of the other user's reach: that user runs a copy.
	GUEST_RETRY=$RETRY
	if ! runuser -u retry-guest -- test -x "$RETRY"; then
		GUEST_BIN=$(mktemp -d /tmp/retry-guest-bin.XXXXXX)
		chmod 755 "$GUEST_BIN"
		cp "$RETRY" "$GUEST_BIN/retry"
		GUEST_RETRY=$GUEST_BIN/retry
	fi
}

# untimed_record FILE: the budget's record in FILE without the time its
# tokens were counted up to and the boot that time is on (" at=N boot=N",
# as budget.c writes them after an attempt).
untimed_record() {
	sed -E 's/ at=[1-9][0-9]*( boot=[1-9][0-9]*)?$//' "$1"
}

# private_bind TARGET: skips the test, saying why, where a file cannot be
# bound over TARGET in a private mount namespace, the isolation that
# with_hosts and in_ns give: tried, not guessed.  In a chroot whose root
# is not a mount point (a debootstrap root), unshare -m cannot make the
# mounts private ("Invalid argument"), and a missing TARGET (minbase has
# no /etc/hosts) cannot be bound over.  A skip even under CI=true: the
# host lacks a capability, not a tool that CI could install.
private_bind() {
	local why
	[ "$(id -u)" -eq 0 ] || needs "a private mount namespace needs root"
	require_tool unshare
	: >"$WORK/bind-probe"
	if ! why=$(unshare -m sh -c 'mount --bind "$0" "$1"' \
	    "$WORK/bind-probe" "$1" 2>&1 </dev/null); then
		skip "no file can be bound over $1 in a private mount namespace here: ${why%%$'\n'*}"
	fi
}

# two_addresses NAME MODE: NAME resolves, in a hosts file of the test's
# own that with_hosts mounts, to 127.0.0.1 first, where helpers/guard-peer
# in MODE (refuse or full) holds the port TWO_PORT, and to 127.0.0.2
# second, where the test starts its server on the same port: PEER_PID.
# glibc puts 127.0.0.1 first whatever the file's order (RFC 6724's
# longest prefix matching the source address, 127.0.0.1); that is
# checked, since a test whose good address came first would prove
# nothing.
# shellcheck disable=SC2034 # PEER_PID and TWO_PORT are for the suites
two_addresses() {
	local order
	private_bind /etc/hosts
	require_tool python3
	"$ROOT/tests/helpers/guard-peer" "$2" "$WORK" 3>&- &
	PEER_PID=$!
	wait_for_file "$WORK/port"
	TWO_PORT=$(cat "$WORK/port")
	printf '127.0.0.1 %s\n127.0.0.2 %s\n' "$1" "$1" >"$WORK/hosts"
	order=$( (with_hosts getent ahosts "$1") |
	    awk '$2 == "STREAM" { printf "%s ", $1 }')
	[ "$order" = "127.0.0.1 127.0.0.2 " ]
}

# with_hosts COMMAND...: COMMAND with the test's hosts file as
# /etc/hosts, in a private mount namespace.  It replaces the shell it
# runs in: call it in a subshell (run, &).
with_hosts() {
	exec unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' \
	    "$WORK/hosts" "$@"
}
