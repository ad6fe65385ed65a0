#!/bin/sh
# make analyze: the parts that need more than one command line.
#
# usage: analyze.sh shellcheck   shellcheck on every shell script
#        analyze.sh scripts      list those scripts, one per line
#        analyze.sh tidy FILE... -- COMPILER-FLAGS...
#                                clang-tidy (.clang-tidy) on each FILE
#
# The scripts are found afresh each run, so that new ones are covered
# without a list to keep: every file that git tracks or would track (or,
# outside a git work tree, every file) named *.sh, *.bash or *.bats, or
# whose first line starts a POSIX shell, bash or bats, wherever it is.
# zsh and fish completions are not shell scripts to shellcheck.
set -u
cd "$(dirname "$0")/.." || exit 2

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -path ./build -prune -o -path ./.git -prune -o \
		    -type f -print | sed 's|^\./||'
	fi
}

scripts() {
	files | sort -u | while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in
		build/* | fuzz/out/*) continue ;;
		*.sh | *.bash | *.bats)
			echo "$f"
			continue
			;;
		esac
		head -n 1 "$f" 2>/dev/null |
		    grep -Eq '^#! */[^ ]*/(env +)?(sh|bash|dash|bats)( |$)' &&
		    echo "$f"
	done
}

# clang-tidy runs once per file: clang-tidy 14 reports a false
# uninitialized va_list (log.c) when several files share one process.
# Its count of the warnings it hid in system headers is left out.
tidy() {
	files=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		files="$files $1"
		shift
	done
	[ $# -gt 0 ] && shift
	status=0
	for f in $files; do
		echo "clang-tidy $f"
		out=$(clang-tidy --quiet "$f" -- "$@" 2>&1) || status=1
		[ -z "$out" ] || printf '%s\n' "$out" |
		    grep -Ev '^[0-9]+ warnings? generated\.$'
	done
	return "$status"
}

case ${1:-shellcheck} in
tidy)
	shift
	tidy "$@"
	;;
scripts)
	scripts
	;;
shellcheck)
	list=$(scripts)
	if [ -z "$list" ]; then
		echo "analyze: no shell script found" >&2
		exit 1
	fi
	echo "shellcheck: $(echo "$list" | wc -l) scripts"
	# Off everywhere, on purpose:
	#  SC2016  sh -c 'script' sh "$arg" passes values as arguments, and
	#          its single quotes are meant
	#  SC2002  cat FILE | cmd gives cmd a pipe, not a file, which the
	#          spool tests need
	# Off in .bats files only, where shellcheck cannot see the variables
	# that bats sets ($stderr, $stderr_lines...) nor those that a helper
	# loaded with `load` reads (SC2154: unassigned, SC2034: unused).
	status=0
	# shellcheck disable=SC2046,SC2086 # names without blanks: scripts()
	shellcheck -x -e SC2016,SC2002 $(echo "$list" | grep -v '\.bats$') ||
	    status=1
	bats=$(echo "$list" | grep '\.bats$')
	# shellcheck disable=SC2086
	if [ -n "$bats" ]; then
		shellcheck -x -e SC2016,SC2002,SC2154,SC2034 $bats || status=1
	fi
	exit "$status"
	;;
*)
	echo "usage: $0 [shellcheck|scripts]" >&2
	exit 2
	;;
esac
