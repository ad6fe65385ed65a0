#!/usr/bin/env bats
# src/ere/erecomp.c, the ERE matcher of the output conditions, on its table of
# hand-picked cases (src/ere/tests/ere-test.c): glibc's answers, glibc's
# error words, retry's own refusals, and long lines on which the DFA's
# cache keeps missing, so that the NFA (src/ere/erenfa.c) takes them over.
# ere-test-nfa runs the same table with the DFA cut to 2 states, so that
# the NFA takes over every stream it can; ere-test-pairs with every
# literal searched for by a pair of its bytes (src/ere/pairscan.c).
# src/ere/fuzz/ere-fuzz.c compares it with glibc on random EREs;
# tests/conditions.bats drives it through retry.  The suite keeps beside
# the library it tests, and shares tests/helpers/common.bash with the
# others.

load ../../../tests/helpers/common

setup() {
	common_setup
	ERE_TEST=$ROOT/src/ere/tests/ere-test
}

@test "the ERE matcher answers every case of its table" {
	run -0 --separate-stderr "$ERE_TEST"
	[ "$output" = "263 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "the ERE matcher answers them all with the NFA taking every stream over" {
	run -0 --separate-stderr "$ROOT/src/ere/tests/ere-test-nfa"
	[ "$output" = "263 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "the ERE matcher answers them all with every second literal searched for by a pair of its bytes, from the start" {
	run -0 --separate-stderr "$ROOT/src/ere/tests/ere-test-pairs"
	[ "$output" = "263 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "with -v, the table's runner prints each case and its answer" {
	run -0 --separate-stderr "$ERE_TEST" -v
	[ "$(grep -c '^ok ' <<<"$output")" -eq 475 ]
	[ "${lines[-1]}" = "263 cases, 0 failed" ]
	[[ ${lines[0]} == "ok 'error:' on 'an error: x': want 3, got 3" ]]
	[[ ${lines[-2]} == "ok 'x|a{1,1000}b' on a long line (20000:b) in \
pieces of 1: want match 20001, got match 20001" ]]
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

# Issue 27: an ERE whose cached DFA states keep missing is matched by the
# bit-parallel NFA; one of more than 140 instructions that neither could
# match in about a microsecond a byte is refused, as the man page says.
@test "an ERE that neither matcher could match fast is too complex, and the man page gives the size" {
	grep -q 'of more than 140 instructions for which both could cost more' \
	    "$ROOT/man/retry.1"
	run -125 --separate-stderr "$ROOT/retry" -n 1 \
	    --retry-if-output='((ab)*c*){300}' -- true
	[ "$output" = "" ]
	[ "$stderr" = "retry: invalid --retry-if-output '((ab)*c*){300}': \
too complex; try 'retry --help'" ]
	run -0 --separate-stderr "$ROOT/retry" -n 1 \
	    --retry-if-output='[ab]*a[ab]{4085}c' -- true
	[ "$stderr" = "" ]
}
