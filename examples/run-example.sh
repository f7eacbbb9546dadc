#!/usr/bin/env bash
# run-example - `make example`: trace the bundled examples, merge their logs
# and show what causal saw.
#
#   BUILD=/abs/build bash examples/run-example.sh [figure1|pipeline|impact|pes|all]
#
# 1. figure1 (default part): the example of Figure 1 of the CPU paper
#    (examples/figure1/): main calls foo on host A; foo calls times on
#    host B, what_to_say on host C (which spawns two threads) and say_it
#    three times on host D.  Each server runs on a simulated host of its
#    own (a UTS namespace: `unshare --uts`, root only; otherwise all on
#    this host), all on loopback.  Shows the CCSG (`ccsg report`) with the
#    CPU each component burned, per host.
# 2. pipeline: the thread-pipeline program, its thread tree with sqlite3.
# 3. impact (`make example-impact`, not part of all): Figure 1 run twice,
#    as it is and with say_it burning 20% less on hostD (FIG1_SCALE, read
#    by figure1-server); `ccsg impact` predicts the second run from the
#    first trace, and `ccsg impact --against` shows every node's predicted
#    CPU against the second run's measured CPU, per host, with the
#    functions' latency.
# 4. pes (`make example-pes`, not part of all): the dining philosophers
#    (examples/philosophers.c, N = 3) traced with the lock records on;
#    philosopher 0's program execution sequence from its lock events: the
#    model, then its time, event and frequency views before and after
#    event filtering (states seen fewer than 10 times dropped) and with
#    acquiring aggregated, as SVG and PNG pictures in $BUILD/example-pes/.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=$PWD/build}"
part=${1:-all}
command -v sqlite3 >/dev/null ||
	{ echo "run-example: needs the sqlite3 shell (scripts/setup.sh)" >&2; exit 1; }

q() {
	echo "-- $1"
	sqlite3 -header -column "$3" "$2"
	echo
}

# ---- Figure 1 ---------------------------------------------------------------

fig1_pids=()
fig1_env=
fig1_stop() {
	local pid
	for pid in "${fig1_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${fig1_pids[@]}"; do
		wait "$pid" 2>/dev/null ||
			echo "run-example: a server (pid $pid) did not exit cleanly" >&2
	done
	fig1_pids=()
}

# run HOST PROGRAM ARGS..., traced, in a UTS namespace named HOST when we
# can.  It execs: run in a subshell `( fig1_hosted ... ) &`, $! is then the
# program's own pid (unshare without --fork, sh and env all exec).
fig1_hosted() {
	local host=$1
	shift
	if [ "$fig1_uts" = 1 ]; then
		exec unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" \
			env LD_PRELOAD="$BUILD/libcausal.so" CAUSAL_LOG_DIR="$fig1_logs" \
			${fig1_env:+"$fig1_env"} "$@"
	else
		exec env LD_PRELOAD="$BUILD/libcausal.so" CAUSAL_LOG_DIR="$fig1_logs" \
			${fig1_env:+"$fig1_env"} "$@"
	fi
}

# start NAME HOST ROLES ARGS...: sets port_tcp, port_udp once it serves;
# with fig1_env set ("FIG1_SCALE=say_it=0.8"), the server runs with it
fig1_start() {
	local name=$1 host=$2 roles=$3 ready=$fig1_dir/$1.ready
	shift 3
	echo "\$ [$host] ${fig1_env:+$fig1_env }figure1-server -R $roles $*"
	(fig1_hosted "$host" "$BUILD/examples/figure1-server" -R "$roles" \
		-r "$ready" "$@" >"$fig1_dir/$name.out" 2>"$fig1_dir/$name.err") &
	fig1_pids+=($!)
	for _ in $(seq 1000); do
		[ -e "$ready" ] && break
		kill -0 $! 2>/dev/null ||
			{ cat "$fig1_dir/$name.err" >&2; echo "run-example: server $name failed" >&2; exit 1; }
		sleep 0.01
	done
	[ -e "$ready" ] || { echo "run-example: server $name did not start" >&2; exit 1; }
	port_tcp=$(awk '$1 == "tcp" { print $2 }' "$ready")
	port_udp=$(awk '$1 == "udp" { print $2 }' "$ready")
}

fig1_check_uts() {
	fig1_uts=0
	if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null; then
		fig1_uts=1
	else
		echo "run-example: not root, or no UTS namespaces: every server on this host"
	fi
}

# fig1_deploy DIR [SCALE_D]: the four servers and main, traced into
# DIR/logs and merged; SCALE_D is the FIG1_SCALE of hostD's server
fig1_deploy() {
	fig1_dir=$1
	fig1_logs=$fig1_dir/logs
	rm -rf "$fig1_dir"
	mkdir -p "$fig1_dir"
	trap fig1_stop EXIT
	fig1_env=${2:+FIG1_SCALE=$2}
	fig1_start D hostD D; local d=$port_tcp
	fig1_env=
	fig1_start C hostC C; local c=$port_tcp
	fig1_start B hostB B; local b=$port_udp
	fig1_start A hostA A -b "$b" -c "$c" -d "$d"; local a=$port_tcp
	echo "\$ [hostA] figure1-client $a"
	(fig1_hosted hostA "$BUILD/examples/figure1-client" "$a")
	fig1_stop
	trap - EXIT
	echo
	echo "\$ tracedump merge $fig1_logs"
	"$BUILD/tracedump" merge "$fig1_logs"
	echo
}

figure1() {
	local db=$BUILD/example-logs/figure1/logs/trace.db
	fig1_check_uts
	echo "== Figure 1 of the CPU paper: main -> foo (A) -> times (B),"
	echo "   what_to_say (C, two threads), say_it x3 (D); CPU in ms:"
	echo "   foo 32, times 27, what_to_say 30 + 2 threads x 20, say_it 26/25/27"
	echo
	fig1_deploy "$BUILD/example-logs/figure1"
	if [ -x "$BUILD/ccsg" ]; then
		echo "\$ ccsg report --format=text --db $db --idl examples/figure1/figure1.x"
		"$BUILD/ccsg" report --format=text --db "$db" --idl examples/figure1/figure1.x
		echo
		if "$BUILD/ccsg" help 2>/dev/null | grep -qw latency; then
			echo "\$ ccsg latency --db $db --idl examples/figure1/figure1.x"
			"$BUILD/ccsg" latency --db "$db" --idl examples/figure1/figure1.x || true
			echo
		fi
	else
		echo "run-example: $BUILD/ccsg is not built yet (ccsg/ is being written):"
		echo "no CCSG report; here are the calls it will be made of, from SQL."
		echo
		# self CPU of a skeleton: its CPU interval minus the stub intervals
		# of the calls it made (Equation 1 of the CPU paper)
		q "RPC calls (cpu_ms: CPU of the implementation, its own calls excluded)" "
		SELECT c.call_id AS call, hc.name AS client_host, hs.name AS server_host,
		       CASE c.proc WHEN 1 THEN 'foo' WHEN 2 THEN 'times'
		            WHEN 3 THEN 'what_to_say' WHEN 4 THEN 'say_it' END AS function,
		       c.transport, c.status_name AS status,
		       printf('%.1f', (c.skel_end_cpu_ns - c.skel_start_cpu_ns -
		           coalesce((SELECT sum(k.stub_end_cpu_ns - k.stub_start_cpu_ns)
		                     FROM rpc_calls k
		                     WHERE k.chain = c.chain AND k.client_proc_id = c.server_proc_id
		                       AND k.client_tid = c.server_tid
		                       AND k.stub_start_event > c.skel_start_event
		                       AND k.stub_end_event < c.skel_end_event), 0)) / 1e6) AS cpu_ms
		FROM rpc_calls c
		JOIN processes pc ON pc.proc_id = c.client_proc_id
		JOIN hosts hc ON hc.host_id = pc.host_id
		JOIN processes ps ON ps.proc_id = c.server_proc_id
		JOIN hosts hs ON hs.host_id = ps.host_id
		ORDER BY c.call_id;" "$db"
		q "threads spawned inside a call (cpu_ms: their own CPU)" "
		SELECT h.name AS host, t.proc_id AS proc, t.tid, t.parent_tid,
		       printf('%.1f', t.cpu_ns / 1e6) AS cpu_ms
		FROM threads t JOIN processes p USING (proc_id)
		JOIN hosts h USING (host_id)
		WHERE t.ctx_function IS NOT NULL AND t.ctx_function != 0
		ORDER BY t.proc_id, t.tid;" "$db"
	fi
	echo "The database is $db; try: sqlite3 $db .schema"
	echo
}

# ---- thread-pipeline ----------------------------------------------------------

pipeline() {
	local logs=$BUILD/example-logs/pipeline
	local db=$logs/trace.db
	rm -rf "$logs"
	echo "== thread-pipeline: main starts the sink, a pool and the source; the"
	echo "   pool starts 3 checksum workers, then 2 (heavier) mixers"
	echo
	echo "\$ LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs $BUILD/examples/thread-pipeline"
	LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs "$BUILD/examples/thread-pipeline"
	echo
	echo "\$ tracedump merge $logs"
	"$BUILD/tracedump" merge "$logs"
	echo
	# Walk the tree from each root (main, or a thread of unknown parent),
	# ordering children by creation: the path sorts a thread under its parent.
	q "threads, as created (cpu_ms: CPU time of the thread itself)" "
	WITH RECURSIVE tree(proc_id, tid, depth, path) AS (
		SELECT proc_id, tid, 0, printf('%08d', tid)
		FROM threads WHERE parent_tid = 0
		UNION ALL
		SELECT c.proc_id, c.tid, p.depth + 1,
		       p.path || '/' || printf('%08d', c.tid)
		FROM threads c JOIN tree p
		     ON c.proc_id = p.proc_id AND c.parent_tid = p.tid
		     AND c.tid != c.parent_tid
	)
	SELECT t.proc_id AS proc,
	       substr('                ', 1, 2 * depth) || 'tid ' || t.tid AS thread,
	       t.os_tid, t.marker, coalesce(t.end_how, '?') AS end_how,
	       printf('%8.1f', t.cpu_ns / 1e6) AS cpu_ms
	FROM tree JOIN threads t USING (proc_id, tid)
	ORDER BY t.proc_id, tree.path;" "$db"
	echo "The database is $db"
}

# ---- impact: a prediction checked against a second run ------------------------

impact() {
	local out=$BUILD/example-logs/impact x=examples/figure1/figure1.x
	local spec='reduction on processor group { hostD } by 20% to function { FIG1_PROG::SAY_IT }'
	[ -x "$BUILD/ccsg" ] || { echo "run-example: $BUILD/ccsg is not built" >&2; exit 1; }
	fig1_check_uts
	echo "== ccsg impact on Figure 1: what if say_it used 20% less CPU on hostD?"
	echo "   Run 1: the example as it is.  Run 2: say_it burns 20% less on hostD"
	echo "   (FIG1_SCALE=say_it=0.8 in hostD's server).  ccsg impact predicts"
	echo "   run 2's CCSG from run 1's trace; then run 2's own CCSG is measured."
	echo
	echo "-- run 1"
	fig1_deploy "$out/run1"
	echo "-- run 2"
	fig1_deploy "$out/run2" say_it=0.8
	local db1=$out/run1/logs/trace.db db2=$out/run2/logs/trace.db
	echo "\$ ccsg impact --db $db1 --idl $x --change '$spec'"
	"$BUILD/ccsg" impact --db "$db1" --idl "$x" --change "$spec"
	echo
	echo "== predicted (from run 1's trace) vs measured (run 2), node by node:"
	echo "\$ ccsg impact --db $db1 --idl $x --change '$spec' --against $db2"
	"$BUILD/ccsg" impact --db "$db1" --idl "$x" --change "$spec" --against "$db2"
	echo
	echo "The traces are $db1 and $db2"
}

# ---- the dining philosophers' PES -------------------------------------------

pes() {
	local out=$BUILD/example-pes logs db tid agg
	rm -rf "$out"
	mkdir -p "$out"
	logs=$out/logs
	echo "== the dining philosophers (Chitra's case study): 3 philosophers, forks"
	echo "   as mutexes, thinking 1 ms, eating 2 ms, 100 meals each; traced with"
	echo "   the lock records on"
	echo "\$ CAUSAL_MONITOR=all,locks LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs $BUILD/examples/philosophers -n 3 -x 1000 -e 2000 -m 100"
	CAUSAL_MONITOR=all,locks LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs \
		"$BUILD/examples/philosophers" -n 3 -x 1000 -e 2000 -m 100 | tee "$out/measured.txt"
	"$BUILD/tracedump" merge "$logs" >/dev/null
	db=$logs/trace.db
	tid=$(sqlite3 "$db" "SELECT tid FROM threads WHERE os_tid = \
		$(awk '/^philosopher 0 / { print $4 }' "$out/measured.txt")")
	echo
	echo "\$ ccsg pes --db $db --thread 1:$tid      # philosopher 0: the model"
	"$BUILD/ccsg" pes --db "$db" --thread "1:$tid"
	echo
	agg='--aggregate=parallel:running holding:2 -> A'
	echo "\$ ccsg pes --db $db --thread 1:$tid '$agg'"
	echo "   (A: everything between thinking and eating, the acquisition; its mean"
	echo "   occupancy against the program's own acquire_mean_ns above)"
	"$BUILD/ccsg" pes --db "$db" --thread "1:$tid" "$agg" | sed -n '/^state/,/^$/p'
	for view in time event frequency; do
		"$BUILD/ccsg" pes --db "$db" --thread "1:$tid" --view=$view \
			-o "$out/$view-before.svg"
		"$BUILD/ccsg" pes --db "$db" --thread "1:$tid" --filter=event:10 \
			--view=$view -o "$out/$view-after.svg"
		"$BUILD/ccsg" pes --db "$db" --thread "1:$tid" --filter=event:10 \
			--view=$view -o "$out/$view-after.png"
		"$BUILD/ccsg" pes --db "$db" --thread "1:$tid" --filter=event:10 \
			"$agg" --view=$view -o "$out/$view-aggregated.svg"
	done
	echo
	echo "The views (time, event and frequency; before and after filtering out the"
	echo "states seen fewer than 10 times, and with A aggregated) are in $out:"
	(cd "$out" && ls ./*.svg ./*.png | sed 's|^\./|  |')
}

case $part in
figure1) figure1 ;;
pipeline) pipeline ;;
impact) impact ;;
pes) pes ;;
all) figure1; pipeline ;;
*) echo "usage: run-example.sh [figure1|pipeline|impact|pes|all]" >&2; exit 2 ;;
esac
