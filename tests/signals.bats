#!/usr/bin/env bats
# Signals sent to retry: during an attempt each one is passed on to the
# command, and retry ends as the attempt did; during a sleep or the splay
# a signal ends retry at once, by that signal; a signal ignored by the
# caller stays ignored, and the command starts with the caller's signal
# dispositions and mask.  The death signal is read from a real parent
# (helpers/wstatus); a shell's $? cannot tell exit 130 from SIGINT.

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
}

teardown() {
	proc_teardown
}

# During an attempt: the signal reaches the command (and its background
# marker), no KILL follows however short -k, and retry exits as the
# attempt did: the command catches the signal and exits 0, so retry exits
# 0, with no further attempt.  A background job of sh ignores INT and
# QUIT: that marker is left alone, as after any final attempt.
forward_during_attempt() {
	local name=$1 n
	n=$(signum "$name")
	bg_retry -n 3 -b 1ms -k 100ms -- \
	    "$HELPERS/proc-catch" "$WORK" "$MARK" "$n"
	wait_for_file "$WORK/ready"
	wait_markers 1
	kill -s "$name" "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/caught")" = "caught $n" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	# A stop signal says so; another one changes nothing, and the
	# attempt's exit 0 is a first-try success, which is silent.
	case $name in
	HUP | INT | QUIT | TERM)
		[ "$(untimed "$(<"$WORK/err")")" = \
		    "retry: stopped by $name during attempt 1/3 after Ts" ] ;;
	*)	[ "$(<"$WORK/err")" = "" ] ;;
	esac
	# The attempt's other process got it too: only where leftovers are
	# found (not in the portable build).
	linux_capability || return 0
	case $name in
	INT | QUIT) [ "$(markers | wc -l)" -eq 1 ] ;;
	*) wait_markers_gone ;;
	esac
}

@test "HUP during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt HUP
}

@test "INT during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt INT
}

@test "QUIT during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt QUIT
}

@test "TERM during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt TERM
}

@test "USR1 during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt USR1
}

@test "USR2 during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt USR2
}

@test "ALRM during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt ALRM
}

@test "ABRT during an attempt is forwarded, retry exits as the attempt did" {
	forward_during_attempt ABRT
}

@test "VTALRM, PROF, IO, PWR during an attempt are forwarded" {
	local sig
	for sig in VTALRM PROF IO PWR; do
		rm -f "$WORK/ready" "$WORK/caught" "$WORK/attempts"
		forward_during_attempt "$sig"
	done
}

@test "real-time signals during an attempt are forwarded" {
	local sig
	for sig in RTMIN RTMIN+3 RTMAX; do
		rm -f "$WORK/ready" "$WORK/caught" "$WORK/attempts"
		forward_during_attempt "$sig"
	done
}

# During the sleep between attempts: retry dies at once (a 60 s sleep
# would outlast BATS_TEST_TIMEOUT) and starts no other attempt.
forward_during_sleep() {
	local name=$1 n line
	n=$(signum "$name")
	line="retry: attempt 1/3 failed (exit 1), next in 60.000s"
	bg_retry -n 3 -b 60s -j none -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"; exit 1' sh "$WORK"
	wait_for_line "$WORK/err" "^${line//[().]/\\&}\$"
	kill -s "$name" "$RPID"
	bg_wait
	[ "$WS" = "signal $n" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = "$line
retry: stopped by $name after attempt 1/3 in Ts" ]
}

@test "HUP during a sleep: retry dies by it at once" {
	forward_during_sleep HUP
}

@test "INT during a sleep: retry dies by it at once" {
	forward_during_sleep INT
}

@test "QUIT during a sleep: retry dies by it at once" {
	forward_during_sleep QUIT
}

@test "TERM during a sleep: retry dies by it at once" {
	forward_during_sleep TERM
}

# A signal that is not a stop signal, during the sleep between attempts:
# ignored, retry sleeps on (attempt 2 starts at least 1 s after attempt 1
# ended) and runs the next attempt.
ignored_during_sleep() {
	local name=$1 line t
	line="retry: attempt 1/2 failed (exit 1), next in 1.000s"
	bg_retry -n 2 -b 1s -j none -- sh -c 'date +%s%N >>"$1/attempts"
	    [ "$RETRY_ATTEMPT" = 2 ]' sh "$WORK"
	wait_for_line "$WORK/err" "^${line//[().]/\\&}\$"
	kill -s "$name" "$RPID"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(untimed "$(<"$WORK/err")")" = "$line
retry: succeeded on attempt 2/2 after Ts" ]
	mapfile -t t <"$WORK/attempts"
	[ "${#t[@]}" -eq 2 ]
	((t[1] - t[0] >= 1000000000))
}

@test "USR1 during a sleep is ignored: the next attempt runs" {
	ignored_during_sleep USR1
}

@test "USR2 during a sleep is ignored: the next attempt runs" {
	ignored_during_sleep USR2
}

@test "ALRM during a sleep is ignored: the next attempt runs" {
	ignored_during_sleep ALRM
}

@test "RTMIN+1 during a sleep is ignored: the next attempt runs" {
	ignored_during_sleep RTMIN+1
}

@test "TERM during the splay: retry dies at once, no attempt" {
	# --seed 3 draws a splay of 57 s.
	bg_retry --splay 60s --seed 3 -n 3 -- \
	    sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"' sh "$WORK"
	wait_for_handler "$RPID" 15
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	[ ! -e "$WORK/attempts" ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during the splay after Ts" ]
}

@test "a signal the command ignores: no KILL, retry waits for the command" {
	bg_retry -n 3 -b 1ms -k 50ms -- sh -c 'trap "" TERM
	    exec "$1/proc-hold" "$2"' sh "$HELPERS" "$WORK"
	wait_for_file "$WORK/ready"
	kill -TERM "$RPID"
	# Not a synchronisation: time for a wrong KILL (after 50 ms) to land.
	sleep 0.3
	kill -0 "$(<"$WORK/ready")"
	echo 3 >"$WORK/release"
	bg_wait
	# TERM stops the retrying: retry exits as the attempt did.
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
}

@test "a stop signal sent as the attempt ends still stops the run (-b 0)" {
	local sig n
	for sig in TERM INT HUP QUIT; do
		n=$(signum "$sig")
		rm -f "$WORK/attempts"
		ws_run "$RETRY" -n 5 -b 0 -- sh -c '
		    echo "$RETRY_ATTEMPT" >>"$1/attempts"
		    kill -s "$2" $PPID; exit 1' sh "$WORK" "$sig"
		[ "$output" = "" ]
		[[ $(untimed "$stderr") =~ ^"retry: stopped by $sig "("during attempt 1/5 after"|"after attempt 1/5 in")" Ts"$ ]]
		# Whichever retry sees first: the signal during the attempt
		# (retry exits as the attempt did: exit 1, or death by the
		# signal passed on to sh before it exits), or the attempt's
		# end (then the signal, before the sleep, kills retry).
		[[ $WS == "exit 1" || $WS == "signal $n" ]]
		[ "$(<"$WORK/attempts")" = 1 ]
	done
}

@test "USR1 sent as the attempt ends stops nothing (-b 0)" {
	ws_run "$RETRY" -n 5 -b 0 -- sh -c 'trap "" USR1
	    echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    [ "$RETRY_ATTEMPT" = 1 ] || exit 0
	    kill -s USR1 $PPID; exit 1' sh "$WORK"
	[ "$output" = "" ]
	[ "$(untimed "$stderr")" = "retry: attempt 1/5 failed (exit 1), next in 0.000s
retry: succeeded on attempt 2/5 after Ts" ]
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/attempts")" = $'1\n2' ]
}

# waiting_for_room PID: with -b 0 and its attempt over, retry waits for
# room in its stderr: in poll(2), with no child left, or, in the portable
# build, which has no non-blocking open of the pipe, in write(2).
waiting_for_room() {
	if ! linux_capability; then
		[[ $(<"/proc/$1/wchan") == *pipe_write ]]
		return
	fi
	[[ $(<"/proc/$1/wchan") == poll_schedule_timeout* ]] &&
	    [[ -z $(<"/proc/$1/task/$1/children") ]]
}

@test "a stop signal while retry waits for room in its stderr stops the run, and its lines still come" {
	# Attempt 1 fills retry's stderr, a FIFO that nobody reads yet, and
	# fails: retry waits to write "attempt 1/5 ended" (once, blocked in
	# write(2) with its signals blocked).  TERM must stop the run before
	# attempt 2, even with -b 0, and a reader that comes within a second
	# of it still gets every line.
	local rd pid lines
	mkfifo "$WORK/fifo"
	exec {rd}<>"$WORK/fifo"
	detached "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -v -n 5 -b 0 \
	    -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    [ "$RETRY_ATTEMPT" != 1 ] || perl -MFcntl -e '\''sysopen(my $f,
	        $ARGV[0], O_WRONLY | O_NONBLOCK) or die "$!";
	        1 while syswrite($f, "#" x 512)'\'' "$1/fifo"
	    exit 1' sh "$WORK" 2>"$WORK/fifo" &
	BG=$!
	wait_for_file "$WORK/pid"
	pid=$(<"$WORK/pid")
	poll_until 10 waiting_for_room "$pid"
	kill -TERM "$pid"
	# Read it all: the end comes once retry and wstatus are gone.
	tr -d '#' <"$WORK/fifo" >"$WORK/err" {rd}<&- &
	exec {rd}<&-
	bg_wait
	wait "$!"
	[ "$WS" = "signal 15" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	mapfile -t lines <"$WORK/err"
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "retry: attempt 1/5 starting" ]
	[[ ${lines[1]} =~ ^retry:\ attempt\ 1/5\ ended\ after\ [0-9]+\.[0-9]{3}s:\ exit\ 1$ ]]
	[ "${lines[2]}" = \
	    "retry: attempt 1/5 failed (exit 1), next in 0.000s" ]
	[ "$(untimed "${lines[3]}")" = \
	    "retry: stopped by TERM after attempt 1/5 in Ts" ]
}

# FILL_FIFO: a shell line that fills the FIFO "$1/fifo", opened without
# blocking, until it has no room: retry's lines after it wait there.
FILL_FIFO='perl -MFcntl -e '\''sysopen(my $f, $ARGV[0], O_WRONLY |
    O_NONBLOCK) or die "$!"; 1 while syswrite($f, "#" x 512)'\'' "$1/fifo"'

# A warning (a hook that failed, a guard given up) goes to stderr through
# stdio: on a pipe that nobody reads it blocked in write(2), its signals
# blocked, for ever: past -m, deaf to TERM.  It waits as retry's lines
# there do, here until -m.
@test "a warning to a stderr that nobody reads does not hold retry past -m" {
	require_linux_capability "bounded errors on a stalled pipe (fopencookie)"
	musl_cannot "bounded errors on a stalled pipe (fopencookie)"
	local rd
	mkfifo "$WORK/fifo"
	exec {rd}<>"$WORK/fifo"
	detached "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -n 1 -m 500ms \
	    --on-give-up='exit 3' -- sh -c "$FILL_FIFO; exit 1" sh "$WORK" \
	    2>"$WORK/fifo" &
	BG=$!
	bg_wait
	exec {rd}<&-
	[ "$WS" = "exit 1" ]
}

# TERM while the giving-up line waits for room: --on-give-up gets it and
# fails, and the warning that says so waited for the reader for ever.
@test "a stop signal while the giving-up line waits for room ends retry" {
	require_linux_capability "bounded errors on a stalled pipe (fopencookie)"
	musl_cannot "bounded errors on a stalled pipe (fopencookie)"
	local rd pid
	mkfifo "$WORK/fifo"
	exec {rd}<>"$WORK/fifo"
	detached "$WSTATUS" -p "$WORK/pid" "$WORK/ws" "$RETRY" -n 1 \
	    --on-give-up=: -- sh -c "$FILL_FIFO; exit 1" \
	    sh "$WORK" 2>"$WORK/fifo" &
	BG=$!
	wait_for_file "$WORK/pid"
	pid=$(<"$WORK/pid")
	poll_until 10 waiting_for_room "$pid"
	kill -TERM "$pid"
	bg_wait
	exec {rd}<&-
	[ "$WS" = "signal 15" ]
}

# Ignored at start (nohup, a background job of a script): retry neither
# handles nor forwards the signal, and the command starts with it ignored.
stays_ignored() {
	local name=$1 n
	n=$(signum "$name")
	WS_OPTS=(-i "$n")
	bg_retry -n 1 -- "$HELPERS/proc-hold" "$WORK"
	wait_for_file "$WORK/ready"
	sig_in_set "$RPID" "$n" SigIgn
	sig_in_set "$(<"$WORK/ready")" "$n" SigIgn
	kill -s "$name" "$RPID"
	echo 0 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/err")" = "" ]
}

@test "an ignored HUP stays ignored, for retry and the command" {
	stays_ignored HUP
}

@test "an ignored INT stays ignored, for retry and the command" {
	stays_ignored INT
}

@test "an ignored QUIT stays ignored, for retry and the command" {
	stays_ignored QUIT
}

@test "an ignored TERM stays ignored, for retry and the command" {
	stays_ignored TERM
}

@test "an ignored USR1 stays ignored, for retry and the command" {
	stays_ignored USR1
}

@test "an ignored USR2 stays ignored, for retry and the command" {
	stays_ignored USR2
}

@test "an ignored ALRM stays ignored, for retry and the command" {
	stays_ignored ALRM
}

# The caller may have ignored signals that wstatus cannot reset (glibc's
# 32 and 33, ignored by make): the command must see what a command run
# without retry sees.
@test "the command starts with the caller's dispositions and mask" {
	ws_run grep -E '^Sig(Ign|Blk):' /proc/self/status
	local plain=$output
	[[ $plain == $'SigBlk:\t0000000000000000\nSigIgn:\t'* ]]
	ws_run "$RETRY" -n 1 -- grep -E '^Sig(Ign|Blk):' /proc/self/status
	[ "$WS" = "exit 0" ]
	[ "$output" = "$plain" ]
}

@test "an ignored PIPE stays ignored for the command; a default one stays default" {
	local plain
	ws_run -i 13 -i 1 grep '^SigIgn:' /proc/self/status
	plain=$output
	[ $(( 16#${plain#SigIgn:?} & 16#1001 )) -eq $(( 16#1001 )) ]
	ws_run -i 13 -i 1 "$RETRY" -n 1 -- grep '^SigIgn:' /proc/self/status
	[ "$output" = "$plain" ]
	ws_run grep '^SigIgn:' /proc/self/status
	plain=$output
	[ $(( 16#${plain#SigIgn:?} & 16#1001 )) -eq 0 ]
	ws_run "$RETRY" -n 1 -O -- grep '^SigIgn:' /proc/self/status
	[ "$output" = "$plain" ]
}

# proc-sigmask -i ignores CHLD right before retry starts.  $PROC_RETRY is
# the retry binary itself: Perl, in helpers/proc-detach that $RETRY runs,
# would reset an ignored CHLD.
@test "an inherited trap '' CHLD does not break retry" {
	ws_run "$HELPERS/proc-sigmask" -i CHLD "$PROC_RETRY" -n 3 -b 1ms \
	    -j none -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"; exit 3' \
	    sh "$WORK"
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = $'1\n2\n3' ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	[ "${stderr_lines[0]}" = \
	    "retry: attempt 1/3 failed (exit 3), next in 0.001s" ]
	[ "${stderr_lines[1]}" = \
	    "retry: attempt 2/3 failed (exit 3), next in 0.002s" ]
	[[ ${stderr_lines[2]} =~ ^retry:\ giving\ up\ after\ 3\ attempts\ in\ [0-9]+\.[0-9]{3}s:\ exit\ 3\ \(no\ attempts\ left\)$ ]]
}

@test "an inherited trap '' CHLD: timeouts, and the command keeps it" {
	ws_run "$HELPERS/proc-sigmask" -i CHLD "$PROC_RETRY" -n 1 -t 20ms -- \
	    sleep "$MARK"
	[ "$WS" = "exit 124" ]
	wait_markers_gone
	ws_run "$HELPERS/proc-sigmask" -i CHLD grep '^SigIgn:' /proc/self/status
	local plain=$output
	[ $(( 16#${plain#SigIgn:?} & 16#10000 )) -ne 0 ]
	ws_run "$HELPERS/proc-sigmask" -i CHLD \
	    "$PROC_RETRY" -n 1 -- grep '^SigIgn:' /proc/self/status
	[ "$output" = "$plain" ]
}

@test "an inherited trap '' CHLD: a forwarded signal" {
	PRE=("$HELPERS/proc-sigmask" -i CHLD)
	bg_retry -n 3 -b 1ms -k 100ms -- \
	    "$HELPERS/proc-catch" "$WORK" "$MARK" 10
	wait_for_file "$WORK/ready"
	kill -USR1 "$RPID"
	bg_wait
	# USR1 stops nothing: the attempt's exit 0 is a success.
	[ "$WS" = "exit 0" ]
	[ "$(<"$WORK/caught")" = "caught 10" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	if linux_capability; then wait_markers_gone; fi
}

@test "an inherited blocked mask does not break retry" {
	ws_run "$HELPERS/proc-sigmask" CHLD,TERM,INT,ALRM,USR1 "$RETRY" -n 3 \
	    -b 1ms -j none -- sh -c 'echo "$RETRY_ATTEMPT" >>"$1/attempts"
	    exit 3' sh "$WORK"
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = $'1\n2\n3' ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	ws_run "$HELPERS/proc-sigmask" CHLD,ALRM \
	    "$RETRY" -n 1 -t 20ms -- sleep "$MARK"
	[ "$WS" = "exit 124" ]
	wait_markers_gone
}

# Whether TERM waits, pending, in process $1 (sent to the process or to
# its thread).
term_pending() {
	sig_in_set "$1" 15 ShdPnd || sig_in_set "$1" 15 SigPnd
}

@test "an inherited blocked mask is the command's; a blocked TERM still stops retry" {
	run -0 "$HELPERS/proc-sigmask" CHLD,TERM,USR1 \
	    grep '^SigBlk:' /proc/self/status
	local plain=$output
	[ $(( 16#${plain#SigBlk:?} & 16#14200 )) -eq $(( 16#14200 )) ]
	run -0 "$HELPERS/proc-sigmask" CHLD,TERM,USR1 "$RETRY" -n 1 -- \
	    grep '^SigBlk:' /proc/self/status
	[ "$output" = "$plain" ]
	# The command keeps TERM blocked: the TERM passed on waits there,
	# pending; no KILL comes, however short -k, and once the command ends
	# by itself retry exits as it did, with no further attempt.
	# The command is Perl, which keeps the mask it was given (sh, as
	# proc-hold is, would unblock TERM); it exits 3 once released.
	PRE=("$HELPERS/proc-sigmask" "CHLD,TERM")
	bg_retry -n 3 -b 1ms -k 50ms -- perl -e 'my $d = shift;
	    open my $f, ">>", "$d/attempts" or die;
	    print {$f} "$ENV{RETRY_ATTEMPT}\n"; close $f;
	    open $f, ">", "$d/ready.tmp" or die; print {$f} "$$\n"; close $f;
	    rename "$d/ready.tmp", "$d/ready" or die;
	    select undef, undef, undef, 0.01 until -s "$d/release";
	    exit 3' "$WORK"
	wait_for_file "$WORK/ready"
	local cmd
	cmd=$(<"$WORK/ready")
	sig_in_set "$cmd" 15 SigBlk
	kill -TERM "$RPID"
	poll_until 5 term_pending "$cmd"
	# Not a synchronisation: time for a wrong KILL (after 50 ms) to land.
	sleep 0.3
	kill -0 "$cmd"
	echo 3 >"$WORK/release"
	bg_wait
	[ "$WS" = "exit 3" ]
	[ "$(<"$WORK/attempts")" = 1 ]
	[ "$(untimed "$(<"$WORK/err")")" = \
	    "retry: stopped by TERM during attempt 1/3 after Ts" ]
}
