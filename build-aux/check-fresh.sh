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

# mirror: the URI of Debian's main archive for $suite in apt's sources,
# deb822 (*.sources) first, then the one-line format (sources.list).
mirror() {
	local f uri
	if [[ -n ${FRESH_MIRROR:-} ]]; then
		echo "$FRESH_MIRROR"
		return
	fi
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		uri=$(awk -v suite="$suite" '
			function flush() {
				if (deb && has && uri != "" && !off && !found) {
					print uri
					found = 1
				}
				deb = has = off = 0
				uri = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" {
				for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1
			}
			tolower($1) == "suites:" {
				for (i = 2; i <= NF; i++) if ($i == suite) has = 1
			}
			tolower($1) == "uris:" { uri = $2 }
			tolower($1) == "enabled:" && tolower($2) == "no" { off = 1 }
			END { flush() }' "$f")
		[[ -n $uri ]] && { echo "$uri"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		uri=$(awk -v suite="$suite" '
			$1 != "deb" { next }
			{
				i = 2
				if ($i ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
				if ($i ~ /^\[/ || $i ~ /\]$/) i++
				if ($(i + 1) == suite) { print $i; exit }
			}' "$f")
		[[ -n $uri ]] && { echo "$uri"; return; }
	done
	return 1
}

# mounts_under DIR: the mount points at or below DIR, deepest first.
mounts_under() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' \
	    /proc/self/mountinfo | sort -r
}

# Ends every process whose root is the chroot, by pid, then unmounts
# what is mounted there.  Fails if anything stays mounted.
release() {
	local p pids mp
	for _ in 1 2 3; do
		pids=""
		for p in /proc/[0-9]*; do
			[[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] &&
			    pids+=" ${p#/proc/}"
		done
		[[ -z $pids ]] && break
		# shellcheck disable=SC2086 # pids are words
		kill -KILL $pids 2>/dev/null || true
		sleep 0.5
	done
	for mp in $(mounts_under "$root"); do
		umount "$mp" 2>/dev/null || umount -l "$mp" ||
		    say "cannot unmount $mp"
	done
	[[ -z $(mounts_under "$root") ]]
}

# Removes the root, which must have nothing mounted in it.
remove_root() {
	[[ -e $root ]] || return 0
	release || die "$root still has mounts: not removed"
	rm -rf --one-file-system "$root"
}

cleanup() {
	local status=$?
	trap - EXIT HUP INT TERM
	if [[ ${FRESH_KEEP:-0} == 1 ]]; then
		release || say "$root still has mounts"
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
uri=$(mirror) ||
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

# Name resolution for apt-get, and no service started by a package.
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# The root is a mount point of its own, as / is: unshare --mount-proc
# (tests/process.bats) makes / private, which fails on a plain directory.
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=755,size=16m,nosuid tmpfs "$root/dev"
mknod -m 666 "$root/dev/null" c 1 3
mknod -m 666 "$root/dev/zero" c 1 5
mknod -m 666 "$root/dev/full" c 1 7
mknod -m 666 "$root/dev/random" c 1 8
mknod -m 666 "$root/dev/urandom" c 1 9
mknod -m 666 "$root/dev/tty" c 5 0
mkdir -m 755 "$root/dev/pts"
mkdir -m 1777 "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts \
    "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"

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
