#!/usr/bin/env bash
# Runs every test/bench/bench-*.sh in turn.  Each prints its own figures as
# traced/untraced ratios measured side by side in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BUILD:=$PWD/build}"
export BUILD
status=0
for b in test/bench/bench-*.sh; do
	echo "== $(basename "$b" .sh)"
	bash "$b" || { echo "bench $(basename "$b") failed"; status=1; }
done
exit $status
