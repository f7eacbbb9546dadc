#!/usr/bin/env bash
# bench-sample-ab - two builds of libcausal.so side by side on the null RPC
# loop of bench-rpc (client and server on CPU 0), the way issue 37 item 6
# judges head sampling's cost: untraced, then each library at
# CAUSAL_SAMPLE=1/100 and at 1 (every call recorded), the bpf clock where
# the benchmark can start one, in rotating rounds of one run.  Prints for
# each the CPU added per call on each side (the programs' own getrusage),
# taken against the untraced run of the same round, the median over the
# rounds: on a loaded machine pairs move together, where separate medians
# move apart.  B is the baseline (say main at the start of a change,
# built in another directory).  Not run by `make bench`: it needs the
# second build.
#
#   BUILD=/abs/build bash test/bench/bench-sample-ab.sh B_LIB [ROUNDS [CALLS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
[ $# -ge 1 ] || { sed -n 2,14p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
lib_a=$BUILD/libcausal.so
lib_b=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
rounds=${2:-15}
calls=${3:-20000}
for f in "$BUILD/test/rpc/demo-server" "$BUILD/test/rpc/demo-client" "$lib_a" "$lib_b"; do
	[ -e "$f" ] || { echo "bench-sample-ab: '$f' is not built" >&2; exit 1; }
done

# shellcheck source=test/bench/lib.sh
. test/bench/lib.sh # median, rpc_round, own_bpf_clock

tmp=$(mktemp -d /tmp/causal-bench-sample-ab.XXXXXX)
clock_dir=/sys/fs/bpf/causal-bench-sample-ab-$$
rpc_spid=
cleanup() {
	[ -n "$rpc_spid" ] && kill "$rpc_spid" 2>/dev/null && wait "$rpc_spid" 2>/dev/null
	stop_own_bpf_clock "$clock_dir"
	rm -rf "$tmp"
}
trap cleanup EXIT
own_bpf_clock "$clock_dir" || true

# envof KIND: the environment of a kind, "a-1/100" and so on
envof() {
	local lib=$lib_a
	[ "$1" = plain ] && return
	[ "${1%%-*}" = b ] && lib=$lib_b
	echo "LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_BPF_CLOCK_DIR=$clock_dir CAUSAL_SAMPLE=${1#*-}"
}

kinds=(plain a-1/100 b-1/100 a-1 b-1)
rpc_round plain null "$calls" # warm up
: >"$tmp/results"
for ((r = 0; r < rounds; r++)); do
	for ((i = 0; i < ${#kinds[@]}; i++)); do
		kind=${kinds[$(((i + r) % ${#kinds[@]}))]}
		# shellcheck disable=SC2046 # the words of an environment
		rpc_round "$kind" null "$calls" $(envof "$kind")
	done
done
printf "null RPC loop, %d calls, %d rounds (B: %s): CPU added per call, us,\n" \
	"$calls" "$rounds" "$lib_b"
printf "median over the rounds of each round's own difference from untraced\n"
for kind in "${kinds[@]:1}"; do
	out=$tmp/${kind//\//_} # a file per kind and column
	for col in 4 5; do
		# rounds are the results' lines in groups of one per kind
		awk -v k="$kind" -v c="$col" -v n="$calls" -v nk="${#kinds[@]}" '
			{ r = int((NR - 1) / nk) }
			$1 == "plain" { p[r] = $c }
			$1 == k { v[r] = $c }
			END { for (r in v) if (r in p) print (v[r] - p[r]) / n / 1e3 }' \
			"$tmp/results" | median >"$out.$col"
	done
	name=A
	[ "${kind%%-*}" = b ] && name=B
	printf "  %s CAUSAL_SAMPLE=%-6s client %6.3f  server %6.3f\n" "$name" \
		"${kind#*-}" "$(cat "$out.4")" "$(cat "$out.5")"
done
echo "clock: $(traced_clock "$tmp/server.out")"
