#!/usr/bin/env bash
# CI: the Debian package (debian/), end to end on fresh Debian 12 roots.
#  1. a buildd root (debootstrap --variant=buildd: build-essential and no
#     more) gets the package's Build-Depends from `apt-get build-dep`, and
#     `dpkg-buildpackage -us -uc -b` builds a clean clone of HEAD there:
#     a missing Build-Depends fails the build;
#  2. lintian on the .changes (the .deb and .buildinfo): any E: or W:
#     fails;
#  3. a minbase root installs the .deb with apt-get (so its Depends
#     resolve) and man-db, and runs the installed retry: --version,
#     man -w, a retried failure, and debian/tests/installed; then installs
#     Debian's own retry, which must replace retry-backoff by removing it
#     (Conflicts: retry), and back.
#
# usage: ci-deb.sh    (as root; packages in build-aux/packages-deb.txt)
#
# The roots come from the mirror that check-fresh.sh finds (apt's
# sources, or FRESH_MIRROR), under build/deb/, and are removed at the
# end, whatever happens; nothing is cached between runs.
# The scripts run in the roots expand their own variables there:
# shellcheck disable=SC2016
set -euo pipefail

cd "$(dirname "$0")/.."
top=$(pwd -P)
work=$top/build/deb
suite=bookworm
roots=()

say() {
	printf 'ci-deb: %s\n' "$*" >&2
}

die() {
	say "$*"
	exit 1
}

# mirror(), mounts_under(), root_prepare() and release(): chroot.sh,
# which check-fresh.sh shares.
# shellcheck source=build-aux/chroot.sh
. build-aux/chroot.sh

cleanup() {
	local status=$? root
	trap - EXIT HUP INT TERM
	for root in "${roots[@]}"; do
		if release "$root"; then
			rm -rf --one-file-system "$root"
		else
			say "$root still has mounts: not removed"
			status=1
		fi
	done
	exit "$status"
}

# newroot NAME VARIANT [INCLUDE]: a fresh Debian root at $work/NAME, with
# /proc and a /dev of its own, as check-fresh.sh makes it.
newroot() {
	local root=$work/$1
	[[ ! -e $root ]] || { release "$root" && rm -rf --one-file-system "$root"; }
	roots+=("$root")
	say "debootstrap $suite ($2) into $root"
	if ! debootstrap --variant="$2" ${3:+--include="$3"} "$suite" "$root" \
	    "$uri" >"$work/$1.log" 2>&1; then
		tail -n 30 "$work/$1.log" >&2
		die "debootstrap failed (the whole log: $work/$1.log)"
	fi
	root_prepare "$root"
}

# inroot NAME SCRIPT: runs SCRIPT with sh -e as root in the root NAME.
inroot() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	    DEBIAN_FRONTEND=noninteractive \
	    ${http_proxy:+http_proxy="$http_proxy"} \
	    timeout -k 30 900 chroot "$work/$1" /bin/sh -ec "$2" </dev/null
}

[[ $(id -u) -eq 0 ]] || die "run it as root (debootstrap, chroot, mount)"
for tool in debootstrap lintian; do
	command -v "$tool" >/dev/null ||
	    die "$tool is missing (build-aux/packages-deb.txt)"
done
uri=$(mirror "$suite") ||
    die "no Debian $suite mirror in apt's sources: set FRESH_MIRROR=URI"
head=$(git rev-parse --verify HEAD) || die "not a git checkout"
start=$SECONDS
mkdir -p "$work"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# 1. Build.
newroot build buildd
git clone -q --no-hardlinks --no-checkout "$top" "$work/build/root/src/retry"
git -C "$work/build/root/src/retry" checkout -q --detach "$head"
say "apt-get build-dep, dpkg-buildpackage -us -uc -b"
inroot build '
	apt-get -qq update
	cd /root/src/retry
	apt-get -qq -y --no-install-recommends build-dep ./ >/dev/null
	dpkg-buildpackage -us -uc -b >/root/src/build.log 2>&1 ||
	    { grep -A8 "^not ok" /root/src/build.log >&2; tail -n 20 /root/src/build.log >&2; exit 1; }' ||
    die "the package does not build in a buildd root with its Build-Depends"
out=$work/out
rm -rf "$out"
mkdir "$out"
cp "$work"/build/root/src/retry-backoff[_-]* "$out"/
t_build=$((SECONDS - start))

# 2. lintian.
say "lintian"
lintian --pedantic --info "$out"/*.changes 2>&1 |
    grep -v '^running with root privileges' | tee "$out/lintian.txt" >&2 ||
    true
! grep -q '^[EW]: ' "$out/lintian.txt" || die "lintian: errors or warnings"

# 3. Install and run.
t0=$SECONDS
deb=$(cd "$out" && echo retry-backoff_*_*.deb)
newroot install minbase
cp "$out/$deb" "$work/install/root/"
cp -r debian/tests "$work/install/root/tests"
say "apt-get install ./$deb man-db; the installed retry"
inroot install '
	apt-get -qq update
	apt-get -qq -y install --no-install-recommends man-db ./root/'"$deb"' \
	    >/dev/null
	retry --version
	man -w retry
	: >/tmp/count
	retry -q -n5 -b 1ms -- sh -c "echo x >>/tmp/count;
	    [ \$(wc -l </tmp/count) -ge 3 ]"
	[ "$(wc -l </tmp/count)" -eq 3 ]
	echo "ci-deb: a command that failed twice passed on attempt 3" >&2
	/root/tests/installed' ||
    die "the installed package fails its checks"

# Debian's retry: the two conflict, so apt removes the one to install the
# other; dpkg alone refuses.
say "Debian's retry against retry-backoff (Conflicts: retry)"
inroot install '
	apt-get -s install retry >/tmp/sim
	grep -x "Remv retry-backoff.*" /tmp/sim
	apt-get -qq -y install retry >/dev/null
	[ "$(dpkg-query -S /usr/bin/retry)" = "retry: /usr/bin/retry" ]
	! dpkg-query -W retry-backoff 2>/dev/null | grep -q .
	if dpkg -i /root/'"$deb"' >/tmp/dpkg.out 2>&1; then
		echo "dpkg -i installed retry-backoff over retry" >&2; exit 1
	fi
	grep "conflicting packages - not installing retry-backoff" /tmp/dpkg.out
	apt-get -qq -y install ./root/'"$deb"' >/dev/null
	[ "$(dpkg-query -S /usr/bin/retry)" = "retry-backoff: /usr/bin/retry" ]
	dpkg -s retry 2>/dev/null | grep -qx "Status: install ok installed" &&
	    { echo "retry is still installed" >&2; exit 1; }
	dpkg --audit
	apt-get -s check >/dev/null' ||
    die "Debian's retry and retry-backoff do not replace each other cleanly"
say "built and lintian ${t_build} s, installed and tested" \
    "$((SECONDS - t0)) s, in all $((SECONDS - start)) s; passed"
