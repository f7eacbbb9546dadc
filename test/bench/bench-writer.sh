#!/usr/bin/env bash
# bench-writer - does the background writer keep up with a busy server?
# A traced demo-server with one serving thread, driven as hard as the
# machine allows by 2 traced client processes of 8 threads each, with the
# default buffer; once alone, once on a machine loaded by two CPU-bound
# processes of another session.  Prints the rate reached, the records
# dropped per process (the serving thread's must be 0), and the CPU the
# server's writer and flusher threads took per record they wrote (their
# own clocks, from /proc).  Then the cost of encoding and compression per
# record at several zstd levels (writer-cost).
#
#   BUILD=/abs/build bash test/bench/bench-writer.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
calls=${1:-8000}	# per client thread
server=$BUILD/test/rpc/demo-server
client=$BUILD/test/rpc/demo-client
lib=$BUILD/libcausal.so
for f in "$server" "$client" "$lib" "$BUILD/tracedump" "$BUILD/bench/writer-cost"; do
	[ -e "$f" ] || { echo "bench-writer: '$f' is not built" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/causal-bench-writer.XXXXXX)
spid= hogs=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$hogs" ] && kill $hogs 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# ns of CPU the server's thread named $1 has used (schedstat: on-CPU ns)
thread_cpu() {
	local t
	for t in /proc/"$spid"/task/*; do
		if [ "$(cat "$t/comm" 2>/dev/null)" = "$1" ]; then
			awk '{ print $1 }' "$t/schedstat"
			return
		fi
	done
	echo 0
}

run() {
	local kind=$1 port t0 t1 wcpu fcpu cpids=()
	rm -rf "$tmp/logs" "$tmp/ready"
	if [ "$kind" = loaded ]; then
		for i in 1 2; do
			setsid sh -c 'while :; do :; done' &
			hogs="$hogs $!"
		done
	fi
	LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs "$server" -1 -r "$tmp/ready" \
		>"$tmp/server.out" 2>&1 &
	spid=$!
	for ((i = 0; i < 500; i++)); do
		[ -e "$tmp/ready" ] && break
		sleep 0.01
	done
	port=$(awk '/^tcp/ { print $2 }' "$tmp/ready")
	t0=$(date +%s%N)
	for c in 1 2; do
		LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs "$client" -P "$port" \
			threads 8 "$calls" >"$tmp/client$c.out" &
		cpids+=($!)
	done
	wait "${cpids[@]}"
	t1=$(date +%s%N)
	[ -n "$hogs" ] && { kill $hogs 2>/dev/null; hogs=; }
	sleep 0.3	# the last rounds
	wcpu=$(thread_cpu causal-writer)
	fcpu=$(thread_cpu causal-flusher)
	kill "$spid"
	wait "$spid" || true
	spid=
	"$BUILD/tracedump" merge "$tmp/logs" >"$tmp/merge.out" 2>&1 ||
		{ cat "$tmp/merge.out"; exit 1; }
	sqlite3 -separator ' ' "$tmp/logs/trace.db" \
		"SELECT p.pid = $(awk '/^pid/ { print $2 }' "$tmp/ready"),
			p.records, p.dropped,
			(SELECT count(*) FROM rpc_calls WHERE server_proc_id = p.proc_id)
		 FROM processes p ORDER BY p.proc_id" >"$tmp/procs"
	awk -v kind="$kind" -v n=$((2 * 8 * calls)) -v ns=$((t1 - t0)) \
		-v w="$wcpu" -v f="$fcpu" '
		$1 == 1 { srec = $2; sdrop = $3; sside = $4 }
		$1 == 0 { cdrop += $3 }
		END {
			printf "  %s: %d calls in %.1f s, %.0f calls/s\n", kind, n, ns / 1e9, n / (ns / 1e9)
			printf "    server: %d records, %d dropped, %d calls with a server side\n", srec, sdrop, sside
			printf "    clients: %d records dropped\n", cdrop
			printf "    server writer %.0f ns + flusher %.0f ns of CPU per record\n", w / srec, f / srec
		}' "$tmp/procs"
}

echo "one traced server (one serving thread), 2 traced clients x 8 threads, default buffer:"
run alone
run loaded
echo "encoding and compression per record of a serving thread (writer-cost):"
"$BUILD/bench/writer-cost" | sed 's/^/  /'
