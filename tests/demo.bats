#!/usr/bin/env bats
# `make demo` (build-aux/demo.sh) shows a command line and what it
# prints: the line must be the one it runs, so that a user can paste it.

load helpers/common

setup() {
	common_setup
}

# Times and the random draws made T.
masked() {
	sed -E 's/[0-9]+\.[0-9]{3}s/Ts/g' "$1"
}

@test "make demo: the command line it shows, pasted, does what the demo did" {
	local line
	cd "$ROOT"
	run -0 --separate-stderr sh build-aux/demo.sh
	printf '%s\n' "$stderr" >"$WORK/demo.err"
	line=${lines[0]}
	[[ $line == '$ ./retry '* ]]
	[ "${lines[-2]}" = '$ echo $?' ]
	[ "${lines[-1]}" = 0 ]
	# The pasted line, in a shell of its own.
	run -0 --separate-stderr sh -c "${line#\$ }"
	printf '%s\n' "$stderr" >"$WORK/pasted.err"
	[ "$output" = "attempt 3: ok" ]
	[ "$(masked "$WORK/pasted.err")" = "$(masked "$WORK/demo.err")" ]
	grep -qx 'attempt 2: service unavailable' "$WORK/pasted.err"
}
