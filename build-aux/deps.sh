#!/bin/sh
# Installs the Debian packages that the README's set-up commands and CI
# need, with apt-get: as root, through sudo otherwise.  `make` itself never
# runs this: only `make demo` (deps.sh build), `make check` (deps.sh check)
# and .ci/run (deps.sh packages FILE...).
#
# usage: deps.sh build             libbsd-dev, pkg-config, libhiredis-dev,
#                                  libssl-dev, libwolfssl-dev
#        deps.sh lacks             after a build: what ./retry lacks
#        deps.sh check             those, and build-aux/packages-check.txt
#        deps.sh packages FILE...  every package named in the FILEs (a
#                                  name with :ARCH adds that dpkg
#                                  architecture first)
#
# Packages already installed are left alone; nothing at all happens when
# none is missing.  Where apt-get cannot run (not root and no sudo, not
# Debian), one line names the missing packages; the script then fails if
# the build or the test runner needs them, while for the other test tools
# it goes on: the tests that need them are skipped (they fail under
# CI=true, see require_tool in tests/helpers/common.bash).
set -u
cd "$(dirname "$0")/.." || exit 2

mode=${1:-build}
[ $# -gt 0 ] && shift

# What building needs: the BSD interfaces, from the C library or libbsd.
build_ok() {
	sh build-aux/libbsd.sh check "${CC:-cc}" >/dev/null 2>&1
}

# What `make check` cannot run without.
check_ok() {
	build_ok && command -v bats >/dev/null 2>&1 &&
	    parallel --version 2>/dev/null | grep -q GNU
}

# The package names in the FILEs, less the comments.
listed() {
	sed 's/#.*//' "$@"
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

case $mode in
build)
	# hiredis and OpenSSL's headers too: a build without them refuses
	# --budget=redis://... and rediss://...; and wolfSSL's, the lighter
	# of rediss://'s libraries, which make check's tests expect.
	want="libbsd-dev pkg-config libhiredis-dev libssl-dev libwolfssl-dev"
	build_ok && want="libhiredis-dev libssl-dev libwolfssl-dev"
	;;
check)
	want="libbsd-dev pkg-config $(listed build-aux/packages-check.txt)"
	build_ok && want=$(listed build-aux/packages-check.txt)
	;;
lacks)
	# After make demo: what this ./retry was built without, said once
	# at the end rather than found out on the first redis:// run.
	probe() {
		./retry -n 1 --budget="$1://127.0.0.1:1/x" -- true 2>&1 |
		    grep -q "built without $2"
	}
	probe redis Redis && echo "retry: note: this build has no Redis" \
	    "stores (redis://, unix://): install libhiredis-dev, then" \
	    "rm retry && make" >&2
	probe rediss TLS && echo "retry: note: this build has no TLS" \
	    "(rediss://): install libssl-dev, then rm retry && make" >&2
	exit 0
	;;
packages)
	[ $# -gt 0 ] || { echo "usage: $0 packages FILE..." >&2; exit 2; }
	want=$(listed "$@") || exit 2
	;;
*)
	echo "usage: $0 build | check | packages FILE..." >&2
	exit 2
	;;
esac

need=""
if command -v dpkg-query >/dev/null 2>&1; then
	for pkg in $want; do
		installed "$pkg" || need="$need $pkg"
	done
elif [ "$mode" = check ]; then
	check_ok && exit 0
	need=" $want"
elif [ "$mode" = build ]; then
	need=" $want"
fi
[ -z "$need" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	run=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	run="sudo"
else
	run="none"
fi
apt_install() {
	$run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends "$@" >/dev/null
}
done_ok=false
if [ "$run" != none ] && command -v apt-get >/dev/null 2>&1; then
	echo "retry: installing$need" >&2
	for pkg in $need; do
		case $pkg in
		*:*)
			arch=${pkg#*:}
			dpkg --print-foreign-architectures | grep -qx "$arch" ||
			    $run dpkg --add-architecture "$arch" || exit 1
			;;
		esac
	done
	# An index that fails to download (a mirror in the middle of a
	# sync) fails the update but may not matter: the install says.
	$run env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
	    >/dev/null ||
	    $run env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
	    >/dev/null ||
	    echo "retry: apt-get update failed; installing all the same" >&2
	# shellcheck disable=SC2086 # package names are words
	apt_install $need && done_ok=true
	# A held dpkg lock (another apt-get, unattended-upgrades) fails it.
	$done_ok || echo "retry: apt-get could not install$need (is" \
	    "another apt-get or dpkg running?)" >&2
	# One package that this release lacks must not keep the others
	# out: each alone, then, and the rest is said below.
	if ! $done_ok && [ "$mode" = check ]; then
		left=""
		for pkg in $need; do
			apt_install "$pkg" 2>/dev/null || left="$left $pkg"
		done
		need=$left
		[ -n "$left" ] || done_ok=true
	fi
fi
# A retry built before the install lacks what the build now finds
# (hiredis, OpenSSL's or wolfSSL's headers): make builds it again.
[ "$run" != none ] && [ "$mode" != packages ] && rm -f retry
$done_ok && exit 0

case $mode in
build)
	if build_ok; then
		echo "retry: building without$need: make demo says at the" \
		    "end what the build lacks" >&2
		exit 0
	fi
	;;
check)
	if check_ok; then
		echo "retry: could not install$need: the tests that need" \
		    "them will be skipped" >&2
		exit 0
	fi
	;;
esac
echo "retry: please install these packages:$need" >&2
exit 1
