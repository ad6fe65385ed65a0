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
# Each rediss:// row is given for each TLS library that retry has and
# can load (RETRY_TLS=wolfssl, RETRY_TLS=openssl); the herds use the one
# that retry picks by itself.
#
# Then the thundering herd of a fleet (issue 25): BENCH_FLEET_CLIENTS
# (default 200) runs of `retry -q -n3 -b0 --budget=URL,tokens=20` fail
# at once against the same budget, through redis://, through rediss://,
# and through a node of a three-master Redis Cluster that does not hold
# the budget's slot (every update follows a MOVED).  The rules allow at
# most ceil(20 / 2) - 1 = 9 retries whatever the herd's size; the table
# gives the attempts and the runs that warned (went on without the
# budget), which must be 0.
#
# Then issue 36's herd: BENCH_TLS_HERD (default 600) runs of `retry -q
# -n 4 -b 20ms -c 200ms --budget=URL -- sh -c 'exit 1'` started at once
# from a plain loop, against the default budget (100 tokens: at most 49
# retries), through redis://, through rediss:// with no session kept
# (each run's state directory new: a full handshake each) and with the
# ticket of an earlier run (resumed).  Each row gives the load average
# after it: other jobs on the machine spread the herd's CPU thin.  The runs' own state directories
# are kept apart from the user's: XDG_RUNTIME_DIR is one of $TMP's.
#
# Environment: RETRY=PATH (default ./retry), BENCH_TLS_RUNS (default 200),
# BENCH_FLEET_CLIENTS (default 200), BENCH_TLS_HERD (default 600).
set -Eeuo pipefail

RETRY=${RETRY:-./retry}
RUNS=${BENCH_TLS_RUNS:-200}
CLIENTS=${BENCH_FLEET_CLIENTS:-200}
HERD=${BENCH_TLS_HERD:-600}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/retry-bench-tls.XXXXXX")
PID=
NODE_PIDS=()
cleanup() {
	local p
	for p in $PID "${NODE_PIDS[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
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

# The TLS libraries (RETRY_TLS) that this retry has and this host loads.
BACKENDS=()
for b in wolfssl openssl; do
	env -i RETRY_TLS=$b "$RETRY" -n1 --budget=rediss://127.0.0.1:1/x \
	    -- /bin/true 2>&1 | grep -qE 'cannot load|not a TLS|built without' ||
	    BACKENDS+=("$b")
done

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
# No state directory can be made under /proc: no session is kept, and
# each run makes a full handshake.  $warm keeps one, made here.
nokeep=XDG_RUNTIME_DIR=/proc
warm=XDG_RUNTIME_DIR=$TMP/warm
mkdir -m 700 "$TMP/warm"
row "none" "$ca"
row "redis://" "$ca" --budget="redis://$u/b"
for b in "${BACKENDS[@]}"; do
	lib="RETRY_TLS=$b"
	env -i "$lib" "$warm" "$ca" "$RETRY" -n1 --budget="rediss://$s/b" \
	    -- /bin/true
	row "rediss:// ($b), REDISCLI_CACERT (1 CA), a full handshake" \
	    "$lib $ca $nokeep" --budget="rediss://$s/b"
	row "rediss:// ($b), REDISCLI_CACERT (1 CA), resumed (a ticket kept)" \
	    "$lib $ca $warm" --budget="rediss://$s/b"
	row "rediss:// ($b), the system's CAs (a hashed directory of 144)" \
	    "$lib SSL_CERT_DIR=$TMP/certs $nokeep" --budget="rediss://$s/b"
	row "rediss:// ($b), REDISCLI_CACERT = a bundle of 144" \
	    "$lib REDISCLI_CACERT=$TMP/bundle.pem $nokeep" \
	    --budget="rediss://$s/b"
	row "rediss:// ($b), budget and breaker (1 CA)" "$lib $ca $nokeep" \
	    --budget="rediss://$s/b" --breaker="rediss://$s/k"
done
# The herds below use the library that retry picks by itself.
env -i "$warm" "$ca" "$RETRY" -n1 --budget="rediss://$s/b" -- /bin/true

# start_node I: node I of a cluster on a free port: NODE_PORTS[I].
start_node() {
	local i=$1 j k port
	for ((j = 0; j < 20; j++)); do
		# The cluster's bus listens on port + 10000.
		port=$((20000 + RANDOM % 25000))
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
		    --appendonly no --cluster-enabled yes \
		    --cluster-config-file "$TMP/nodes-$i.conf" --dir "$TMP" \
		    >"$TMP/node-$i.log" 2>&1 &
		NODE_PIDS[i]=$!
		for ((k = 0; k < 500; k++)); do
			grep -q 'Ready to accept' "$TMP/node-$i.log" && break
			kill -0 "${NODE_PIDS[i]}" 2>/dev/null || break
			sleep 0.01
		done
		if grep -q 'Ready to accept' "$TMP/node-$i.log"; then
			NODE_PORTS[i]=$port
			return 0
		fi
		wait "${NODE_PIDS[i]}" 2>/dev/null || true
		rm -f "$TMP/nodes-$i.conf"
	done
	return 1
}

# start_cluster: three masters joined; STRANGER, the port of one that
# does not hold the slot of retry:herd.
start_cluster() {
	local i p
	NODE_PORTS=()
	for i in 0 1 2; do
		start_node "$i"
	done
	redis-cli --cluster create "127.0.0.1:${NODE_PORTS[0]}" \
	    "127.0.0.1:${NODE_PORTS[1]}" "127.0.0.1:${NODE_PORTS[2]}" \
	    --cluster-replicas 0 --cluster-yes >"$TMP/create.log"
	for ((i = 0; i < 2000; i++)); do
		redis-cli -p "${NODE_PORTS[0]}" cluster info |
		    grep -q '^cluster_state:ok' && break
		sleep 0.01
	done
	for p in "${NODE_PORTS[@]}"; do
		if redis-cli -p "$p" get retry:herd | grep -q MOVED; then
			STRANGER=$p
			return 0
		fi
	done
	return 1
}

# herd URL: CLIENTS runs fail at once against a budget of 20 tokens at
# URL/herd; prints "attempts retries warned".
herd() {
	local i dir=$TMP/herd.$RANDOM
	local -a pids=()
	mkdir "$dir"
	for ((i = 0; i < CLIENTS; i++)); do
		# shellcheck disable=SC2016 # the inner shell expands it
		"$RETRY" -q -n3 -b0 --budget="$1/herd,tokens=20" -- \
		    sh -c 'echo x >>"$1"; exit 1' sh "$dir/attempts" \
		    2>"$dir/err.$i" &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do
		wait "$i" || true
	done
	awk -v n="$CLIENTS" -v warned="$(cat "$dir"/err.* | wc -l)" \
	    'END { print NR, NR - n, warned }' "$dir/attempts"
}

herd_row() {
	local name=$1 url=$2 start end
	start=$(date +%s%N)
	# shellcheck disable=SC2046 # three numbers, split on purpose
	set -- $(herd "$url")
	end=$(date +%s%N)
	printf '| %s | %s | %s | %s | %s |\n' "$name" "$1" "$2" "$3" \
	    "$(((end - start) / 1000000))"
}

start_cluster
export REDISCLI_CACERT=$TMP/ca.pem
echo
echo "The herd: $CLIENTS runs of retry -q -n3 -b0 --budget=URL,tokens=20 at" \
    "once, each attempt failing, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| store | attempts | retries | runs that warned | ms |"
echo "|---|---|---|---|---|"
herd_row "redis://" "redis://$u"
redis-cli -p "$PORT" del retry:herd >/dev/null
herd_row "rediss://" "rediss://$s"
herd_row "a cluster's node without the slot (MOVED)" \
    "redis://127.0.0.1:$STRANGER"

# herd36 URL ENV: HERD runs of issue 36's command at once from a plain
# loop, with the environment assignment ENV; prints "retries warned",
# the retries as Redis counted them (attempts made, less one a run).
herd36() {
	local i dir=$TMP/herd36.$RANDOM
	mkdir "$dir"
	redis-cli -p "$PORT" del retry:h36 >/dev/null
	for ((i = 0; i < HERD; i++)); do
		# shellcheck disable=SC2016 # the inner shell expands it
		env "$2" "$RETRY" -q -n 4 -b 20ms -c 200ms --budget="$1/h36" \
		    -- sh -c 'echo x >>"$1"; exit 1' sh "$dir/attempts" \
		    2>"$dir/err.$i" &
	done
	wait
	awk -v n="$HERD" -v warned="$(cat "$dir"/err.* | wc -l)" \
	    'END { print NR - n, warned }' "$dir/attempts"
}

herd36_row() {
	local start end
	start=$(date +%s%N)
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- "$1" $(herd36 "$2" "$3")
	end=$(date +%s%N)
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" \
	    "$(((end - start) / 1000000))" "$(cut -d' ' -f1 /proc/loadavg)"
}

echo
echo "Issue 36's herd: $HERD runs of retry -q -n 4 -b 20ms -c 200ms" \
    "--budget=URL -- sh -c 'exit 1' at once, from a plain loop, load" \
    "$(cut -d' ' -f1 /proc/loadavg); at most 49 retries, and no warning"
echo
echo "| store | retries | runs that warned | ms | load after |"
echo "|---|---|---|---|---|"
herd36_row "redis://" "redis://$u" "$nokeep"
herd36_row "rediss://, no session kept (full handshakes)" "rediss://$s" \
    "$nokeep"
herd36_row "rediss://, a session kept (resumed)" "rediss://$s" "$warm"
