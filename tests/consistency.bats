#!/usr/bin/env bats
# One source of truth: `retry --help` lists the options, and the parser, the
# man page and the bash, zsh and fish completions offer exactly those; the
# man page's SYNOPSIS is the usage line; --help fits 80 columns, groups the
# options and shows each default.

load helpers/common
load helpers/compl-common

setup_file() {
	make_zsh_dump
}

setup() {
	common_setup
	MAN=$ROOT/man/retry.1
}

# The help text, checked once: exit 0, nothing on stderr.
help_text() {
	run -0 --separate-stderr "$RETRY" --help
	[ "$stderr" = "" ]
	HELP=$output
}

# The option heads of --help, "-n, --attempts=N" or "--splay=DURATION",
# one a line.
help_heads() {
	sed -nE 's/^ {2,6}((-[A-Za-z], )?--[a-z-]+(=[A-Z]+)?)( .*)?$/\1/p' \
	    <<<"$HELP"
}

# The options of --help, one a line: -n, --attempts and so on.
help_options() {
	help_heads | sed -E 's/, /\n/; s/=[A-Z]+//g' | LC_ALL=C sort -u
}

# The options that the man page describes: every Fl in an .It line.
man_options() {
	sed -n 's/^\.It Fl //p' "$MAN" | sed 's/\\-/-/g' |
	    awk '{ for (i = 1; i <= NF; i++)
		if ($i == "Fl" || i == 1) {
			w = (i == 1) ? $1 : $(i + 1)
			sub(/=.*/, "", w)
			print "-" w
		} }' | LC_ALL=C sort -u
}

# The man page as mandoc renders it, without the overstrike.
man_text() {
	mandoc -Tascii "$MAN" | col -b
}

@test "--help lists options, and retry's parser takes each one with the pairing shown" {
	local head short long value bad
	help_text
	[ "$(help_heads | wc -l)" -ge 20 ]
	while IFS= read -r head; do
		short='' value=''
		if [[ $head =~ ^(-[A-Za-z]),\ (--[a-z-]+)(=[A-Z]+)?$ ]]; then
			short=${BASH_REMATCH[1]}
			long=${BASH_REMATCH[2]}
			value=${BASH_REMATCH[3]}
		elif [[ $head =~ ^(--[a-z-]+)(=[A-Z]+)?$ ]]; then
			long=${BASH_REMATCH[1]}
			value=${BASH_REMATCH[2]}
		else
			echo "not an option head: '$head'" >&2
			return 1
		fi
		case $long in
		--help | --version) continue ;;
		--log-file | --http | --json-log | --failed-output | \
		    --failed-stderr | --metrics-file)
			continue ;;	# any name is a path
		--on-retry | --on-give-up) continue ;;	# any shell command
		esac
		# An ERE is bad when it does not compile.
		bad=@@
		[[ $value == =ERE ]] && bad='('
		if [[ -n $value ]]; then
			# A bad value is reported under the long name, also when
			# it came with the short one.
			for opt in "$long=$bad" ${short:+"$short$bad"}; do
				run -125 --separate-stderr "$RETRY" --dry-run "$opt"
				[[ $stderr == "retry: invalid $long '$bad': "* ]] ||
				    { echo "$opt: $stderr" >&2; return 1; }
			done
		else
			for opt in "$long" $short; do
				run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
				    "$opt"
				[ "$stderr" = "" ]
			done
		fi
	done < <(help_heads)
	run -0 --separate-stderr "$RETRY" --version
	[ "$stderr" = "" ]
	[[ $output == "retry "[0-9]* ]]
}

@test "--help fits 80 columns" {
	local line
	help_text
	while IFS= read -r line; do
		if ((${#line} > 80)) || [[ $line == *$'\t'* ]]; then
			echo "too wide: '$line'" >&2
			return 1
		fi
	done <<<"$HELP"
}

@test "--help: the defaults in brackets end in one column (issue 38)" {
	local line
	help_text
	while IFS= read -r line; do
		if [[ $line =~ \ \ \[[^]]*\]$ ]] && ((${#line} != 79)); then
			echo "default not in column 79: '$line'" >&2
			return 1
		fi
	done <<<"$HELP"
}

@test "--help groups the options under headings" {
	local line group='' groups=0 in_group=0
	help_text
	while IFS= read -r line; do
		if [[ $line =~ ^[A-Z][^:]*:$ || $line =~ ^[A-Z].*\):$ ]]; then
			((groups += 1))
			group=$line
			in_group=0
		elif [[ $line =~ ^\ {2,6}- ]]; then
			[ -n "$group" ] || { echo "no group: $line" >&2; return 1; }
			in_group=$((in_group + 1))
		elif [[ -z $line && -n $group && $in_group -eq 0 ]]; then
			echo "empty group: $group" >&2
			return 1
		fi
	done <<<"$HELP"
	[ "$groups" -ge 4 ]
}

@test "--help shows the default of each option that takes a value" {
	local line entry='' head=''
	help_text
	# An entry is an option line and the deeper indented lines under it.
	check_entry() {
		[[ $head != *=* || $entry == *\[*\]* ]] && return 0
		echo "no [default] for $head" >&2
		return 1
	}
	while IFS= read -r line; do
		if [[ $line =~ ^\ {2,6}(-[A-Za-z],\ )?(--[a-z-]+(=[A-Z]+)?) ]]
		then
			check_entry
			head=${BASH_REMATCH[2]}
			entry=$line
		elif [[ -n $head && $line =~ ^\ {7,} ]]; then
			entry+=$line
		else
			check_entry
			head='' entry=''
		fi
	done <<<"$HELP"
	check_entry
}

@test "the man page describes exactly the options of --help" {
	[ -f "$MAN" ] || { echo "no man page at $MAN" >&2; return 1; }
	help_text
	run -0 --separate-stderr diff -u <(help_options) <(man_options)
	[ "$stderr" = "" ]
}

@test "the man page shows each option as --help does" {
	require_tool mandoc
	require_tool col
	local head
	[ -f "$MAN" ]
	help_text
	run -0 --separate-stderr man_text
	[ "$stderr" = "" ]
	while IFS= read -r head; do
		grep -qxF "     $head" <<<"$output" ||
		    { echo "not in the man page: $head" >&2; return 1; }
	done < <(help_heads)
}

@test "the man page SYNOPSIS is the usage line" {
	require_tool mandoc
	require_tool col
	local usage synopsis
	[ -f "$MAN" ]
	help_text
	usage=$(sed -n '/^usage: /,/^$/p' <<<"$HELP" | sed -E 's/^(usage:)? +//;
	    /^$/d')
	run -0 --separate-stderr man_text
	[ "$stderr" = "" ]
	# Lines that do not start with the name continue the one above.
	synopsis=$(sed -n '/^SYNOPSIS$/,/^[A-Z]/p' <<<"$output" | sed '1d;$d' |
	    sed -E 's/^ +//; /^$/d' |
	    awk '/^retry( |$)/ { if (l != "") print l; l = $0; next }
		{ l = l " " $0 } END { if (l != "") print l }')
	[ -n "$usage" ]
	[ "$synopsis" = "$usage" ] ||
	    { diff -u <(echo "$usage") <(echo "$synopsis") >&2; return 1; }
}

@test "the man page passes mandoc -Tlint" {
	require_tool mandoc
	[ -f "$MAN" ]
	run -0 --separate-stderr mandoc -Tlint -W warning "$MAN"
	[ "$stderr" = "" ]
	[ "$output" = "" ]
}

check_completion_options() {
	local sh=$1 got
	require_completion "$sh"
	help_text
	# What the shell offers after "retry -" and "retry --", as --help
	# spells the options.
	complete_in "$sh" 'retry -'
	got=$(offered)
	complete_in "$sh" 'retry --'
	got=$(printf '%s\n%s\n' "$got" "$(offered)" | sed 's/=$//' |
	    LC_ALL=C sort -u)
	run -0 --separate-stderr diff -u <(help_options) <(echo "$got")
	[ "$stderr" = "" ]
}

@test "bash completes exactly the options of --help" {
	check_completion_options bash
	# and ends with = those that take a value, as --help shows them.
	local want
	want=$(help_heads | grep -oE -- '--[a-z-]+=' | LC_ALL=C sort)
	complete_in bash 'retry --'
	[ "$(offered | grep '=$')" = "$want" ]
}

@test "zsh completes exactly the options of --help" {
	check_completion_options zsh
}

@test "fish completes exactly the options of --help" {
	check_completion_options fish
}

# The summary reasons of the JSON log's section, one a line: each .Ql
# between ".It Li summary" and the next .It or .El.
man_summary_reasons() {
	sed -n '/^\.It Li summary$/,/^\.El$/p' "$MAN" |
	    sed -n 's/^\.Ql \(.*\)$/\1/p' | sed 's/ *[,.;]$//; s/\\-/-/g'
}

@test "the man page lists every fixed summary reason of the JSON log" {
	local log=$BATS_TEST_TMPDIR/log reason want=(
		"success" "not retried" "no attempts left" "the first failure"
		"all attempts succeeded")
	: >"$log"
	run -0 "$RETRY" --json-log="$log" -- true
	run -1 "$RETRY" --json-log="$log" -x 1 -- false
	run -1 "$RETRY" --json-log="$log" -n 1 -- false
	run -1 "$RETRY" --json-log="$log" --until-failure -n 2 -- false
	run -0 "$RETRY" --json-log="$log" --until-failure -n 2 -b 0 -- true
	run -0 sed -n 's/.*"event":"summary".*"reason":"\([^"]*\)".*/\1/p' \
	    "$log"
	[ "$output" = "$(printf '%s\n' "${want[@]}")" ]
	run -0 man_summary_reasons
	for reason in "${want[@]}"; do
		grep -qxF -- "$reason" <<<"$output" ||
		    { echo "missing from the man page: $reason" >&2; return 1; }
	done
}
