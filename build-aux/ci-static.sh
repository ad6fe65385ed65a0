#!/usr/bin/env bash
# shellcheck disable=SC2016 # the commands' $ are for the shell in the root
# CI: a static retry (make static, or make release's musl binary) where
# it will live, in an empty root that holds nothing but it, as
# /bin/retry, and a static busybox (no
# /dev, no /proc), with only /tmp writable by the command's user.  Each check runs retry there
# through chroot(8) and compares the exact wait status (from perl's
# system(), so that a death by a signal differs from an exit) and the
# exact stderr.  Any mismatch fails the script, with both shown.  The last
# check adds /etc/hosts, for a redis:// host name.
# Runs as root (chroot), from the top of the tree.
#
# usage: build-aux/ci-static.sh [BINARY]   (default build/static/retry)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-build/static/retry}
[[ -x $bin ]] || { echo "ci-static: no $bin: run make static" >&2; exit 1; }
if readelf -l "$bin" | grep -q INTERP || readelf -d "$bin" | grep -q NEEDED
then
	echo "ci-static: $bin is not static" >&2
	exit 1
fi
bb=$(command -v busybox)
file -L "$bb" | grep -q 'statically linked' ||
    { echo "ci-static: $bb is not static (busybox-static)" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root/bin" "$root/tmp" "$root/home"
chmod 1777 "$root/tmp"
chmod 555 "$root/home"
cp "$bin" "$root/bin/retry"
cp "$bb" "$root/bin/busybox"
chroot "$root" /bin/busybox --install -s /bin

fails=0
# check NAME STATUS STDOUT STDERR CMD...: CMD runs in the root as user
# 65534 (nobody, who may write /tmp only), with a bare environment (no
# XDG_RUNTIME_DIR; HOME is not writable) and standard input from
# $root/tmp/in; STATUS is "exit N" or "signal N".
check() {
	local name=$1 want_status=$2 want_out=$3 want_err=$4
	local got_status got_out got_err
	shift 4
	got_status=$(OUT="$root/.out" ERR="$root/.err" IN="$root/tmp/in" perl -e '
		open(STDIN, "<", $ENV{IN}) or die "$ENV{IN}: $!";
		open(STDOUT, ">", $ENV{OUT}) or die "$ENV{OUT}: $!";
		open(STDERR, ">", $ENV{ERR}) or die "$ENV{ERR}: $!";
		system(@ARGV);
		printf STDOUT "";
		open(my $fd, ">", $ENV{OUT} . ".status") or die;
		print $fd ($? & 127 ? "signal " . ($? & 127)
		    : "exit " . ($? >> 8));
	    ' chroot --userspec=65534:65534 "$root" \
	    /bin/env -i PATH=/bin HOME=/home "$@"
	    cat "$root/.out.status")
	got_out=$(cat "$root/.out")
	# The run's length is the one figure that varies.
	got_err=$(sed -E \
	    's/ in [0-9]+\.[0-9]+s:/ in Ns:/; s/ after [0-9]+\.[0-9]+s$/ after Ns/' "$root/.err")
	if [[ $got_status == "$want_status" && $got_out == "$want_out" &&
	    $got_err == "$want_err" ]]; then
		printf 'ok   %s\n' "$name"
	else
		printf 'FAIL %s\n  status: want %s, got %s\n' "$name" \
		    "$want_status" "$got_status"
		printf '  stdout want: %q\n  stdout got:  %q\n' "$want_out" \
		    "$got_out"
		printf '  stderr want: %q\n  stderr got:  %q\n' "$want_err" \
		    "$got_err"
		fails=$((fails + 1))
	fi
}
printf 'line 1\nline 2\n' >"$root/tmp/in"

# The counter: how many times this command has run.
count='n=0; [ -f /tmp/$1 ] && n=$(cat /tmp/$1); n=$((n + 1)); echo $n >/tmp/$1'

check "exit 0 passed on" "exit 0" "" "" retry -- true
check "exit 3 passed on" "exit 3" "" \
    "retry: giving up after 1 attempt in Ns: exit 3 (no attempts left)" \
    retry -n 1 -- sh -c 'exit 3'
check "a missing command: 127" "exit 127" "" \
    "retry: cannot run nosuch: No such file or directory
retry: giving up after 1 attempt in Ns: exit 127 (not retried)" \
    retry -- nosuch
check "fails twice, then succeeds" "exit 0" "" \
    "retry: attempt 1/5 failed (exit 1), next in 0.000s
retry: attempt 2/5 failed (exit 1), next in 0.000s
retry: succeeded on attempt 3/5 after Ns" \
    retry -n 5 -b 0 -- sh -c "$count"'; [ $n -ge 3 ]' sh count1
check "-I: each attempt reads the same input; -O: the last one's output" \
    "exit 0" "attempt 2
line 1
line 2" \
    "attempt 1
line 1
line 2
retry: attempt 1/3 failed (exit 1), next in 0.000s
retry: succeeded on attempt 2/3 after Ns" \
    retry -I -O -n 3 -b 0 -- sh -c \
    "$count"'; echo "attempt $n"; cat; [ $n -ge 2 ]' sh count2
check "-t: a timed-out attempt exits 124" "exit 124" "" \
    "retry: giving up after 1 attempt in Ns: timed out after 100ms (-t) (no attempts left)" \
    retry -n 1 -t 100ms -- sleep 10
check "a command killed by a signal: retry dies by the same signal" \
    "signal 15" "" \
    "retry: giving up after 1 attempt in Ns: signal TERM (not retried)" \
    retry -n 1 -- sh -c 'kill -TERM $$'
check "--budget=NAME with only /tmp writable: no warning" "exit 1" "" \
    "retry: attempt 1/2 failed (exit 1), next in 0.000s
retry: giving up after 2 attempts in Ns: exit 1 (no attempts left)" \
    retry --budget=ci -n 2 -b 0 -- false
check "--budget=NAME keeps its state in /tmp/retry-UID" "exit 0" "ci" "" \
    ls /tmp/retry-65534

# The root has no /dev and no /proc.  A hook gets an empty stdin (it
# must not read the run's) and its output goes to stderr all the same; a
# hook that cannot have /dev/null once ended the run with 125.
check "hooks run without /dev/null: the command's status stands" "exit 7" \
    "" "retry: attempt 1/2 failed (exit 7), next in 0.000s
hook 1
retry: giving up after 2 attempts in Ns: exit 7 (no attempts left)
bye 2 []" \
    retry -n 2 -b 0 --on-retry='echo hook $RETRY_ATTEMPT' \
    --on-give-up='echo "bye $RETRY_ATTEMPT [$(cat)]"' -- sh -c 'exit 7'
check "the JSON log of a run with hooks ends with its summary" "exit 0" \
    '"event":"summary"' "" \
    sh -c 'retry -n 2 -b 0 --json-log=/tmp/hooks.json -q \
    --on-retry="echo hook >/tmp/hook.out" -- sh -c "exit 1" 2>/tmp/hooks.err
	[ $? = 1 ] && [ ! -s /tmp/hooks.err ] && [ "$(cat /tmp/hook.out)" = hook ] &&
	tail -n 1 /tmp/hooks.json | grep -o "\"event\":\"summary\""'
# With stderr closed too, the hook's writes fail at once, and it runs on.
check "a hook runs with stderr closed and no /dev/null" "exit 0" "ran" "" \
    sh -c 'retry -n 2 -b 0 --on-retry="echo lost; echo ran >/tmp/ran" \
	-- sh -c "exit 1" 2>&-; [ $? = 1 ] && cat /tmp/ran'
check "a hook runs with stdin closed and no /dev/null" "exit 1" "" \
    "retry: attempt 1/2 failed (exit 1), next in 0.000s
hook []
retry: giving up after 2 attempts in Ns: exit 1 (no attempts left)" \
    sh -c 'retry -n 2 -b 0 --on-retry="echo \"hook [\$(cat)]\"" \
	-- sh -c "exit 1" <&-'
# Without /proc, an attempt leads a process group of its own, and what
# it left in that group is ended before the next attempt.  (busybox sh
# starts no & job without /dev/null: the leftover is a child that kills
# its shell, the attempt, and goes on as sleep.)
check "without /proc a leftover in the attempt's group is ended" "exit 0" \
    "gone" "retry: attempt 1/3 failed (signal KILL), next in 0.000s
retry: succeeded on attempt 2/3 after Ns" \
    retry -n 3 -b 0 -- sh -c "$count"'
	if [ $n = 1 ]; then
		sh -c "echo \$\$ >/tmp/lo; kill -KILL \$PPID; exec sleep 30"
	fi
	[ -s /tmp/lo ] || { echo "no leftover"; exit 2; }
	if kill -0 "$(cat /tmp/lo)" 2>/tmp/kill.err; then echo alive; exit 2; fi
	echo gone' sh count3
# In the caller's job (--foreground, or a terminal's) that cannot be
# done: it is said once in the run.
check "without /proc, --foreground says once that leftovers are not found" \
    "exit 1" "" "retry: without /proc, what an attempt leaves running in the terminal's job cannot be found: it is not cleared before the next attempt
retry: attempt 1/3 failed (exit 1), next in 0.000s
retry: attempt 2/3 failed (exit 1), next in 0.000s
retry: giving up after 3 attempts in Ns: exit 1 (no attempts left)" \
    retry --foreground -n 3 -b 0 -- false

# A host name for redis:// from /etc/hosts, in a root without glibc's
# shared libraries: "Connection refused" (nothing listens on port 1)
# shows that the name was resolved.  Only the root's /etc/hosts is added.
mkdir "$root/etc"
echo '127.0.0.1 localhost' >"$root/etc/hosts"
# hiredis's own message, in the program only where hiredis is linked in.
if ! grep -q 'Server closed the connection' "$bin"; then
	check "redis://: one line where hiredis was not built in" "exit 125" "" \
	    "retry: redis://localhost:1/x: this retry was built without Redis support (hiredis)" \
	    retry --budget=redis://localhost:1/x -n 1 -- true
else
	check "redis://localhost: the name resolves from /etc/hosts" "exit 0" "" \
	    "retry: redis://localhost:1/x: Connection refused: going on without retry budget 'x'" \
	    retry --budget=redis://localhost:1/x -n 1 -- true
	# The static binary cannot dlopen() OpenSSL: it says so (INSTALL.md,
	# "A static binary").
	check "rediss://: one line, the static binary speaks no TLS" "exit 125" \
	    "" "retry: rediss://localhost:1/x: this retry was built without TLS support (OpenSSL)" \
	    retry --budget=rediss://localhost:1/x -n 1 -- true
fi

if ((fails > 0)); then
	echo "ci-static: $fails check(s) failed" >&2
	exit 1
fi
echo "ci-static: all checks passed in a root with only retry, busybox and /etc/hosts"
