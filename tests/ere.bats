#!/usr/bin/env bats
# src/ere.c, the ERE matcher of the output conditions, on its table of
# hand-picked cases (tests/helpers/ere-test.c): glibc's answers, glibc's
# error words, and retry's own refusals.  fuzz/ere.c compares it with
# glibc on random EREs; conditions.bats drives it through retry.

load helpers/common

setup() {
	common_setup
	ERE_TEST=$ROOT/tests/helpers/ere-test
	[[ -x $ERE_TEST ]] || skip "no tests/helpers/ere-test: make check builds it"
}

@test "the ERE matcher answers every case of its table" {
	run -0 --separate-stderr "$ERE_TEST"
	[ "$output" = "119 cases, 0 failed" ]
	[ "$stderr" = "" ]
}

@test "with -v, the table's runner prints each case and its answer" {
	run -0 --separate-stderr "$ERE_TEST" -v
	[ "$(grep -c '^ok ' <<<"$output")" -eq 118 ]
	[ "${lines[-1]}" = "119 cases, 0 failed" ]
	[[ ${lines[0]} == "ok 'error:' on 'an error: x': want 3, got 3" ]]
	[ "$stderr" = "" ]
}
