#!/usr/bin/env bash
# compare-builds - two builds of tracedump and ccsg on the same logs: do
# they say the same, and how fast and how big?  For a change that must
# not change what a user sees (or only the documented schema).
#
#   bash test/bench/compare-builds.sh [-n RUNS] A_BUILD B_BUILD LOGDIR...
#
# Each build directory holds tracedump and ccsg (A: the change, B: the
# baseline).  For every LOGDIR:
#   - both merge it (same output name, so that paths print the same); the
#     summaries must be equal;
#   - every table of both databases, each value shown the same way (a blob
#     as lower hex, so that a chain id stored as 20 bytes compares with the
#     40 hex digits of schema version 2), must hold the same rows; a table
#     only one of them has is named; meta.schema_version, when it differs,
#     is shown, not counted as a difference;
#   - every ccsg command in every format (report text/json/xml/dot, by
#     function and by object; dscg text/json; latency text/json, by
#     function and by object; impact text/json of a 20% reduction of
#     every function on every host) must print the same bytes;
#   - RUNS merges and reports of each build, taking turns (A B A B ...),
#     give the median wall and CPU seconds, and the database size.
# Exit status 1 when anything differs.
set -euo pipefail
runs=3
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
[ $# -ge 3 ] || { sed -n 2,24p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd)
shift 2
for f in "$a/tracedump" "$a/ccsg" "$b/tracedump" "$b/ccsg"; do
	[ -x "$f" ] || { echo "compare-builds: '$f' is not built" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "compare-builds: needs sqlite3" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/compare-builds.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/a" "$dir/b"
status=0
# ccsg impact's change: every function, every host (one that matches
# nothing is an error, and the same one in both)
echo 'reduction on all processors by 20% to function { * }' >"$dir/what-if"

# tables DB: its tables and views, one a line
tables() {
	sqlite3 "$1" "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name"
}

# columns DB TABLE: its columns, one a line
columns() {
	sqlite3 "$1" "SELECT name FROM pragma_table_info('$2')"
}

# rows DB TABLE COLUMN...: every row, blobs as lower hex, sorted
rows() {
	local db=$1 t=$2 c cols= where=
	shift 2
	for c in "$@"; do
		cols+="${cols:+, }CASE typeof($c) WHEN 'blob' THEN lower(hex($c)) ELSE $c END"
	done
	[ "$t" = meta ] && where=" WHERE key <> 'schema_version'"
	sqlite3 "$db" "SELECT $cols FROM $t${where:-}" | sort
}

# elapsed SECONDS_VAR CPU_VAR CMD...: wall and user+sys seconds of CMD
elapsed() {
	local t=$dir/time
	/usr/bin/time -f '%e %U %S' -o "$t" "${@:3}" >/dev/null 2>&1 ||
		{ echo "compare-builds: '${*:3}' failed" >&2; exit 1; }
	read -r w u s <"$t"
	printf -v "$1" %s "$w"
	printf -v "$2" %s "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for logs in "$@"; do
	logs=$(cd "$logs" && pwd)
	echo "== $logs"
	for x in a b; do
		bin=$a
		[ $x = b ] && bin=$b
		(cd "$dir/$x" && rm -f trace.db && "$bin/tracedump" merge "$logs" -o trace.db \
			>summary 2>warnings)
	done
	if ! cmp -s "$dir/a/summary" "$dir/b/summary" || ! cmp -s "$dir/a/warnings" "$dir/b/warnings"; then
		echo "merge summaries differ:"
		diff "$dir/b/summary" "$dir/a/summary" || true
		status=1
	fi
	{ diff <(tables "$dir/b/trace.db") <(tables "$dir/a/trace.db") || true; } |
		sed -n 's/^< /only in B: /p; s/^> /only in A: /p'
	va=$(sqlite3 "$dir/a/trace.db" "SELECT value FROM meta WHERE key = 'schema_version'")
	vb=$(sqlite3 "$dir/b/trace.db" "SELECT value FROM meta WHERE key = 'schema_version'")
	[ "$va" = "$vb" ] || echo "schema version: B $vb, A $va"
	# a table that became a view, or lost a column, compares what both have
	for t in $(comm -12 <(tables "$dir/a/trace.db") <(tables "$dir/b/trace.db")); do
		mapfile -t cols < <(comm -12 <(columns "$dir/a/trace.db" "$t" | sort) \
			<(columns "$dir/b/trace.db" "$t" | sort))
		{ diff <(columns "$dir/b/trace.db" "$t" | sort) \
			<(columns "$dir/a/trace.db" "$t" | sort) || true; } |
			sed -n "s/^< /only in B: $t./p; s/^> /only in A: $t./p"
		if ! cmp -s <(rows "$dir/a/trace.db" "$t" "${cols[@]}") \
			<(rows "$dir/b/trace.db" "$t" "${cols[@]}"); then
			echo "table $t differs"
			status=1
		fi
	done
	n=0
	for cmd in "report --format=text" "report --format=json" "report --format=xml" \
		   "report --format=dot" "report --by=object" "report --by=object --format=json" \
		   "dscg --format=text" "dscg --format=json" "latency --format=text" \
		   "latency --format=json" "latency --by=object" "latency --by=object --format=json" \
		   "impact --changes $dir/what-if" "impact --changes $dir/what-if --format=json"; do
		for x in a b; do
			bin=$a
			[ $x = b ] && bin=$b
			# shellcheck disable=SC2086
			(cd "$dir/$x" && st=0 && { "$bin/ccsg" $cmd --db trace.db >out 2>&1 || st=$?; } &&
				echo "exit $st" >>out)
		done
		if ! cmp -s "$dir/a/out" "$dir/b/out"; then
			echo "ccsg $cmd differs"
			diff "$dir/b/out" "$dir/a/out" | head -10
			status=1
		fi
		n=$((n + 1))
	done
	echo "compared: merge summary, $(tables "$dir/a/trace.db" | wc -l) tables, $n ccsg outputs"

	[ "$runs" -gt 0 ] || continue
	: >"$dir/times"
	for ((i = 0; i < runs; i++)); do
		for x in a b; do
			bin=$a
			[ $x = b ] && bin=$b
			rm -f "$dir/$x/trace.db"
			elapsed w c "$bin/tracedump" merge "$logs" -o "$dir/$x/trace.db"
			echo "$x merge $w $c" >>"$dir/times"
			elapsed w c "$bin/ccsg" report --format=json --db "$dir/$x/trace.db"
			echo "$x report $w $c" >>"$dir/times"
		done
	done
	printf '%-7s %-6s %9s %9s\n' build step wall_s cpu_s
	for x in a b; do
		for step in merge report; do
			w=$(awk -v x=$x -v s=$step '$1 == x && $2 == s { print $3 }' "$dir/times" | median)
			c=$(awk -v x=$x -v s=$step '$1 == x && $2 == s { print $4 }' "$dir/times" | median)
			printf '%-7s %-6s %9.2f %9.2f\n' "${x^^}" "$step" "$w" "$c"
		done
		printf '%-7s %-6s %s MB\n' "${x^^}" db "$(($(stat -c %s "$dir/$x/trace.db") / 1048576))"
	done
	echo "(median of $runs runs, taking turns)"
done
exit $status
