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
	[ "$output" = "143 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "with -v, the table's runner prints each case and its answer" {
	run -0 --separate-stderr "$ERE_TEST" -v
	[ "$(grep -c '^ok ' <<<"$output")" -eq 142 ]
	[ "${lines[-1]}" = "143 cases, 0 failed" ]
	[[ ${lines[0]} == "ok 'error:' on 'an error: x': want 3, got 3" ]]
	[[ ${lines[-2]} == "ok '^\$' fed in pieces (3 bytes): want match" ]]
	[ "$stderr" = "" ]
}
