#!/usr/bin/env bash
# run-example - `make example`: trace the bundled thread-pipeline, merge its
# log and show what causal saw, with the sqlite3 command-line shell.
#
#   BUILD=/abs/build bash examples/run-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=$PWD/build}"
logs=$BUILD/example-logs
db=$logs/trace.db
command -v sqlite3 >/dev/null ||
	{ echo "run-example: needs the sqlite3 shell (scripts/setup.sh)" >&2; exit 1; }

rm -rf "$logs"
echo "\$ LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs $BUILD/examples/thread-pipeline"
LD_PRELOAD=$BUILD/libcausal.so CAUSAL_LOG_DIR=$logs "$BUILD/examples/thread-pipeline"
echo
echo "\$ tracedump merge $logs"
"$BUILD/tracedump" merge "$logs"
echo

q() {
	echo "-- $1"
	sqlite3 -header -column "$db" "$2"
	echo
}

q "processes" "
SELECT proc_id, pid, exe, end_reason, complete, records, dropped,
       printf('%.1f', (end_mono_ns - start_mono_ns) / 1e6) AS wall_ms
FROM processes ORDER BY proc_id;"

echo "thread-pipeline's main starts the sink, a pool and the source, in that"
echo "order; the pool starts 3 checksum workers, then 2 (heavier) mixers."
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
ORDER BY t.proc_id, tree.path;"

q "CPU by depth in the tree" "
WITH RECURSIVE tree(proc_id, tid, depth) AS (
	SELECT proc_id, tid, 0 FROM threads WHERE parent_tid = 0
	UNION ALL
	SELECT c.proc_id, c.tid, p.depth + 1
	FROM threads c JOIN tree p
	     ON c.proc_id = p.proc_id AND c.parent_tid = p.tid
	     AND c.tid != c.parent_tid
)
SELECT depth, count(*) AS threads,
       printf('%.1f', sum(t.cpu_ns) / 1e6) AS cpu_ms
FROM tree JOIN threads t USING (proc_id, tid)
GROUP BY depth ORDER BY depth;"

echo "The database is $db; try: sqlite3 $db .schema"
