#!/usr/bin/env bash
# bench-malloc - what heap memory accounting adds to a malloc + free pair
# ($BUILD/bench/malloc-cost): traced with memory accounting on, traced
# with it off (CAUSAL_MONITOR=semantics,latency,cpu), and untraced, each ratio measured inside
# one process against glibc's own entry points (see malloc-cost.c), so
# that both sides see the same machine.  Two patterns:
#
#   working  a working set of 4096 live blocks of random sizes (16 to
#            1024 bytes), each pair freeing one at random and allocating
#            its replacement: what a program holding objects does.  The
#            targets apply here: memory on at most 1.30, off at most 1.05;
#   pingpong each block freed at once, always from glibc's tcache: the
#            cheapest pair there is (about 8 ns), the wrappers' worst
#            case.  Printed, no target.
#
#   BUILD=/abs/build bash test/bench/bench-malloc.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
rounds=${1:-1000}
prog=$BUILD/bench/malloc-cost
lib=$BUILD/libcausal.so
for f in "$prog" "$lib"; do
	[ -e "$f" ] || { echo "bench-malloc: '$f' is not built" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/causal-bench-malloc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# One run: "plain-ns wrapped-ns ratio" (per pair; the ratio a median).
run() {
	local how=$1 slots=$2
	rm -rf "$tmp/logs"
	case $how in
	untraced) "$prog" "$rounds" 10000 "$slots" ;;
	on) LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_MONITOR=all \
		"$prog" "$rounds" 10000 "$slots" ;;
	off) LD_PRELOAD=$lib CAUSAL_LOG_DIR=$tmp/logs CAUSAL_MONITOR=semantics,latency,cpu \
		"$prog" "$rounds" 10000 "$slots" ;;
	esac | awk '/^malloc-cost/ { print $5, $7, $9 }'
}

status=0
for pattern in working pingpong; do
	slots=0
	[ "$pattern" = working ] && slots=4096
	echo "malloc+free pairs, $pattern ($rounds rounds of 10000 pairs; ns per pair, median ratio):"
	for how in untraced on off; do
		read -r plain wrapped ratio < <(run "$how" "$slots") ||
			{ echo "bench-malloc: the $how run failed" >&2; exit 1; }
		case $how in
		untraced) label="untraced (the method's noise)"; target= ;;
		on) label="traced, memory on"; target=1.30 ;;
		off) label="traced, memory off"; target=1.05 ;;
		esac
		[ "$pattern" = pingpong ] && target=
		printf "  %-32s glibc %6.2f  wrapped %6.2f  ratio %.3f%s\n" \
			"$label" "$plain" "$wrapped" "$ratio" \
			"${target:+ (target <= $target)}"
		if [ -n "$target" ] && awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r > t) }'; then
			echo "TARGET MISSED: malloc+free $pattern, $label: $ratio (target <= $target)"
			status=1
		fi
	done
done
exit $status
