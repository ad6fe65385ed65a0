#!/usr/bin/env bash
# CI: the GitHub Action (action.yml) run as a runner runs it, by
# build-aux/run-action.py, from a copy of the tree: it builds retry in
# RUNNER_TEMP, then retries a command that fails twice and then succeeds
# (a counter file), and the outputs must say attempts=3 and status=0, the
# job summary must be written, and nothing may be written outside
# RUNNER_TEMP.  A second run gives options that would run code if they
# were pasted into a script, and a command that must run as it is
# written.  Run from the top of the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "ci-action: $*" >&2
	exit 1
}

# The action's checkout: the tracked files, as uses: would fetch them.
mkdir "$tmp/action" "$tmp/runner"
git ls-files -z | tar -c --null -T - -f - | tar -x -C "$tmp/action" -f -
before=$(cd "$tmp/action" && find . -print | sort)
export RUNNER_TEMP=$tmp/runner GITHUB_OUTPUT=$tmp/outputs \
    GITHUB_STEP_SUMMARY=$tmp/summary COUNTER=$tmp/counter
: >"$GITHUB_OUTPUT"
python3 build-aux/run-action.py "$tmp/action" \
    command='n=$(cat "$COUNTER" 2>/dev/null || echo 0)
echo $((n + 1)) >"$COUNTER"
[ "$(cat "$COUNTER")" -ge 3 ]' \
    options='-n 5 -b 0 --jitter=none' >"$tmp/stdout" 2>"$tmp/stderr" ||
    { cat "$tmp/stderr" >&2; fail "the flaky command's run failed"; }
{ grep -qx attempts=3 "$GITHUB_OUTPUT" && grep -qx status=0 "$GITHUB_OUTPUT"; } ||
    fail "outputs: want attempts=3 and status=0, got: $(cat "$GITHUB_OUTPUT")"
grep -q 'succeeded on attempt 3' "$GITHUB_STEP_SUMMARY" ||
    grep -q '|' "$GITHUB_STEP_SUMMARY" ||
    fail "no job summary: $(cat "$GITHUB_STEP_SUMMARY" 2>&1)"
# --log-format=github: retries are plain lines; one annotation a run,
# and only when it gives up (issue 38).
{ grep -q '^retry: attempt 1/5 failed' "$tmp/stderr" &&
    ! grep -q '^::' "$tmp/stderr"; } ||
    fail "--log-format=github: want plain retry lines, no annotation: $(cat "$tmp/stderr")"
[[ $(cd "$tmp/action" && find . -print | sort) == "$before" ]] ||
    fail "the run wrote into the action's checkout"

# Options are read by retry as RETRY_OPTIONS, never by a shell: a $(...)
# is a bad option (retry's own error, 125, before any attempt), not a
# command; the command runs as written, quotes and all.
: >"$GITHUB_OUTPUT"
status=0
python3 build-aux/run-action.py "$tmp/action" command=true \
    options="-n 2 -b 0 \$(touch $tmp/pwned) \`touch $tmp/pwned\`" \
    >/dev/null 2>"$tmp/stderr2" || status=$?
[[ ! -e $tmp/pwned ]] || fail "an option ran code"
((status == 125)) || fail "a bad option: want exit 125, got $status"
grep -qx status=125 "$GITHUB_OUTPUT" ||
    fail "a bad option: want the output status=125, got: $(cat "$GITHUB_OUTPUT")"
: >"$GITHUB_OUTPUT"
python3 build-aux/run-action.py "$tmp/action" \
    command='printf "%s|" "a  b" "$(echo c)" >"$RUNNER_TEMP/said"; exit 3' \
    options="-n 2 -b 0 --on-give-up='echo gave up; touch \"\$RUNNER_TEMP/hook\"'" \
    >/dev/null 2>"$tmp/stderr3" && fail "a failing command succeeded"
[[ $(cat "$RUNNER_TEMP/said") == "a  b|c|" ]] ||
    fail "the command did not run as written: $(cat "$RUNNER_TEMP/said")"
[[ -e $RUNNER_TEMP/hook ]] || fail "a quoted option was not kept whole"
{ grep -qx attempts=2 "$GITHUB_OUTPUT" && grep -qx status=3 "$GITHUB_OUTPUT"; } ||
    fail "a failure: want attempts=2 and status=3, got: $(cat "$GITHUB_OUTPUT")"
# A step that leaves NAME<<DELIM open in GITHUB_OUTPUT fails the step on a
# runner; the emulation says so in a line, not a Python traceback.
status=0
python3 build-aux/run-action.py "$tmp/action" \
    command='echo "x<<EOF" >>"$GITHUB_OUTPUT"' options=-n1 \
    >/dev/null 2>"$tmp/stderr4" || status=$?
{ ((status == 1)) && grep -q "x<<EOF has no closing line 'EOF'" "$tmp/stderr4" &&
    ! grep -q Traceback "$tmp/stderr4"; } ||
    fail "an open heredoc: want one line and 1, got $status: $(cat "$tmp/stderr4")"
echo "ci-action: the action retried a flaky command (attempts=3, status=0)" \
    "and took its inputs as data"
