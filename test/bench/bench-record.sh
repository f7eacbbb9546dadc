#!/usr/bin/env bash
# Cost per record on the probe hot path, in ns.  Target (issue 9, item 2):
# at most 25 ns per record; exit status 1 when missed.
set -euo pipefail
out=$("$BUILD/bench/record-cost" 20000000)
echo "$out"
ns=$(echo "$out" | awk '/^record:/ { print $2 }')
if awk -v ns="$ns" 'BEGIN { exit !(ns <= 25) }'; then
	echo "target met: $ns ns per record (<= 25 ns)"
else
	echo "TARGET MISSED: $ns ns per record (25 ns allowed)"
	exit 1
fi
