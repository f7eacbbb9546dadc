#!/usr/bin/env bash
# make-log-seeds - regenerate the seeds of fuzz-log (test/fuzz/log-seeds/)
# from real traced runs: the Figure 1 example (RPC on four hosts), the
# thread pipeline, and test programs that start threads, fork, exec and
# spawn.  Each log is kept as NAME.clog and, decompressed (its records,
# msgpack), as NAME.records.  Run after `make example` and the test
# programs are built (`make test` or `make e2e`), from the source tree:
#
#   bash test/fuzz/make-log-seeds.sh [BUILD]
#
# The seeds are committed: the fuzzer needs no traced run.  Regenerate them
# when the log format gains a record type.  Only the seeds this script makes
# are replaced: figure1-format3-* and figure1-format4-* (Figure 1 as formats
# 3 and 4 wrote it: pairs laid out as format 4 no longer does, pairs with
# no NEXT pairs among them) and the inputs fuzzing found stay.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
out=test/fuzz/log-seeds
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$build/libcausal.so" "$build/test/progs/thread-tree" \
	 "$build/examples/figure1-client"; do
	[ -e "$f" ] || { echo "make-log-seeds: '$f' is not built" >&2; exit 1; }
done
[ -d "$build/example-logs/figure1/logs" ] ||
	{ echo "make-log-seeds: run 'make example' first" >&2; exit 1; }

traced() {
	local name=$1
	shift
	mkdir -p "$tmp/$name"
	(cd "$tmp" && LD_PRELOAD="$build/libcausal.so" \
		CAUSAL_LOG_DIR="$tmp/$name" "$@" >/dev/null)
}
traced thread-tree "$build/test/progs/thread-tree" 2 2
traced thread-ends "$build/test/progs/thread-ends"
traced fork-exec "$build/test/progs/fork-exec" /bin/true
traced spawn env PATH="/bin:/usr/bin" "$build/test/progs/spawn" /bin/true

rm -f "$out"/figure1-host* "$out"/pipeline.* "$out"/thread-tree-* \
	"$out"/thread-ends-* "$out"/fork-exec-* "$out"/spawn-*
keep() { # keep NAME LOG
	install -m 0644 "$2" "$out/$1.clog"
	zstd -q -d -c "$2" > "$out/$1.records"
}
for host in hostA hostB hostC hostD; do
	n=0
	for f in "$build"/example-logs/figure1/logs/$host.*.clog; do
		keep "figure1-$host-$n" "$f"
		n=$((n + 1))
	done
done
keep pipeline "$(ls "$build"/example-logs/pipeline/*.clog | head -1)"
for d in thread-tree thread-ends fork-exec spawn; do
	n=0
	for f in "$tmp/$d"/*.clog; do
		keep "$d-$n" "$f"
		n=$((n + 1))
	done
done
ls -l "$out"
