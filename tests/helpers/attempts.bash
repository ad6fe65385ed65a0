# Shared by the suites of the output conditions, hooks and resets
# (conditions, streaming, hooks, reset):
# exact stderr with measured times left out, and clock readings.  Load
# after helpers/common.
# shellcheck shell=bash

# The giving-up lines of $stderr with their measured time made "T".
untimed() {
	local re='(retry: giving up after [0-9]+ attempts? in )'

	re+='[0-9]+\.[0-9]{3}s: '
	printf '%s\n' "$1" | sed -E "s/$re/\\1Ts: /"
}

# expect_stderr LINE...: $stderr is exactly these lines, where "T" stands
# for the measured time of a giving-up line.  No LINE: stderr is empty.
# shellcheck disable=SC2154 # run sets stderr
expect_stderr() {
	local want got
	want=
	(($# == 0)) || want=$(printf '%s\n' "$@")
	got=$(untimed "$stderr")
	[[ -z $stderr ]] && got=
	if [[ $got != "$want" ]]; then
		echo "stderr is not as expected (-wanted +got):" >&2
		diff -u <(printf '%s\n' "$want") <(printf '%s\n' "$got") |
		    sed 1,2d >&2
		return 1
	fi
}

# failed K N OUTCOME SLEEP: the line that says attempt K/N failed.
failed() {
	printf 'retry: attempt %d/%s failed (%s), next in %s\n' "$1" "$2" \
	    "$3" "${4:-0.000s}"
}

# The time in seconds of the giving-up line of $stderr.
gave_up_after() {
	sed -nE 's/^retry: giving up after [0-9]+ attempts? in ([0-9.]+)s: .*/\1/p' \
	    <<<"$stderr"
}

# fcmp X OP Y: a floating-point comparison, such as fcmp "$x" '<' 0.5.
fcmp() {
	awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }" ||
	    { echo "not: $1 $2 $3" >&2; return 1; }
}

# Nanoseconds of the wall clock, for gaps that a test measures itself.
now_ns() {
	date +%s%N
}

# sum: the sha256 of stdin.
sum() {
	sha256sum | cut -d' ' -f1
}
