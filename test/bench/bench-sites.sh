#!/usr/bin/env bash
# bench-sites - what the first call of each call site costs against its
# later calls (issue 34 item 3; docs/performance.md, "Call sites").
# site-calls makes Sun RPC calls through memory (clnt_raw to svc_raw, one
# thread: the four probes of each call, no kernel) from 32 call sites of
# its own: 2,000 to 2,511 calls from a site of their own first (the
# warm-up: the thread buffer's pages touched once, the caches warm; a
# number drawn per run, so that the wake of the writer, one system call
# per 32 KiB of a thread's records in whichever probe crosses the mark,
# falls on another call in each run), then one call from each site (its
# first), then 20 more from each.  RUNS processes untraced and RUNS
# traced, alternating, on CPU 0.
#
# Per site: the added latency of its later calls (the median over the
# traced runs of each run's median of them, less that over the untraced
# runs), and of its first call: that plus what a first call takes over
# the later ones in one process (its time less the median of the later
# calls of that process), traced, less the same untraced (each a median
# over the runs: so a process that ran slower throughout, on a loaded
# machine, weighs nothing).
# Target: every site's first call adds at most 2x the median added
# latency of the later calls, and at most 10 us; a miss prints TARGET
# MISSED and fails.  Shown, not judged: the same without the warm-up,
# where the first calls are the process's first ones and meet what
# every process's first calls meet.
#
# A traced run whose calls looked a symbol up (dladdr, dl_iterate_phdr:
# site-calls counts them) fails the benchmark, unless BENCH_SITES_ANY is
# set (to measure a library that does, as main's did before issue 34).
#
#   BUILD=/abs/build bash test/bench/bench-sites.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
runs=${1:-15}
prog=$BUILD/test/rpc/site-calls
lib=$BUILD/libcausal.so
for f in "$prog" "$lib"; do
	[ -e "$f" ] || { echo "bench-sites: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median (the scripts run from the top of the tree)

tmp=$(mktemp -d /tmp/causal-bench-sites.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run KIND WARM: one process, "KIND WARM site first later" lines (ns)
run() {
	local kind=$1 warm=$2 env=()
	[ "$kind" = traced ] && env=(LD_PRELOAD="$lib" CAUSAL_LOG_DIR="$tmp/logs")
	rm -rf "$tmp/logs"
	env "${env[@]}" taskset -c 0 "$prog" -n 32 -r 21 -w "$warm" >"$tmp/out" ||
		{ echo "bench-sites: a $kind run failed" >&2; exit 1; }
	awk -v k="$kind" -v w="$((warm > 0))" '/^site / { print k, w, $2, $4, $6 }' \
		"$tmp/out" >>"$tmp/results"
	# what a first call must not do: look a symbol up (site-calls counts)
	awk '/^lookups / { n = $2 } END { exit n != 0 }' "$tmp/out" || {
		echo "bench-sites: a $kind run looked symbols up inside its calls:" \
			"$(grep '^lookups' "$tmp/out")" >&2
		[ -n "${BENCH_SITES_ANY:-}" ] || exit 1
	}
}

: >"$tmp/results"
for ((i = 0; i < runs; i++)); do
	warm=$((2000 + RANDOM % 512))
	for kind in untraced traced; do
		run "$kind" 0
		run "$kind" "$warm"
	done
done

# report WARM: per site, then the verdict (judged when WARM > 0)
report() {
	local warm=$1 kind site
	: >"$tmp/sites"
	for site in $(seq 0 31); do
		for kind in untraced traced; do
			awk -v k="$kind" -v w="$warm" -v s="$site" \
				'$1 == k && $2 == w && $3 == s { print $4 - $5 }' \
				"$tmp/results" | median >"$tmp/first.$kind"
			awk -v k="$kind" -v w="$warm" -v s="$site" \
				'$1 == k && $2 == w && $3 == s { print $5 }' \
				"$tmp/results" | median >"$tmp/later.$kind"
		done
		echo "$site $(cat "$tmp/first.untraced") $(cat "$tmp/first.traced")" \
			"$(cat "$tmp/later.untraced") $(cat "$tmp/later.traced")" >>"$tmp/sites"
	done
	awk '{ print $5 - $4 }' "$tmp/sites" | median >"$tmp/median_added"
	awk -v m="$(cat "$tmp/median_added")" -v warm="$warm" -v runs="$runs" '
	BEGIN {
		printf "%s, median of %d runs each (us; first: over the later calls):\n",
			warm ? "after the warm-up" : "no warm-up", runs
		printf "  site  untraced later  first+  traced later  first+  added later  first  first/median\n"
	}
	{
		al = ($5 - $4) / 1e3; af = al + ($3 - $2) / 1e3
		r = m > 0 ? af / (m / 1e3) : 0
		printf "  %4d  %14.3f %7.3f %13.3f %7.3f %12.3f %6.3f %13.2f\n",
			$1, $4 / 1e3, $2 / 1e3, $5 / 1e3, $3 / 1e3, al, af, r
		if (af > worst) { worst = af; worst_site = $1; worst_r = r }
		if (af > 2 * m / 1e3 || af > 10) missed++
	}
	END {
		printf "  median added latency of the later calls %.3f us; the largest first call adds %.3f us (site %d, %.2fx the median)\n",
			m / 1e3, worst, worst_site, worst_r
		if (!warm)
			exit 0
		printf "  target: each first call adds at most 2x the median added latency and at most 10 us: %s\n",
			missed ? "missed by " missed " sites" : "met"
		if (missed) {
			print "  TARGET MISSED"
			exit 1
		}
	}' "$tmp/sites"
}

report 0
report 1
