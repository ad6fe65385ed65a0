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

@test "make demo ends saying what the build lacks (issue 38)" {
	# A ./retry built without hiredis and OpenSSL, as deps.sh finds it.
	mkdir "$WORK/build-aux"
	cp "$ROOT/build-aux/deps.sh" "$WORK/build-aux/"
	printf '#!/bin/sh\ncase $3 in\n--budget=redis:*) echo "retry: x: this retry was built without Redis support" >&2 ;;\n*) echo "retry: x: built without TLS support (OpenSSL)" >&2 ;;\nesac\nexit 125\n' \
	    >"$WORK/retry"
	chmod +x "$WORK/retry"
	run -0 --separate-stderr sh "$WORK/build-aux/deps.sh" lacks
	[ "$output" = "" ]
	[ "$stderr" = "retry: note: this build has no Redis stores (redis://, unix://): install libhiredis-dev, then rm retry && make
retry: note: this build has no TLS (rediss://): install libssl-dev, then rm retry && make" ]
	# The build of this tree has both: nothing to say.
	cd "$ROOT"
	if grep -q 'built without' <(./retry -n 1 \
	    --budget=rediss://127.0.0.1:1/x -- true 2>&1); then
		skip "this build lacks Redis or TLS itself"
	fi
	run -0 --separate-stderr sh build-aux/deps.sh lacks
	[ "$stderr" = "" ]
}
