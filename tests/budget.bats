#!/usr/bin/env bats
# Issue 15: --budget on one host.  Every retry that names a budget shares
# one token bucket (gRFC A6) in $XDG_RUNTIME_DIR/retry/NAME: a failed
# attempt takes a token, a successful one gives back the ratio, a retry
# is allowed only while the bucket holds more than half.  The file must be
# the user's own; a corrupt one is reset with a warning.

load helpers/common
load helpers/core
load helpers/guard

# A failed test must not leave a command behind, waiting for its cue.
teardown() {
	echo >"$WORK/done"
	if [[ -n ${GUEST_BIN-} ]]; then
		rm -rf "$GUEST_BIN"
	fi
}

setup() {
	common_setup
	guard_setup
}

@test "200 simultaneous retries make at most the retries a budget of 20 allows" {
	local n
	n=$(herd_size)
	herd "$n" t,tokens=20
	check_herd "$n" 20
	# Every recorded failure took a token, down to none: every attempt of
	# the processes that kept the budget, 20 at least unless some went on
	# without it (check_herd).
	local most=$(((20 - HERD_KEPT_ATTEMPTS) * 1000)) record
	record='^retry-state 1 tokens=([0-9]+) breaker=closed failures=0'
	record+=' until=0 cooldown=0 probe=0$'
	[[ $(untimed_record "$STATE/t") =~ $record ]]
	[ "${BASH_REMATCH[1]}" -le "$((most > 0 ? most : 0))" ]
}

@test "a refused retry ends the run at once with the last status, before sleeping" {
	# 2 tokens: the first failure leaves 1, not more than half.  A sleep
	# of a day would time the test out.
	run -3 --separate-stderr "$RETRY" -n 5 -b 1d --budget=api,tokens=2 \
	    -- sh -c 'exit 3'
	[ "${#stderr_lines[@]}" -eq 1 ]
	giving_up "$stderr" 1 "exit 3" "retry budget 'api' exhausted"
	[ -z "$output" ]
}

@test "retries go on while the bucket holds more than half" {
	# 4 tokens: 3 left after the first failure, 2 after the second.
	run -1 --separate-stderr "$RETRY" -n 5 -b 0 -j none \
	    --budget=api,tokens=4 -- false
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/5 failed (exit 1), next in 0.000s" ]
	giving_up "${stderr_lines[1]}" 2 "exit 1" "retry budget 'api' exhausted"
	# The next run's failure finds 2 tokens and leaves 1.
	run -1 --separate-stderr "$RETRY" -n 5 -b 0 --budget=api,tokens=4 \
	    -- false
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
}

@test "successful attempts give the ratio back, exactly" {
	run -1 --separate-stderr "$RETRY" -q -n 1 --budget=api,tokens=2 -- false
	[ -z "$stderr" ]
	grep -q ' tokens=1000 ' "$STATE/api"
	# Three successes of 0.3: 1.9 tokens, no rounding on the way.
	for _ in 1 2 3; do
		run -0 --separate-stderr "$RETRY" --budget=api,tokens=2,ratio=0.3 \
		    -- true
		[ -z "$stderr" ]
	done
	grep -q ' tokens=1900 ' "$STATE/api"
	# And never above the top.
	run -0 "$RETRY" --budget=api,tokens=2,ratio=0.3 -- true
	grep -q ' tokens=2000 ' "$STATE/api"
	# 2 tokens again: a failure leaves 1, and no retry.
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 --budget=api,tokens=2 \
	    -- false
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
}

@test "the state is a 0600 file of the user's in a 0700 directory" {
	run -0 --separate-stderr "$RETRY" --budget=api -- true
	[ -z "$stderr" ]
	[ "$(stat -c '%a %u %F' "$STATE")" = "700 $(id -u) directory" ]
	[ "$(stat -c '%a %u %F' "$STATE/api")" = \
	    "600 $(id -u) regular file" ]
	# A success in a full bucket leaves it full.
	[ "$(untimed_record "$STATE/api")" = \
	    "retry-state 1 tokens=100000 breaker=closed failures=0 until=0 cooldown=0 probe=0" ]
}

# goes_without MESSAGE: retry --budget=api warns, exactly with the line
# "retry: MESSAGE: going on without retry budget 'api'", and runs its
# command as if no budget had been given (issue 19, item 6: fail open).
goes_without() {
	rm -f "$WORK/ran"
	run -0 --separate-stderr "$RETRY" --budget=api -- touch "$WORK/ran"
	[ "$stderr" = "retry: $1: going on without retry budget 'api'" ]
	[ -e "$WORK/ran" ]
}

@test "a state file replaced by a symbolic link is left out, the command runs" {
	mkdir -m 700 "$STATE"
	echo 'retry-state 1 tokens=full breaker=closed failures=0 until=0 cooldown=0 probe=0' \
	    >"$WORK/elsewhere"
	ln -s "$WORK/elsewhere" "$STATE/api"
	goes_without "state file $STATE/api is a symbolic link"
}

@test "a state file owned by another user is left out, the command runs" {
	[ "$(id -u)" -eq 0 ] || needs "chown to another user needs root"
	mkdir -m 700 "$STATE"
	install -m 600 /dev/null "$STATE/api"
	chown nobody "$STATE/api"
	goes_without "state file $STATE/api belongs to uid $(id -u nobody),\
 not to uid 0"
}

@test "a state file or directory open to other users is left out" {
	mkdir -m 700 "$STATE"
	install -m 644 /dev/null "$STATE/api"
	goes_without "state file $STATE/api is open to other users (mode 0644)"
	chmod 755 "$STATE"
	goes_without "state directory $STATE is open to other users\
 (mode 0755)"
}

@test "a state directory replaced by a symbolic link is left out" {
	mkdir -m 700 "$WORK/real"
	ln -s "$WORK/real" "$STATE"
	goes_without "state directory $STATE is a symbolic link"
}

@test "an unusable XDG_RUNTIME_DIR leaves the guard out, the command runs" {
	# shellcheck disable=SC2030 # each test runs in a subshell of its own
	XDG_RUNTIME_DIR=$WORK/missing
	goes_without "state directory $WORK/missing/retry: No such file or\
 directory"
	XDG_RUNTIME_DIR=$WORK/file
	touch "$WORK/file"
	goes_without "state directory $WORK/file/retry: Not a directory"
}

@test "a read-only state filesystem leaves the guard out, the command runs" {
	[ "$(id -u)" -eq 0 ] || needs "mounting a read-only tmpfs needs root"
	mkdir "$WORK/ro"
	mount -t tmpfs -o ro,size=64k tmpfs "$WORK/ro" ||
	    needs "cannot mount a tmpfs here"
	run -0 --separate-stderr env XDG_RUNTIME_DIR="$WORK/ro" \
	    "$RETRY" --budget=api --breaker=api \
	    -- touch "$WORK/ran"
	umount "$WORK/ro"
	[ "${stderr_lines[0]}" = "retry: state directory $WORK/ro/retry:\
 Read-only file system: going on without retry budget 'api'" ]
	[ "${stderr_lines[1]}" = "retry: state directory $WORK/ro/retry:\
 Read-only file system: going on without circuit breaker 'api'" ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ -e "$WORK/ran" ]
}

@test "another user cannot stop a user's runs through /tmp/retry-UID" {
	guest_setup
	# Only this test uses /tmp/retry-$GUEST, so tests running at once
	# cannot remove each other's.
	rm -rf "/tmp/retry-$GUEST"
	# Planted by root, the other user here: a directory, then a link.
	mkdir -m 700 "/tmp/retry-$GUEST"
	run -0 --separate-stderr as_guest "$GUEST_RETRY" --budget=api -- true
	rm -rf "/tmp/retry-$GUEST"
	[ "$stderr" = "retry: state directory /tmp/retry-$GUEST: Permission\
 denied: going on without retry budget 'api'" ]
	# One the user may read is still not the user's.
	mkdir -m 700 "/tmp/retry-$GUEST"
	chown retry-guest "/tmp/retry-$GUEST"
	chmod 755 "/tmp/retry-$GUEST"
	run -0 --separate-stderr as_guest "$GUEST_RETRY" --budget=api -- true
	rm -rf "/tmp/retry-$GUEST"
	[ "$stderr" = "retry: state directory /tmp/retry-$GUEST is open to\
 other users (mode 0755): going on without retry budget 'api'" ]
	ln -s /tmp "/tmp/retry-$GUEST"
	run -0 --separate-stderr as_guest "$GUEST_RETRY" --breaker=api -- true
	rm -f "/tmp/retry-$GUEST"
	[ "$stderr" = "retry: state directory /tmp/retry-$GUEST is a symbolic\
 link: going on without circuit breaker 'api'" ]
}

@test "an XDG_RUNTIME_DIR the user cannot write leaves the guard out" {
	guest_setup
	run -0 --separate-stderr as_guest XDG_RUNTIME_DIR=/ "$GUEST_RETRY" \
	    --budget=api -- true
	[ "$stderr" = "retry: state directory /retry: Permission denied:\
 going on without retry budget 'api'" ]
	run -0 --separate-stderr as_guest XDG_RUNTIME_DIR=/// "$GUEST_RETRY" \
	    --budget=api -- true
	[ "$stderr" = "retry: state directory /retry: Permission denied:\
 going on without retry budget 'api'" ]
	# shellcheck disable=SC2031 # set by setup() in this test's subshell
	run -0 --separate-stderr as_guest XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" \
	    "$GUEST_RETRY" --budget=api -- true
	[ "$stderr" = "retry: state directory $STATE: Permission denied:\
 going on without retry budget 'api'" ]
}

# root under sudo -E keeps the user's XDG_RUNTIME_DIR, which the user may
# rename: root's records there could be swapped for older ones.  Such a
# base is passed over for /tmp/retry-0, without a word.
@test "root with another user's XDG_RUNTIME_DIR keeps its state in /tmp/retry-0" {
	guest_setup
	local name=sudo-e-$$
	# shellcheck disable=SC2031 # set by setup() in this test's subshell
	chown retry-guest "$XDG_RUNTIME_DIR"
	run -1 --separate-stderr "$RETRY" -q -n 1 --breaker="$name" -- false
	[ "$stderr" = "" ]
	[ ! -e "$STATE" ]
	[[ $(cat "/tmp/retry-0/$name") == "retry-state 1 "*" failures=1 "* ]]
	rm "/tmp/retry-0/$name"
}

# hold_lock: a process other than retry holds the lock on $STATE/api
# until $WORK/done exists: a POSIX record lock, which conflicts with the
# Linux build's OFD lock, or for the portable build, which locks with
# flock(2), a flock.
hold_lock() {
	local how=lockf
	linux_capability || how=flock
	[ -d "$STATE" ] || mkdir -m 700 "$STATE"
	install -m 600 /dev/null "$STATE/api"
	# shellcheck disable=SC2153 # ROOT is common.bash's, not a BOOT
	"$ROOT/tests/helpers/lock-hold" "$STATE/api" "$WORK" "$how" "done" \
	    3>&- &
	HOLDER=$!
	wait_for_file "$WORK/locked"
}

@test "a lock held for ever delays a run by a bounded wait, then the command runs" {
	require_tool python3
	hold_lock
	run -0 --separate-stderr timeout -s KILL 20 "$RETRY" --budget=api \
	    -- touch "$WORK/ran"
	touch "$WORK/done"
	wait "$HOLDER"
	[ "$stderr" = "retry: $STATE/api: still locked after 1000 ms: going\
 on without retry budget 'api'" ]
	[ -e "$WORK/ran" ]
}

# -m bounds the wait for the lock as it bounds a Redis store's: the
# breaker's, before attempt 1, to half of it, so that the command still
# runs (it waited 1 s, and `true` under -m 0.4 exited 124); and so for
# --guard-status.
@test "-m bounds the wait for a lock held for ever" {
	require_tool python3
	hold_lock
	run -0 --separate-stderr timeout -s KILL 20 "$RETRY" -m 0.4 \
	    --breaker=api -- touch "$WORK/ran"
	[ "$stderr" = "retry: $STATE/api: still locked at --max-time: going\
 on without circuit breaker 'api'" ]
	[ -e "$WORK/ran" ]
	run -1 --separate-stderr timeout -s KILL 20 "$RETRY" --guard-status \
	    -m 0.2 --budget=api
	touch "$WORK/done"
	wait "$HOLDER"
	[ "$output" = "" ]
	[ "$stderr" = "retry: $STATE/api: still locked at --max-time" ]
}

@test "a stop signal ends the wait for the lock, before attempt 1" {
	require_tool python3
	local pid i rc=0
	hold_lock
	# The breaker's admission takes the lock before attempt 1.
	"$RETRY" --breaker=api -- touch "$WORK/ran" 2>"$WORK/err" 3>&- &
	pid=$!
	# retry waits for the lock once it has the file open.
	for ((i = 0; i < 1000; i++)); do
		[[ $(readlink "/proc/$pid/fd/"* 2>/dev/null) == *"$STATE/api"* ]] &&
		    break
		sleep 0.01
	done
	kill -TERM "$pid"
	# Were TERM ignored, the watchdog's KILL would end it: 137.
	(sleep 10 && kill -KILL "$pid" 2>/dev/null) 3>&- &
	wait "$pid" || rc=$?
	touch "$WORK/done"
	wait "$HOLDER"
	[ "$rc" -eq 143 ]
	[ ! -e "$WORK/ran" ]
	[ "$(cat "$WORK/err")" = "retry: stopped by TERM before attempt 1" ]
}

@test "a corrupt record is reset with a warning" {
	local bad
	mkdir -m 700 "$STATE"
	for bad in 'garbage' \
	    'retry-state 1 tokens=-5 breaker=closed failures=0 until=0 cooldown=0 probe=0' \
	    'retry-state 1 tokens=007 breaker=closed failures=0 until=0 cooldown=0 probe=0' \
	    'retry-state 1 tokens=5 breaker=ajar failures=0 until=0 cooldown=0 probe=0' \
	    'retry-state 2 tokens=5 breaker=closed failures=0 until=0 cooldown=0 probe=0'; do
		(umask 077 && printf '%s\n' "$bad" >"$STATE/api")
		run -1 --separate-stderr "$RETRY" -n 1 --budget=api,tokens=3 \
		    -- false
		[ "${stderr_lines[0]}" = \
		    "retry: state file $STATE/api held no valid record: starting afresh" ]
		giving_up "${stderr_lines[1]}" 1 "exit 1" "no attempts left"
		# Afresh: a full bucket of 3, less the one failure.
		[ "$(untimed_record "$STATE/api")" = \
		    "retry-state 1 tokens=2000 breaker=closed failures=0 until=0 cooldown=0 probe=0" ]
	done
}

@test "the lock is not held across an attempt or a sleep" {
	# One retry's attempt blocks until the second retry has run twice and
	# slept in between; a lock held across either would deadlock.
	"$RETRY" -q -n 1 --budget=api -- sh -c \
	    'echo >"$1/started"; while [ ! -e "$1/done" ]; do sleep 0.01; done' \
	    sh "$WORK" 3>&- &
	wait_for_file "$WORK/started"
	run -1 --separate-stderr "$RETRY" -n 2 -b 10ms -j none --budget=api \
	    -- false
	giving_up "${stderr_lines[1]}" 2 "exit 1" "no attempts left"
	touch "$WORK/done"
	wait "$!"
}

@test "without XDG_RUNTIME_DIR the state lives in /tmp/retry-UID" {
	local name dir
	name=bats-$$-$RANDOM
	dir=/tmp/retry-$(id -u)
	run -0 --separate-stderr env -u XDG_RUNTIME_DIR "$RETRY" \
	    --budget="$name" -- true
	[ -z "$stderr" ]
	[ -f "$dir/$name" ]
	[ "$(stat -c '%a %u' "$dir")" = "700 $(id -u)" ]
	rm -f "$dir/$name"
	# A relative XDG_RUNTIME_DIR is ignored, as the XDG spec says.
	run -0 --separate-stderr env XDG_RUNTIME_DIR=run "$RETRY" \
	    --budget="$name" -- true
	[ -f "$dir/$name" ]
	rm -f "$dir/$name"
}

@test "--dry-run touches no state" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 2 --budget=api \
	    --breaker=api
	[ ! -e "$STATE" ]
	[ -z "$stderr" ]
	[ "${lines[-2]}" = "# retry budget 'api': in a local state file" ]
	[ "${lines[-1]}" = "# circuit breaker 'api': in a local state file" ]
}

@test "--dry-run shows the Redis server, database and socket as parsed" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
	    --budget='redis://alice@cache/3/api,tokens=5' \
	    --breaker='unix://bob@/run/redis/redis.sock/job?db=2,failures=1'
	[ -z "$stderr" ]
	[ "${lines[-2]}" = "# retry budget 'api': in Redis at redis://alice@cache:6379/3/api" ]
	[ "${lines[-1]}" = "# circuit breaker 'job': in Redis at unix://bob@/run/redis/redis.sock/job?db=2" ]
	# A NAME of digits alone is still a NAME; database 0 is the default.
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
	    --budget='redis://[::1]:7000/7' --breaker='unix:///tmp/r.sock/0'
	[ -z "$stderr" ]
	[ "${lines[-2]}" = "# retry budget '7': in Redis at redis://[::1]:7000/7" ]
	[ "${lines[-1]}" = "# circuit breaker '0': in Redis at unix:///tmp/r.sock/0" ]
}

@test "bad --budget and --breaker values are refused with the reason" {
	bad_value budget '' "NAME takes letters, digits, '.', '_' and '-'"
	bad_value budget 'a/b' "NAME takes letters, digits, '.', '_' and '-'"
	bad_value budget '.hidden' "NAME cannot start with '.'"
	bad_value budget "$(printf 'n%.0s' {1..65})" \
	    "NAME is longer than 64 characters"
	bad_value budget 'api,tokens=0' "tokens: expected 1 to 1000000"
	bad_value budget 'api,tokens=1000001' "tokens: expected 1 to 1000000"
	bad_value budget 'api,ratio=0.0001' \
	    "ratio: expected 0.001 to 1000000, at most 3 decimals"
	bad_value budget 'api,ratio=0' \
	    "ratio: expected 0.001 to 1000000, at most 3 decimals"
	bad_value budget 'api,ratio=1e3' \
	    "ratio: expected 0.001 to 1000000, at most 3 decimals"
	bad_value budget 'api,failures=3' "expected tokens=N, ratio=R or refill=DURATION"
	bad_value budget 'api,' "expected tokens=N, ratio=R or refill=DURATION"
	bad_value budget 'api,refill=999us' \
	    "refill: expected 0 or a DURATION from 1ms to 100 years"
	bad_value budget 'api,refill=x' \
	    "refill: expected 0 or a DURATION from 1ms to 100 years"
	bad_value budget 'api,refill=inf' \
	    "refill: expected 0 or a DURATION from 1ms to 100 years"
	bad_value budget 'api,refill=36600d' \
	    "refill: expected 0 or a DURATION from 1ms to 100 years"
	bad_value breaker 'api,cooldown=36600d' \
	    "cooldown: expected a DURATION above 0, up to 100 years"
	bad_value breaker 'api,tokens=3' \
	    "expected failures=N or cooldown=DURATION"
	bad_value breaker 'api,cooldown=0' \
	    "cooldown: expected a DURATION above 0, up to 100 years"
	bad_value breaker 'api,failures=x' "failures: expected 1 to 1000000"
	bad_value budget 'redis://' "expected redis://HOST[:PORT][/DB]/NAME"
	bad_value budget 'redis://h' "expected redis://HOST[:PORT][/DB]/NAME"
	bad_value budget 'redis://h:0/api' "expected a port from 1 to 65535"
	bad_value budget 'redis://h:65536/api' "expected a port from 1 to 65535"
	bad_value budget 'redis://[::1/api' "no ']' after the IPv6 address"
	bad_value budget 'redis://[::1/x]/api' "no ']' after the IPv6 address"
	# A database (issue 21): the first of two segments, digits only.
	local db="expected a database number from 0 to 2147483647"
	bad_value budget 'redis://h/x/api' "$db"
	bad_value budget 'redis://h//api' "$db"
	bad_value budget 'redis://h/-1/api' "$db"
	bad_value budget 'redis://h/2147483648/api' "$db"
	bad_value budget 'redis://h/1/2/api' \
	    "NAME takes letters, digits, '.', '_' and '-'"
	bad_value budget 'redis://h/api?db=1' \
	    "NAME takes letters, digits, '.', '_' and '-'"
	# A Unix socket: an absolute path, then NAME, then ?db=DB.
	local sock="expected unix:///PATH/NAME[?db=DB]"
	bad_value budget 'unix://' "$sock"
	bad_value budget 'unix://run/redis.sock/api' "$sock"
	bad_value budget 'unix:///api' "$sock"
	bad_value budget 'unix:///run/redis.sock/api?database=1' "$sock"
	bad_value budget 'unix:///run/redis.sock/api?db=' "$db"
	bad_value budget 'unix:///run/redis.sock/api?db=x,tokens=2' "$db"
	bad_value budget 'unix:///run/redis.sock/' \
	    "NAME takes letters, digits, '.', '_' and '-'"
	bad_value budget 'unix://a:pw@/run/redis.sock/api' \
	    "a password in the URL would show in ps(1): put it in REDISCLI_AUTH"
	# 108 bytes: one more than sun_path holds.  The message shows the
	# first 100 bytes of the value, then "...".
	local long
	long=unix://$(printf '/%.0s' {1..3})$(printf 's%.0s' {1..105})/api
	quick --dry-run --budget="$long"
	usage_error "invalid --budget '${long:0:100}...': the socket's path is longer than 107 bytes"
	# Good ones, in full.
	quick --dry-run -n 1 --budget=a.b_c-1,tokens=1000000,ratio=0.125 \
	    --breaker='redis://[::1]:7000/x,failures=1,cooldown=1m30s'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "a retry built without hiredis refuses the redis:// form with one line" {
	command -v pkg-config >/dev/null && pkg-config --exists libbsd-overlay ||
	    needs "pkg-config and libbsd-overlay are needed to build retry"
	mkdir "$WORK/plain"
	# shellcheck disable=SC2046,SC2153 # pkg-config prints several words;
	# ROOT is common.bash's
	"${CC:-cc}" -std=c11 -D_GNU_SOURCE -I"$ROOT/src" \
	    $(pkg-config --cflags libbsd-overlay) -o "$WORK/plain/retry" \
	    "$ROOT"/src/*.c "$ROOT"/src/*/*.c $(pkg-config --libs libbsd-overlay)
	run -125 --separate-stderr "$WORK/plain/retry" \
	    --budget=redis://127.0.0.1/api -- touch "$WORK/ran"
	[ "$stderr" = "retry: redis://127.0.0.1:6379/api: this retry was built without Redis support (hiredis)" ]
	[ ! -e "$WORK/ran" ]
	# The local form still works.
	run -0 --separate-stderr "$WORK/plain/retry" --budget=api -- true
	[ -z "$stderr" ]
}

# --- the refill over time (issue 36) -----------------------------------

# plant TOKENS AGO [SPEC]: budget api's record with TOKENS milli-tokens,
# counted up to AGO seconds before now on this boot's clock (read from a
# record that retry wrote): AT, BOOT.
plant() {
	local rec
	require_linux_capability "a record stamped with the boot's id"
	run -0 "$RETRY" --budget="${3:-api,tokens=4,refill=1m}" -- true
	rec=$(cat "$STATE/api")
	[[ $rec =~ \ at=([0-9]+)\ boot=([0-9]+)$ ]]
	AT=$((BASH_REMATCH[1] - $2 * 1000000000)) BOOT=${BASH_REMATCH[2]}
	printf 'retry-state 1 tokens=%s breaker=closed failures=0 until=0 cooldown=0 probe=0 at=%s boot=%s\n' \
	    "$1" "$AT" "$BOOT" >"$STATE/api"
}

@test "an emptied budget gets a token back every refill interval, the rest of one kept" {
	plant 0 150
	# 2.5 minutes at a token a minute: two back, one taken, no retry.
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -j none \
	    --budget=api,tokens=4,refill=1m -- false
	[ "${#stderr_lines[@]}" -eq 1 ]
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
	# Counted up to two whole minutes: the half minute is kept.
	[ "$(cat "$STATE/api")" = "retry-state 1 tokens=1000 breaker=closed failures=0 until=0 cooldown=0 probe=0 at=$((AT + 120000000000)) boot=$BOOT" ]
}

@test "a budget left alone for its refill time allows retries again" {
	plant 0 300
	# Five minutes: full (4), then 3 after attempt 1 (a retry), 2 after 2.
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -j none \
	    --budget=api,tokens=4,refill=1m -- false
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/3 failed (exit 1), next in 0.000s" ]
	giving_up "${stderr_lines[1]}" 2 "exit 1" "retry budget 'api' exhausted"
	[ "$(untimed_record "$STATE/api")" = "retry-state 1 tokens=2000 breaker=closed failures=0 until=0 cooldown=0 probe=0" ]
}

@test "refill=0 never refills, and the default is a token every 10 s" {
	plant 0 300 api,tokens=4,refill=0
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 --budget=api,tokens=4,refill=0 \
	    -- false
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
	# 25 s at the default: two tokens back.
	plant 0 25 api,tokens=4
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 --budget=api,tokens=4 -- false
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
	[ "$(cat "$STATE/api")" = "retry-state 1 tokens=1000 breaker=closed failures=0 until=0 cooldown=0 probe=0 at=$((AT + 20000000000)) boot=$BOOT" ]
}

@test "a record of an older retry, with no time, is read and refills from now on" {
	require_linux_capability "a record stamped with the boot's id"
	mkdir -m 700 "$STATE"
	(umask 077 && echo 'retry-state 1 tokens=0 breaker=closed failures=0 until=0 cooldown=0 probe=0' \
	    >"$STATE/api")
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 --budget=api,tokens=4 -- false
	# Read as it was, no warning: none back, and a time from now on.
	giving_up "$stderr" 1 "exit 1" "retry budget 'api' exhausted"
	[[ $(cat "$STATE/api") =~ ^retry-state\ 1\ tokens=0\ breaker=closed\ failures=0\ until=0\ cooldown=0\ probe=0\ at=[1-9][0-9]*\ boot=[1-9][0-9]*$ ]]
}

@test "a record from another boot refills for at least this boot's uptime" {
	plant 0 0 api,tokens=4,refill=1ms
	printf 'retry-state 1 tokens=0 breaker=closed failures=0 until=0 cooldown=0 probe=0 at=%s boot=%s\n' \
	    "$((AT + 1000000000000))" "$((BOOT == 1 ? 2 : 1))" >"$STATE/api"
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
	    --budget=api,tokens=4,refill=1ms -- false
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/2 failed (exit 1), next in 0.000s" ]
	giving_up "${stderr_lines[1]}" 2 "exit 1" "no attempts left"
}

# --- --guard-status and --guard-reset (issue 36) ---------------------------

@test "--guard-status shows a budget and a breaker; --guard-reset clears each" {
	local b=api,tokens=4,refill=1m k=job,failures=1
	plant 1500 30 "$b"
	run -1 --separate-stderr "$RETRY" -n 1 --breaker="$k" -- false
	run -0 --separate-stderr "$RETRY" --guard-status --budget="$b" \
	    --breaker="$k"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "retry budget 'api': 1.5 of 4 tokens: retries refused until there are more than 2; a token back every 1m ($STATE/api)" ]
	[[ ${lines[1]} =~ ^circuit\ breaker\ \'job\':\ open,\ next\ probe\ in\ 5[0-9]\.[0-9]{3}s\ \($STATE/job\)$ ]]
	# Nothing written: the half minute still counts.
	[ "$(cat "$STATE/api")" = "retry-state 1 tokens=1500 breaker=closed failures=0 until=0 cooldown=0 probe=0 at=$AT boot=$BOOT" ]
	run -0 --separate-stderr "$RETRY" --guard-reset --breaker="$k"
	[ -z "$stderr" ]
	[ "$output" = "circuit breaker 'job': closed, 0 of 1 failed runs in a row ($STATE/job)" ]
	run -0 --separate-stderr "$RETRY" --guard-reset --budget="$b"
	[ "$output" = "retry budget 'api': 4 of 4 tokens: retries allowed while there are more than 2; a token back every 1m ($STATE/api)" ]
	run -0 "$RETRY" -n 1 --breaker="$k" -- touch "$WORK/ran"
	[ -e "$WORK/ran" ]
}

# What --guard-status shows is what the next run finds: a corrupt record
# is a fresh one, with the warning the run gives; an open breaker's next
# probe further ahead than any cooldown reaches is no wait at all.
@test "--guard-status: a corrupt record is fresh, a probe beyond any cooldown is due" {
	mkdir -m 700 "$STATE"
	(umask 077 && printf 'garbage\n' >"$STATE/api")
	run -0 --separate-stderr "$RETRY" --guard-status --budget=api
	[ "$stderr" = "retry: state file $STATE/api holds no valid record: the next run starts afresh" ]
	[ "$output" = "retry budget 'api': 100 of 100 tokens: retries allowed while there are more than 50; a token back every 10s ($STATE/api)" ]
	[ "$(cat "$STATE/api")" = garbage ]
	(umask 077 && printf 'retry-state 1 tokens=full breaker=open failures=5 until=9000000000000000000 cooldown=0 probe=0\n' >"$STATE/job")
	run -0 --separate-stderr "$RETRY" --guard-status --breaker=job
	[ "$stderr" = "" ]
	[ "$output" = "circuit breaker 'job': open, next probe in 0.000s ($STATE/job)" ]
	run -0 --separate-stderr "$RETRY" -n 1 --breaker=job -- touch "$WORK/ran"
	[ "$stderr" = "" ]
	[ -e "$WORK/ran" ]
}

@test "--guard-reset of a budget leaves the breaker of the same name alone" {
	run -1 --separate-stderr "$RETRY" -n 2 -b 0 --budget=job \
	    --breaker=job,failures=1 -- false
	run -0 --separate-stderr "$RETRY" --guard-reset --budget=job
	[ "$output" = "retry budget 'job': 100 of 100 tokens: retries allowed while there are more than 50; a token back every 10s ($STATE/job)" ]
	[[ $(cat "$STATE/job") =~ ^retry-state\ 1\ tokens=full\ breaker=open\ failures=1\  ]]
}

@test "--guard-status and --guard-reset together are refused, and nothing is reset" {
	plant 1500 30 api,tokens=4
	run -125 --separate-stderr "$RETRY" --guard-status --guard-reset \
	    --budget=api,tokens=4
	[ "$output" = "" ]
	[ "$stderr" = "retry: --guard-status and --guard-reset cannot be combined: --guard-reset shows the state too; try 'retry --help'" ]
	[ "$(cat "$STATE/api")" = "retry-state 1 tokens=1500 breaker=closed failures=0 until=0 cooldown=0 probe=0 at=$AT boot=$BOOT" ]
}

# As --dry-run and -O do; before, 1 after "standard output: Broken pipe".
@test "--guard-status into a closed pipe dies by SIGPIPE; with SIGPIPE ignored, 125" {
	run -0 --separate-stderr closed_pipe "$WSTATUS" "$WORK/ws" \
	    "$RETRY" --guard-status --budget=api
	[ "$stderr" = "" ]
	[ "$(cat "$WORK/ws")" = "signal 13" ]
	run -0 --separate-stderr closed_pipe "$WSTATUS" -i 13 "$WORK/ws" \
	    "$RETRY" --guard-status --budget=api
	[ "$stderr" = "retry: standard output: Broken pipe" ]
	[ "$(cat "$WORK/ws")" = "exit 125" ]
	run -125 --separate-stderr sh -c '"$0" --guard-status --budget=api \
	    >/dev/full' "$RETRY"
	[ "$stderr" = "retry: standard output: No space left on device" ]
}

@test "--guard-status and --guard-reset need a guard, run no command, and are no setting" {
	run -125 --separate-stderr "$RETRY" --guard-status
	[ "$stderr" = "retry: --guard-status needs --budget or --breaker; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --guard-reset --budget=api -- \
	    touch "$WORK/ran"
	[ "$stderr" = "retry: --guard-reset runs no command; try 'retry --help'" ]
	[ ! -e "$WORK/ran" ]
	RETRY_OPTIONS=--guard-reset run -125 --separate-stderr "$RETRY" \
	    --budget=api -- true
	[ "$stderr" = "retry: RETRY_OPTIONS: --guard-reset is not allowed there; try 'retry --help'" ]
	[ ! -e "$STATE/api" ]
}
