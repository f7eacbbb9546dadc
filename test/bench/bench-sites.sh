#!/usr/bin/env bash
# bench-sites - what the first call of each call site costs against its
# later calls (issue 34 item 3; docs/performance.md, "Call sites").
# site-calls makes Sun RPC calls through memory (clnt_raw to svc_raw, one
# thread: the four probes of each call, no kernel) from 32 call sites of
# its own: 2,000 to 2,511 calls from a site of their own first (the
# warm-up: the thread buffer's pages touched once, the caches warm; a
# number drawn per run, so that the wake of the writer, one system call
# per 32 KiB of a thread's records in whichever probe crosses the mark,
# falls on another call in each run), then one call from each site in
# turn, the one measured, then 20 more from each.  In a "new" run that
# measured call is the site's first; in a "known" run every site made
# one call before the warm-up, so it is the site's second call, made in
# the same place of the same sequence (what a call costs by where it
# falls weighs alike on both).  RUNS rounds of the four runs (untraced
# and traced, new and known), on CPU 0.
#
# Per site, medians over the runs: the added latency of its first call
# (traced new less untraced new) and of a later call (traced known less
# untraced known; also shown, the later calls' own: each run's median of
# the 20 calls after, traced less untraced).  Target: the first call of
# every site adds at most 2x what its later call adds, and at most
# 10 us; a miss prints TARGET MISSED and fails.  Shown, not judged: the
# first calls with no warm-up at all, the process's first calls, which
# meet what every process's first calls meet.
#
# A traced run whose calls looked a symbol up (dladdr, dl_iterate_phdr:
# site-calls counts them) fails the benchmark, unless BENCH_SITES_ANY is
# set (to measure a library that does, as main's did before issue 34).
#
#   BUILD=/abs/build bash test/bench/bench-sites.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
runs=${1:-41}
prog=$BUILD/test/rpc/site-calls
lib=$BUILD/libcausal.so
for f in "$prog" "$lib"; do
	[ -e "$f" ] || { echo "bench-sites: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median (the scripts run from the top of the tree)

tmp=$(mktemp -d /tmp/causal-bench-sites.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run KIND MODE WARM: one process, "KIND MODE site first later" lines
# (ns) where MODE is new, known or cold (no warm-up)
run() {
	local kind=$1 mode=$2 warm=$3 env=() args=()
	[ "$kind" = traced ] && env=(LD_PRELOAD="$lib" CAUSAL_LOG_DIR="$tmp/logs")
	[ "$mode" = known ] && args=(-p)
	rm -rf "$tmp/logs"
	env "${env[@]}" taskset -c 0 "$prog" -n 32 -r 21 -w "$warm" "${args[@]}" \
		>"$tmp/out" || { echo "bench-sites: a $kind run failed" >&2; exit 1; }
	awk -v k="$kind" -v m="$mode" '/^site / { print k, m, $2, $4, $6 }' \
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
		run "$kind" cold 0
		run "$kind" new "$warm"
		run "$kind" known "$warm"
	done
done

# med KIND MODE SITE FIELD: the median over the runs (field 4: the
# measured call, 5: the median of the later ones)
med() {
	awk -v k="$1" -v m="$2" -v s="$3" -v f="$4" \
		'$1 == k && $2 == m && $3 == s { print $f }' "$tmp/results" | median
}

: >"$tmp/sites"
for site in $(seq 0 31); do
	echo "$site $(med untraced cold "$site" 4) $(med traced cold "$site" 4)" \
		"$(med untraced new "$site" 4) $(med traced new "$site" 4)" \
		"$(med untraced known "$site" 4) $(med traced known "$site" 4)" \
		"$(med untraced new "$site" 5) $(med traced new "$site" 5)" >>"$tmp/sites"
done
awk -v runs="$runs" '
BEGIN {
	printf "added latency (us), medians of %d runs each:\n", runs
	printf "  site  first call  a later call  later calls  first/later  first, no warm-up\n"
}
{
	first = ($5 - $4) / 1e3; later = ($7 - $6) / 1e3
	own = ($9 - $8) / 1e3; cold = ($3 - $2) / 1e3
	r = later > 0 ? first / later : 0
	printf "  %4d  %10.3f  %12.3f  %11.3f  %11.2f  %17.3f\n",
		$1, first, later, own, r, cold
	if (first > worst) { worst = first; worst_site = $1; worst_r = r }
	if (r > worst_r_all) { worst_r_all = r; ratio_site = $1 }
	if (first > 2 * later || first > 10) missed++
	cold_max = cold > cold_max ? cold : cold_max
}
END {
	printf "  the largest first call adds %.3f us (site %d, %.2fx its later call); the largest ratio %.2fx (site %d)\n",
		worst, worst_site, worst_r, worst_r_all, ratio_site
	printf "  with no warm-up (shown, not judged) the largest first call adds %.3f us\n", cold_max
	printf "  target: each first call adds at most 2x what its later call adds and at most 10 us: %s\n",
		missed ? "missed by " missed " sites" : "met"
	if (missed) {
		print "  TARGET MISSED"
		exit 1
	}
}' "$tmp/sites"
