#!/usr/bin/env bash
# CI: retry compiled and linked for macOS, x86_64 and arm64, with -Werror
# and the flags of `make PORTABLE=1` (make cross-macos, mk/cross.mk).  Not
# run: there is no Mac here.
#
# The compiler is Zig 0.11.0, whose `zig cc` carries the headers and
# libSystem stubs of the macOS 11, 12 and 13 SDKs, pinned and installed
# from the npm registry by build-aux/zig.sh, in a temporary directory,
# never into the tree.  Run from the top of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zig=$(build-aux/zig.sh "$tmp")

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
