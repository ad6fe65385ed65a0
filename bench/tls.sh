#!/usr/bin/env bash
# bench/tls.sh: what a rediss:// guard costs a run (issue 25), next to
# redis:// and no guard: `make bench-tls`.  One redis-server on
# 127.0.0.1 listens on a plain port and a TLS port, with a CA and a
# certificate made here with openssl; each command is
# `retry -n1 [--budget=URL] -- /bin/true`.  Prints instruction counts
# (valgrind --tool=callgrind, retry itself, under env -i) and, where
# hyperfine is installed, median wall-clock times (hyperfine -N).  The
# system's CAs are Debian's with the test CA added, as a hashed directory
# (what retry reads where /etc/ssl/certs is one) and as one bundle file
# (what OpenSSL's default paths would read).
#
# Environment: RETRY=PATH (default ./retry), BENCH_TLS_RUNS (default 200).
set -Eeuo pipefail

RETRY=${RETRY:-./retry}
RUNS=${BENCH_TLS_RUNS:-200}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-bench-tls.XXXXXX")
PID=
cleanup() {
	[[ -n $PID ]] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

make_pki() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/ca.key" \
	    -out "$TMP/ca.pem" -days 2 -subj /CN=bench-ca 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout "$TMP/server.key" \
	    -out "$TMP/server.csr" -subj /CN=localhost 2>/dev/null
	echo "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$TMP/san.ext"
	openssl x509 -req -in "$TMP/server.csr" -CA "$TMP/ca.pem" \
	    -CAkey "$TMP/ca.key" -CAcreateserial -days 2 \
	    -extfile "$TMP/san.ext" -out "$TMP/server.pem" 2>/dev/null
	cat /etc/ssl/certs/ca-certificates.crt "$TMP/ca.pem" >"$TMP/bundle.pem"
}

start_redis() {
	local i
	PORT=$((20000 + RANDOM % 40000))
	redis-server --port "$PORT" --tls-port $((PORT + 1)) \
	    --bind 127.0.0.1 --tls-cert-file "$TMP/server.pem" \
	    --tls-key-file "$TMP/server.key" --tls-auth-clients no \
	    --save '' --appendonly no >"$TMP/redis.log" 2>&1 &
	PID=$!
	for ((i = 0; i < 500; i++)); do
		grep -q 'Ready to accept' "$TMP/redis.log" && return 0
		sleep 0.01
	done
	cat "$TMP/redis.log" >&2
	return 1
}

# instructions ENV [ARG...]: retry's instruction count under env -i ENV
# (a space-separated list of assignments), and its stderr, which must be
# empty (a guard that failed open costs less).
instructions() {
	local n
	# shellcheck disable=SC2086 # ENV is a list of words
	n=$(env -i $1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    "$RETRY" -n1 "${@:2}" -- /bin/true 2>&1 | tee "$TMP/err" |
	    sed -n 's/.*Collected : //p')
	if grep -v '^==' "$TMP/err" | grep -q .; then
		echo "retry ${*:2}: $(grep -v '^==' "$TMP/err")" >&2
		return 1
	fi
	echo "$n"
}

# median ENV [ARG...]: the median of RUNS runs, in ms.
median() {
	# shellcheck disable=SC2086 # ENV is a list of words
	env -i PATH="$PATH" $1 hyperfine -N -w 20 -r "$RUNS" \
	    --export-json "$TMP/h.json" \
	    "$RETRY -n1 ${*:2} -- /bin/true" >/dev/null 2>&1
	python3 -c 'import json,sys; print("%.3f" % (1000 * json.load(open(sys.argv[1]))["results"][0]["median"]))' "$TMP/h.json"
}

row() {
	local name=$1 ir ms=-
	shift
	ir=$(instructions "$@")
	command -v hyperfine >/dev/null && ms=$(median "$@")
	printf '| %s | %s | %s |\n' "$name" "$ms" "$ir"
}

# A hashed directory of Debian's CAs and the test CA, as /etc/ssl/certs.
system_dir() {
	local f
	mkdir "$TMP/certs"
	for f in /etc/ssl/certs/*.pem; do
		ln -s "$(readlink -f "$f")" "$TMP/certs/"
	done
	cp "$TMP/ca.pem" "$TMP/certs/"
	openssl rehash "$TMP/certs" 2>/dev/null
}

make_pki
system_dir
start_redis
u=127.0.0.1:$PORT s=127.0.0.1:$((PORT + 1))
echo "retry -n1 [--budget=URL] -- /bin/true, $(date -u '+%F %H:%M') UTC," \
    "load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| guard | median (ms) | instructions |"
echo "|---|---|---|"
ca=REDISCLI_CACERT=$TMP/ca.pem
row "none" "$ca"
row "redis://" "$ca" --budget="redis://$u/b"
row "rediss://, REDISCLI_CACERT (1 CA)" "$ca" --budget="rediss://$s/b"
row "rediss://, the system's CAs (a hashed directory of 144)" \
    "SSL_CERT_DIR=$TMP/certs" --budget="rediss://$s/b"
row "rediss://, REDISCLI_CACERT = a bundle of 144" \
    "REDISCLI_CACERT=$TMP/bundle.pem" --budget="rediss://$s/b"
row "rediss://, budget and breaker (1 CA)" "$ca" \
    --budget="rediss://$s/b" --breaker="rediss://$s/k"
