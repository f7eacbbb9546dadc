#!/usr/bin/env bash
# bench-keep - what tail keep costs an unsampled call (issue 37 items 3
# and 6): the null RPC loop of bench-rpc (client and server on CPU 0),
# untraced; traced with CAUSAL_SAMPLE=0 (every chain unsampled: the call
# records nothing); the same with tail keep on (CAUSAL_KEEP_SLOWER_THAN=
# 10s: every call records as a sampled one would, held in the keep ring
# until its window ends, none written); and CAUSAL_SAMPLE=1 (today's full
# tracing), in rotating rounds of one run.  Prints the CPU each adds per
# call on each side, and their ratio to full tracing, which holds on any
# machine.  No target is judged here: tail keep's price is stated
# (docs/tracing.md, "Tail keep").
#
#   BUILD=/abs/build bash test/bench/bench-keep.sh [ROUNDS [CALLS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
rounds=${1:-5}
calls=${2:-20000}
lib=$BUILD/libcausal.so
for f in "$BUILD/test/rpc/demo-server" "$BUILD/test/rpc/demo-client" "$lib"; do
	[ -e "$f" ] || { echo "bench-keep: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median, rpc_round, own_bpf_clock

tmp=$(mktemp -d /tmp/causal-bench-keep.XXXXXX)
clock_dir=/sys/fs/bpf/causal-bench-keep-$$
rpc_spid=
cleanup() {
	[ -n "$rpc_spid" ] && kill "$rpc_spid" 2>/dev/null && wait "$rpc_spid" 2>/dev/null
	stop_own_bpf_clock "$clock_dir"
	rm -rf "$tmp"
}
trap cleanup EXIT
own_bpf_clock "$clock_dir" || true

envof() {
	local base="LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_BPF_CLOCK_DIR=$clock_dir"
	case $1 in
	unsampled) echo "$base CAUSAL_SAMPLE=0" ;;
	keep) echo "$base CAUSAL_SAMPLE=0 CAUSAL_KEEP_SLOWER_THAN=10s" ;;
	full) echo "$base CAUSAL_SAMPLE=1" ;;
	esac
}

: >"$tmp/results"
# shellcheck disable=SC2046 # the words of an environment
rpc_round plain null "$calls" $(envof plain) # warm up
: >"$tmp/results"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then kinds="plain unsampled keep full"; else kinds="full keep unsampled plain"; fi
	for kind in $kinds; do
		# shellcheck disable=SC2046
		rpc_round "$kind" null "$calls" $(envof "$kind")
	done
done
for kind in plain unsampled keep full; do
	for col in 4 5; do
		awk -v k="$kind" -v c="$col" '$1 == k { print $c }' "$tmp/results" |
			median >"$tmp/$kind.$col"
	done
done
printf "null RPC loop, %d calls, median of %d rounds: CPU added per call (us)\n" \
	"$calls" "$rounds"
for kind in unsampled keep full; do
	awk -v k="$kind" -v n="$calls" \
		-v pc="$(cat "$tmp/plain.4")" -v ps="$(cat "$tmp/plain.5")" \
		-v kc="$(cat "$tmp/$kind.4")" -v ks="$(cat "$tmp/$kind.5")" \
		-v fc="$(cat "$tmp/full.4")" -v fs="$(cat "$tmp/full.5")" 'BEGIN {
		c = (kc - pc) / n / 1e3; s = (ks - ps) / n / 1e3
		fcd = (fc - pc) / n / 1e3; fsd = (fs - ps) / n / 1e3
		printf "  %-10s client %5.2f  server %5.2f  (of full tracing: client %.2f, server %.2f)\n",
			k, c, s, (fcd > 0 ? c / fcd : 0), (fsd > 0 ? s / fsd : 0)
	}'
done
