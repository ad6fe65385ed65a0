#!/usr/bin/env bats
# --delays=LIST: the k-th retry waits the k-th value, the last repeated.
# It replaces the computed schedule (-b, -f, -c and --preset are refused
# with it), has no jitter unless -j is given, which then jitters each value
# as its window, and --reset-after starts it over.

load helpers/common

setup() {
	common_setup
}

@test "--delays: retry k waits value k, then the last again" {
	run -1 --separate-stderr "$RETRY" -n 5 --delays=10ms,50ms,20ms -- false
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" -eq 5 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/5 failed (exit 1), next in 0.010s" ]
	[ "${stderr_lines[1]}" = "retry: attempt 2/5 failed (exit 1), next in 0.050s" ]
	[ "${stderr_lines[2]}" = "retry: attempt 3/5 failed (exit 1), next in 0.020s" ]
	[ "${stderr_lines[3]}" = "retry: attempt 4/5 failed (exit 1), next in 0.020s" ]
	[[ ${stderr_lines[4]} =~ ^retry:\ giving\ up\ after\ 5\ attempts\ in\ [0-9.]+s:\ exit\ 1\ \(no\ attempts\ left\)$ ]]
}

@test "--delays: --dry-run shows the list, without jitter" {
	run -0 --separate-stderr "$RETRY" --dry-run -n 5 --delays=1,90s,0
	[ "$stderr" = "" ]
	[ "$output" = "attempt         window            min            max           draw        elapsed
      1              -          0.000          0.000          0.000          0.000
      2          1.000          1.000          1.000          1.000          1.000
      3         90.000         90.000         90.000         90.000         91.000
      4          0.000          0.000          0.000          0.000         91.000
      5          0.000          0.000          0.000          0.000         91.000
# worst-case total sleep for the rows above: 91.000s
# --delays=1s,90s,0: retry k waits value k, the last repeated" ]
}

@test "--delays: an explicit -j jitters each value as its window" {
	local seed
	for seed in 1 2 3; do
		run -0 --separate-stderr "$RETRY" --dry-run --seed "$seed" \
		    -n 200 --delays=1,2,5 -j 0.5..1.5
		[ "$stderr" = "" ]
		# window, min, max and draw of every row after the first
		printf '%s\n' "${lines[@]:2:199}" | awk '
		    { want = NR == 1 ? 1 : NR == 2 ? 2 : 5 }
		    $2 != want || $3 != want / 2 || $4 != want * 1.5 ||
		    $5 < $3 || $5 > $4 { print "bad row: " $0; bad = 1 }
		    END { exit bad || NR != 199 }'
	done
	run -0 --separate-stderr "$RETRY" --dry-run -n 3 --delays=2 -j equal
	[ "${lines[2]:0:52}" = "      2          2.000          1.000          2.000" ]
}

@test "--delays with -b, -f, -c or --preset is a usage error naming both" {
	local opt
	for opt in --base=2 -f3 --cap=1m --preset=aws; do
		run -125 --separate-stderr "$RETRY" --delays=1,2 "$opt" -- true
		[ "$output" = "" ]
		local name=${opt%%=*}
		case $name in
		-f3) name=--factor ;;
		esac
		[ "$stderr" = "retry: --delays and $name cannot be combined: the \
list replaces the computed schedule; try 'retry --help'" ]
	done
	run -125 --separate-stderr "$RETRY" -b 1 --delays=1 -- true
	[ "$stderr" = "retry: --delays and --base cannot be combined: the \
list replaces the computed schedule; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --delays=1 -j decorrelated -- true
	[ "$stderr" = "retry: --delays and --jitter=decorrelated cannot be \
combined: decorrelated jitter draws from the previous sleep, not from a \
list; try 'retry --help'" ]
}

@test "--delays in RETRY_OPTIONS and a schedule in argv: argv's wins" {
	RETRY_OPTIONS="--delays=7" run -0 --separate-stderr "$RETRY" \
	    --dry-run -n 2 -b 3 -j none
	[ "$stderr" = "" ]
	[ "${lines[2]:0:22}" = "      2          3.000" ]
	RETRY_OPTIONS="-b 3" run -0 --separate-stderr "$RETRY" \
	    --dry-run -n 2 --delays=7
	[ "${lines[2]:0:22}" = "      2          7.000" ]
	RETRY_OPTIONS="-b 3 --delays=7" run -125 --separate-stderr "$RETRY" \
	    -n 2 true
	[ "$stderr" = "retry: RETRY_OPTIONS: --delays and --base cannot be \
combined: the list replaces the computed schedule; try 'retry --help'" ]
}

@test "a bad --delays names the value at fault" {
	run -125 --separate-stderr "$RETRY" --delays=1,,2 true
	[ "$stderr" = "retry: invalid --delays '1,,2': an empty value; try \
'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --delays=1,-2 true
	[ "$stderr" = "retry: invalid --delays '1,-2': value 2: negative \
duration; try 'retry --help'" ]
	run -125 --separate-stderr "$RETRY" --delays=1, true
	[ "$stderr" = "retry: invalid --delays '1,': an empty value; try \
'retry --help'" ]
	run -125 --separate-stderr "$RETRY" "--delays=$(printf '1,%.0s' {1..32})1" true
	[[ $stderr == *": more than 32 values; try 'retry --help'" ]]
}

@test "--reset-after starts the list over" {
	run -1 --separate-stderr "$RETRY" -n 3 --delays=10ms,5s \
	    --reset-after=50ms -- sh -c 'sleep 0.1; exit 1'
	[ "${stderr_lines[0]}" = "retry: attempt 1/3 failed (exit 1), next in 0.010s" ]
	[ "${stderr_lines[1]}" = "retry: attempt 2/3 failed (exit 1), next in 0.010s" ]
}

@test "--delays: the JSON log keeps its form" {
	run -1 --separate-stderr "$RETRY" -q -n 2 --delays=10ms \
	    --json-log="$WORK/log" -- false
	[ "$stderr" = "" ]
	run -0 grep -c '"event":"sleep","ts":"[^"]*","time":[0-9.]*,"attempt":1,"seconds":0.010000000,"window":0.010000000,"jitter":"none"}$' "$WORK/log"
	[ "$output" = 1 ]
	grep -q '"base":0.010000000,"factor":2,"cap":0.010000000,"jitter":"none"' "$WORK/log"
}
