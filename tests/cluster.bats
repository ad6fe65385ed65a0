#!/usr/bin/env bats
# Issue 25: --budget and --breaker in a Redis Cluster.  The file starts
# three masters on 127.0.0.1 at random ports, joins them with
# redis-cli --cluster create, and stops them at the end.  A guard's URL
# may name any node: a node that does not hold the key's slot answers
# MOVED (or ASK while the slot migrates), and retry follows.

load helpers/common
load helpers/core
load helpers/guard

# node_up PID PORT: the node answers, or died (a port taken).
node_up() {
	kill -0 "$1" 2>/dev/null || return 0
	redis-cli -p "$2" ping >/dev/null 2>&1
}

# Starts node I of the cluster on a random free port: PORTS[I], PIDS[I].
start_node() {
	local i=$1 j port pid
	for ((j = 0; j < 20; j++)); do
		# The cluster's bus listens on port + 10000.
		port=$((20000 + RANDOM % 25000))
		redis-server --port "$port" --bind 127.0.0.1 --save '' \
		    --appendonly no --daemonize no --cluster-enabled yes \
		    --cluster-config-file "$BATS_FILE_TMPDIR/nodes-$i.conf" \
		    --dir "$BATS_FILE_TMPDIR" \
		    >"$BATS_FILE_TMPDIR/node-$i.log" 2>&1 3>&- &
		pid=$!
		if poll_until 10 node_up "$pid" "$port"; then
			if redis-cli -p "$port" info server |
			    grep -q "^process_id:$pid"; then
				PORTS[i]=$port
				PIDS[i]=$pid
				return 0
			fi
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		rm -f "$BATS_FILE_TMPDIR/nodes-$i.conf"
	done
	cat "$BATS_FILE_TMPDIR/node-$i.log" >&2
	return 1
}

cluster_ok() {
	local p
	for p in "${PORTS[@]}"; do
		redis-cli -p "$p" cluster info | grep -q '^cluster_state:ok' ||
		    return 1
	done
}

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	if ! command -v redis-server >/dev/null ||
	    ! command -v redis-cli >/dev/null; then
		needs "redis-server and redis-cli are not installed"
	fi
	local i
	PORTS=() PIDS=()
	for i in 0 1 2; do
		start_node "$i"
	done
	redis-cli --cluster create "127.0.0.1:${PORTS[0]}" \
	    "127.0.0.1:${PORTS[1]}" "127.0.0.1:${PORTS[2]}" \
	    --cluster-replicas 0 --cluster-yes >"$BATS_FILE_TMPDIR/create.log"
	poll_until 20 cluster_ok
	NODES="${PORTS[*]}" NODE_PIDS="${PIDS[*]}"
	export NODES NODE_PIDS
}

teardown_file() {
	local pid
	for pid in ${NODE_PIDS-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

setup() {
	common_setup
	guard_setup
	read -r -a PORTS <<<"$NODES"
	local p
	for p in "${PORTS[@]}"; do
		redis-cli -p "$p" FLUSHALL >/dev/null
	done
}

# ccli ARGS...: redis-cli in cluster mode (it follows MOVED itself).
ccli() {
	redis-cli -c -p "${PORTS[0]}" "$@"
}

# owner KEY: the port of the node that holds KEY's slot.
owner() {
	local slot p
	slot=$(redis-cli -p "${PORTS[0]}" CLUSTER KEYSLOT "$1")
	for p in "${PORTS[@]}"; do
		if redis-cli -p "$p" CLUSTER COUNTKEYSINSLOT "$slot" \
		    >/dev/null && [[ $(redis-cli -p "$p" HGET "$1" x) != MOVED* ]]
		then
			echo "$p"
			return
		fi
	done
}

# other KEY: the port of a node that does not hold KEY's slot.
other() {
	local p o
	o=$(owner "$1")
	for p in "${PORTS[@]}"; do
		[[ $p == "$o" ]] || { echo "$p"; return; }
	done
}

@test "a budget through any node of a cluster: every node gives the same count" {
	local p
	for p in "${PORTS[@]}"; do
		run -1 --separate-stderr "$RETRY" -n 2 -b 0 -j none \
		    --budget="redis://127.0.0.1:$p/api,tokens=100" -- false
		[ "${#stderr_lines[@]}" -eq 2 ]
		giving_up "${stderr_lines[1]}" 2 "exit 1" "no attempts left"
	done
	# Two failed attempts a run, three runs: 6 tokens of 100.
	[ "$(ccli HGET retry:api tokens)" = 94000 ]
}

@test "200 simultaneous retries through a node that does not hold the key's slot" {
	local n p
	n=$(herd_size)
	p=$(other retry:t)
	[ -n "$p" ]
	herd "$n" "redis://127.0.0.1:$p/t,tokens=20"
	check_herd "$n" 20
	[ "$(ccli HGET retry:t tokens)" = 0 ]
}

@test "the breaker through any node of a cluster opens and refuses" {
	local p=${PORTS[2]} spec
	spec=redis://127.0.0.1:${PORTS[1]}/job,failures=1,cooldown=1h
	run -1 --separate-stderr "$RETRY" -n 1 --breaker="$spec" -- false
	giving_up "$stderr" 1 "exit 1" "no attempts left"
	[ "$(ccli HGET retry:job state)" = 1 ]
	run -75 --separate-stderr "$RETRY" \
	    --breaker="redis://127.0.0.1:$p/job,failures=1,cooldown=1h" -- \
	    touch "$WORK/ran"
	[[ $stderr =~ ^retry:\ circuit\ breaker\ \'job\'\ is\ open:\ not\ running\ the\ command\;\ next\ probe\ in\ 359[0-9]\.[0-9]{3}s$ ]]
	[ ! -e "$WORK/ran" ]
}

# endpoints TYPE: every node's cluster-preferred-endpoint-type.
endpoints() {
	local p
	for p in "${PORTS[@]}"; do
		redis-cli -p "$p" CONFIG SET cluster-preferred-endpoint-type \
		    "$1" >/dev/null
	done
}

teardown() {
	[[ -z ${ENDPOINTS_SET-} ]] || endpoints ip
}

@test "MOVED with no host (unknown-endpoint): the node's own host, the given port" {
	local p
	p=$(other retry:t)
	[ -n "$p" ]
	ENDPOINTS_SET=1
	endpoints unknown-endpoint
	[[ $(redis-cli -p "$p" HGET retry:t tokens) =~ ^MOVED\ [0-9]+\ :[0-9]+$ ]]
	run -1 --separate-stderr "$RETRY" -n 3 -b 0 -j none \
	    --budget="redis://localhost:$p/t,tokens=100" -- false
	[ "${#stderr_lines[@]}" -eq 3 ]
	giving_up "${stderr_lines[2]}" 3 "exit 1" "no attempts left"
	[ "$(ccli HGET retry:t tokens)" = 97000 ]
}

# node_id PORT: the cluster's id of the node on PORT.
node_id() {
	redis-cli -p "$1" CLUSTER MYID
}

@test "a slot moved while runs go on: no update lost, no warning" {
	local key=retry:mv slot src dst i rc runs p
	slot=$(redis-cli -p "${PORTS[0]}" CLUSTER KEYSLOT "$key")
	src=$(owner "$key")
	dst=$(other "$key")
	run -0 "$RETRY" --budget="redis://127.0.0.1:$src/mv,tokens=1000" -- true
	# 30 runs, one failed attempt each, while the slot moves: a few
	# before, while it migrates (ASK once the key has moved), after.
	(
		for ((i = 0; i < 30; i++)); do
			rc=0
			"$RETRY" -n 1 \
			    --budget="redis://127.0.0.1:$src/mv,tokens=1000" \
			    -- false 2>>"$WORK/err" || rc=$?
			echo "$i $rc" >>"$WORK/runs"
		done
	) 3>&- &
	runs=$!
	wait_lines "$WORK/runs" 5
	redis-cli -p "$dst" CLUSTER SETSLOT "$slot" IMPORTING \
	    "$(node_id "$src")" >/dev/null
	redis-cli -p "$src" CLUSTER SETSLOT "$slot" MIGRATING \
	    "$(node_id "$dst")" >/dev/null
	wait_lines "$WORK/runs" 10
	redis-cli -p "$src" MIGRATE 127.0.0.1 "$dst" "" 0 5000 KEYS "$key" \
	    >/dev/null
	wait_lines "$WORK/runs" 18
	for p in "${PORTS[@]}"; do
		redis-cli -p "$p" CLUSTER SETSLOT "$slot" NODE \
		    "$(node_id "$dst")" >/dev/null
	done
	wait_lines "$WORK/runs" 30
	wait "$runs"
	# Every run gave up after its one attempt: exit 1.
	[ "$(awk '$2 != 1' "$WORK/runs" | wc -l)" -eq 0 ]
	# Each run's one message is its giving up: no warning.
	grep -v "^retry: giving up after 1 attempt in [0-9.]*s: exit 1" \
	    "$WORK/err" >"$WORK/other" || :
	cat "$WORK/other" >&2
	[ ! -s "$WORK/other" ]
	[ "$(wc -l <"$WORK/err")" -eq 30 ]
	[ "$(redis-cli -p "$dst" HGET "$key" tokens)" = 970000 ]
}
