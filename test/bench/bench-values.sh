#!/usr/bin/env bash
# bench-values - what the monitoring type values costs a Sun RPC call
# (issue 38 item 4, docs/performance.md "Values of calls"): calls through
# memory (demo-server -m raw -b: clnt_raw to svc_raw in one thread, the
# client's and the server's probes, no kernel) of the null procedure and
# of SAY_IT (int -> int), untraced, traced with every type of calls on
# (CAUSAL_MONITOR=all: values off), and with values on too
# (all,values: four copies and four records more a call), in rotating
# rounds in one run; the process's CPU per call, median of the rounds.
# Values off is judged against the plain build's every-type-on cost by
# bench-monitor; here the figures are printed, not judged.
#
#   BUILD=/abs/build bash test/bench/bench-values.sh [ROUNDS [CALLS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
rounds=${1:-9}
calls=${2:-200000}
server=$BUILD/test/rpc/demo-server
lib=$BUILD/libcausal.so
for f in "$server" "$lib"; do
	[ -e "$f" ] || { echo "bench-values: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median

tmp=$(mktemp -d /tmp/causal-bench-values.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

envof() {
	case $1 in
	plain) echo "CAUSAL_BENCH_PLAIN=1" ;;
	all) echo "LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_MONITOR=all" ;;
	values) echo "LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_MONITOR=all,values" ;;
	esac
}

# One round of one kind: "KIND PROC cpu_ns" lines.
raw_round() {
	rm -rf "$tmp/logs"
	# shellcheck disable=SC2046 # the words of an environment
	env $(envof "$1") taskset -c 0 "$server" -m raw -b "$calls" |
		awk -v k="$1" '/^rawbench/ {
			if ($8 != 0) exit 1; print k, $2, $6 }' >>"$tmp/raw"
}

: >"$tmp/raw"
raw_round plain # warm-up
: >"$tmp/raw"
for ((r = 1; r <= rounds; r++)); do
	case $((r % 3)) in
	0) order="plain all values" ;;
	1) order="all values plain" ;;
	2) order="values plain all" ;;
	esac
	for kind in $order; do
		raw_round "$kind"
	done
done
printf "%d calls through memory (clnt_raw to svc_raw, one thread: client and server probes), median of %d rounds:\n" \
	"$calls" "$rounds"
for proc in null say; do
	for kind in plain all values; do
		n=$(awk -v k="$kind" -v p="$proc" '$1 == k && $2 == p' \
			"$tmp/raw" | wc -l)
		[ "$n" -eq "$rounds" ] ||
			{ echo "bench-values: a $kind $proc run failed" >&2; exit 1; }
		awk -v k="$kind" -v p="$proc" '$1 == k && $2 == p { print $3 }' \
			"$tmp/raw" | median >"$tmp/raw.$kind.$proc"
	done
	awk -v p="$proc" -v n="$calls" -v pc="$(cat "$tmp/raw.plain.$proc")" \
		-v ac="$(cat "$tmp/raw.all.$proc")" -v vc="$(cat "$tmp/raw.values.$proc")" 'BEGIN {
		printf "  %-4s untraced %.3f us/call, all types (values off) %.3f, values on %.3f\n",
			p, pc / n / 1e3, ac / n / 1e3, vc / n / 1e3
		printf "  %-4s values on adds %.3f us a call, both sides (%.3f a side)\n",
			p, (vc - ac) / n / 1e3, (vc - ac) / n / 2e3
	}'
done
