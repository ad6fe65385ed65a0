#!/usr/bin/env bash
# CI: retry for arm64.  Runs the core suites (CORE_TESTS in Makefile)
# under qemu-user against the aarch64 musl binary of `make release`
# (mk/release.mk: zig cc -target aarch64-linux-musl, static, without
# hiredis), copied to build/arm64/retry so that its messages name it
# retry.  build-aux/ci-release.sh runs this after make release.
#
# binfmt_misc is not assumed (the CI VM has no aarch64 entry), so RETRY
# is a small wrapper that execs qemu-aarch64-static: the same process,
# so signals and wait statuses reach the tests as from a native retry
# (qemu-user forwards signals, and dies by the signal its guest dies
# by).  It is a C program, not a script: a shell would add PWD to the
# environment that retry passes on.  The tests that qemu-user cannot
# emulate skip themselves (qemu_cannot in tests/helpers/common.bash,
# listed in INSTALL.md).  Run from the top of the tree.
#
# usage: build-aux/ci-arm64.sh BINARY
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $# -eq 1 && -x $1 ]] ||
    { echo "usage: $0 BINARY (an aarch64 retry: make release)" >&2; exit 2; }
rm -rf build/arm64
mkdir -p build/arm64
cp "$1" build/arm64/retry
# The ELF machine: 0xb7 is AArch64.
[[ $(od -An -tx2 -j18 -N2 build/arm64/retry) == " 00b7" ]] ||
    { echo "ci-arm64: $1 is not an arm64 program" >&2; exit 1; }

qemu=$(command -v qemu-aarch64-static)
cat >build/arm64/retry-qemu.c <<EOC
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	char *args[argc + 2];

	args[0] = "$qemu";
	args[1] = "$PWD/build/arm64/retry";
	for (int i = 1; i <= argc; i++)
		args[i + 1] = argv[i];
	execv(args[0], args);
	perror(args[0]);
	return 127;
}
EOC
cc -std=c11 -O2 -Wall -Werror -o build/arm64/retry-qemu \
    build/arm64/retry-qemu.c
build/arm64/retry-qemu --version

make tests/helpers/wstatus
# qemu is slower: a test that runs retry 256 times needs more than the
# default 30 s.
BATS_TEST_TIMEOUT=120 RETRY_UNDER_QEMU=1 RETRY_LIBC=musl RETRY=$PWD/build/arm64/retry-qemu \
    make -o retry -o tests/helpers/wstatus check-core
