#!/bin/bash
# COMPARISON.md's table: the same scenarios with this retry (OURS),
# Debian's retry (DEB) and curl --retry, against tests/helpers/http-server
# on 127.0.0.1.  Run from the top of the tree after make retry
# tests/helpers/wstatus; it works in a temporary directory.
# shellcheck disable=SC2016 # the $ in the commands is for their sh -c
TOP=$(pwd)
OURS=$TOP/retry DEB=/usr/bin/retry WS=$TOP/tests/helpers/wstatus
HS=$TOP/tests/helpers/http-server
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
echo "== A: fails twice then succeeds"
rm -f n; "$OURS" -n 5 -b 10ms -- sh -c 'echo x >>n; [ $(wc -l <n) -ge 3 ]'; echo "ours: rc=$? attempts=$(wc -l <n)"
rm -f n; timeout 60 "$DEB" -t 5 -d 0 -- sh -c 'echo x >>n; [ $(wc -l <n) -ge 3 ]'; echo "debian: rc=$? attempts=$(wc -l <n)"
echo "== B: a command killed by SIGTERM (one attempt)"
"$WS" ws "$OURS" -n 1 -- sh -c 'kill -TERM $$'; echo "ours: $(cat ws)"
"$WS" ws timeout 10 "$DEB" -t 1 -d 0 -- sh -c 'kill -TERM $$'; echo "debian -t 1: $(cat ws)"
rm -f n; "$WS" ws timeout 10 "$DEB" -t 2 -d 0 -- sh -c 'echo x >>n; kill -TERM $$'; echo "debian -t 2: $(cat ws) attempts=$(wc -l <n)"
echo "== C: stdin replayed to each attempt"
rm -f n got; printf 'abc\n' | "$OURS" -I -n 3 -b 10ms -- sh -c 'echo x >>n; cat >>got; [ $(wc -l <n) -ge 2 ]'; echo "ours -I: rc=$? got=$(tr '\n' ' ' <got)"
rm -f n got; printf 'abc\n' | "$OURS" -n 3 -b 10ms -- sh -c 'echo x >>n; cat >>got; [ $(wc -l <n) -ge 2 ]'; echo "ours without -I: rc=$? got=$(tr '\n' ' ' <got)"
rm -f n got; printf 'abc\n' | timeout 60 "$DEB" -t 3 -d 0 -- sh -c 'echo x >>n; cat >>got; [ $(wc -l <n) -ge 2 ]'; echo "debian: rc=$? got=$(tr '\n' ' ' <got)"
echo "== D: HTTP 404 (curl)"
mkdir -p h404; printf '404|0\n404|0\n404|0\n404|0\n404|0\n404|0\n' >h404/script; rm -f h404/port h404/requests
"$HS" h404 & sp=$!; while [ ! -s h404/port ]; do sleep 0.05; done; P=$(cat h404/port)
"$OURS" -n 3 -b 10ms --http=head -- curl -sS -o /dev/null -D head http://127.0.0.1:"$P"/x; echo "ours --http + curl: rc=$? requests so far=$(wc -l <h404/requests)"
"$OURS" -n 3 -b 10ms -- curl -fsS -o /dev/null http://127.0.0.1:"$P"/x; echo "ours + curl -f: rc=$? requests so far=$(wc -l <h404/requests)"
curl -sS -o /dev/null --retry 3 --retry-delay 0 -f http://127.0.0.1:"$P"/x; echo "curl --retry 3 -f: rc=$? requests so far=$(wc -l <h404/requests)"
kill $sp 2>/dev/null; wait $sp 2>/dev/null
mkdir -p h2; printf '404|0\n404|0\n404|0\n' >h2/script; rm -f h2/port h2/requests
"$HS" h2 & sp=$!; while [ ! -s h2/port ]; do sleep 0.05; done; P=$(cat h2/port)
timeout 60 "$DEB" -t 3 -d 0 -- curl -fsS -o /dev/null http://127.0.0.1:"$P"/x; echo "debian + curl -f: rc=$? requests so far=$(wc -l <h2/requests)"
kill $sp 2>/dev/null; wait $sp 2>/dev/null
echo "== E: 503 twice then 200 (curl's own --retry)"
mkdir -p h3; printf '503|0\n503|0\n200|0\n' >h3/script; rm -f h3/port h3/requests
"$HS" h3 & sp=$!; while [ ! -s h3/port ]; do sleep 0.05; done; P=$(cat h3/port)
curl -sS -o /dev/null --retry 3 --retry-delay 0 -f http://127.0.0.1:"$P"/x; echo "curl --retry 3: rc=$? requests so far=$(wc -l <h3/requests)"
kill $sp 2>/dev/null; wait $sp 2>/dev/null
mkdir -p h4; printf '503|0\n503|0\n200|0\n' >h4/script; rm -f h4/port h4/requests
"$HS" h4 & sp=$!; while [ ! -s h4/port ]; do sleep 0.05; done; P=$(cat h4/port)
"$OURS" -n 5 -b 10ms --http=head -- curl -sS -o /dev/null -D head http://127.0.0.1:"$P"/x; echo "ours --http: rc=$? requests so far=$(wc -l <h4/requests)"
kill $sp 2>/dev/null; wait $sp 2>/dev/null
echo "== F: stop at the first failure (ours --until-failure, debian --until=fail)"
rm -f n; "$OURS" -n 10 -b 1ms --until-failure -- sh -c 'echo x >>n; [ $(wc -l <n) -lt 3 ]'; echo "ours: rc=$? attempts=$(wc -l <n)"
rm -f n; timeout 60 "$DEB" -u fail -d 0 -- sh -c 'echo x >>n; [ $(wc -l <n) -lt 3 ]'; echo "debian: rc=$? attempts=$(wc -l <n)"
