# Shared by tests/http.bats: the scripted HTTP server (helpers/http-server)
# and the tools the tests need.  Load after helpers/common and core.
# shellcheck shell=bash
# shellcheck disable=SC2034 # URL and SERVER_PID are for the suite
# shellcheck disable=SC2154 # stderr_lines: set by run and quick

# need_tool NAME: a missing tool skips the test with one line, except
# under CI=true, where every tool must be there.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [[ ${CI-} == true ]]; then
		echo "$1 is not installed, and CI=true" >&2
		return 1
	fi
	skip "$1 is not installed"
}

# serve ANSWER...: starts the server on a free port of 127.0.0.1 with one
# answer a word ("STATUS|DELAY_MS|RETRY_AFTER|LOCATION", see the server)
# and sets URL.  It stops by itself after the last answer or 60 s;
# http_teardown kills it in any case.
serve() {
	need_tool python3
	need_tool curl
	printf '%s\n' "$@" >"$WORK/script"
	: >"$WORK/requests"
	# Not on bats' descriptor 3, which bats waits for.
	python3 "$ROOT/tests/helpers/http-server" "$WORK" 3>&- &
	SERVER_PID=$!
	wait_for_file "$WORK/port"
	URL=http://127.0.0.1:$(<"$WORK/port")/
}

http_teardown() {
	if [[ -n ${SERVER_PID-} ]]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	return 0
}

# requests N: the server answered N requests.
requests() {
	local n
	n=$(wc -l <"$WORK/requests")
	[[ $n -eq $1 ]] || { echo "$n requests, not $1" >&2; return 1; }
}

# gap_ms I J: milliseconds from request I to request J, as the server saw
# them on the monotonic clock.
gap_ms() {
	awk -v i="$1" -v j="$2" '$1 == i { a = $2 } $1 == j { b = $2 }
	    END { printf "%d\n", (b - a) * 1000 }' "$WORK/requests"
}

# gap_between I J MIN MAX: the gap from request I to J is MIN to MAX ms.
gap_between() {
	local ms
	ms=$(gap_ms "$1" "$2")
	((ms >= $3 && ms <= $4)) ||
	    { echo "gap $1-$2: ${ms} ms, not $3 to $4" >&2; return 1; }
}

# line_like N REGEX: stderr line N (from 0) matches the extended REGEX.
line_like() {
	[[ ${stderr_lines[$1]} =~ ^$2$ ]] ||
	    { printf 'line %s: %s\nwanted: %s\n' "$1" \
	    "${stderr_lines[$1]}" "$2" >&2; return 1; }
}

# line_is N TEXT: stderr line N (from 0) is TEXT.
line_is() {
	[[ ${stderr_lines[$1]} == "$2" ]] ||
	    { printf 'line %s: %s\nwanted: %s\n' "$1" \
	    "${stderr_lines[$1]}" "$2" >&2; return 1; }
}

# nlines N: stderr has N lines.
nlines() {
	[[ ${#stderr_lines[@]} -eq $1 ]] ||
	    { echo "${#stderr_lines[@]} stderr lines, not $1:" >&2
	      printf '%s\n' "${stderr_lines[@]}" >&2; return 1; }
}

# The patterns of retry's lines: a time in seconds, curl's own error.
T='[0-9]+\.[0-9]{3}'
CURL22='curl: \(22\) .*'
