#!/usr/bin/env bash
# bench-latency - Table 2 of the monitoring paper (Section 4.2) on the
# Figure 1 example: per function, its latency untraced (measured by its
# caller around the stub call: figure1-client for foo, figure1-server of
# A for times, what_to_say and say_it), traced as Equation 3 gives it
# (`ccsg latency`'s uncompensated_mean_us: between the stub probes'
# inner edges) and traced with the probe time the call held subtracted
# (mean_us), each with its standard deviation, and the interference of
# each against untraced (traced - untraced) / untraced.  A fourth
# column runs traced with the writer idle (CAUSAL_FLUSH_MS=60000 and a
# 64 MiB buffer: no record is written while the calls run), so the
# difference with the third is the writer's and the flusher's share of
# what compensation leaves.
#
# The four servers run on simulated hosts of their own (`unshare --uts`,
# as root; else all on this host) and stay up while figure1-client calls
# foo RUNS times, the three deployments' calls in turn (the first call
# of each call site is one of them); the
# whole is done at FIG1_SCALE 1 (components of 25 to 40 ms of CPU, the
# paper's milliseconds times ten) and at 0.01 (0.25 to 0.4 ms, where the
# probes weigh as in the paper's short functions).  Prints the tables;
# no target (docs/performance.md, "Latency and its interference").
#
#   BUILD=/abs/build bash test/bench/bench-latency.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
runs=${1:-10}
for f in "$BUILD/examples/figure1-server" "$BUILD/examples/figure1-client" \
	"$BUILD/libcausal.so" "$BUILD/tracedump" "$BUILD/ccsg"; do
	[ -e "$f" ] || { echo "bench-latency: '$f' is not built" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "bench-latency: needs python3" >&2; exit 1; }
# every process on CPU 0, as bench-rpc: a wake-up across CPUs costs
# hundreds of microseconds on these VMs and would swamp the probes
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
uts=0
if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null; then
	uts=1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-latency.XXXXXX")
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
trap 'stop; rm -rf "$dir"' EXIT

# hosted HOST ENV... -- PROGRAM ARGS: exec PROGRAM with the environment
# ENV (traced or not), in a UTS namespace named HOST when we can
hosted() {
	local host=$1
	shift
	if [ "$uts" = 1 ]; then
		exec "${pin[@]}" unshare --uts sh -c 'hostname "$0" && exec env "$@"' "$host" "$@"
	else
		exec "${pin[@]}" env "$@"
	fi
}

# start NAME ROLES ARGS...: a server of ROLES, its ports in tcp, udp
start() {
	local name=$1 roles=$2 ready=$out/$1.ready
	shift 2
	(hosted "host$name" "${envs[@]}" "$BUILD/examples/figure1-server" -R "$roles" \
		-r "$ready" "$@" >"$out/$name.out" 2>"$out/$name.err") &
	pids+=($!)
	for _ in $(seq 3000); do
		[ -e "$ready" ] && break
		kill -0 $! 2>/dev/null ||
			{ cat "$out/$name.err" >&2; echo "bench-latency: server $name failed" >&2; exit 1; }
		sleep 0.01
	done
	[ -e "$ready" ] || { echo "bench-latency: server $name did not start" >&2; exit 1; }
	tcp=$(awk '$1 == "tcp" { print $2 }' "$ready")
	udp=$(awk '$1 == "udp" { print $2 }' "$ready")
}

# deploy MODE SCALE: the four servers of MODE (untraced, traced, idle)
# in $dir/MODE-SCALE; foo's port in port[MODE], its environment in
# env_MODE
declare -A port
deploy() {
	local mode=$1 scale=$2 d c b
	out=$dir/$mode-$scale
	mkdir -p "$out"
	envs=("FIG1_SCALE=foo=$scale,times=$scale,what_to_say=$scale,say_it=$scale,thread=$scale")
	if [ "$mode" != untraced ]; then
		envs+=("LD_PRELOAD=$BUILD/libcausal.so" "CAUSAL_LOG_DIR=$out/logs")
	fi
	if [ "$mode" = idle ]; then
		envs+=(CAUSAL_FLUSH_MS=60000 CAUSAL_BUFFER_KB=65536)
	fi
	start D D; d=$tcp
	start C C; c=$tcp
	start B B; b=$udp
	start A A -b "$b" -c "$c" -d "$d"
	port[$mode]=$tcp
	declare -g -a "env_$mode=(\"\${envs[@]}\")"
}

modes=(untraced traced idle)
for scale in 1 0.01; do
	for mode in "${modes[@]}"; do
		deploy "$mode" "$scale"
	done
	# the modes' calls in turn: the machine's load falls on each alike
	for ((i = 0; i < runs; i++)); do
		for mode in "${modes[@]}"; do
			out=$dir/$mode-$scale
			declare -n envs_of="env_$mode"
			(hosted hostA "${envs_of[@]}" "$BUILD/examples/figure1-client" \
				"${port[$mode]}") >>"$out/client.out" 2>>"$out/client.err" ||
				{ cat "$out/client.err" >&2; echo "bench-latency: figure1-client failed" >&2; exit 1; }
			unset -n envs_of
		done
	done
	stop
	for mode in traced idle; do
		out=$dir/$mode-$scale
		"$BUILD/tracedump" merge "$out/logs" >/dev/null
		"$BUILD/ccsg" latency --format=json --db "$out/logs/trace.db" \
			--idl examples/figure1/figure1.x >"$out/latency.json"
	done
	python3 - "$dir" "$scale" "$runs" <<'EOF'
import json, math, re, sqlite3, statistics, sys

dir, scale, runs = sys.argv[1], sys.argv[2], sys.argv[3]
names = ["foo", "times", "what_to_say", "say_it"]  # procedures 1 to 4

def stats(v):
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0
    return m, sd

# untraced: what the callers measured, ms
walls = {n: [] for n in names}
for f in ("client.out", "A.out"):
    for line in open(f"{dir}/untraced-{scale}/{f}"):
        m = re.match(r"latency (\w+) ns (\d+)", line)
        if m:
            walls[m.group(1)].append(int(m.group(2)) / 1e6)

def traced(mode):
    doc = json.load(open(f"{dir}/{mode}-{scale}/latency.json"))
    got = {fn["name"].split("::")[-1].lower(): fn for fn in doc["functions"]}
    # Equation 3 per call, for its median
    db = sqlite3.connect(f"{dir}/{mode}-{scale}/logs/trace.db")
    for proc, n in enumerate(names, 1):
        v = [r[0] / 1e6 for r in db.execute(
            "SELECT stub_end_ns - stub_start_exit_ns FROM rpc_calls "
            "WHERE proc = ? AND stub_end_ns >= stub_start_exit_ns", (proc,))]
        got[n]["uncompensated_median_ms"] = statistics.median(v)
    return got

tr, idle = traced("traced"), traced("idle")
print(f"Figure 1, FIG1_SCALE {scale}: latency per function over {runs} calls of foo, "
      "ms, mean (sd) and interference against untraced; then medians")
print(f"{'function':<12} {'untraced':>17} {'uncompensated':>17} {'interf':>8} "
      f"{'compensated':>17} {'interf':>8} {'writer idle':>17} {'interf':>8} {'subtr us':>8}")
rows = []
for n in names:
    um, us = stats(walls[n])
    cell = lambda m, sd: f"{m:9.3f} ({sd:5.3f})"
    pct = lambda m, base: f"{100 * (m - base) / base:+7.2f}%"
    t, w = tr[n], idle[n]
    rm, rs = t["uncompensated_mean_us"] / 1e3, t["uncompensated_sd_us"] / 1e3
    cm, cs = t["mean_us"] / 1e3, t["sd_us"] / 1e3
    wm, ws = w["mean_us"] / 1e3, w["sd_us"] / 1e3
    print(f"{n:<12} {cell(um, us):>17} {cell(rm, rs):>17} {pct(rm, um):>8} "
          f"{cell(cm, cs):>17} {pct(cm, um):>8} {cell(wm, ws):>17} {pct(wm, um):>8} "
          f"{t['subtracted_mean_us']:8.1f}")
    ud = statistics.median(walls[n])
    rows.append((n, ud, t["uncompensated_median_ms"], t["median_us"] / 1e3,
                 w["median_us"] / 1e3, pct))
print("medians:")
for n, ud, rd, cd, wd, pct in rows:
    print(f"{n:<12} {ud:17.3f} {rd:17.3f} {pct(rd, ud):>8} "
          f"{cd:17.3f} {pct(cd, ud):>8} {wd:17.3f} {pct(wd, ud):>8}")
EOF
	echo
done
