#!/usr/bin/env bats
# Issue 39, item 4: RETRY_AFTER_FILE.  Each attempt gets the name of a
# file that does not exist yet, in a private directory (0700):
# retry-after in $XDG_RUNTIME_DIR, made once and kept, else
# retry-after-UID in $TMPDIR or /tmp, kept too; only where another user
# made that first, a fresh retry-after.XXXXXX, removed after the
# attempt.  The file is removed when the attempt ends.  What the attempt writes there counts when it is
# retried: a DURATION or an HTTP-date is the next wait (as a server's
# Retry-After: above --cap honoured, past -m or an hour the run ends),
# "stop" ends the run as not retried; anything else is one warning, and
# the schedule decides.  The command here is a shell script that writes
# the file, or plants a FIFO or a link in its place, on attempt 1.

load helpers/common
load helpers/core

setup() {
	common_setup
	XDG_RUNTIME_DIR=$WORK/run
	export XDG_RUNTIME_DIR
	mkdir -m 700 "$XDG_RUNTIME_DIR"
	DO=
	export DO
	# The command: logs the name it got, then on attempt 1 runs $DO
	# with $f the name; fails with 3 unless $PASS.
	cat >"$WORK/cmd" <<-'SH'
	#!/bin/sh
	f=$RETRY_AFTER_FILE
	echo "$RETRY_ATTEMPT $f" >>"$WORK/names"
	[ "$RETRY_ATTEMPT" = 1 ] && eval "$DO"
	[ -n "${PASS-}" ] && exit 0
	exit 3
	SH
	chmod +x "$WORK/cmd"
}

# after TEXT: attempt 1 writes TEXT (printf %b) to the file.
after() {
	# shellcheck disable=SC2089,SC2090 # quotes for the command's eval
	DO="printf '%b' '$1' >\"\$f\""
	# shellcheck disable=SC2090
	export DO
}

# ws STATUS-LINE: what wstatus wrote.
ws() {
	[ "$(cat "$WORK/ws")" = "$1" ] ||
	    { echo "wstatus: $(cat "$WORK/ws"), not $1" >&2; return 1; }
}

# refused WHY: a run of 2 attempts warned once that the file said WHY,
# then followed the schedule (-b 0 -j none: no wait) and gave up.
refused() {
	[ "${#stderr_lines[@]}" -eq 3 ] || { printf '%s\n' "${stderr_lines[@]}" >&2; return 1; }
	[ "${stderr_lines[0]}" = "retry: attempt 1: RETRY_AFTER_FILE ignored: $1" ]
	[ "${stderr_lines[1]}" = "retry: attempt 1/2 failed (exit 3), next in 0.000s" ]
	giving_up "${stderr_lines[2]}" 2 "exit 3" "no attempts left"
}

run2() {
	run -3 --separate-stderr "$RETRY" -n 2 -b 0 -j none -- "$WORK/cmd"
}

@test "each attempt gets a fresh name in a private directory, removed when it ends" {
	DO='stat -c "%a %u" "$(dirname "$f")" >"$WORK/mode"
	    [ -e "$f" ] && echo exists >>"$WORK/mode"'
	run2
	[ -z "$output" ]
	[ "$(cat "$WORK/mode")" = "700 $(id -u)" ]
	run -0 cut -d' ' -f2 "$WORK/names"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == "$XDG_RUNTIME_DIR"/retry-after/after.* ]]
	[[ ${lines[1]} == "$XDG_RUNTIME_DIR"/retry-after/after.* ]]
	[ "${lines[0]}" != "${lines[1]}" ]
	# Nothing is left behind.
	[ -z "$(ls -A "$XDG_RUNTIME_DIR/retry-after")" ]
}

@test "the caller's RETRY_AFTER_FILE is replaced; a hook finds it empty" {
	RETRY_AFTER_FILE=/etc/passwd run -3 --separate-stderr "$RETRY" -q \
	    -n 2 -b 0 --on-retry='echo "hook:$RETRY_AFTER_FILE:" >>"$WORK/names"' \
	    -- "$WORK/cmd"
	run -0 cat "$WORK/names"
	[[ ${lines[0]} == "1 $XDG_RUNTIME_DIR"/retry-after/after.* ]]
	[ "${lines[1]}" = "hook::" ]
	[[ ${lines[2]} == "2 $XDG_RUNTIME_DIR"/retry-after/after.* ]]
}

@test "a DURATION is the next wait, with the jittered draw added" {
	after '300ms\n'
	run -3 --separate-stderr "$RETRY" -n 2 -b 0 -j none -- "$WORK/cmd"
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.300s (RETRY_AFTER_FILE: 300ms)" ]
	giving_up "${stderr_lines[1]}" 2 "exit 3" "no attempts left"
	[[ ${stderr_lines[1]} =~ in\ 0\.[3-9][0-9]{2}s: ]]
	# -b 100ms -j none: 100ms + 300ms.
	rm "$WORK/names"
	run -3 --separate-stderr "$RETRY" -n 2 -b 100ms -j none -- "$WORK/cmd"
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.400s (RETRY_AFTER_FILE: 300ms)" ]
}

@test "an HTTP-date is the next wait; one in the past is none" {
	local when
	# 3 s ahead, to the second: a wait of 2 to 3 s, less on a slow machine.
	when=$(date -u -d "@$(($(date +%s) + 3))" '+%a, %d %b %Y %H:%M:%S GMT')
	after "$when"
	run -3 --separate-stderr "$RETRY" -n 2 -b 0 -j none -- "$WORK/cmd"
	[[ ${stderr_lines[0]} =~ ^retry:\ attempt\ 1/2\ failed\ \(exit\ 3\),\ next\ in\ [0-3]\.[0-9]{3}s\ \(RETRY_AFTER_FILE:\ $when\)$ ]]
	[[ ${stderr_lines[0]} != *"next in 0.000s"* ]]
	after 'Sun, 06 Nov 1994 08:49:37 GMT'
	run -3 --separate-stderr "$RETRY" -n 2 -b 0 -j none -- "$WORK/cmd"
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.000s (RETRY_AFTER_FILE: Sun, 06 Nov 1994 08:49:37 GMT)" ]
}

@test "stop ends the run with the command's status, even with --exhausted-status" {
	after 'stop\n'
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 5 -b 0 \
	    --exhausted-status=75 -- "$WORK/cmd"
	ws "exit 3"
	giving_up "$stderr" 1 "exit 3" "RETRY_AFTER_FILE says stop"
	[ "$(wc -l <"$WORK/names")" -eq 1 ]
}

@test "on a success the file is not read" {
	after 'stop\n'
	PASS=1 run -0 --separate-stderr "$RETRY" -n 5 -b 0 -- "$WORK/cmd"
	[ -z "$stderr" ]
	after 'garbage\n'
	PASS=1 run -0 --separate-stderr "$RETRY" -n 5 -b 0 -- "$WORK/cmd"
	[ -z "$stderr" ]
}

@test "a wait above --cap is honoured; -v says so" {
	after '200ms'
	run -3 --separate-stderr "$RETRY" -v -n 2 -b 0 -j none -c 10ms \
	    -- "$WORK/cmd"
	[ "${stderr_lines[2]}" = "retry: attempt 1/2: RETRY_AFTER_FILE asks to wait 200ms, more than --cap: waiting for it" ]
	[ "${stderr_lines[3]}" = "retry: attempt 1/2 failed (exit 3), next in 0.200s (RETRY_AFTER_FILE: 200ms)" ]
}

@test "a wait past -m, or over an hour without it, ends the run at once" {
	after '2h'
	run -0 --separate-stderr "$WSTATUS" "$WORK/ws" "$RETRY" -n 5 -b 0 \
	    --exhausted-status=75 -- "$WORK/cmd"
	ws "exit 75"
	giving_up "$stderr" 1 "exit 3" "RETRY_AFTER_FILE asks to wait 2h, more than the 1h retry waits without --max-time; exiting 75"
	after '5m'
	run -3 --separate-stderr "$RETRY" -n 5 -b 0 -m 1m -- "$WORK/cmd"
	giving_up "$stderr" 1 "exit 3" "RETRY_AFTER_FILE asks to wait 5m, past --max-time"
}

@test "nothing written, or blanks: the schedule as usual, no warning" {
	after ''
	run2
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.000s" ]
	after ' \n'
	run2
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.000s" ]
}

@test "hostile text is refused with one warning" {
	after 'garbage\n'
	run2
	refused "'garbage': neither stop, a DURATION nor an HTTP-date"
	after '-5s'
	run2
	refused "'-5s': neither stop, a DURATION nor an HTTP-date"
	after '99999999999999999999999s'
	run2
	refused "'99999999999999999999999s': neither stop, a DURATION nor an HTTP-date"
	after '1s\0'
	run2
	refused "not plain text"
	after '\377\376'
	run2
	refused "not plain text"
	after '\033]0;x\007'
	run2
	refused "not plain text"
	after '1s\nstop\n'
	run2
	refused "more than one line"
	after 'Sun, 06 Nov'
	run2
	refused "'Sun, 06 Nov': neither stop, a DURATION nor an HTTP-date"
	DO='head -c 257 /dev/zero | tr "\0" 1 >"$f"'
	run2
	refused "more than 256 bytes"
	# 256 bytes are read: blanks around 1ms.
	DO='{ printf 1ms; head -c 253 /dev/zero | tr "\0" " "; } >"$f"'
	run2
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (exit 3), next in 0.001s (RETRY_AFTER_FILE: 1ms)" ]
}

@test "a FIFO in its place is not waited for; a writer holding it changes nothing" {
	DO='mkfifo "$f"'
	run2
	refused "not a regular file"
	# A writer that blocks on the FIFO until a reader comes: none does.
	DO='mkfifo "$f"; (echo stop >"$f") 2>/dev/null & echo $! >"$WORK/writer"'
	run2
	refused "not a regular file"
	kill "$(cat "$WORK/writer")" 2>/dev/null || true
}

@test "a symbolic link in its place is not followed" {
	echo stop >"$WORK/target"
	DO='ln -s "$WORK/target" "$f"'
	run2
	refused "a symbolic link"
	[ "$(cat "$WORK/target")" = stop ]
}

@test "a directory in its place, with whatever is in it, is removed" {
	DO='mkdir -p "$f/a/b"; touch "$f/a/b/x"; ln -s / "$f/a/root"
	    for i in $(seq 100); do : >"$f/junk$i"; done; chmod 0 "$f/a"'
	run2
	refused "not a regular file"
	[ -z "$(ls -A "$XDG_RUNTIME_DIR/retry-after")" ]
	[ -d /etc ]
}

@test "without \$XDG_RUNTIME_DIR, retry-after-UID in \$TMPDIR, kept and emptied" {
	unset XDG_RUNTIME_DIR
	TMPDIR=$WORK/tmp
	export TMPDIR
	mkdir -m 700 "$TMPDIR"
	local kept
	kept=$TMPDIR/retry-after-$(id -u)
	DO='stat -c "%a %u" "$(dirname "$f")" >"$WORK/mode"; echo stop >"$f"'
	run -3 --separate-stderr "$RETRY" -n 3 -b 0 -j none -- "$WORK/cmd"
	giving_up "$stderr" 1 "exit 3" "RETRY_AFTER_FILE says stop"
	[ "$(cat "$WORK/mode")" = "700 $(id -u)" ]
	[[ $(cut -d' ' -f2 "$WORK/names") == "$kept"/after.* ]]
	[ "$(ls -A "$TMPDIR")" = "${kept##*/}" ]
	[ -z "$(ls -A "$kept")" ]
	# A directory left in its place is removed; the command's own
	# files beside it are the user's.
	DO='mkdir -p "$f/a"; touch "$f/a/x" "$(dirname "$f")/junk"'
	run2
	refused "not a regular file"
	[ "$(ls -A "$kept")" = junk ]
}

@test "a base that others can write to, or a kept directory open to others, is passed over" {
	chmod 777 "$XDG_RUNTIME_DIR"
	TMPDIR=$WORK/tmp
	export TMPDIR
	mkdir -m 700 "$TMPDIR"
	run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
	# Relative: passed over too, as the XDG spec says.
	rm "$WORK/names"
	XDG_RUNTIME_DIR=run TMPDIR=tmp run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == /tmp/retry-after-"$(id -u)"/after.* ]]
	# The kept directory open to others: refused.
	rm "$WORK/names"
	chmod 700 "$XDG_RUNTIME_DIR"
	mkdir -m 755 "$XDG_RUNTIME_DIR/retry-after"
	run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
	# A link in its place: not followed.
	rm "$WORK/names"
	rmdir "$XDG_RUNTIME_DIR/retry-after"
	mkdir -m 700 "$WORK/elsewhere"
	ln -s "$WORK/elsewhere" "$XDG_RUNTIME_DIR/retry-after"
	run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
}

@test "a kept directory that another user made is refused" {
	[ "$(id -u)" = 0 ] || skip "needs root, to make a directory another user's"
	TMPDIR=$WORK/tmp
	export TMPDIR
	mkdir -m 700 "$TMPDIR" "$XDG_RUNTIME_DIR/retry-after"
	chown nobody "$XDG_RUNTIME_DIR/retry-after"
	run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
	# The same in $TMPDIR: a fresh directory for each attempt, removed.
	chown nobody "$TMPDIR/retry-after-$(id -u)"
	rm "$WORK/names"
	run2
	[[ $stderr != *RETRY_AFTER_FILE* ]]
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after.??????/after.* ]]
	[ "$(ls -A "$TMPDIR")" = "retry-after-$(id -u)" ]
}

@test "an XDG_RUNTIME_DIR reached through another user's link is passed over" {
	[ "$(id -u)" = 0 ] || skip "needs root, to make a link another user's"
	# The command gets a path: a link that nobody may point elsewhere
	# mid-attempt would send its writes into nobody's directory.
	TMPDIR=$WORK/tmp
	export TMPDIR
	mkdir -m 700 "$TMPDIR"
	ln -s "$XDG_RUNTIME_DIR" "$WORK/link"
	chown -h nobody "$WORK/link"
	XDG_RUNTIME_DIR=$WORK/link run2
	[[ $stderr != *RETRY_AFTER_FILE* ]]
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
	# Root's link, as macOS's /tmp is one, is taken.
	chown -h root "$WORK/link"
	rm "$WORK/names"
	XDG_RUNTIME_DIR=$WORK/link run2
	[[ $stderr != *RETRY_AFTER_FILE* ]]
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$WORK"/link/retry-after/after.* ]]
}

@test "with no usable directory the variable is empty, said once; the dry run says it" {
	[ "$(id -u)" = 0 ] || skip "needs root, for a read-only /tmp of its own"
	# /tmp read-only in a mount namespace, its files still there (retry
	# itself may be under /tmp), and the kept directory of an earlier
	# run, if there is one, hidden by one open to others.
	unshare -m true 2>/dev/null || skip "needs unshare -m (a mount namespace)"
	local msg
	msg="no private directory in \$XDG_RUNTIME_DIR, \$TMPDIR or /tmp (Read-only file system)"
	# shellcheck disable=SC2016
	XDG_RUNTIME_DIR='' TMPDIR='' run -3 --separate-stderr unshare -m sh -c '
	    mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp &&
	    { [ ! -d /tmp/retry-after-0 ] || mount -t tmpfs -o ro,mode=755 \
	    none /tmp/retry-after-0; } &&
	    exec "$RETRY" -n 2 -b 0 -j none \
	    -- sh -c "echo \"[\$RETRY_AFTER_FILE]\" >&2; exit 3"'
	[ "${stderr_lines[0]}" = "retry: RETRY_AFTER_FILE: $msg: the variable is empty" ]
	[ "${stderr_lines[1]}" = "[]" ]
	[ "${stderr_lines[3]}" = "[]" ]
	[ "${#stderr_lines[@]}" -eq 5 ]
	# shellcheck disable=SC2016
	XDG_RUNTIME_DIR='' TMPDIR='' run -0 --separate-stderr unshare -m sh -c '
	    mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp &&
	    { [ ! -d /tmp/retry-after-0 ] || mount -t tmpfs -o ro,mode=755 \
	    none /tmp/retry-after-0; } &&
	    exec "$RETRY" --dry-run -n 1'
	[ -z "$stderr" ]
	[ "${lines[-1]}" = "# RETRY_AFTER_FILE will be empty: $msg" ]
}

@test "an attempt that removes the kept directory, or changes its mode, does not break the next" {
	cat >"$WORK/cmd" <<-'SH'
	#!/bin/sh
	d=$(dirname "$RETRY_AFTER_FILE")
	case $RETRY_ATTEMPT in
	1) rm -rf "$d" ;;
	2) chmod 777 "$d"; echo 10ms >"$RETRY_AFTER_FILE" ;;
	3) stat -c %a "$d" >&2; chmod 0 "$d" ;;
	*) stat -c %a "$d" >&2; echo stop >"$RETRY_AFTER_FILE" ;;
	esac
	exit 3
	SH
	run -3 --separate-stderr "$RETRY" -n 5 -b 0 -j none -- "$WORK/cmd"
	[ "${stderr_lines[0]}" = "retry: attempt 1/5 failed (exit 3), next in 0.000s" ]
	[ "${stderr_lines[1]}" = "retry: attempt 2/5 failed (exit 3), next in 0.010s (RETRY_AFTER_FILE: 10ms)" ]
	[ "${stderr_lines[2]}" = "700" ]
	[ "${stderr_lines[3]}" = "retry: attempt 3/5 failed (exit 3), next in 0.000s" ]
	[ "${stderr_lines[4]}" = "700" ]
	giving_up "${stderr_lines[5]}" 4 "exit 3" "RETRY_AFTER_FILE says stop"
}

# nobody_top MODE: a fresh directory of /tmp's in $TOP, with MODE, for
# the runs of as_nobody (root only: $WORK's parents only root may pass).
nobody_top() {
	[ "$(id -u)" = 0 ] || skip "needs root, to run retry as another user"
	require_tool setpriv
	TOP=$(mktemp -d /tmp/retry-tmpdir.XXXXXX)
	chmod "$1" "$TOP"
}

# as_nobody TMPDIR TOP: retry -n 2, run as nobody (uid 65534) without
# $XDG_RUNTIME_DIR and with TMPDIR, each attempt's RETRY_AFTER_FILE
# appended to TOP/out/names.
as_nobody() {
	mkdir -m 777 "$2/out"
	run -3 --separate-stderr env -u XDG_RUNTIME_DIR TMPDIR="$1" \
	    setpriv --reuid=65534 --regid=65534 --clear-groups "$RETRY" -q \
	    -n 2 -b 0 -- sh -c 'echo "$RETRY_AFTER_FILE" >>"$0"; exit 3' \
	    "$2/out/names"
	[ "$stderr" = "" ]
}

# A $TMPDIR where the user can make nothing (a shared, read-only one)
# passes to /tmp's kept directory, as a fresh one would go to /tmp: not a
# directory made and removed for every attempt.
@test "a \$TMPDIR that cannot be written passes to the kept directory in /tmp" {
	nobody_top 755
	mkdir -m 755 "$TOP/ro"
	as_nobody "$TOP/ro" "$TOP"
	run -0 cat "$TOP/out/names"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == /tmp/retry-after-65534/after.* ]]
	[[ ${lines[1]} == /tmp/retry-after-65534/after.* ]]
	[ "$(ls -A "$TOP/ro")" = "" ]
	rm -r "$TOP"
}

# A link that is the user's may still lead below another user's
# directory, who could rename what the command writes into.
@test "an XDG_RUNTIME_DIR whose link leads below another user's directory is passed over" {
	[ "$(id -u)" = 0 ] || skip "needs root, to make a directory another user's"
	TMPDIR=$WORK/tmp
	export TMPDIR
	mkdir -m 700 "$TMPDIR"
	mkdir -m 755 "$WORK/theirs"
	mkdir -m 700 "$WORK/theirs/mine"
	chown nobody "$WORK/theirs"
	ln -s "$WORK/theirs/mine" "$WORK/link"
	XDG_RUNTIME_DIR=$WORK/link run2
	[[ $stderr != *RETRY_AFTER_FILE* ]]
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$TMPDIR"/retry-after-"$(id -u)"/after.* ]]
	[ "$(ls -A "$WORK/theirs/mine")" = "" ]
	# The same directory, its parent root's: taken.
	chown root "$WORK/theirs"
	rm "$WORK/names"
	XDG_RUNTIME_DIR=$WORK/link run2
	run -0 cut -d' ' -f2 "$WORK/names"
	[[ ${lines[0]} == "$WORK"/link/retry-after/after.* ]]
}

# Another user's directory in $TMPDIR that the user cannot even open
# (0700) is refused as one the user can open is: a fresh directory in
# $TMPDIR, not a pass to /tmp as for a $TMPDIR where nothing can be made.
@test "another user's closed directory in \$TMPDIR leaves a fresh one there" {
	nobody_top 1777
	mkdir -m 700 "$TOP/retry-after-65534"
	as_nobody "$TOP" "$TOP"
	run -0 cat "$TOP/out/names"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == "$TOP"/retry-after.??????/after.* ]]
	[[ ${lines[1]} == "$TOP"/retry-after.??????/after.* ]]
	rm -r "$TOP"
}
