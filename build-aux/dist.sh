#!/bin/sh
# make dist: the source tarball of the commit checked out,
# build/release/retry-backoff-VERSION.tar.gz (VERSION is RETRY_VERSION
# in src/os/defs.h), holding the tracked files under
# retry-backoff-VERSION/.  It builds with `make` where there is no git:
# the one generated file, src/guard/guard-lua.h, is made by make from
# src/guard/guard.lua.
#
# Made twice from the same commit, it is the same bytes: the files come
# from the commit (git archive), not from the work tree; GNU tar writes
# them sorted by name, with the commit's time as every mtime
# (SOURCE_DATE_EPOCH), owner and group 0 without names, and modes
# 644 or 755 whatever the umask; gzip -n leaves out the name and time.
#
# usage: build-aux/dist.sh [OUTDIR]   (default build/release)
set -eu
cd "$(dirname "$0")/.."

out=${1:-build/release}
if ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1
then
	echo "make dist: needs git and a clone (the tarball is made from" \
	    "the commit checked out)" >&2
	exit 1
fi
version=$(sed -n 's/^#define RETRY_VERSION[	 ]*"\(.*\)"$/\1/p' \
    src/os/defs.h)
[ -n "$version" ] || { echo "make dist: no RETRY_VERSION" >&2; exit 1; }
name=retry-backoff-$version
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
export SOURCE_DATE_EPOCH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/retry-dist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM
mkdir "$tmp/$name"
git archive --format=tar HEAD | tar -x -C "$tmp/$name" -f -

mkdir -p "$out"
tar -c -C "$tmp" --format=gnu --sort=name \
    --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    --mode='u=rwX,go=rX' "$name" | gzip -n -9 >"$out/$name.tar.gz.tmp"
mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
echo "$out/$name.tar.gz"
