#!/usr/bin/env bash
# bench-clickhouse - the ClickHouse store (issue 17) against the SQLite
# file: synthetic logs of 100,000 and 1,000,000 Sun RPC calls
# (gen-rpc-logs: 8 processes on 4 hosts), split into one directory per
# host (the HOST of HOST.PID.UUID.clog) and loaded into a private
# clickhouse-server (test/clickhouse/server.sh, a free port, a temporary
# directory):
#
#  - load rate, one loader: the host directories loaded one after another
#    (`tracedump merge HOSTDIR --db clickhouse://...`) into database a;
#    two loaders: the host directories split in two halves, each half
#    loaded by a loop of its own, both at once, into database b.  Records
#    are the sum of the merges' "records:" lines, rows the sum of their
#    "load:" lines; the wall clock is taken around the whole load.  Each
#    load has a fixed cost of 0.2 to 0.5 s spent waiting on the server
#    (1,000 rows take that long), which two loaders overlap: at 100,000
#    calls two loaders are 2 to 3 times as fast as one.  At 1,000,000,
#    on 2 processors shared with the server and its background merges,
#    the ratio varied from x1.2 to x2.0 between runs.
#  - report: `ccsg report --format=json` from database a and from the
#    SQLite file of one `tracedump merge` of all the logs: wall time, CPU
#    time (user + system) and peak resident memory (/usr/bin/time -v).
#    The two outputs must be equal but for their "trace" field.
#  - report by two workers (`--workers 2`, each thread over half of the
#    chains), from each: the output must equal one worker's, byte for
#    byte; the line gives the wall-time ratio to one worker's (2
#    processors, shared with the server when reading the store).
#
# The goal of issue 17 is a reader whose memory stays flat as the trace
# grows: `ccsg report` copies all but the calls, then reads the calls range
# of chains by range (docs/clickhouse.md, "Reading").  The "memory flat" line
# says whether it is (flat: a growth of at most 1.25 times from the first
# size to the last), and is not a failure.  Exit status 1 only when a command fails or the outputs differ;
# without clickhouse-server, one line saying it is skipped and status 0.
#
#   BUILD=/abs/build bash test/bench/bench-clickhouse.sh [CALLS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
server=test/clickhouse/server.sh
if ! bash "$server" have; then
	echo "bench-clickhouse: skipped: clickhouse-server is not installed"
	exit 0
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)
gen=$BUILD/bench/gen-rpc-logs
for f in "$gen" "$BUILD/tracedump" "$BUILD/ccsg"; do
	[ -x "$f" ] || { echo "bench-clickhouse: '$f' is not built" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "bench-clickhouse: python3 is needed to compare the outputs" >&2; exit 1; }
timer=/usr/bin/time
[ -x "$timer" ] || { echo "bench-clickhouse: no /usr/bin/time (apt-get install time): no peak memory"; timer=; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-clickhouse.XXXXXX")
srv_pid='' loader_pids=()
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p
	for p in "${loader_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	# by the PID it wrote in srv/pid
	[ -z "$srv_pid" ] || bash "$server" stop "$dir/srv"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "bench-clickhouse: $*" >&2
	exit 1
}

# A port P with P, P + 1 and P + 2 free (HTTP, native, inter-server).
port=$(python3 -c '
import random, socket
for _ in range(200):
    p = random.randrange(20000, 60000)
    try:
        for q in (p, p + 1, p + 2):
            s = socket.socket()
            s.bind(("127.0.0.1", q))
            s.close()
    except OSError:
        continue
    print(p)
    break
')
[ -n "$port" ] || fail "no free port"
srv_pid=$(bash "$server" start "$dir/srv" "$port") || fail "clickhouse-server did not start"
url=clickhouse://127.0.0.1:$port

query() {
	curl -sf "http://127.0.0.1:$port/" --data-binary "$1" >/dev/null
}

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # measure (the scripts run from the top of the tree)
bench="bench-clickhouse"

# load_loop OUT DB HOSTDIR...: loads each host directory in turn into DB
load_loop() {
	local out=$1 db=$2 d
	shift 2
	for d in "$@"; do
		"$BUILD/tracedump" merge "$d" --db "$url/$db" >>"$out.out" 2>>"$out.err" ||
			{ echo "bench-clickhouse: loading '$d' into $db failed:" >&2; tail -5 "$out.err" >&2; return 1; }
	done
}

# load_figures NHOSTS FILE...: sets records, rows and copy_s, the sums of
# the merges' "records:" lines and of the rows and seconds of their
# "load:" lines (the copy into the store, the merge into a temporary
# file aside); a load that added nothing fails
load_figures() {
	local nhosts=$1 loads
	shift
	records=$(cat "$@" | awk '/^records:/ { s += $2 } END { print s + 0 }')
	rows=$(cat "$@" | awk '/^load:/ { for (i = 2; i < NF; i++) if ($(i + 1) == "rows") s += $i } END { print s + 0 }')
	copy_s=$(cat "$@" | awk '/^load:/ { for (i = 2; i < NF; i++) if ($i == "in") s += $(i + 1) } END { print s + 0 }')
	loads=$(cat "$@" | grep -c '^load: *[0-9]' || true)
	[ "$loads" -eq "$nhosts" ] || fail "$loads loads for $nhosts host directories"
}

rate() {
	awk -v n="$1" -v t="$2" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }'
}

now() {
	date +%s.%N
}

declare -A one_rec one_rows one_s two_rec two_rows two_s
declare -A ch_s ch_cpu ch_mb sq_s sq_cpu sq_mb
echo "server: clickhouse-server on port $port (pid $srv_pid), $(nproc) processors"
for n in "${sizes[@]}"; do
	logs=$dir/logs-$n
	calls=$("$gen" "$logs" "$n")
	# one directory per host, by the HOST of HOST.PID.UUID.clog (links,
	# not copies)
	hosts=()
	for f in "$logs"/*.clog; do
		h=$(basename "$f")
		h=${h%%.*}
		if [ ! -d "$dir/hosts-$n/$h" ]; then
			mkdir -p "$dir/hosts-$n/$h"
			hosts+=("$dir/hosts-$n/$h")
		fi
		ln "$f" "$dir/hosts-$n/$h/" 2>/dev/null || cp "$f" "$dir/hosts-$n/$h/"
	done
	nh=${#hosts[@]}
	[ "$nh" -ge 2 ] || fail "$nh host directories: two loaders need two"

	# (a) one loader, the hosts one after another
	start=$(now)
	load_loop "$dir/one-$n" "a$n" "${hosts[@]}" || exit 1
	end=$(now)
	one_s[$n]=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
	load_figures "$nh" "$dir/one-$n.out"
	one_rec[$n]=$records one_rows[$n]=$rows one_copy=$copy_s

	# (b) two loaders at once, half of the hosts each
	half=$(( (nh + 1) / 2 ))
	start=$(now)
	load_loop "$dir/two1-$n" "b$n" "${hosts[@]:0:half}" &
	loader_pids=($!)
	load_loop "$dir/two2-$n" "b$n" "${hosts[@]:half}" &
	loader_pids+=($!)
	st=0
	for p in "${loader_pids[@]}"; do
		wait "$p" || st=1
	done
	end=$(now)
	loader_pids=()
	[ "$st" -eq 0 ] || fail "a loader of database b$n failed"
	two_s[$n]=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
	load_figures "$nh" "$dir/two1-$n.out" "$dir/two2-$n.out"
	two_rec[$n]=$records two_rows[$n]=$rows two_copy=$copy_s
	query "DROP DATABASE IF EXISTS b$n" || fail "cannot drop database b$n"

	printf '%s calls, %s host directories:\n' "$calls" "$nh"
	printf '  load, one loader:   %6.2f s, %9s records/s, %9s rows/s (%s records, %s rows; copies %.2f s)\n' \
		"${one_s[$n]}" "$(rate "${one_rec[$n]}" "${one_s[$n]}")" "$(rate "${one_rows[$n]}" "${one_s[$n]}")" \
		"${one_rec[$n]}" "${one_rows[$n]}" "$one_copy"
	printf '  load, two loaders:  %6.2f s, %9s records/s, %9s rows/s (%s records, %s rows; copies %.2f s, summed)\n' \
		"${two_s[$n]}" "$(rate "${two_rec[$n]}" "${two_s[$n]}")" "$(rate "${two_rows[$n]}" "${two_s[$n]}")" \
		"${two_rec[$n]}" "${two_rows[$n]}" "$two_copy"
	awk -v a="${one_rec[$n]}" -v ta="${one_s[$n]}" -v b="${two_rec[$n]}" -v tb="${two_s[$n]}" 'BEGIN {
		printf "  two/one loaders:    x%.2f records/s\n", ((ta > 0 && tb > 0 && a > 0) ? (b / tb) / (a / ta) : 0) }'

	# the same logs in one SQLite file
	measure "merge-$n" "$BUILD/tracedump" merge "$logs" -o "$dir/trace-$n.db"
	printf '  sqlite merge:       %6.2f s, %6.2f s CPU, %5s MB peak\n' "$secs" "$cpu" "$peak_mb"

	measure "report-ch-$n" "$BUILD/ccsg" report --format=json --db "$url/a$n"
	ch_s[$n]=$secs ch_cpu[$n]=$cpu ch_mb[$n]=$peak_mb
	measure "report-sq-$n" "$BUILD/ccsg" report --format=json --db "$dir/trace-$n.db"
	sq_s[$n]=$secs sq_cpu[$n]=$cpu sq_mb[$n]=$peak_mb
	printf '  report, clickhouse: %6.2f s, %6.2f s CPU, %5s MB peak\n' "${ch_s[$n]}" "${ch_cpu[$n]}" "${ch_mb[$n]}"
	printf '  report, sqlite:     %6.2f s, %6.2f s CPU, %5s MB peak\n' "${sq_s[$n]}" "${sq_cpu[$n]}" "${sq_mb[$n]}"
	if ! python3 - "$dir/report-ch-$n.out" "$dir/report-sq-$n.out" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("trace", None)
b.pop("trace", None)
if a != b:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    print("  differing fields: " + ", ".join(keys))
    sys.exit(1)
PY
	then
		echo "bench-clickhouse: FAILED: $calls calls: the report from the ClickHouse store differs from the report from SQLite"
		exit 1
	fi
	echo "  reports equal (but for \"trace\")"
	measure "report-ch2-$n" "$BUILD/ccsg" report --format=json --workers 2 --db "$url/a$n"
	ch2_s=$secs ch2_mb=$peak_mb
	measure "report-sq2-$n" "$BUILD/ccsg" report --format=json --workers 2 --db "$dir/trace-$n.db"
	sq2_s=$secs sq2_mb=$peak_mb
	for store in ch sq; do
		cmp -s "$dir/report-$store-$n.out" "$dir/report-${store}2-$n.out" ||
			{ echo "bench-clickhouse: FAILED: $calls calls: two workers' report from $store differs from one worker's"; exit 1; }
	done
	awk -v a="${ch_s[$n]}" -v b="$ch2_s" -v ma="$ch2_mb" -v c="${sq_s[$n]}" -v d="$sq2_s" -v mb="$sq2_mb" 'BEGIN {
		printf "  report, 2 workers:  clickhouse %.2f s (x%.2f of one worker), %s MB; sqlite %.2f s (x%.2f), %s MB; equal to one worker'"'"'s\n",
			b, (a > 0 ? b / a : 0), ma, d, (c > 0 ? d / c : 0), mb }'
	query "DROP DATABASE IF EXISTS a$n" || fail "cannot drop database a$n"
	rm -rf "$logs" "$dir/hosts-$n" "$dir/trace-$n.db" "$dir"/report-*-"$n".out
done

echo
printf '%-9s %11s %11s %7s %11s %11s %8s %8s %7s %8s %8s %7s\n' calls \
	'1:records/s' '1:rows/s' '2/1' '2:records/s' '2:rows/s' \
	'ch_s' 'ch_cpu' 'ch_MB' 'sq_s' 'sq_cpu' 'sq_MB'
for n in "${sizes[@]}"; do
	printf '%-9s %11s %11s %7s %11s %11s %8.2f %8.2f %7s %8.2f %8.2f %7s\n' "$n" \
		"$(rate "${one_rec[$n]}" "${one_s[$n]}")" "$(rate "${one_rows[$n]}" "${one_s[$n]}")" \
		"$(awk -v a="${one_s[$n]}" -v b="${two_s[$n]}" 'BEGIN { printf "x%.2f", (b > 0 ? a / b : 0) }')" \
		"$(rate "${two_rec[$n]}" "${two_s[$n]}")" "$(rate "${two_rows[$n]}" "${two_s[$n]}")" \
		"${ch_s[$n]}" "${ch_cpu[$n]}" "${ch_mb[$n]}" "${sq_s[$n]}" "${sq_cpu[$n]}" "${sq_mb[$n]}"
done
if [ ${#sizes[@]} -ge 2 ]; then
	a=${sizes[0]} b=${sizes[-1]}
	for store in clickhouse sqlite; do
		if [ $store = clickhouse ]; then
			ta=${ch_s[$a]} tb=${ch_s[$b]} ca=${ch_cpu[$a]} cb=${ch_cpu[$b]} ma=${ch_mb[$a]} mb=${ch_mb[$b]}
		else
			ta=${sq_s[$a]} tb=${sq_s[$b]} ca=${sq_cpu[$a]} cb=${sq_cpu[$b]} ma=${sq_mb[$a]} mb=${sq_mb[$b]}
		fi
		awk -v s=$store -v a="$a" -v b="$b" -v ta="$ta" -v tb="$tb" -v ca="$ca" -v cb="$cb" \
			-v ma="$ma" -v mb="$mb" 'BEGIN {
			printf "growth %d -> %d calls (x%.0f), report from %s: wall time x%.2f, CPU time x%.2f, peak memory x%.2f (%d MB -> %d MB)\n",
				a, b, b / a, s, (ta > 0 ? tb / ta : 0), (ca > 0 ? cb / ca : 0), (ma > 0 ? mb / ma : 0), ma, mb }'
	done
	# issue 17's goal: the ClickHouse reader's memory does not grow with
	# the trace (at most 1.25 times): it holds a range of chains at a time
	ma=${ch_mb[$a]} mb=${ch_mb[$b]}
	if awk -v ma="$ma" -v mb="$mb" 'BEGIN { exit !(ma > 0 && mb <= 1.25 * ma) }'; then
		echo "memory flat: yes ($ma MB -> $mb MB, the ClickHouse reader)"
	else
		echo "memory flat: no ($ma MB -> $mb MB, the ClickHouse reader: the largest chain grew, or the threads)"
	fi
fi
exit 0
