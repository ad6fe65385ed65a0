#!/bin/sh
# Installs what building (deps.sh build) or testing (deps.sh check) needs
# on Debian or Ubuntu: apt-get as root, sudo otherwise; where neither
# works, one line names the packages and the script fails.
set -u

need=""
pkg-config --exists libbsd-overlay 2>/dev/null || need="$need libbsd-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
if [ "${1:-build}" = check ]; then
	command -v bats >/dev/null 2>&1 || need="$need bats"
fi
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
