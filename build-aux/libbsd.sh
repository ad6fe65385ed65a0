#!/bin/sh
# The flags for the BSD interfaces that retry uses (strtonum, getprogname,
# strlcat, arc4random_buf), for the Makefile.
#
# usage: libbsd.sh check  CC [FLAG...]   fails, with a one-line hint on
#                                        stderr, where they are missing
#        libbsd.sh cflags CC [FLAG...]   the compiler flags
#        libbsd.sh libs   CC [FLAG...]   the linker flags
# CC [FLAG...] is the compiler command with CFLAGS and LDFLAGS, as the
# Makefile runs it ("gcc -m32 -O2", say).  The environment gives
# PKG_CONFIG (default pkg-config), STATIC_BSD (default 1) and BSD_COMPAT
# (default 0).
#
# Where the C library has them (the BSDs, macOS) no flag is needed: a
# test program that calls them is compiled and linked with CC alone.
# Elsewhere (glibc, musl) they come from libbsd, through
# `pkg-config libbsd-overlay`.  With STATIC_BSD=1, libbsd (and libmd
# under it) is linked statically, which makes every start of retry
# cheaper (bench/results.md), if the linker takes -Bstatic and the static
# libraries are installed: a test link decides, and without them the
# shared libraries are used.  With BSD_COMPAT=1 they come from retry's
# own src/os/compat.c instead, where the C library lacks them (musl, which
# Debian builds no libbsd for): its header goes before every file, and
# RETRY_COMPAT compiles compat.c.  Nothing here installs anything.
set -u

case ${1-}:$# in
check:* | cflags:* | libs:*) [ $# -ge 2 ] ;;
*) false ;;
esac || {
	echo "usage: $0 check|cflags|libs CC [FLAG...]" >&2
	exit 2
}
mode=$1
shift
pc=${PKG_CONFIG:-pkg-config}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retry-libbsd.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM

cat >"$tmp/t.c" <<'EOF'
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char buf[64] = "";
	unsigned char r[1];
	const char *err = NULL;

	arc4random_buf(r, sizeof(r));
	strlcat(buf, getprogname(), sizeof(buf));
	return (int)strtonum("0", 0, 1, &err) + (err != NULL) + (r[0] > 255);
}
EOF

# links CFLAGS LIBS: the test program compiles and links with CC (the
# script's arguments) and these flags.
links() {
	# shellcheck disable=SC2086 # flags are words
	$cc -Werror=implicit-function-declaration $1 -o "$tmp/t" "$tmp/t.c" \
	    $2 >/dev/null 2>&1
}
cc=$*

# The C library has them all: no flag.
links "" "" && exit 0

if [ "${BSD_COMPAT:-0}" != 0 ]; then
	case $mode in
	cflags) echo "-DRETRY_COMPAT -include os/compat.h" ;;
	esac
	exit 0
fi

if ! cflags=$("$pc" --cflags libbsd-overlay 2>/dev/null) ||
    ! libs=$("$pc" --libs libbsd-overlay 2>/dev/null); then
	echo "retry: libbsd is missing: install libbsd-dev and pkg-config" \
	    "(or run 'make demo' or 'make check', which install them" \
	    "with apt-get)" >&2
	exit 1
fi

if [ "${STATIC_BSD:-1}" != 0 ]; then
	static="$("$pc" --libs-only-L libbsd-overlay) -Wl,-Bstatic"
	static="$static $("$pc" --static --libs-only-l libbsd-overlay)"
	static="$static -Wl,-Bdynamic"
	links "$cflags" "$static" && libs=$static
fi

case $mode in
check)
	links "$cflags" "$libs" || {
		echo "retry: cannot link with libbsd: $cc $cflags $libs" >&2
		exit 1
	}
	;;
cflags) echo "$cflags" ;;
libs) echo "$libs" ;;
esac
