#!/usr/bin/env bash
# CI: what a release is made of, checked in one step.  make dist twice
# gives the same bytes; the tarball builds with make outside git; make
# release builds the static musl binaries and SHA256SUMS, which
# sha256sum -c checks; the x86_64 binary passes the core suites natively
# and the empty-root checks (ci-static.sh), the aarch64 one the core
# suites under qemu-user (ci-arm64.sh); rpmbuild -bb builds the RPM from
# the tarball, its %check running the core suites; the GitHub Action
# runs as a runner would (ci-action.sh); the Homebrew formula passes
# ruby -c.  The Alpine and Nix recipes are not checked: there is no
# abuild and no Nix here.  Runs as root, from the top of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "ci-release: $*" >&2
	exit 1
}
version=$(sed -n 's/^#define RETRY_VERSION[	 ]*"\(.*\)"$/\1/p' src/os/defs.h)
tarball=retry-backoff-$version.tar.gz

echo "--- make dist, twice: the same bytes"
rm -rf build/release
make --no-print-directory dist >/dev/null
cp "build/release/$tarball" "$tmp/first.tar.gz"
make --no-print-directory dist >/dev/null
cmp "$tmp/first.tar.gz" "build/release/$tarball" ||
    fail "make dist made different bytes from the same commit"

echo "--- the tarball builds with make, outside git"
mkdir "$tmp/unpacked"
tar -xzf "build/release/$tarball" -C "$tmp/unpacked"
(cd "$tmp/unpacked/retry-backoff-$version" &&
    GIT_CEILING_DIRECTORIES=$tmp make -s >/dev/null &&
    [[ $(./retry --version) == "retry $version "* ]]) ||
    fail "the tarball does not build outside git"

echo "--- make release: the musl binaries and SHA256SUMS"
export ZIG_GLOBAL_CACHE_DIR=$tmp/zig-cache ZIG_LOCAL_CACHE_DIR=$tmp/zig-cache
zig=$(build-aux/zig.sh "$tmp/zig")
make --no-print-directory release ZIG="$zig" >/dev/null
(cd build/release && sha256sum -c SHA256SUMS)
x86=build/release/retry-$version-x86_64-linux-musl
arm=build/release/retry-$version-aarch64-linux-musl
for b in "$x86" "$arm"; do
	file "$b" | grep -q 'statically linked, stripped' ||
	    fail "$b is not static and stripped: $(file "$b")"
done
ls -l "$x86" "$arm"

echo "--- x86_64 musl: the core suites, the empty root"
rm -rf build/musl
mkdir -p build/musl
cp "$x86" build/musl/retry
make --no-print-directory tests/helpers/wstatus >/dev/null
RETRY_LIBC=musl RETRY=$PWD/build/musl/retry make --no-print-directory -o retry \
    -o tests/helpers/wstatus check-core
build-aux/ci-static.sh build/musl/retry

echo "--- aarch64 musl: the core suites under qemu-user"
build-aux/ci-arm64.sh "$arm"

echo "--- rpmbuild -bb from the tarball"
mkdir -p "$tmp/rpm/SOURCES"
cp "build/release/$tarball" "$tmp/rpm/SOURCES/"
# --nodeps: Debian's rpm database knows none of the BuildRequires.
rpmbuild -bb --nodeps --define "_topdir $tmp/rpm" \
    packaging/rpm/retry-backoff.spec >"$tmp/rpm.log" 2>&1 ||
    { tail -n 40 "$tmp/rpm.log" >&2; fail "rpmbuild failed"; }
grep -q '^ok ' "$tmp/rpm.log" || fail "the RPM's %check ran no test"
rpm=$(find "$tmp/rpm/RPMS" -name "retry-backoff-$version-*.rpm")
# The list in a file: a grep -q that stops reading would leave rpm to
# die of SIGPIPE, which pipefail takes for a failure.
rpm -qlp "$rpm" >"$tmp/files"
grep -qx /usr/bin/retry "$tmp/files" || fail "$rpm has no /usr/bin/retry"
for f in /usr/share/man/man1/retry.1 \
    /usr/share/bash-completion/completions/retry \
    /usr/share/zsh/site-functions/_retry \
    /usr/share/fish/vendor_completions.d/retry.fish; do
	grep -q "^$f" "$tmp/files" || fail "$rpm has no $f"
done
echo "$(basename "$rpm"): $(stat -c %s "$rpm") bytes"

echo "--- the GitHub Action, run as a runner runs it"
build-aux/ci-action.sh

echo "--- the Homebrew formula's syntax"
ruby -c packaging/homebrew/retry-backoff.rb
echo "ci-release: all checks passed"
