#!/usr/bin/env bash
# make check-fresh: the README's two set-up commands, `make demo` and
# `make check`, on a fresh Debian 12 (bookworm) with nothing installed but
# git, make and gcc (with libc6-dev): they must install what they need
# and pass, every test running (CI=true makes a missing tool fail).
# `make` alone runs first: it must stop with its one-line hint about
# libbsd, and install nothing.
#
# usage: check-fresh.sh            (as root, from anywhere in the checkout)
#
# debootstrap builds a minimal root (--variant=minbase) from Debian's
# packages, from the mirror that this machine's apt uses (read from
# /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; the
# environment variable FRESH_MIRROR overrides it).  A clean clone of the
# committed HEAD goes into it, never the work tree, and the two commands
# run there as root in a chroot with /proc, /sys, /dev and /dev/pts
# mounted.  Nothing is cached from one run to the next: a cache would
# hide a missing install step.  The root, build/fresh/root, is removed at
# the end, whatever happens (FRESH_KEEP=1 keeps it for a look, unmounted).
#
# /dev is a tmpfs of its own with the usual nodes and a private devpts
# instance, not the host's /dev: nothing done inside, nor an rm -rf of
# the root, can touch the host's devices.
set -euo pipefail

cd "$(dirname "$0")/.."
top=$(pwd -P)
fresh=$top/build/fresh
root=$fresh/root
log=$fresh/log
suite=bookworm
# The chroot part: make demo && make check, at most this long.
limit=${FRESH_TIMEOUT:-1500}

say() {
	printf 'check-fresh: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

# mirror(), mounts_under(), root_prepare() and release(): chroot.sh.
# shellcheck source=build-aux/chroot.sh
. build-aux/chroot.sh

# Removes the root, which must have nothing mounted in it.
remove_root() {
	[[ -e $root ]] || return 0
	release "$root" || die "$root still has mounts: not removed"
	rm -rf --one-file-system "$root"
}

cleanup() {
	local status=$?
	trap - EXIT HUP INT TERM
	if [[ ${FRESH_KEEP:-0} == 1 ]]; then
		release "$root" || say "$root still has mounts"
		say "kept $root"
	else
		remove_root || status=1
	fi
	exit "$status"
}

[[ $(id -u) -eq 0 ]] || die "run it as root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null ||
    die "debootstrap is missing: apt-get install debootstrap" \
	"(build-aux/packages-fresh.txt)"
[[ $root != *[[:space:]]* ]] || die "the path has blanks: $root"
uri=$(mirror "$suite") ||
    die "no Debian $suite mirror in apt's sources: set FRESH_MIRROR=URI"
head=$(git rev-parse --verify HEAD) || die "not a git checkout"
[[ -z $(git status --porcelain --untracked-files=no) ]] ||
    say "the work tree has changes that are not committed: they are" \
	"not tested, only HEAD ($head) is"

start=$SECONDS
mkdir -p "$fresh"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
remove_root

say "debootstrap $suite (minbase, git make gcc libc6-dev)"
if ! debootstrap --variant=minbase --include=git,make,gcc,libc6-dev \
    "$suite" "$root" "$uri" >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "debootstrap failed (the whole log: $log)"
fi
t_boot=$((SECONDS - start))

say "cloning HEAD ($head)"
git clone -q --no-hardlinks --no-checkout "$top" "$root/root/retry"
git -C "$root/root/retry" checkout -q --detach "$head"

# The root is a mount point of its own, as / is: unshare --mount-proc
# (tests/process.bats) makes / private, which fails on a plain directory.
mount --bind "$root" "$root"
root_prepare "$root"
mount -t sysfs sysfs "$root/sys"

# First `make` alone, which must install nothing: without libbsd it
# stops with its one-line hint.
say "make (no libbsd yet), then make demo && make check in the chroot," \
    "as root, with CI=true"
t0=$SECONDS
status=0
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 CI=true ${TERM:+TERM="$TERM"} \
    ${http_proxy:+http_proxy="$http_proxy"} \
    timeout -k 30 "$limit" chroot "$root" /bin/sh -c '
	set -e
	cd /root/retry
	if make >/tmp/make.out 2>&1; then
		echo "check-fresh: make built retry without libbsd?" >&2
		exit 1
	fi
	cat /tmp/make.out
	grep -q "^retry: libbsd is missing" /tmp/make.out
	if dpkg -s libbsd-dev >/dev/null 2>&1; then
		echo "check-fresh: make installed libbsd-dev" >&2
		exit 1
	fi
	make demo
	make check' </dev/null || status=$?
t_run=$((SECONDS - t0))

say "debootstrap ${t_boot} s, make, make demo and make check ${t_run} s," \
    "in all $((SECONDS - start)) s"
[[ $status -eq 0 ]] ||
    die "make, make demo or make check failed in the fresh root" \
	"(status $status)"
say "passed"
