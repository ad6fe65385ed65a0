#!/bin/sh
# Holds the code to the map in HACKING.md: every folder of src/ has a
# row there and a README that names the same folders under "May use:";
# a file includes only headers of its own folder (by the bare name) and
# of the folders its row names, all of them further down the table, so
# that calls run one way; a folder whose README says "Seen through: H"
# is included from outside through H alone; no .c or .h file is over
# 650 lines and no function over 60.  A folder's files, a test, fuzz or
# bench folder inside it included, count as the folder's.  Prints each
# breach, and exits 1 if there is one.
#
# usage: build-aux/check-layout.sh   (from anywhere in the tree)
set -u
cd "$(dirname "$0")/.." || exit 2

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
bad=0
# words LIST: its words, one a line, sorted.
words() {
	printf '%s\n' "$1" | tr -s ' ' '\n' | sed '/^$/d' | sort
}
breach() {
	printf 'check-layout: %s\n' "$*" >&2
	bad=1
}

# The map's rows, top down: "folder may-use...", in the table's order.
# shellcheck disable=SC2016 # the backquotes are the table's, not sh's
sed -n 's/^| `src\/\([a-z]*\)\/` |.*| \([^|]*\) |$/\1 \2/p' HACKING.md |
    sed 's/,//g; s/(nothing)//' >"$tmp/map"
[ -s "$tmp/map" ] || { breach "HACKING.md has no map of src/"; exit 1; }

# Every folder has a row, and its README says the same under "May use:".
for dir in src/*/; do
	d=$(basename "$dir")
	row=$(awk -v d="$d" '$1 == d { $1 = ""; print }' "$tmp/map")
	grep -q "^$d " "$tmp/map" ||
	    { breach "src/$d/ has no row in HACKING.md's map"; continue; }
	[ -f "$dir/README" ] || { breach "src/$d/ has no README"; continue; }
	said=$(sed -n 's/^May use: *//p' "$dir/README" | sed 's/nothing//')
	[ "$(words "$said")" = "$(words "$row")" ] ||
	    breach "src/$d/README may use '$said', HACKING.md '$row'"
	# What a row names lies below it.
	for u in $row; do
		awk -v d="$d" -v u="$u" '$1 == d { a = NR } $1 == u { b = NR }
		    END { exit !(a && b && b > a) }' "$tmp/map" ||
		    breach "src/$d/ may use $u/, which is not below it in the map"
	done
done

# Every include between src/'s files, as "file header-path" pairs.
find src -name '*.[ch]' | sort | while read -r f; do
	sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" |
	    while read -r h; do printf '%s %s\n' "$f" "$h"; done
done >"$tmp/inc"

while read -r f h; do
	d=$(printf '%s\n' "$f" | sed -n 's|^src/\([^/]*\)/.*|\1|p')
	case $h in
	*/*)	u=${h%%/*}
		if [ -z "$d" ]; then
			:	# retry.c, at the top, may use every folder
		elif [ "$u" != "$d" ] && ! awk -v d="$d" -v u="$u" \
		    '$1 == d { for (i = 2; i <= NF; i++) if ($i == u) ok = 1 }
		    END { exit !ok }' "$tmp/map"; then
			breach "$f includes $h: $d/ may not use $u/"
		fi
		[ -f "src/$h" ] || grep -q "^src/$h:" Makefile ||
		    breach "$f includes $h, which is not in src/" ;;
	*)	[ -f "$(dirname "$f")/$h" ] ||
		    grep -q "^$(dirname "$f")/$h:" Makefile ||
		    breach "$f includes $h, which is not in its folder" ;;
	esac
done <"$tmp/inc"

# A folder seen through one header: from outside, only that one.
for r in src/*/README; do
	face=$(sed -n 's/^Seen through: *//p' "$r")
	[ -n "$face" ] || continue
	d=$(basename "$(dirname "$r")")
	git ls-files '*.c' '*.h' 2>/dev/null | grep -v "^src/$d/" |
	    xargs grep -Hn "^#[ 	]*include[ 	]*\"$d/" 2>/dev/null |
	    grep -v "\"$d/$face\"" | while IFS= read -r line; do
		echo "$line"
	done >"$tmp/face"
	[ -s "$tmp/face" ] && breach "$d/ is seen through $face alone:" \
	    "$(cat "$tmp/face")"
done

# Sizes.  guard-lua.h is generated from guard.lua.
find src -name '*.[ch]' ! -name '*-lua.h' -exec wc -l {} + |
    awk '$2 != "total" && $1 > 650 { print $2 " has " $1 " lines" }' \
    >"$tmp/big"
while IFS= read -r line; do breach "$line (at most 650)"; done <"$tmp/big"
find src -name '*.c' | sort | while read -r f; do
	awk -v F="$f" '/^[a-z_][a-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name)
	    on = 1; n = 0 } on { n++ }
	    on && /^}/ { if (n > 60) print F ": " name "() has " n " lines"
	    on = 0 }' "$f"
done >"$tmp/long"
while IFS= read -r line; do breach "$line (at most 60)"; done <"$tmp/long"

[ $bad -eq 0 ] && echo "check-layout: the map, the one-way rule and the sizes hold"
exit $bad
