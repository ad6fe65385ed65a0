#!/usr/bin/env bats
# src/ere.c, the ERE matcher of the output conditions, on its table of
# hand-picked cases (tests/helpers/ere-test.c): glibc's answers, glibc's
# error words, and retry's own refusals.  fuzz/ere.c compares it with
# glibc on random EREs; conditions.bats drives it through retry.

load helpers/common

setup() {
	common_setup
	ERE_TEST=$ROOT/tests/helpers/ere-test
}

@test "the ERE matcher answers every case of its table" {
	run -0 --separate-stderr "$ERE_TEST"
	[ "$output" = "185 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "with -v, the table's runner prints each case and its answer" {
	run -0 --separate-stderr "$ERE_TEST" -v
	[ "$(grep -c '^ok ' <<<"$output")" -eq 184 ]
	[ "${lines[-1]}" = "185 cases, 0 failed" ]
	[[ ${lines[0]} == "ok 'error:' on 'an error: x': want 3, got 3" ]]
	[[ ${lines[-2]} == "ok '(ab|cd)+e' fed in pieces (10 bytes): want match" ]]
	[ "$stderr" = "" ]
}

# Issue 26: 257 nested groups around 'a' compile to one instruction, yet
# are refused as too complex; the man page says how deep groups may nest.
@test "groups nest as deep as the man page says, and one deeper is too complex" {
	local deep
	deep=$(sed -n 's/.*groups nested more than \([0-9]*\) deep.*/\1/p' \
	    "$ROOT/man/retry.1")
	[ -n "$deep" ]
	nested() {
		printf '%*s' "$1" '' | tr ' ' '('
		printf a
		printf '%*s' "$1" '' | tr ' ' ')'
	}
	run -0 --separate-stderr "$ROOT/retry" -n 1 \
	    --retry-if-output="$(nested "$deep")" -- true
	[ "$stderr" = "" ]
	run -125 --separate-stderr "$ROOT/retry" -n 1 \
	    --retry-if-output="$(nested $((deep + 1)))" -- true
	[ "$stderr" = "retry: invalid --retry-if-output '$(nested $((deep + 1)) |
	    head -c 100)...': too complex; try 'retry --help'" ]
}
