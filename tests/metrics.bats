#!/usr/bin/env bats
# --metrics-file: the run's end in the Prometheus text format, checked by
# promtool (Debian's prometheus package) for every way a run ends, and the
# file written whole or not at all: by a rename, never through a link or
# over what is not a regular file, and a failure one warning that leaves
# the exit status alone.

load helpers/common
load helpers/proc-common

setup() {
	proc_setup
	MNT=
}

teardown() {
	[[ -z $MNT ]] || umount "$MNT"
	proc_teardown
}

# promtool_ok FILE: promtool check metrics accepts FILE without a word.
promtool_ok() {
	require_tool promtool
	run -0 --separate-stderr promtool check metrics <"$1"
	[ "$output" = "" ]
	[ "$stderr" = "" ]
}

# samples FILE: FILE without its HELP and TYPE lines, the times masked.
samples() {
	grep -v '^#' "$1" |
	    sed -E 's/(_seconds\{name="[^"]*"\}) [0-9]+\.[0-9]+$/\1 T/'
}

# The samples of a run of ATTEMPTS attempts that exited STATUS with
# OUTCOME, and the line of the last success (or nothing) after them.
expected() {
	local name=$1 attempts=$2 status=$3 outcome=$4 success=$5 o
	printf 'retry_attempts{name="%s"} %s\n' "$name" "$attempts"
	printf 'retry_retries{name="%s"} %s\n' "$name" \
	    $((attempts > 0 ? attempts - 1 : 0))
	printf 'retry_exit_status{name="%s"} %s\n' "$name" "$status"
	for o in success gave_up stopped breaker_open; do
		printf 'retry_outcome{name="%s",outcome="%s"} %d\n' "$name" \
		    "$o" "$([[ $o == "$outcome" ]] && echo 1 || echo 0)"
	done
	printf 'retry_duration_seconds{name="%s"} T\n' "$name"
	printf 'retry_last_run_timestamp_seconds{name="%s"} T\n' "$name"
	[[ -z $success ]] ||
	    printf 'retry_last_success_timestamp_seconds{name="%s"} T\n' \
	    "$name"
}

# value FILE METRIC: the value of METRIC's one sample in FILE.
value() {
	sed -nE "s/^retry_$2\\{[^}]*\\} //p" "$1"
}

@test "--metrics-file: a first-try success, as promtool reads it" {
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/job.prom" \
	    -- true
	[ "$output" = "" ]
	[ "$stderr" = "" ]
	promtool_ok "$WORK/job.prom"
	[ "$(samples "$WORK/job.prom")" = "$(expected job 1 0 success y)" ]
	# Every metric has its HELP and TYPE lines: 7 gauges.
	[ "$(grep -c '^# HELP retry_' "$WORK/job.prom")" = 7 ]
	[ "$(grep -c '^# TYPE retry_[a-z_]* gauge$' "$WORK/job.prom")" = 7 ]
	# The success's time is the run's end, and the wall clock's.
	[ "$(value "$WORK/job.prom" last_success_timestamp_seconds)" = \
	    "$(value "$WORK/job.prom" last_run_timestamp_seconds)" ]
	(($(value "$WORK/job.prom" last_run_timestamp_seconds | cut -d. -f1) \
	    >= $(date +%s) - 60))
	# Only the file: no temporary file is left beside it.
	[ "$(cd "$WORK" && echo *.prom*)" = "job.prom" ]
}

@test "--metrics-file: giving up keeps the last success's time" {
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/job.prom" \
	    -- true
	success=$(value "$WORK/job.prom" last_success_timestamp_seconds)
	[ -n "$success" ]
	run -3 --separate-stderr "$RETRY" -n 2 -b 1ms \
	    --metrics-file="$WORK/job.prom" -- sh -c 'exit 3'
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" = 2 ]
	promtool_ok "$WORK/job.prom"
	[ "$(samples "$WORK/job.prom")" = "$(expected job 2 3 gave_up y)" ]
	[ "$(value "$WORK/job.prom" last_success_timestamp_seconds)" = \
	    "$success" ]
	# A run that never succeeded has no such line.
	rm "$WORK/job.prom"
	run -3 --separate-stderr "$RETRY" -n 1 \
	    --metrics-file="$WORK/job.prom" -- sh -c 'exit 3'
	[ "$(samples "$WORK/job.prom")" = "$(expected job 1 3 gave_up '')" ]
	promtool_ok "$WORK/job.prom"
}

@test "--metrics-file: -m reached, and a success exit 0 is not, gives up" {
	# Attempt 2 at 0.4 s; the sleep after it would end at 1.2 s: the
	# run gives up at once, with 0.6 s for a loaded machine to spare
	# before -m would cut an attempt (124).
	run -1 --separate-stderr "$RETRY" -n inf -b 400ms -j none -m 1s \
	    --metrics-file="$WORK/m.prom" -- false
	[[ ${stderr_lines[-1]} == *"(the next sleep would pass --max-time)" ]]
	promtool_ok "$WORK/m.prom"
	attempts=$(value "$WORK/m.prom" attempts)
	((attempts >= 2))
	[ "$(samples "$WORK/m.prom")" = "$(expected m "$attempts" 1 gave_up '')" ]
	# --success-on=1: a 0 that gives up exits 1, and the file says 1.
	run -1 --separate-stderr "$RETRY" -n 1 --success-on=1 \
	    --metrics-file="$WORK/m.prom" -- true
	[ "$(value "$WORK/m.prom" exit_status)" = 1 ]
	promtool_ok "$WORK/m.prom"
}

@test "--metrics-file: a stop signal during an attempt writes it too" {
	bg_retry -n 3 --metrics-file="$WORK/s.prom" -- \
	    sh -c 'echo >"$WORK/started"; exec sleep "$MARK"'
	wait_for_file "$WORK/started"
	wait_markers 1
	kill -TERM "$RPID"
	bg_wait
	[ "$WS" = "signal 15" ]
	[[ $(<"$WORK/err") =~ ^"retry: stopped by TERM during attempt 1/3 after "[0-9]+\.[0-9]{3}s$ ]]
	promtool_ok "$WORK/s.prom"
	[ "$(samples "$WORK/s.prom")" = "$(expected s 1 143 stopped '')" ]
}

@test "--metrics-file: an open breaker, and --until-failure's end" {
	export XDG_RUNTIME_DIR=$WORK
	run -1 --separate-stderr "$RETRY" -n 1 --breaker=b39,failures=1 \
	    --metrics-file="$WORK/b.prom" -- false
	run -75 --separate-stderr "$RETRY" -n 1 --breaker=b39,failures=1 \
	    --metrics-file="$WORK/b.prom" -- true
	[[ $stderr == "retry: circuit breaker 'b39' is open: not running"* ]]
	promtool_ok "$WORK/b.prom"
	[ "$(samples "$WORK/b.prom")" = "$(expected b 0 75 breaker_open '')" ]
	run -0 --separate-stderr "$RETRY" -n 2 -b 1ms --until-failure \
	    --metrics-file="$WORK/u.prom" -- true
	[ "$(samples "$WORK/u.prom")" = "$(expected u 2 0 success y)" ]
	promtool_ok "$WORK/u.prom"
}

@test "--metrics-file: the label is the file's name, escaped" {
	name=$'a"b\\c\x01d\xe2\x82\xac\xff'
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/$name.prom" \
	    -- true
	[ "$stderr" = "" ]
	promtool_ok "$WORK/$name.prom"
	[ "$(sed -n 's/^retry_attempts//p' "$WORK/$name.prom")" = \
	    $'{name="a\\"b\\\\c_d\xe2\x82\xac_"} 1' ]
	# Without .prom the whole name; --dry-run shows it.
	run -0 --separate-stderr "$RETRY" --dry-run -n 1 \
	    --metrics-file="$WORK/x.txt"
	[ "${lines[-1]}" = "# --metrics-file=$WORK/x.txt: written when the run ends, with name=\"x.txt\"" ]
	[ ! -e "$WORK/x.txt" ]
}

# Valid UTF-8 that shows nothing but changes what a reader sees: U+202E,
# which shows the rest of the label reversed on a dashboard, and U+009B,
# a C1 control (CSI) that some terminals obey; one '_' each.
@test "--metrics-file: bidirectional and C1 controls leave the label" {
	name=$'a\xe2\x80\xaeb\xc2\x9bc\xe2\x82\xac'
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/$name.prom" \
	    -- true
	[ "$stderr" = "" ]
	[ "$(sed -n 's/^retry_attempts//p' "$WORK/$name.prom")" = \
	    $'{name="a_b_c\xe2\x82\xac"} 1' ]
}

@test "--metrics-file: the new file is renamed over the old, never rewritten" {
	require_tool strace
	umask 022
	echo old >"$WORK/job.prom"
	qemu_cannot ptrace
	# LeakSanitizer cannot run under ptrace: off for this run.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    run -0 --separate-stderr strace -f -qq \
	    -e trace=open,openat,rename,renameat,renameat2,fsync \
	    -o "$WORK/trace" "$RETRY" --metrics-file="$WORK/job.prom" -- true
	[ "$stderr" = "" ]
	# Created exclusively beside it, synced, then renamed over it; the
	# old file is only read.  (musl calls open and rename, glibc openat,
	# and renameat where there is no rename.)
	at='(AT_FDCWD, )?' tmp="$WORK/job\\.prom\\.[A-Za-z0-9]{6}"
	grep -qE "open(at)?\\($at\"$tmp\", O_RDWR\\|O_CREAT\\|O_EXCL" \
	    "$WORK/trace"
	grep -qE '^[0-9]+ +fsync\(' "$WORK/trace"
	to="$at\"$WORK/job\\.prom\"(, 0)?"
	grep -qE "rename(at2?)?\\($at\"$tmp\", $to\\) = 0" "$WORK/trace"
	run -1 grep -E "open(at)?\\($at\"$WORK/job\\.prom\", O_(WR|RDWR)" \
	    "$WORK/trace"
	[ "$(stat -c %a "$WORK/job.prom")" = 644 ]
	umask 077
	run -0 "$RETRY" --metrics-file="$WORK/job.prom" -- true
	[ "$(stat -c %a "$WORK/job.prom")" = 600 ]
	[ "$(cd "$WORK" && echo job.prom*)" = "job.prom" ]
}

@test "--metrics-file: a reader never sees part of a file" {
	require_tool promtool
	"$RETRY" --metrics-file="$WORK/r.prom" -- true
	# 30 runs, each replacing the file, while a reader reads it whole.
	(for i in $(seq 30); do
		"$RETRY" -n 1 --metrics-file="$WORK/r.prom" -- true
	done; touch "$WORK/done") 3>&- &
	writer=$!
	reads=0
	until [[ -e $WORK/done ]]; do
		# Seven gauges, and the last line ends the file.
		text=$(<"$WORK/r.prom")
		[ "$(grep -c '^# TYPE' <<<"$text")" = 7 ]
		[[ $text == *'retry_last_success_timestamp_seconds{name="r"} '* ]]
		reads=$((reads + 1))
	done
	wait "$writer"
	((reads > 0))
	[ "$(cd "$WORK" && echo r.prom*)" = "r.prom" ]
}

@test "--metrics-file: no directory, or not writable: one warning, same status" {
	run -3 --separate-stderr "$RETRY" -n 1 \
	    --metrics-file="$WORK/none/job.prom" -- sh -c 'exit 3'
	# The warning comes as the file is written, before the last line.
	[ "${stderr_lines[0]}" = "retry: --metrics-file $WORK/none/job.prom: No such file or directory; not written, the exit status is unchanged" ]
	[[ ${stderr_lines[1]} =~ ^"retry: giving up after 1 attempt in "[0-9.]+"s: exit 3 (no attempts left)"$ ]]
	[ "${#stderr_lines[@]}" = 2 ]
	run -0 --separate-stderr "$RETRY" --metrics-file=/proc/job.prom -- true
	[[ $stderr =~ ^"retry: --metrics-file /proc/job.prom: "[A-Za-z\ ]+"; not written, the exit status is unchanged"$ ]]
	if (($(id -u) != 0)); then
		mkdir "$WORK/ro" && chmod 555 "$WORK/ro"
		run -0 --separate-stderr "$RETRY" \
		    --metrics-file="$WORK/ro/job.prom" -- true
		[ "$stderr" = "retry: --metrics-file $WORK/ro/job.prom: Permission denied; not written, the exit status is unchanged" ]
	fi
}

@test "--metrics-file: a directory, a FIFO or a link there is left alone" {
	warning() {
		echo "retry: --metrics-file $1: not a regular file; not written, the exit status is unchanged"
	}
	mkdir "$WORK/dir.prom"
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/dir.prom" \
	    -- true
	[ "$stderr" = "$(warning "$WORK/dir.prom")" ]
	[ -d "$WORK/dir.prom" ]
	# A FIFO: no wait for a writer, and it stays.
	mkfifo "$WORK/fifo.prom"
	run -0 --separate-stderr timeout 5 "$RETRY" \
	    --metrics-file="$WORK/fifo.prom" -- true
	[ "$stderr" = "$(warning "$WORK/fifo.prom")" ]
	[ -p "$WORK/fifo.prom" ]
	# A link: neither it nor its target changes.
	echo target >"$WORK/target"
	ln -s "$WORK/target" "$WORK/link.prom"
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/link.prom" \
	    -- true
	[ "$stderr" = "$(warning "$WORK/link.prom")" ]
	[ -L "$WORK/link.prom" ]
	[ "$(<"$WORK/target")" = target ]
	[ "$(cd "$WORK" && echo *.prom.*)" = '*.prom.*' ]
}

# Not even opened: a FIFO's open for reading let a writer blocked in its
# own open go on (and a device's open may act: a watchdog's starts it).
@test "--metrics-file: a FIFO or a device there is never opened" {
	require_tool strace
	qemu_cannot ptrace
	mkfifo "$WORK/fifo.prom"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    run -0 --separate-stderr strace -f -qq -e trace=open,openat \
	    -o "$WORK/trace" "$RETRY" --metrics-file="$WORK/fifo.prom" -- true
	[ "$stderr" = "retry: --metrics-file $WORK/fifo.prom: not a regular file; not written, the exit status is unchanged" ]
	run -1 grep -F "$WORK/fifo.prom\"" "$WORK/trace"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    run -0 --separate-stderr strace -f -qq -e trace=open,openat \
	    -o "$WORK/trace" "$RETRY" --metrics-file=/dev/zero -- true
	[ "$stderr" = "retry: --metrics-file /dev/zero: not a regular file; not written, the exit status is unchanged" ]
	run -1 grep -F '"/dev/zero"' "$WORK/trace"
}

@test "--metrics-file: a full disk keeps the old file whole" {
	[[ $(id -u) == 0 ]] || skip "mounting a small tmpfs needs root"
	mkdir "$WORK/full"
	mount -t tmpfs -o size=8k tmpfs "$WORK/full" 2>/dev/null ||
	    skip "cannot mount a tmpfs here (no CAP_SYS_ADMIN)"
	MNT=$WORK/full
	run -0 "$RETRY" --metrics-file="$MNT/job.prom" -- true
	cp "$MNT/job.prom" "$WORK/before"
	run -1 dd if=/dev/zero of="$MNT/fill" bs=1k
	run -4 --separate-stderr "$RETRY" -n 1 \
	    --metrics-file="$MNT/job.prom" -- sh -c 'exit 4'
	[ "${#stderr_lines[@]}" = 2 ]
	[ "${stderr_lines[0]}" = "retry: --metrics-file $MNT/job.prom: No space left on device; not written, the exit status is unchanged" ]
	cmp "$WORK/before" "$MNT/job.prom"
	[ "$(cd "$MNT" && echo *)" = "fill job.prom" ]
}

@test "--metrics-file: an old file that lies is not believed" {
	# A last success that is not a number, or far past 8 KiB, is dropped.
	{
		printf 'retry_last_success_timestamp_seconds{name="j"} 1e9\n'
	} >"$WORK/j.prom"
	run -1 "$RETRY" -n 1 --metrics-file="$WORK/j.prom" -- false
	run -1 grep -c last_success "$WORK/j.prom"
	{
		head -c 9000 /dev/zero | tr '\0' x
		printf '\nretry_last_success_timestamp_seconds{name="j"} 5.5\n'
	} >"$WORK/j.prom"
	run -1 "$RETRY" -n 1 --metrics-file="$WORK/j.prom" -- false
	run -1 grep -c last_success "$WORK/j.prom"
	# Nor a point alone, nor a line that the 8 KiB cut.
	printf 'retry_last_success_timestamp_seconds{name="j"} .\n' \
	    >"$WORK/j.prom"
	run -1 "$RETRY" -n 1 --metrics-file="$WORK/j.prom" -- false
	run -1 grep -c last_success "$WORK/j.prom"
	{
		head -c 8142 /dev/zero | tr '\0' x
		printf '\nretry_last_success_timestamp_seconds{name="j"} 5.5\n'
	} >"$WORK/j.prom"
	run -1 "$RETRY" -n 1 --metrics-file="$WORK/j.prom" -- false
	run -1 grep -c last_success "$WORK/j.prom"
	printf 'retry_last_success_timestamp_seconds{name="j"} 12.5\n' \
	    >"$WORK/j.prom"
	run -1 "$RETRY" -n 1 --metrics-file="$WORK/j.prom" -- false
	[ "$(value "$WORK/j.prom" last_success_timestamp_seconds)" = 12.5 ]
	promtool_ok "$WORK/j.prom"
}

@test "--metrics-file: an empty name is refused" {
	run -125 --separate-stderr "$RETRY" --metrics-file= -- true
	[ "$stderr" = "retry: invalid --metrics-file '': empty file name; try 'retry --help'" ]
}

# A name of 249 to 255 bytes: NAME.XXXXXX would pass NAME_MAX, and the
# file was "not written: File name too long".  The temporary name is cut
# to fit instead, and renamed over the whole name.
@test "--metrics-file: a name of 255 bytes is written too" {
	local name
	name=$(printf '%0250d.prom' 0)
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/$name" -- true
	[ "$stderr" = "" ]
	[ "$(value "$WORK/$name" attempts)" = 1 ]
	[ "$(cd "$WORK" && echo 0*)" = "$name" ]
	name=$(printf '%0249d' 0)
	run -0 --separate-stderr "$RETRY" --metrics-file="$WORK/$name" -- true
	[ "$stderr" = "" ]
	[ "$(value "$WORK/$name" exit_status)" = 0 ]
}
