#!/usr/bin/env bash
# viewer-screenshot.sh [OUT] - the README's picture of the viewer (`make
# screenshot`): `ccsg serve` on the Figure 1 trace that `make example`
# leaves in $BUILD/example-logs/figure1/logs/trace.db, and headless
# chromium on its CCDG (say_it 20% less CPU on hostD, SAY_IT selected),
# 1280x560, into OUT (default docs/viewer.png).  Needs chromium, as the
# browser test does (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=$PWD/build}"
out=${1:-docs/viewer.png}
db=$(realpath --relative-to=. "$BUILD/example-logs/figure1/logs/trace.db")
spec='reduction on processor { hostD } by 20% to function { FIG1_PROG::SAY_IT }'
[ -f "$db" ] || { echo "viewer-screenshot: no $db: run make example first" >&2; exit 1; }
command -v chromium >/dev/null ||
	{ echo "viewer-screenshot: needs chromium (scripts/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
server=
stop() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap stop EXIT
"$BUILD/ccsg" serve --db "$db" --idl examples/figure1/figure1.x \
	--listen 127.0.0.1:0 >"$tmp/serve.out" 2>&1 &
server=$!
url=
for _ in $(seq 300); do
	url=$(grep -o 'http://[^ ]*/' "$tmp/serve.out" || true)
	[ -n "$url" ] && break
	kill -0 "$server" 2>/dev/null || { cat "$tmp/serve.out" >&2; exit 1; }
	sleep 0.1
done
[ -n "$url" ] || { echo "viewer-screenshot: ccsg serve printed no URL" >&2; exit 1; }
# the page opens the tree down to the node its URL's hash names
hash=$(python3 - "$url" "$spec" <<'PY'
import json, sys, urllib.parse, urllib.request
url, spec = sys.argv[1], sys.argv[2]
q = urllib.parse.urlencode({'tree': 'ccsg', 'q': 'FIG1_PROG::SAY_IT'})
with urllib.request.urlopen(url + 'api/search?' + q) as r:
    node = json.load(r)['results'][0]['id']
print(urllib.parse.urlencode({'tree': 'ccdg', 'node': node, 'spec': spec},
                             quote_via=urllib.parse.quote))
PY
)
chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
	--no-first-run --disable-extensions --hide-scrollbars \
	--user-data-dir="$tmp/chromium" --window-size=1280,560 \
	--virtual-time-budget=5000 --screenshot="$out" "$url#$hash" \
	>"$tmp/chromium.out" 2>&1 ||
	{ cat "$tmp/chromium.out" >&2; exit 1; }
[ -s "$out" ] || { echo "viewer-screenshot: chromium wrote no $out" >&2; exit 1; }
echo "viewer-screenshot: $out"
