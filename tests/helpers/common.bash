# Shared set-up for the bats suites: load it with `load helpers/common`.
# tests/stress.sh sources it too, for poll_until.
# shellcheck shell=bash

if declare -F bats_require_minimum_version >/dev/null; then
	bats_require_minimum_version 1.5.0
fi

# A signal bug must fail a test, not hang CI.
: "${BATS_TEST_TIMEOUT:=30}"
export BATS_TEST_TIMEOUT

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RETRY=${RETRY:-$ROOT/retry}
WSTATUS=$ROOT/tests/helpers/wstatus
export ROOT RETRY WSTATUS

common_setup() {
	WORK=$BATS_TEST_TMPDIR
	export WORK
	unset RETRY_ATTEMPT RETRY_MAX_ATTEMPTS RETRY_PREV_STATUS
	# A CI job traced by OpenTelemetry must not add ids to the JSON logs.
	unset TRACEPARENT TRACESTATE
	# On a GitHub runner, --log-format=github tests must not write the
	# job's own summary.
	unset GITHUB_STEP_SUMMARY
}

# poll_until SECONDS COMMAND [ARG...]: runs COMMAND every 10 ms until it
# succeeds; fails, saying what it waited for, once SECONDS ("5", "0.5")
# have passed.  COMMAND runs in this shell, so that a function may set
# variables for the caller, with its stderr silenced.
poll_until() {
	local limit=$1 int frac end now
	shift
	int=${limit%%.*} frac=
	[[ $limit == *.* ]] && frac=${limit#*.}
	frac=${frac}000000
	now=${EPOCHREALTIME/[.,]/}
	end=$((10#$now + 10#${int:-0} * 1000000 + 10#${frac:0:6}))
	until "$@" 2>/dev/null; do
		now=${EPOCHREALTIME/[.,]/}
		if ((10#$now >= end)); then
			echo "timed out after ${limit}s waiting for: $*" >&2
			return 1
		fi
		sleep 0.01
	done
}

# require_linux_capability WHAT: the test checks something that only the
# Linux build of retry does (WHAT names it); the portable build
# (make PORTABLE=1, tested with BUILD_PORTABLE=1 by build-aux/ci-portable.sh)
# leaves it out, so there the test is skipped with a one-line reason.
require_linux_capability() {
	linux_capability || skip "not in the portable build: $1"
}

# slow_build: whether retry runs under valgrind (make check-valgrind) or
# the sanitizers (make check-sanitize), where each start costs tens of
# milliseconds to a second.
slow_build() {
	[[ $RETRY == *quality-valgrind || -n ${RETRY_SANITIZED:-} ]]
}

# rss_limit_kib: the peak RSS, in KiB, under which a run that streams
# far more than that (tens of MiB) proves its memory bounded.  The
# sanitizers' shadow memory and quarantine add megabytes of their own, so
# there the limit is 32 MiB, still well under what the streams carry.
rss_limit_kib() {
	if [[ -n ${RETRY_SANITIZED:-} ]]; then
		echo 32768
	else
		echo 8192
	fi
}

# linux_capability: whether the retry under test is the Linux build, for
# the one assertion of a test that only the Linux build can meet.
linux_capability() {
	[[ ${BUILD_PORTABLE:-} != 1 ]]
}

# require_tool NAME: the test goes on only where the tool NAME is
# installed (a command on $PATH; bash-completion: its script).  Elsewhere
# it is skipped with a one-line reason, and fails under CI=true, which
# installs every tool (build-aux/packages-check.txt; make check installs
# them too where it can).
require_tool() {
	case $1 in
	bash-completion)
		[[ -f ${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion} ]]
		;;
	*)
		command -v "$1" >/dev/null 2>&1
		;;
	esac && return 0
	if [[ ${CI:-} == true ]]; then
		echo "$1 is not installed: CI must install it" \
		    "(build-aux/packages-check.txt)" >&2
		return 1
	fi
	skip "$1 is not installed"
}

# qemu_cannot WHAT: skips the test where $RETRY runs under qemu-user
# (build-aux/ci-arm64.sh sets RETRY_UNDER_QEMU=1), which cannot emulate
# WHAT.  The list is in README.md (Where retry runs).
qemu_cannot() {
	[[ -z ${RETRY_UNDER_QEMU:-} ]] || skip "qemu-user cannot emulate $1"
}

# musl_cannot WHAT: the test checks what retry linked against musl (the
# static binaries of make release, tested with RETRY_LIBC=musl by
# build-aux/ci-release.sh) does otherwise: musl keeps signals 32 to 34
# for itself and numbers the real-time ones from 35, where the shell,
# linked against glibc, numbers them from 34.
musl_cannot() {
	[[ ${RETRY_LIBC:-} != musl ]] || skip "not in the musl build: $1"
}

# Waits until a file exists and is not empty (at most $2 s).
wait_for_file() {
	poll_until "${2:-10}" test -s "$1"
}

# Waits until a process is gone (at most $2 s).
wait_gone() {
	poll_until "${2:-10}" gone "$1"
}

# gone PID: no process PID is left (a zombie still counts).
gone() {
	! kill -0 "$1" 2>/dev/null
}

# untimed TEXT: TEXT with the measured time in retry's lines of success,
# stop and giving up (and --until-failure's ends) made "T":
# "retry: succeeded on attempt 2/5 after Ts".
untimed() {
	local n='[0-9]+/([0-9]+|inf)'
	sed -E "s#(retry: (succeeded on attempt $n after|stopped by [A-Z0-9+]+ (during attempt $n after|after attempt $n in|during the splay after)|giving up after [0-9]+ attempts? in|attempt $n failed after|all [0-9]+ attempts? succeeded in) )[0-9]+\.[0-9]{3}s#\1Ts#" <<<"$1"
}

# closed_pipe ARG...: runs ARG... with its stdout a pipe whose reader is
# already gone, SIGPIPE as the default.
closed_pipe() {
	# perl, not python3: a minimal Debian root (check-fresh, the
	# package's buildd root) has perl-base alone.
	perl -e '$SIG{PIPE} = "DEFAULT"; pipe(my $r, my $w) or die "pipe: $!";
	    close($r); open(STDOUT, ">&", $w) or die "dup: $!"; close($w);
	    exec { $ARGV[0] } @ARGV or die "$ARGV[0]: $!"' "$@"
}

# Whether $TMPDIR holds nothing retry left: nothing at all, or only the
# kept RETRY_AFTER_FILE directory, retry-after-UID, empty (and
# valgrind's own pipes).
tmpdir_clean() {
	local kept f
	kept=retry-after-$(id -u)
	for f in "$TMPDIR"/* "$TMPDIR"/.[!.]* "$TMPDIR"/..?*; do
		[[ -e $f || -L $f ]] || continue	# a pattern left as it is
		[[ ${f##*/} == vgdb-pipe-* ]] && continue
		[[ ${f##*/} == "$kept" && -d $f && ! -L $f &&
		    -z $(ls -A "$f") ]] && continue
		echo "left in \$TMPDIR: $f" >&2
		return 1
	done
}
