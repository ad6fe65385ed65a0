#!/bin/sh
# CI: the portable configuration (make PORTABLE=1: only what Linux, macOS
# and the BSDs all have) built with -Werror and checked with the whole
# suite on Linux.  The tests of what only the Linux build does skip
# themselves under BUILD_PORTABLE=1 (require_linux_capability in
# tests/helpers/common.bash); INSTALL.md, "Platforms", lists them.
# ./retry is the portable build afterwards: tests that run `make install`
# install the program being tested.
set -eu
cd "$(dirname "$0")/.."

make clean
make PORTABLE=1 CFLAGS="-g -Werror" retry
make test-helpers
mkdir -p build/portable
cp retry build/portable/retry
BUILD_PORTABLE=1 RETRY="$PWD/build/portable/retry" \
    ${BATS:-bats} --jobs 2 tests
