#!/usr/bin/env bats
# Issue 18: the rules of --budget and --breaker as one table
# (tests/guard-rules.txt) run through budget.c's pure functions by
# tests/helpers/guard-rules; tests/fleet.bats runs the same table through
# the Lua script on a real redis-server.

load helpers/common

setup() {
	common_setup
	RULES=$ROOT/tests/helpers/guard-rules
	TABLE=$ROOT/tests/guard-rules.txt
}

@test "budget.c gives every answer of the rules' table" {
	run -0 --separate-stderr "$RULES" check "$TABLE"
	[ -z "$output" ]
	# Each rule has its cases: budget admit, breaker admit, probe, close.
	[ "$(grep -c '^attempt ' "$TABLE")" -ge 10 ]
	[ "$(grep -c '^admit ' "$TABLE")" -ge 10 ]
	# A probe's report names its id; any other run's names 0.
	[ "$(awk '$1 == "report" && $6 != 0' "$TABLE" | wc -l)" -ge 10 ]
	[ "$(awk '$1 == "report" && $6 == 0' "$TABLE" | wc -l)" -ge 7 ]
	[ "$stderr" = "$(grep -c '^[a-z]' "$TABLE") cases, 0 differ" ]
}

@test "a case that budget.c does not answer is reported with what it gave" {
	# The table with one answer changed: 9000 tokens left becomes 9001.
	sed '0,/| 1 9000 | 9000 /s//| 1 9001 | 9001 /' "$TABLE" >"$WORK/table"
	run -1 --separate-stderr "$RULES" check "$WORK/table"
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[0]} == "line "*": attempt: got 1 9000 | 9000 0 0 0 0 0 1000000000000; the table says 1 9001 | 9001 0 0 0 0 0 1000000000000" ]]
	[ "${stderr_lines[1]}" = "$(grep -c '^[a-z]' "$TABLE") cases, 1 differ" ]
}

@test "a malformed case, or an empty table, fails the check" {
	printf 'admit 1 2 3 | 4 | 1 2 3 4 5 6 7 | 0 0 0 | 1 2 3 4 5 6 7\n' \
	    >"$WORK/table"
	run -1 --separate-stderr "$RULES" check "$WORK/table"
	[ "${stderr_lines[0]}" = "$WORK/table:1: malformed" ]
	[ "${stderr_lines[1]}" = "1 cases, 1 differ" ]
	printf '# nothing\n' >"$WORK/table"
	run -1 --separate-stderr "$RULES" check "$WORK/table"
	[ "$stderr" = "0 cases, 0 differ" ]
}

@test "the embedded script starts with the codes of guardcodes.h" {
	run -0 "$RULES" script
	local codes
	codes=$(sed -n 's/^[[:space:]]*X(\([A-Z_]*\), \([0-9]*\)).*/local \1 = \2/p' \
	    "$ROOT/src/guard/guardcodes.h")
	[ "$(wc -l <<<"$codes")" -eq 11 ]
	[ "$(head -n 11 <<<"$output")" = "$codes" ]
	# No comment line of guard.lua is sent to the server.
	[ "$(grep -c '^[[:space:]]*--' <<<"$output")" -eq 0 ]
}

@test "embed-lua.sh keeps every byte of the code, and refuses what is not ASCII" {
	# A backslash, quotes, a tab, a trigraph, a comment line, indentation.
	sed 's/<TAB>/\t/g' >"$WORK/t.lua" <<'LUA'
local s = "a\\b<TAB>\"c\"" .. '??=' -- \
  -- a comment line

<TAB>  x = 1
LUA
	sed -e '2,3d' -e 's/^[[:space:]]*//' "$WORK/t.lua" >"$WORK/want"
	[ "$(wc -l <"$WORK/want")" -eq 2 ]
	sh "$ROOT/build-aux/embed-lua.sh" T "$WORK/t.lua" >"$WORK/t.h"
	printf '#include <stdio.h>\n#include "t.h"\n%s\n' \
	    'int main(void) { return fputs(T, stdout) == EOF; }' >"$WORK/t.c"
	"${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$WORK/t" \
	    "$WORK/t.c"
	run -0 --separate-stderr "$WORK/t"
	[ -z "$stderr" ]
	"$WORK/t" | cmp - "$WORK/want"
	printf 'x = "\303\251"\n' >"$WORK/t.lua"
	run -1 --separate-stderr sh "$ROOT/build-aux/embed-lua.sh" T \
	    "$WORK/t.lua"
	[ "$stderr" = "$WORK/t.lua:1: not printable ASCII" ]
}
