#!/usr/bin/env bash
# bench-follow - does `tracedump merge --follow` keep up (issue 37 item
# 5: 20,000 calls/s on this machine)?  A traced demo-server and
# demo-client make CALLS null calls over TCP loopback (both on CPU 0, as
# bench-rpc runs them) into 1 MiB segments, while the loader follows the
# log directory into SQLite (on CPU 1).  Prints the calls/s the pair
# made, the calls/s the loader loaded (rpc_calls rows over the time from
# the client's start to the last segment committed), and the lag of
# each segment (its row's commit time less the time the library closed
# it, the file's mtime): the last one's and the largest; and the
# loader's CPU time, whose calls per CPU second is the rate one idle core
# keeps up with (on a loaded machine the wall-clock rate falls).  docs/
# performance.md ("Following a log directory") has the figures.  With
# STORE=clickhouse the loader follows into a private clickhouse-server
# (test/clickhouse/server.sh, HTTP port 18323) instead, a load a segment;
# the rows are then the calls' client sides (the server's are loaded
# apart, joined on read).
#
#   BUILD=/abs/build [STORE=clickhouse] bash test/bench/bench-follow.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
calls=${1:-400000}
lib=$BUILD/libcausal.so
for f in "$BUILD/test/rpc/demo-server" "$BUILD/test/rpc/demo-client" \
	"$BUILD/tracedump" "$lib"; do
	[ -e "$f" ] || { echo "bench-follow: '$f' is not built" >&2; exit 1; }
done
command -v sqlite3 >/dev/null ||
	{ echo "bench-follow: needs sqlite3(1)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/causal-bench-follow.XXXXXX)
spid= lpid= store=${STORE:-sqlite}
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
	[ "$store" = clickhouse ] && bash test/clickhouse/server.sh stop "$tmp/ch" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -m 0700 "$tmp/logs"
db=$tmp/follow.db
# q SQL: the answer, tab-separated, of the database followed
if [ "$store" = clickhouse ]; then
	bash test/clickhouse/server.sh start "$tmp/ch" 18323 >/dev/null
	db=clickhouse://127.0.0.1:18323/follow
	fin="load_id IN (SELECT load_id FROM loads WHERE state = 'finished')"
	q() { curl -sf 'http://127.0.0.1:18323/?database=follow' --data-binary "$1 FORMAT TabSeparated"; }
	sql_rows="SELECT count() FROM rpc_calls WHERE $fin AND stub_start_event IS NOT NULL"
	sql_segs="SELECT count() FROM loaded_segments WHERE $fin"
	sql_paired="SELECT count() FROM rpc_calls WHERE $fin AND skel_start_event IS NOT NULL"
	paired_is="server sides, joined on read"
else
	fin=1
	q() { sqlite3 -separator $'\t' "$db" "$1"; }
	sql_rows='SELECT count(*) FROM rpc_calls'
	sql_segs='SELECT count(*) FROM loaded_segments'
	sql_paired='SELECT count(*) FROM rpc_calls WHERE missing IS NULL'
	paired_is=paired
fi
traced=(env "LD_PRELOAD=$lib" "CAUSAL_LOG_DIR=$tmp/logs" CAUSAL_LOG_SEGMENT_MB=1)

taskset -c 1 "$BUILD/tracedump" merge --follow "$tmp/logs" --db "$db" \
	>"$tmp/follow.out" 2>"$tmp/follow.err" &
lpid=$!
"${traced[@]}" taskset -c 0 "$BUILD/test/rpc/demo-server" -1 -r "$tmp/ready" \
	>"$tmp/server.out" 2>&1 &
spid=$!
for ((i = 0; i < 500; i++)); do
	[ -e "$tmp/ready" ] && break
	sleep 0.01
done
port=$(awk '/^tcp/ { print $2 }' "$tmp/ready")
start=$(date +%s.%N)
"${traced[@]}" taskset -c 0 "$BUILD/test/rpc/demo-client" -P "$port" \
	bench null "$calls" >"$tmp/client.out" 2>"$tmp/client.err"
kill "$spid"
wait "$spid" || true
spid=

# every closed segment loaded (the library closed the last ones at exit)
closed() { find "$tmp/logs" -name '*.[0-9][0-9][0-9][0-9][0-9][0-9].clog' | wc -l; }
loaded() { q "$sql_segs" 2>/dev/null || echo 0; }
for ((i = 0; i < 6000; i++)); do
	[ "$(loaded)" -ge "$(closed)" ] && break
	sleep 0.05
done
# its CPU (utime + stime, in clock ticks) before it ends
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$lpid/stat")
kill "$lpid"
wait "$lpid" || { echo "bench-follow: the loader failed:" >&2; cat "$tmp/follow.err" >&2; exit 1; }
lpid=

wall_ns=$(awk '/^bench/ { print $10 }' "$tmp/client.out")
rows=$(q "$sql_rows")
paired=$(q "$sql_paired")
last_ns=$(q "SELECT max(loaded_ns) FROM loaded_segments WHERE $fin")
# each segment's lag: committed less closed (mtime, ns)
lags=$(q "SELECT name, loaded_ns FROM loaded_segments WHERE $fin ORDER BY loaded_ns" |
	while read -r name ns; do
		echo "$((ns - $(date -r "$tmp/logs/$name" +%s%N)))"
	done)
awk -v calls="$calls" -v wall="$wall_ns" -v rows="$rows" -v paired="$paired" \
	-v paired_is="$paired_is" \
	-v start="$start" -v last="$last_ns" -v segs="$(loaded)" \
	-v lag_last="$(echo "$lags" | tail -1)" \
	-v lag_max="$(echo "$lags" | sort -n | tail -1)" \
	-v cpu="$cpu" 'BEGIN {
	printf "generated: %d calls in %.2f s, %.0f calls/s (client and server on CPU 0)\n",
		calls, wall / 1e9, calls / (wall / 1e9)
	printf "loaded:    %d rpc_calls rows (%d %s) from %d segments in %.2f s, %.0f calls/s\n",
		rows, paired, paired_is, segs, last / 1e9 - start, rows / (last / 1e9 - start)
	printf "lag:       last segment %.2f s, largest %.2f s (commit less close)\n",
		lag_last / 1e9, lag_max / 1e9
	printf "loader:    %.2f s of CPU, %.0f calls per CPU second (what one idle core keeps up with)\n",
		cpu, rows / cpu
}'
cat "$tmp/follow.out"
