#!/bin/sh
# Installs what building (deps.sh build), testing (deps.sh check) or a CI
# gate (deps.sh packages FILE...) needs on Debian or Ubuntu: apt-get as root, sudo otherwise; where neither
# works, one line names the packages and the script fails.
set -u

need=""
pkg-config --exists libbsd-overlay 2>/dev/null || need="$need libbsd-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
case "${1:-build}" in
check)
	command -v bats >/dev/null 2>&1 || need="$need bats"
	# bats --jobs runs the suites side by side with GNU parallel.
	parallel --version 2>/dev/null | grep -q GNU || need="$need parallel"
	;;
packages)
	# deps.sh packages FILE...: every package named in the files.
	shift
	pkgs=$(sed 's/#.*//' "$@" 2>/dev/null)
	for pkg in $pkgs; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
		    grep -q 'ok installed' || need="$need $pkg"
	done
	;;
esac
[ -z "$need" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	run=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	run="sudo"
else
	run="none"
fi
if [ "$run" != none ] && command -v apt-get >/dev/null 2>&1; then
	echo "retry: installing$need" >&2
	# shellcheck disable=SC2086
	$run env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null &&
	    $run env DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq --no-install-recommends $need >/dev/null &&
	    exit 0
fi
echo "retry: please install these packages:$need" >&2
exit 1
