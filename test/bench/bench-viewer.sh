#!/usr/bin/env bash
# bench-viewer - `ccsg serve` (the viewer) on the bench-scale trace of
# 1,000,000 RPC calls (gen-rpc-logs, as bench-scale.sh makes it):
#
# 1. start-up: from the command to the URL printed (the trace loaded, the
#    DSCG, CCSG and impact estimation built, the trees indexed), and the
#    server's resident memory then (VmHWM, its peak), beside `ccsg report
#    --format=json` on the same trace, run just before (the load and the
#    graphs without the viewer's indexes and the impact estimation);
# 2. API latency of expanding nodes, as the page asks when a user clicks:
#    /api/children of main, of threads, chains and calls of the DSCG, of
#    the CCSG and IDT nodes, walked breadth first (400 expansions, each a
#    page of at most 200 children), timed by the client on loopback:
#    median and 99th percentile; then the same for /api/path and /api/link
#    (the linked navigation: a function's instances grouped by host, the
#    500 first of its calls listed);
# 3. the DSCG compacted by location (ccsg/compact/compact.h): its first build, a
#    global level 1 (hosts), a local expand of one host;
# 4. the peak memory after all of it.
#
# Targets: start-up at most 1.5x the report's CPU time (user + system;
# measured side by side: on a loaded machine wall-clock times of 20 s
# vary by 2x from one run to the next, CPU times far less), and under
# 2 GB resident;
# expanding a node: median under 50 ms, 99th percentile under 500 ms
# (the page stays responsive).  Missed: TARGET MISSED, exit 1.
#
#   BUILD=/abs/build bash test/bench/bench-viewer.sh [CALLS]
#   BENCH_VIEWER_DB=trace.db ... reuses a merged trace of gen-rpc-logs
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
calls=${1:-1000000}
for f in "$BUILD/bench/gen-rpc-logs" "$BUILD/tracedump" "$BUILD/ccsg"; do
	[ -x "$f" ] || { echo "bench-viewer: '$f' is not built" >&2; exit 1; }
done
py=/usr/bin/python3
[ -x "$py" ] || { echo "bench-viewer: needs $py" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-viewer: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-viewer.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

db=${BENCH_VIEWER_DB:-}
if [ -z "$db" ]; then
	db=$dir/trace.db
	n=$("$BUILD/bench/gen-rpc-logs" "$dir/logs" "$calls")
	"$BUILD/tracedump" merge "$dir/logs" -o "$db" >/dev/null
	rm -rf "$dir/logs"
	echo "trace: $n calls (gen-rpc-logs, merged)"
fi

t0=$(date +%s%N)
/usr/bin/time -f '%U %S' -o "$dir/rtime" "$BUILD/ccsg" report --db "$db" --format=json >/dev/null
t1=$(date +%s%N)
report_ms=$(( (t1 - t0) / 1000000 ))
report_cpu_ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$dir/rtime")

t0=$(date +%s%N)
"$BUILD/ccsg" serve --db "$db" --listen 127.0.0.1:0 >"$dir/out" 2>"$dir/err" &
pid=$!
url=
while [ -z "$url" ]; do
	kill -0 "$pid" 2>/dev/null || { cat "$dir/err" >&2; echo "bench-viewer: ccsg serve failed" >&2; exit 1; }
	url=$(grep -o 'http://[^ ]*' "$dir/out" 2>/dev/null || true)
	[ -n "$url" ] || sleep 0.02
done
t1=$(date +%s%N)
startup_ms=$(( (t1 - t0) / 1000000 ))
hwm_start=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
# utime + stime of the server so far (fields 14 and 15, clock ticks)
startup_cpu_ms=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%d", ($12 + $13) * 1000 / hz }' "/proc/$pid/stat")

"$py" - "$url" >"$dir/lat" <<'PYEOF'
import json, sys, time, urllib.parse, urllib.request
url = sys.argv[1].rstrip("/")

def get(path, **q):
    t = time.perf_counter()
    with urllib.request.urlopen(url + path + "?" + urllib.parse.urlencode(q, doseq=True)) as r:
        body = json.load(r)
    return body, (time.perf_counter() - t) * 1000

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]

expand = []
for tree, root in (("dscg", "m"), ("ccsg", "n0"), ("idt", "idt")):
    queue, budget = [root], 400 if tree == "dscg" else 50
    while queue and budget:
        node = queue.pop(0)
        body, ms = get("/api/children", tree=tree, id=node, limit=200)
        expand.append(ms)
        budget -= 1
        queue += [c["id"] for c in body["children"] if c["has_children"]][:20]
paths, links = [], []
body, _ = get("/api/search", tree="dscg", q="::", limit=200)
for n in body["results"][:100]:
    paths.append(get("/api/path", tree="dscg", id=n["id"])[1])
body, _ = get("/api/children", tree="ccsg", id="n0")
for n in body["children"][:20]:
    links.append(get("/api/link", **{"from": "ccsg", "id": n["id"], "to": "dscg"})[1])
# the DSCG compacted by location: built on first use, folded by host,
# one host opened (each request gives the steps of its state, as the
# page does)
def post(path, **q):
    t = time.perf_counter()
    req = urllib.request.Request(url + path + "?" + urllib.parse.urlencode(q, doseq=True),
                                 method="POST")
    with urllib.request.urlopen(req) as r:
        body = json.load(r)
    return body, (time.perf_counter() - t) * 1000
_, build_ms = get("/api/children", tree="dscg", compact="location", id="k:")
level, level_ms = post("/api/compact", tree="dscg", hierarchy="location", op="level", level=1)
body, _ = get("/api/children", tree="dscg", compact="location", id="k:<main>",
              step=level["steps"])
_, action_ms = post("/api/compact", tree="dscg", hierarchy="location", op="expand",
                    id=body["children"][0]["id"], step=level["steps"])
print("compact %.0f %.0f %.0f" % (build_ms, level_ms, action_ms))
print("expand %d %.1f %.1f" % (len(expand), pct(expand, 50), pct(expand, 99)))
print("path %d %.1f %.1f" % (len(paths), pct(paths, 50), pct(paths, 99)))
print("link %d %.1f %.1f" % (len(links), pct(links, 50), pct(links, 99)))
PYEOF
hwm_end=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
kill "$pid"
wait "$pid" || { echo "bench-viewer: ccsg serve did not stop cleanly" >&2; exit 1; }
pid=

status=0
read -r _ n_exp med_exp p99_exp < <(grep '^expand' "$dir/lat")
read -r _ n_path med_path p99_path < <(grep '^path' "$dir/lat")
read -r _ n_link med_link p99_link < <(grep '^link' "$dir/lat")
printf 'start-up (load, DSCG, CCSG, impact, index): %d ms, CPU %d ms; ccsg report: %d ms, CPU %d ms (%s x); resident %d MB\n' \
	"$startup_ms" "$startup_cpu_ms" "$report_ms" "$report_cpu_ms" \
	"$(awk -v a="$startup_cpu_ms" -v b="$report_cpu_ms" 'BEGIN { printf "%.2f", a / b }')" \
	$((hwm_start / 1024))
printf 'expand a node (/api/children, %d of them): median %s ms, p99 %s ms\n' \
	"$n_exp" "$med_exp" "$p99_exp"
printf 'path to a call (/api/path, %d): median %s ms, p99 %s ms\n' \
	"$n_path" "$med_path" "$p99_path"
printf 'link a function to its calls (/api/link, %d): median %s ms, p99 %s ms\n' \
	"$n_link" "$med_link" "$p99_link"
read -r _ c_build c_level c_action < <(grep '^compact' "$dir/lat")
printf 'DSCG compacted by location: built in %s ms (first use), level 1 in %s ms, a host expanded in %s ms\n' \
	"$c_build" "$c_level" "$c_action"
printf 'peak resident memory after the requests: %d MB\n' $((hwm_end / 1024))
miss() { echo "TARGET MISSED: $*"; status=1; }
[ $((startup_cpu_ms * 10)) -le $((report_cpu_ms * 15)) ] ||
	miss "start-up CPU $startup_cpu_ms ms > 1.5 x ccsg report's $report_cpu_ms ms"
[ $((hwm_end / 1024)) -le 2048 ] || miss "memory $((hwm_end / 1024)) MB > 2048 MB"
awk -v m="$med_exp" 'BEGIN { exit !(m <= 50) }' || miss "expand median $med_exp ms > 50 ms"
awk -v m="$p99_exp" 'BEGIN { exit !(m <= 500) }' || miss "expand p99 $p99_exp ms > 500 ms"
exit $status
