#!/usr/bin/env bats
# Issue 12: --http=FILE.  The command saves its response head in FILE (as
# curl -D FILE does); the last head with a final status (200-599) joins
# the outcome: the user's http: items, then the default (408, 429, 500,
# 502, 503, 504 retried, other statuses from 400 not), then the exit
# status.  Retry-After on a retried response adds the server's delay to
# the jittered sleep.  Two kinds of tests: a fake command that writes
# given heads (the parsing and the policy, no network), and real curl
# against a scripted server on 127.0.0.1 (helpers/http-server) that logs
# when each request came, for counts and gaps between requests.  Gaps
# have lower bounds from Retry-After and generous upper bounds only.

load helpers/common
load helpers/core
load helpers/http

setup() {
	common_setup
	unset RETRY_PREV_HTTP_STATUS
	# The fake command: logs its attempt and RETRY_PREV_HTTP_STATUS,
	# notes when FILE was not empty at its start, writes the head of
	# this attempt ($WORK/head.K) to FILE, prints $SAY if set, and fails
	# as $CODES says.
	codes_script "$WORK/cmd" '
		echo "$RETRY_ATTEMPT ${RETRY_PREV_HTTP_STATUS-unset}" >>"$WORK/log"
		[ -s "$WORK/h" ] && echo "$RETRY_ATTEMPT" >>"$WORK/dirty"
		[ -e "$WORK/head.$RETRY_ATTEMPT" ] &&
		    cat "$WORK/head.$RETRY_ATTEMPT" >"$WORK/h"
		[ -n "${SAY-}" ] && echo "$SAY"
		:'
}

teardown() {
	http_teardown
}

# answer K TEXT: attempt K writes TEXT (printf %b: \r\n and the like).
answer() {
	printf '%b' "$2" >"$WORK/head.$1"
}

# attempts N: the fake command ran N times.
attempts() {
	local n=0
	[[ -e $WORK/log ]] && n=$(wc -l <"$WORK/log")
	[[ $n -eq $1 ]] || { echo "$n attempts, expected $1" >&2; return 1; }
}

# fake ARG...: retry ARG... --http=$WORK/h -- $WORK/cmd, quickly; FILE
# among its words, as in curl -D FILE.
fake() {
	quick "$@" --http="$WORK/h" -- "$WORK/cmd" "$WORK/h"
}

# ignored VALUE...: each value, alone in a 503's Retry-After, is ignored,
# -v says why, and the next attempt comes after the usual sleep.
ignored() {
	local v
	for v; do
		rm -f "$WORK/log"
		answer 1 "HTTP/1.1 503 X\r\nRetry-After: $v\r\n\r\n"
		CODES="22 0" fake -b 0 -v
		[ "$status" -eq 0 ]
		line_is 2 "retry: attempt 1/5: ignoring Retry-After '$v': neither seconds nor an HTTP-date"
		line_is 3 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s"
		attempts 2
	done
}

# --- the head: which one counts, and how it is read ---------------------

@test "the status of the head joins the outcome in the messages" {
	answer 1 'HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n'
	answer 2 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	nlines 6
	line_is 0 "retry: attempt 1/5 starting"
	line_like 1 "retry: attempt 1/5 ended after ${T}s: HTTP 503, exit 22"
	line_is 2 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s"
	line_is 3 "retry: attempt 2/5 starting"
	line_like 4 "retry: attempt 2/5 ended after ${T}s: HTTP 200"
	line_like 5 "retry: succeeded on attempt 2/5 after ${T}s"
	attempts 2
}

@test "the last head with a final status counts: 1xx, redirects, LF or CRLF" {
	# A redirect, then 100 Continue, then the 503 that counts; lower
	# case names, HTTP/2's empty reason.
	answer 1 'HTTP/1.1 301 Moved\r\nLocation: /b\r\nRetry-After: 99\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/2 503 \r\nretry-after: 0\r\n\r\nbody\n'
	# Plain LF; an interim head after the final one does not count.
	answer 2 'HTTP/1.0 429 Too Many\nRETRY-AFTER:0\n\nHTTP/1.1 103 Early Hints\nLink: </x>\n\n'
	answer 3 'HTTP/1.1 302 Found\r\n\r\nHTTP/1.1 200 OK\r\n\r\n'
	CODES="0 0 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 3
	line_like 2 "retry: succeeded on attempt 3/5 after ${T}s"
	line_is 0 "retry: attempt 1/5 failed (HTTP 503), next in 0.000s (Retry-After: 0)"
	line_is 1 "retry: attempt 2/5 failed (HTTP 429), next in 0.000s (Retry-After: 0)"
	attempts 3
}

@test "folded and malformed lines are skipped, not fatal" {
	# A folded Retry-After, one with a blank before the colon, a line
	# without a colon and one with a NUL: none of them is a field.
	answer 1 'HTTP/1.1 503 Busy\r\nX-A: 1\r\n Retry-After: 7\r\nRetry-After : 7\r\nno colon here\r\nX-\0: 2\r\n\r\n'
	CODES="22 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 2
	line_like 1 "retry: succeeded on attempt 2/5 after ${T}s"
	line_is 0 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s"
	attempts 2
}

@test "no head, or none with a final status: the exit status decides" {
	# Nothing written (a failed connection), garbage, a bad status line,
	# an interim head only: no response, and exit 7 is retried as usual.
	answer 2 'garbage\r\n\r\n'
	answer 3 'HTTP/1.1 99 Low\r\n\r\nHTTP/x 503 Bad\r\n\r\nHTTP/1.1 5033 Long\r\n\r\n HTTP/1.1 503 Indented\r\n\r\nHTTP/1.1 600 High\r\n\r\n'
	answer 4 'HTTP/1.1 100 Continue\r\n\r\n'
	CODES="7 7 7 7 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 5
	line_like 4 "retry: succeeded on attempt 5/5 after ${T}s"
	line_is 0 "retry: attempt 1/5 failed (exit 7), next in 0.000s"
	line_is 1 "retry: attempt 2/5 failed (exit 7), next in 0.000s"
	line_is 2 "retry: attempt 3/5 failed (exit 7), next in 0.000s"
	line_is 3 "retry: attempt 4/5 failed (exit 7), next in 0.000s"
	attempts 5
}

@test "FILE is read up to 64 KiB; a larger one is no response, -v says so" {
	local pad
	pad=$(printf '%*s' 1000 '' | tr ' ' x)
	{
		printf 'HTTP/1.1 404 Not Found\r\n'
		for i in $(seq 70); do
			printf 'X-Pad: %s\r\n' "$pad"
		done
		printf '\r\n'
	} >"$WORK/head.1"
	# 70 lines of 1009 bytes: more than 65536 bytes.
	[ "$(wc -c <"$WORK/head.1")" -gt 65536 ]
	CODES="3 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	line_is 0 "retry: attempt 1/5 starting"
	line_is 1 "retry: attempt 1/5: $WORK/h: more than 64 KiB, taken as no response"
	line_like 2 "retry: attempt 1/5 ended after ${T}s: exit 3"
	line_is 3 "retry: attempt 1/5 failed (exit 3), next in 0.000s"
	# The same head cut to 64 KiB is read: 404 is not retried.
	rm "$WORK/log"
	head -c 65534 "$WORK/head.1" >"$WORK/head.cut"
	printf '\r\n' >>"$WORK/head.cut"
	mv "$WORK/head.cut" "$WORK/head.1"
	CODES=22 fake -b 0
	[ "$status" -eq 22 ]
	giving_up "$stderr" 1 "HTTP 404, exit 22" "not retried"
	attempts 1
}

@test "FILE is emptied before each attempt, created if missing, and keeps the final head" {
	answer 1 'HTTP/1.1 500 Oops\r\n\r\n'
	answer 3 'HTTP/1.1 200 OK\r\n\r\n'
	# Attempt 2 writes nothing: it must find FILE empty, and so get "no
	# response", not attempt 1's 500.
	umask 027
	CODES="22 7 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 3
	line_like 2 "retry: succeeded on attempt 3/5 after ${T}s"
	line_is 0 "retry: attempt 1/5 failed (HTTP 500, exit 22), next in 0.000s"
	line_is 1 "retry: attempt 2/5 failed (exit 7), next in 0.000s"
	[ ! -e "$WORK/dirty" ]
	[ "$(cat "$WORK/h")" = "$(printf 'HTTP/1.1 200 OK\r\n\r')" ]
	# Created 0666 less the umask.
	[ "$(stat -c %a "$WORK/h")" = 640 ]
	# An existing FILE keeps its mode and is emptied.
	rm "$WORK/log"
	chmod 600 "$WORK/h"
	CODES=0 fake -b 0
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$WORK/h")" = 600 ]
	[ ! -e "$WORK/dirty" ]
}

@test "a FILE that cannot be written is an error: 125, and nothing runs" {
	quick --http="$WORK/no/such/dir/h" -- "$WORK/cmd"
	[ "$status" -eq 125 ]
	[ "$stderr" = "retry: --http $WORK/no/such/dir/h: No such file or directory" ]
	attempts 0
	quick --dry-run --http= true
	usage_error "invalid --http '': empty file name"
}

# --- the policy -----------------------------------------------------------

@test "408, 429, 500, 502, 503 and 504 are retried by default" {
	local code k=1
	for code in 408 429 500 502 503 504; do
		answer "$k" "HTTP/1.1 $code X\r\n\r\n"
		k=$((k + 1))
	done
	answer 7 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 22 22 22 22 22 0" fake -n 10 -b 0
	[ "$status" -eq 0 ]
	nlines 7
	line_like 6 "retry: succeeded on attempt 7/10 after ${T}s"
	k=0
	for code in 408 429 500 502 503 504; do
		line_is "$k" "retry: attempt $((k + 1))/10 failed (HTTP $code, exit 22), next in 0.000s"
		k=$((k + 1))
	done
	attempts 7
}

@test "other statuses from 400 are not retried" {
	local code
	for code in 400 401 403 404 409 422 499 501 505 511 599; do
		rm -f "$WORK/log"
		answer 1 "HTTP/1.1 $code X\r\n\r\n"
		CODES=22 fake -b 0
		[ "$status" -eq 22 ]
		giving_up "$stderr" 1 "HTTP $code, exit 22" "not retried"
		attempts 1
	done
}

@test "a retried status is retried also when the command exited 0; giving up then exits 1" {
	answer 1 'HTTP/1.1 503 Busy\r\n\r\n'
	answer 2 'HTTP/1.1 503 Busy\r\n\r\n'
	CODES=0 fake -n 2 -b 0
	[ "$status" -eq 1 ]
	nlines 2
	line_is 0 "retry: attempt 1/2 failed (HTTP 503), next in 0.000s"
	giving_up "${stderr_lines[1]}" 2 "HTTP 503" "no attempts left; exiting 1"
	attempts 2
	# A 404 with exit 0 (curl without -f) stops, and is no success.
	rm "$WORK/log"
	answer 1 'HTTP/1.1 404 Not Found\r\n\r\n'
	CODES=0 fake -b 0
	[ "$status" -eq 1 ]
	giving_up "$stderr" 1 "HTTP 404" "not retried; exiting 1"
	attempts 1
}

@test "below 400 the exit status decides" {
	local code
	for code in 200 204 301 304 399; do
		rm -f "$WORK/log"
		answer 1 "HTTP/1.1 $code X\r\n\r\n"
		answer 2 "HTTP/1.1 $code X\r\n\r\n"
		CODES="3 0" fake -b 0
		[ "$status" -eq 0 ]
		nlines 2
		line_is 0 "retry: attempt 1/5 failed (HTTP $code, exit 3), next in 0.000s"
		line_like 1 "retry: succeeded on attempt 2/5 after ${T}s"
		attempts 2
	done
}

@test "the user's http: items come first: -x, -r, --success-on, Nxx" {
	answer 1 'HTTP/1.1 503 Busy\r\n\r\n'
	CODES=22 fake -b 0 -x http:503
	[ "$status" -eq 22 ]
	giving_up "$stderr" 1 "HTTP 503, exit 22" "not retried"
	attempts 1
	# -x wins over the default and over -r, as for exit codes.
	rm "$WORK/log"
	CODES=22 fake -b 0 -r http:5xx -x http:5XX
	[ "$status" -eq 22 ]
	attempts 1
	rm "$WORK/log"
	answer 1 'HTTP/1.1 404 Not Found\r\n\r\n'
	answer 2 'HTTP/1.1 410 Gone\r\n\r\n'
	CODES="22 22 22" fake -n 3 -b 0 -r http:404,HTTP:410
	[ "$status" -eq 22 ]
	nlines 3
	line_is 0 "retry: attempt 1/3 failed (HTTP 404, exit 22), next in 0.000s"
	line_is 1 "retry: attempt 2/3 failed (HTTP 410, exit 22), next in 0.000s"
	giving_up "${stderr_lines[2]}" 3 "exit 22" "no attempts left"
	attempts 3
}

@test "--success-on=http:304 is a success, and retry exits with the command's status" {
	answer 1 'HTTP/1.1 304 Not Modified\r\n\r\n'
	CODES=3 fake -b 0 --success-on=http:304
	[ "$status" -eq 3 ]
	[ -z "$stderr" ]
	attempts 1
	# It even makes a status that is retried by default a success.
	rm "$WORK/log"
	answer 1 'HTTP/1.1 503 Busy\r\n\r\n'
	CODES=22 fake -b 0 --success-on=http:5xx
	[ "$status" -eq 22 ]
	[ -z "$stderr" ]
	attempts 1
}

@test "output conditions come before the HTTP rules" {
	answer 1 'HTTP/1.1 503 Busy\r\n\r\n'
	SAY=ready CODES=22 fake -b 0 --success-if-output=ready
	[ "$status" -eq 22 ]
	[ "$output" = ready ]
	[ -z "$stderr" ]
	attempts 1
	rm "$WORK/log"
	answer 1 'HTTP/1.1 200 OK\r\n\r\n'
	SAY=busy CODES=0 fake -n 2 -b 0 --retry-if-output=busy
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "retry: attempt 1/2 failed (HTTP 200, exit 0, output matched 'busy'), next in 0.000s" ]
	attempts 2
}

@test "a list of http: items alone keeps the default for exit codes" {
	# No response, exit 7: still retried under -r http:404 and still a
	# success on exit 0 under --success-on=http:304.
	CODES="7 0" fake -b 0 -r http:404 --success-on=http:304
	[ "$status" -eq 0 ]
	nlines 2
	line_is 0 "retry: attempt 1/5 failed (exit 7), next in 0.000s"
	line_like 1 "retry: succeeded on attempt 2/5 after ${T}s"
	attempts 2
	# An exit-code item replaces that part: 7 is no longer retried.
	rm "$WORK/log"
	CODES="7 0" fake -b 0 -r http:404,3
	[ "$status" -eq 7 ]
	giving_up "$stderr" 1 "exit 7" "not retried"
	attempts 1
}

@test "RETRY_PREV_HTTP_STATUS: empty first, then the previous status or empty" {
	answer 1 'HTTP/1.1 502 Bad Gateway\r\n\r\n'
	answer 3 'HTTP/1.1 200 OK\r\n\r\n'
	RETRY_PREV_HTTP_STATUS=77 CODES="22 7 0" fake -q -b 0
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(cat "$WORK/log")" = "1 
2 502
3 " ]
	# Without --http it is set, and empty.
	run -0 --separate-stderr env RETRY_PREV_HTTP_STATUS=5 "$RETRY" -n 1 \
	    sh -c 'echo "${RETRY_PREV_HTTP_STATUS-unset}|"'
	[ -z "$stderr" ]
	[ "$output" = "|" ]
}

# --- Retry-After, as the fake command writes it ------------------------

@test "Retry-After: HTTP-dates in the past count as 0, in all three forms" {
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n'
	answer 2 'HTTP/1.1 503 X\r\nRetry-After: Sunday, 06-Nov-94 08:49:37 GMT\r\n\r\n'
	answer 3 'HTTP/1.1 503 X\r\nRetry-After: Sun Nov  6 08:49:37 1994\r\n\r\n'
	answer 4 'HTTP/1.1 503 X\r\nRetry-After: Thu Feb 29 23:59:60 2024\r\n\r\n'
	answer 5 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 22 22 22 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	[ "$(grep -c 'ignoring' <<<"$stderr")" -eq 0 ]
	grep -qxF "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s (Retry-After: Sun, 06 Nov 1994 08:49:37 GMT)" <<<"$stderr"
	grep -qxF "retry: attempt 2/5 failed (HTTP 503, exit 22), next in 0.000s (Retry-After: Sunday, 06-Nov-94 08:49:37 GMT)" <<<"$stderr"
	grep -qxF "retry: attempt 3/5 failed (HTTP 503, exit 22), next in 0.000s (Retry-After: Sun Nov  6 08:49:37 1994)" <<<"$stderr"
	grep -qxF "retry: attempt 4/5 failed (HTTP 503, exit 22), next in 0.000s (Retry-After: Thu Feb 29 23:59:60 2024)" <<<"$stderr"
	attempts 5
}

@test "Retry-After: a value that is not a number of seconds is ignored" {
	ignored soon -5 1.5 5s 0x10 '+3' '3 4'
}

@test "Retry-After: a date in none of the three forms is ignored" {
	ignored 'Sun, 06 Nov 1994 08:49:37 UTC' \
	    'sun, 06 Nov 1994 08:49:37 GMT' 'Sun, 6 Nov 1994 08:49:37 GMT' \
	    'Sun,06 Nov 1994 08:49:37 GMT' 'Sunday, 06-Nov-1994 08:49:37 GMT' \
	    'Sun Nov 6 08:49:37 1994' 'Sun Nov  6 08:49:37 94' \
	    'Sun, 06 Nov 1994 08:49:37 GMT x' '2026-11-23T05:00:00Z'
}

@test "Retry-After: a date that does not exist is ignored" {
	ignored 'Sun, 31 Nov 1994 08:49:37 GMT' 'Sun, 29 Feb 2023 08:49:37 GMT' \
	    'Sun, 29 Feb 1900 08:49:37 GMT' 'Sun, 00 Nov 1994 08:49:37 GMT' \
	    'Sun, 06 Nov 1994 24:00:00 GMT' 'Sun, 06 Nov 1994 08:60:00 GMT' \
	    'Sun, 06 Nov 1994 08:49:61 GMT' 'Sun, 06 Abc 1994 08:49:37 GMT'
}

@test "Retry-After: twice, or not plain text, is ignored; quietly without -v" {
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: 1\r\nRetry-After: 1\r\n\r\n'
	CODES="22 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	line_is 2 "retry: attempt 1/5: ignoring Retry-After: given more than once"
	rm "$WORK/log"
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: 1\x01\r\n\r\n'
	CODES="22 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	line_is 2 "retry: attempt 1/5: ignoring Retry-After: too long or not plain text"
	rm "$WORK/log"
	answer 1 "HTTP/1.1 503 X\r\nRetry-After: $(printf '%070d' 5)\r\n\r\n"
	CODES="22 0" fake -b 0 -v
	[ "$status" -eq 0 ]
	line_is 2 "retry: attempt 1/5: ignoring Retry-After: too long or not plain text"
	rm "$WORK/log"
	CODES="22 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 2
	line_is 0 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s"
	line_like 1 "retry: succeeded on attempt 2/5 after ${T}s"
}

@test "Retry-After above --cap: honoured up to -m or an hour; ignored on a stop or a success" {
	# Issue 38: it used to end the run whenever it passed --cap.
	answer 1 'HTTP/1.1 429 Too Many\r\nRetry-After: 3601\r\n\r\n'
	CODES=0 fake
	[ "$status" -eq 1 ]
	giving_up "$stderr" 1 "HTTP 429" "the server asks to wait 3601s, more than the 1h retry waits without --max-time; exiting 1"
	attempts 1
	rm "$WORK/log"
	answer 1 'HTTP/1.1 429 Too Many\r\nRetry-After: 3600\r\n\r\n'
	CODES=22 fake -c 1.5s -b 1s -m 1h
	[ "$status" -eq 22 ]
	giving_up "$stderr" 1 "HTTP 429, exit 22" "the server asks to wait 3600s, past --max-time"
	# Within -m, above --cap: it waits, and -v says so.
	rm "$WORK/log"
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: 1\r\n\r\n'
	answer 2 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 0" fake -c 10ms -b 0 -v -m 1h
	[ "$status" -eq 0 ]
	line_is 2 "retry: attempt 1/5: the server asks to wait 1s, more than --cap: waiting for it"
	line_is 3 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 1.000s (Retry-After: 1)"
	attempts 2
	# Huge values saturate at 100 years.
	rm "$WORK/log"
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: 99999999999999999999999\r\n\r\n'
	CODES=22 fake -b 0
	giving_up "$stderr" 1 "HTTP 503, exit 22" "the server asks to wait 3155760000s, more than the 1h retry waits without --max-time"
	# A 404's or a 200's Retry-After means nothing to retry.
	rm "$WORK/log"
	answer 1 'HTTP/1.1 404 X\r\nRetry-After: 3600\r\n\r\n'
	CODES=22 fake -b 0
	giving_up "$stderr" 1 "HTTP 404, exit 22" "not retried"
	answer 1 'HTTP/1.1 200 OK\r\nRetry-After: 3600\r\n\r\n'
	CODES=0 fake -b 0
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "Retry-After: RFC 850 years are at most 50 years ahead" {
	local y now ahead past
	now=$(date -u +%Y)
	ahead=$(printf '%02d' $(((now + 40) % 100)))
	past=$(printf '%02d' $(((now + 60) % 100)))
	# 40 years ahead is far above --cap; 60 "ahead" is 40 years ago.
	answer 1 "HTTP/1.1 503 X\r\nRetry-After: Monday, 01-Jan-$ahead 00:00:00 GMT\r\n\r\n"
	CODES=22 fake -b 0
	[ "$status" -eq 22 ]
	[[ $stderr =~ "(the server asks to wait "([0-9]+)"s, more than the 1h retry waits without --max-time)"$ ]]
	y=${BASH_REMATCH[1]}
	# From 39 to 41 years, whatever the day of the year.
	((y > 39 * 365 * 86400 && y < 41 * 366 * 86400))
	rm "$WORK/log"
	answer 1 "HTTP/1.1 503 X\r\nRetry-After: Monday, 01-Jan-$past 00:00:00 GMT\r\n\r\n"
	answer 2 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 0" fake -b 0
	[ "$status" -eq 0 ]
	nlines 2
	line_is 0 "retry: attempt 1/5 failed (HTTP 503, exit 22), next in 0.000s (Retry-After: Monday, 01-Jan-$past 00:00:00 GMT)"
	line_like 1 "retry: succeeded on attempt 2/5 after ${T}s"
}

@test "--log-format=json: attempt_end has http_status, sleep has retry_after" {
	need_tool jq
	answer 1 'HTTP/1.1 503 X\r\nRetry-After: 0\r\n\r\n'
	answer 3 'HTTP/1.1 200 OK\r\n\r\n'
	CODES="22 7 0" fake -b 0 --log-format=json
	[ "$status" -eq 0 ]
	printf '%s\n' "$stderr" >"$WORK/json"
	run -0 jq -sc '[.[] | select(.event == "attempt_end") | .http_status],
	    [.[] | select(.event == "sleep") | .retry_after]' "$WORK/json"
	[ "${lines[0]}" = "[503,null,200]" ]
	[ "${lines[1]}" = "[0,null]" ]
	# Without --http the events are as they were.
	run -0 --separate-stderr "$RETRY" --log-format=json -n 1 true
	[[ $stderr != *http_status* && $stderr != *retry_after* ]]
}

# --- real curl against the scripted server --------------------------------

@test "curl: 503 with Retry-After: 2, then 200: the next request waits for the server" {
	serve '503|0|2' '200'
	run -0 --separate-stderr "$RETRY" -b 10ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	[ "$output" = "answer 2: 200" ]
	nlines 3
	line_like 2 "retry: succeeded on attempt 2/5 after ${T}s"
	line_like 0 "$CURL22"
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503, exit 22\), next in 2\.0[01][0-9]s \(Retry-After: 2\)"
	requests 2
	gap_between 1 2 2000 6000
	# FILE holds the final head.
	[[ $(head -n 1 "$WORK/h") == "HTTP/1.0 200 OK"$'\r' ]]
}

@test "curl: 404 is not retried; 429 then 502 then 200 are" {
	serve '404'
	run -22 --separate-stderr "$RETRY" -b 10ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 2
	line_like 0 "$CURL22"
	giving_up "${stderr_lines[1]}" 1 "HTTP 404, exit 22" "not retried"
	requests 1
	http_teardown
	rm "$WORK/port"
	serve '429' '502' '200'
	run -0 --separate-stderr "$RETRY" -b 10ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 5
	line_like 4 "retry: succeeded on attempt 3/5 after ${T}s"
	line_like 1 "retry: attempt 1/5 failed \(HTTP 429, exit 22\), next in 0\.0[01][0-9]s"
	line_like 3 "retry: attempt 2/5 failed \(HTTP 502, exit 22\), next in 0\.0[0-4][0-9]s"
	requests 3
}

@test "curl: no server at all is no response, retried by its exit status" {
	local port
	need_tool python3
	need_tool curl
	# A port that was free a moment ago: connection refused, curl exit 7.
	port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	run -7 --separate-stderr "$RETRY" -n 2 -b 0 --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "http://127.0.0.1:$port/"
	nlines 4
	line_like 0 "curl: \(7\) .*"
	line_is 1 "retry: attempt 1/2 failed (exit 7), next in 0.000s"
	line_like 2 "curl: \(7\) .*"
	giving_up "${stderr_lines[3]}" 2 "exit 7" "no attempts left"
	[ ! -s "$WORK/h" ]
}

@test "curl: Retry-After as an HTTP-date, in the three forms" {
	serve '503|0|@imf+2' '503|0|@rfc850+2' '503|0|@asctime+2' '200'
	run -0 --separate-stderr "$RETRY" -b 1ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 7
	line_like 6 "retry: succeeded on attempt 4/5 after ${T}s"
	local d='[0-9]{2}'
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503, exit 22\), next in [0-9]\.[0-9]{3}s \(Retry-After: [A-Z][a-z]{2}, $d [A-Z][a-z]{2} [0-9]{4} $d:$d:$d GMT\)"
	line_like 3 "retry: attempt 2/5 failed \(HTTP 503, exit 22\), next in [0-9]\.[0-9]{3}s \(Retry-After: [A-Z][a-z]+day, $d-[A-Z][a-z]{2}-$d $d:$d:$d GMT\)"
	line_like 5 "retry: attempt 3/5 failed \(HTTP 503, exit 22\), next in [0-9]\.[0-9]{3}s \(Retry-After: [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] $d:$d:$d [0-9]{4}\)"
	requests 4
	# Whole seconds: 2 s from a time within a second is more than 1 s.
	gap_between 1 2 1000 5000
	gap_between 2 3 1000 5000
	gap_between 3 4 1000 5000
}

@test "curl: a Retry-After date in the past counts as 0 (curl 7.88's own --retry hangs there)" {
	serve '503|0|@imf-3600' '200'
	run -0 --separate-stderr "$RETRY" -b 1ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 3
	line_like 2 "retry: succeeded on attempt 2/5 after ${T}s"
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503, exit 22\), next in 0\.00[01]s \(Retry-After: .* GMT\)"
	requests 2
	gap_between 1 2 0 3000
}

@test "curl: a Retry-After above --cap is honoured; past -m it ends the run at once" {
	serve '503|0|2' '200'
	run -0 --separate-stderr "$RETRY" -c 100ms -b 1ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 3
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503, exit 22\), next in 2\.[0-9]{3}s \(Retry-After: 2\)"
	requests 2
	gap_between 1 2 2000 8000
	http_teardown
	rm "$WORK/port"
	serve '429|0|3600'
	run -22 --separate-stderr "$RETRY" -c 60s -m 30s --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 2
	giving_up "${stderr_lines[1]}" 1 "HTTP 429, exit 22" \
	    "the server asks to wait 3600s, past --max-time"
	requests 1
}

@test "curl without -D: an empty head file is named once, with how to fill it" {
	serve '404' '404' '404'
	run -22 --separate-stderr "$RETRY" -n 3 -b 1ms --http="$WORK/h" -- \
	    curl -fsS "$URL"
	nlines 7
	line_is 1 "retry: --http $WORK/h: the command wrote no HTTP head there; curl writes it with -D $WORK/h (--dump-header)"
	line_like 2 "retry: attempt 1/3 failed \(exit 22\), next in ${T}s"
	line_like 4 "retry: attempt 2/3 failed \(exit 22\), next in ${T}s"
	giving_up "${stderr_lines[6]}" 3 "exit 22" "no attempts left"
	# With -D, a refused connection leaves it empty too: no warning.
	http_teardown
	run -7 --separate-stderr "$RETRY" -n 2 -b 1ms --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 4
	giving_up "${stderr_lines[3]}" 2 "exit 7" "no attempts left"
}

@test "curl: a Retry-After that would pass --max-time ends the run at once" {
	serve '503|0|5'
	run -22 --separate-stderr "$RETRY" -m 3s --http="$WORK/h" -- \
	    curl -fsS -D "$WORK/h" "$URL"
	nlines 2
	giving_up "${stderr_lines[1]}" 1 "HTTP 503, exit 22" \
	    "the next sleep would pass --max-time"
	requests 1
}

@test "curl: POST with -I sends the whole body every time" {
	serve '503|0|0' '200'
	run -0 --separate-stderr bash -c 'printf "hello, world" |
	    "$RETRY" -I -b 1ms --http="$WORK/h" -- curl -fsS -D "$WORK/h" \
	    --data-binary @- "$1"' bash "$URL"
	nlines 3
	line_like 2 "retry: succeeded on attempt 2/5 after ${T}s"
	requests 2
	[ "$(awk '{ print $3, $5 }' "$WORK/requests")" = "POST 12
POST 12" ]
}

@test "curl: -O gives a pipe one whole reply, without -f" {
	serve '503|0|0' '200'
	run -0 --separate-stderr bash -c '"$RETRY" -O -b 1ms \
	    --http="$WORK/h" -- curl -sS -D "$WORK/h" "$1" | tr a-z A-Z' \
	    bash "$URL"
	[ "$output" = "ANSWER 2: 200" ]
	# The failed attempt's reply goes to stderr.
	nlines 3
	line_like 2 "retry: succeeded on attempt 2/5 after ${T}s"
	line_is 0 "answer 1: 503"
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503\), next in 0\.00[01]s \(Retry-After: 0\)"
	requests 2
}

@test "curl -L: the redirect's head is not the one that counts" {
	serve '302|0|60|/next' '503|0|0' '302|0||/next' '200'
	run -0 --separate-stderr "$RETRY" -b 1ms --http="$WORK/h" -- \
	    curl -fsSL -D "$WORK/h" "$URL"
	nlines 3
	line_like 2 "retry: succeeded on attempt 2/5 after ${T}s"
	line_like 1 "retry: attempt 1/5 failed \(HTTP 503, exit 22\), next in 0\.00[01]s \(Retry-After: 0\)"
	requests 4
	[ "$(awk '{ print $4 }' "$WORK/requests" | tr '\n' ' ')" = "/ /next / /next " ]
}

# --- lists and other things of issue 12 -----------------------------------

@test "a list that starts with + adds to the default" {
	# 126 is not in the default --retry-on; +126 keeps the rest.
	CODES="126 1 0" quick -b 0 -r +126 "$WORK/cmd"
	[ "$status" -eq 0 ]
	nlines 3
	line_like 2 "retry: succeeded on attempt 3/5 after ${T}s"
	line_is 0 "retry: attempt 1/5 failed (exit 126), next in 0.000s"
	line_is 1 "retry: attempt 2/5 failed (exit 1), next in 0.000s"
	# --success-on=+3: 0 still succeeds, 3 too.
	rm "$WORK/log"
	CODES=3 quick -b 0 --success-on=+3 "$WORK/cmd"
	[ "$status" -eq 3 ]
	[ -z "$stderr" ]
	attempts 1
	rm "$WORK/log"
	CODES=0 quick -b 0 --success-on=+3 "$WORK/cmd"
	quiet_success
	# -x has no default: + changes nothing there.
	rm "$WORK/log"
	CODES=4 quick -b 0 -x +4 "$WORK/cmd"
	[ "$status" -eq 4 ]
	giving_up "$stderr" 1 "exit 4" "not retried"
	attempts 1
}

@test "--log-format takes its values in any case" {
	run -0 --separate-stderr "$RETRY" --log-format=JSON -n 1 true
	[[ $stderr == '{"event":"start"'* ]]
	run -0 --separate-stderr "$RETRY" --log-format=Text -v -n 1 true
	[ "${stderr%%$'\n'*}" = "retry: attempt 1/1 starting" ]
	quick --dry-run --log-format=xml
	usage_error "invalid --log-format 'xml': expected text, json or github"
}

@test "a command line given as one word: the message says no shell runs it" {
	run -127 --separate-stderr "$RETRY" -n 1 "sh -c 'exit 3'"
	[ "${stderr_lines[0]}" = "retry: cannot run sh -c 'exit 3': No such file or directory (the command is not run through a shell: give it and its arguments as separate words)" ]
	giving_up "${stderr_lines[1]}" 1 "exit 127" "not retried"
	# A path with a blank whose first part is no program: no hint.
	run -127 --separate-stderr "$RETRY" -n 1 "$WORK/no such"
	[ "${stderr_lines[0]}" = "retry: cannot run $WORK/no such: No such file or directory" ]
}

@test "http: items without --http are refused, naming --http (issue 19 item 16)" {
	# Ignored silently, -x http:404 would let every 404 be retried.
	local opt
	for opt in --retry-on --stop-on --success-on; do
		rm -f "$WORK/log"
		CODES=0 quick -b 0 "$opt=http:404" "$WORK/cmd"
		usage_error "$opt names HTTP statuses, which need --http=FILE to be read"
		attempts 0
		CODES=0 quick -b 0 "$opt=+1,http:5xx" "$WORK/cmd"
		usage_error "$opt names HTTP statuses, which need --http=FILE to be read"
		attempts 0
	done
	quick --dry-run -x http:404
	usage_error "--stop-on names HTTP statuses, which need --http=FILE to be read"
}
