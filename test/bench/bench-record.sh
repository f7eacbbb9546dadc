#!/usr/bin/env bash
# Cost per record on the probe hot path, in ns.
set -euo pipefail
"$BUILD/bench/record-cost" 20000000
