#!/usr/bin/env bash
# run-diagnose - `make example-diagnose`: the planted bottlenecks
# (examples/diagnose/), each run twice - as it is, then with its cause
# made 20% smaller by its knob - traced, merged and diagnosed: `ccsg
# diagnose` on the first run, and its prediction for the cause 20%
# smaller beside what the second run measured.
#
#   BUILD=/abs/build bash examples/diagnose/run-diagnose.sh [lock|cpu|network|all] [OUT]
#
# Each server runs on a simulated host of its own (a UTS namespace, root
# only; otherwise all on this host), all on loopback; the client calls
# REQUEST on the front server (hostF) DIAG_REQUESTS times (200); every
# program runs behind DIAG_FIRST, a command prefix (none; the suite
# check-e2e-diagnose gives `chrt -f 1`, cpu-first.h):
#
#   lock     REQUEST -> LOCKED (hostL), WORK (hostW, 5 ms): LOCKED waits
#            for a lock its flusher thread holds across a 40 ms slow
#            section (DIAG_HOLD_US; 32 ms the second time).  Traced with
#            the monitoring type locks.
#   cpu      REQUEST -> WORK on hostB1, hostB2, hostB3: hostB2's burns
#            30 ms of CPU, its peers 10 ms (DIAG_BURN_US; 24 ms the
#            second time).
#   network  REQUEST -> FETCH (hostN) through diag-proxy, which delays each
#            message 25 ms (DIAG_DELAY_US; 20 ms the second time), and
#            WORK (hostW, 5 ms).
#
# OUT (default $BUILD/example-logs/diagnose) holds, per scenario, run1/
# and run2/ (the logs, trace.db, the programs' output) and run1.json,
# run2.json (`ccsg diagnose --format=json`), which the suite
# check-e2e-diagnose reads.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
: "${DIAG_REQUESTS:=200}"
: "${DIAG_FIRST:=}"
part=${1:-all}
out=${2:-$BUILD/example-logs/diagnose}
idl=examples/diagnose/diag.x
command -v sqlite3 >/dev/null ||
	{ echo "run-diagnose: needs the sqlite3 shell (scripts/setup.sh)" >&2; exit 1; }

pids=()
stop() {
	local pid
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	pids=()
}
trap stop EXIT

uts=0
if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null; then
	uts=1
else
	echo "run-diagnose: not root, or no UTS namespaces: every server on this host"
fi

# hosted HOST TRACED PROGRAM ARGS...: exec PROGRAM on HOST, traced (with
# $monitor) into $logs when TRACED is 1; the environment is the caller's
hosted() {
	local host=$1 traced=$2
	shift 2
	local pre=()
	[ "$traced" = 1 ] && pre=(env LD_PRELOAD="$BUILD/libcausal.so"
		CAUSAL_LOG_DIR="$logs" CAUSAL_MONITOR="$monitor")
	# shellcheck disable=SC2206 # a command prefix, split into words
	pre=($DIAG_FIRST "${pre[@]}")
	if [ "$uts" = 1 ]; then
		exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" \
			"${pre[@]}" "$@"
	fi
	exec "${pre[@]}" "$@"
}

# start NAME HOST TRACED PROGRAM ARGS...: sets port once it listens
start() {
	local name=$1 host=$2 traced=$3 ready=$dir/$1.ready
	shift 3
	(hosted "$host" "$traced" "$@" -r "$ready" >"$dir/$name.out" \
		2>"$dir/$name.err") &
	pids+=($!)
	for _ in $(seq 2000); do
		[ -e "$ready" ] && break
		kill -0 $! 2>/dev/null ||
			{ cat "$dir/$name.err" >&2; echo "run-diagnose: $name failed" >&2; exit 1; }
		sleep 0.01
	done
	[ -e "$ready" ] || { echo "run-diagnose: $name did not start" >&2; exit 1; }
	port=$(awk '$1 == "tcp" { print $2 }' "$ready")
}

# proxy NAME HOST TARGET: diag-proxy, untraced (the network); its READY
# is its first argument
proxy() {
	local ready=$dir/$1.ready
	(hosted "$2" 0 "$BUILD/examples/diag-proxy" "$ready" "$3" \
		>"$dir/$1.out" 2>"$dir/$1.err") &
	pids+=($!)
	for _ in $(seq 2000); do
		[ -e "$ready" ] && break
		sleep 0.01
	done
	[ -e "$ready" ] || { echo "run-diagnose: the proxy did not start" >&2; exit 1; }
	port=$(awk '$1 == "tcp" { print $2 }' "$ready")
}

# deploy SCENARIO RUN SMALLER: the scenario's servers and client, traced
# into $out/SCENARIO/runRUN, merged, diagnosed into runRUN.json
deploy() {
	local scenario=$1 run=$2 smaller=$3 backends=()
	dir=$out/$scenario/run$run
	logs=$dir/logs
	monitor=all
	rm -rf "$dir"
	mkdir -p "$dir"
	case $scenario in
	lock)
		monitor=all,locks
		DIAG_HOLD_US=$((smaller ? 32000 : 40000)) \
			start locked hostL 1 "$BUILD/examples/diag-server"
		backends+=(-c "locked:$port")
		DIAG_BURN_US=5000 start work hostW 1 "$BUILD/examples/diag-server"
		backends+=(-c "work:$port")
		;;
	cpu)
		for h in 1 2 3; do
			local burn=10000
			[ $h = 2 ] && burn=$((smaller ? 24000 : 30000))
			DIAG_BURN_US=$burn start work$h "hostB$h" 1 \
				"$BUILD/examples/diag-server"
			backends+=(-c "work:$port")
		done
		;;
	network)
		start fetch hostN 1 "$BUILD/examples/diag-server"
		DIAG_DELAY_US=$((smaller ? 20000 : 25000)) proxy proxy hostN "$port"
		backends+=(-c "fetch:$port")
		DIAG_BURN_US=5000 start work hostW 1 "$BUILD/examples/diag-server"
		backends+=(-c "work:$port")
		;;
	*)
		echo "run-diagnose: no scenario '$scenario' (lock, cpu, network)" >&2
		exit 2
		;;
	esac
	start front hostF 1 "$BUILD/examples/diag-server" "${backends[@]}"
	(hosted hostA 1 "$BUILD/examples/diag-client" "$port" "$DIAG_REQUESTS" \
		>"$dir/client.out" 2>"$dir/client.err")
	stop
	"$BUILD/tracedump" merge "$logs" >"$dir/merge.out"
	"$BUILD/ccsg" diagnose --db "$logs/trace.db" --idl "$idl" \
		--format=json >"$out/$scenario/run$run.json"
}

# j FILE PATH: a value of a JSON file
j() {
	sqlite3 :memory: "SELECT json_extract(CAST(readfile('$1') AS TEXT), '$2')"
}

# compare SCENARIO: run 1's prediction for its first cause 20% smaller,
# beside run 2
compare() {
	local a=$out/$1/run1.json b=$out/$1/run2.json c='$.types[0].causes[0]'
	local p=$c.predictions.smaller
	echo "first cause: $(j "$a" "$c.function") on $(j "$a" "$c.host"), $(j "$a" "$c.kind")"
	printf '%-8s %12s %12s %12s %8s\n' "" "run 1" "predicted" "run 2" "error"
	local f
	for f in median p95 cpu; do
		local x y z
		x=$(j "$a" "\$.types[0].${f}_ns")
		y=$(j "$a" "$p.${f}_ns")
		z=$(j "$b" "\$.types[0].${f}_ns")
		awk -v f="$f" -v x="$x" -v y="$y" -v z="$z" 'BEGIN {
			printf "%-8s %9.1f ms %9.1f ms %9.1f ms %7.1f%%\n", f,
				x / 1e6, y / 1e6, z / 1e6, 100 * (y - z) / z }'
	done
	echo "(agreement: within 10% of latency, 5% + 1 ms of CPU)"
}

scenario() {
	echo "== $1: run 1, then run 2 with the cause 20% smaller"
	deploy "$1" 1 0
	deploy "$1" 2 1
	echo "\$ ccsg diagnose --db $out/$1/run1/logs/trace.db --idl $idl"
	"$BUILD/ccsg" diagnose --db "$out/$1/run1/logs/trace.db" --idl "$idl"
	echo
	compare "$1"
	echo
}

case $part in
all) for s in lock cpu network; do scenario "$s"; done ;;
*) scenario "$part" ;;
esac
