#!/usr/bin/env bash
# Install what causal needs on a fresh Debian machine (run as root, or with
# sudo available).  Does nothing when everything is already there.
set -euo pipefail
# clang and libclang-rt: the libFuzzer targets and CI's clang build;
# clang-format and python3: scripts/check-format.sh (clang-format-diff).
# libbpf-dev (libbpf and its BPF headers), bpftool (the skeleton) and clang
# (the BPF target): the bpf clock (bpf/, causalctl/).  Built CO-RE, it needs
# no kernel headers and no kernel BTF to build (only to load, at run time).
# libfftw3-dev, libcairo2-dev and libfontconfig-dev: ccsg pes (the
# periodogram, the pictures).
# libdw-dev (elfutils): `ccsg spikes` symbolises sampled addresses offline;
# libelf-dev (elfutils): libcausal.so's writer names call sites (preload/elf-syms.c).
# libmicrohttpd-dev and node-d3: `ccsg serve` (the viewer: its HTTP server,
# and d3, served from /usr/share/nodejs/d3); chromium, chromium-driver and
# python3-selenium: the viewer's browser test (test/browser/).
# clickhouse-server (18.16 in bookworm) and curl: the ClickHouse store's
# tests and benchmark start private servers (test/clickhouse/server.sh).
# lttng-tools, liblttng-ust-dev (its libc wrapper), babeltrace2 and
# uftrace: the peers bench-peers measures causal beside (make bench only).
# nettle-dev: HMAC-SHA256 of the coordinator's channel over TCP
# (util/monitor-auth.c, in libcausal.so and causalctl).
# ypserv and yp-tools (ypcat, makedbm): the fork suite traces Debian's NIS
# server, whose child streams YPPROC_ALL's reply (test/check-e2e-rpc-fork.c;
# skipped without them), which runs its own ypserv in a namespace of its
# own: the services the packages install are not used.
PKGS=(build-essential pkg-config libtirpc-dev libelf-dev libzstd-dev
      libmsgpack-dev check libsqlite3-dev libcurl4-openssl-dev sqlite3 rpcsvc-proto rpcbind
      util-linux zstd clang libclang-rt-14-dev clang-format python3 time
      graphviz man-db groff-base git libbpf-dev bpftool libdw-dev
      libfftw3-dev libcairo2-dev libfontconfig-dev
      libmicrohttpd-dev node-d3 chromium chromium-driver python3-selenium
      clickhouse-server curl lttng-tools liblttng-ust-dev babeltrace2 uftrace
      nettle-dev ypserv yp-tools)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ccsg export's tests (issue 14): node tools from the npm registry, in
# .npm-tools/ beside the sources (not tracked; `make test` installs
# nothing and skips those checks without them): protobufjs and the
# opentelemetry-proto .proto files (shipped in build/protos/ of
# @opentelemetry/otlp-grpc-exporter-base 0.38.0) to check the OTLP JSON,
# stackvis to draw a flame graph of the folded stacks.  Node and npm come
# from Debian when the machine has none.
NPM_PKGS=(protobufjs@7.6.6 @opentelemetry/otlp-grpc-exporter-base@0.38.0
	  stackvis@0.5.0)
# Without them the build and every other test still work: a failure here
# is said, not fatal.
if ! command -v npm >/dev/null 2>&1; then
	echo "setup: installing nodejs npm"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm ||
		echo "setup: cannot install nodejs npm: the export's npm checks will be skipped" >&2
fi
tools="$(cd "$(dirname "$0")/.." && pwd)/.npm-tools"
if command -v npm >/dev/null 2>&1 &&
   [ "$(cat "$tools/.installed" 2>/dev/null)" != "${NPM_PKGS[*]}" ]; then
	echo "setup: installing ${NPM_PKGS[*]} into $tools (npm)"
	mkdir -p "$tools"
	if npm install --prefix "$tools" --no-audit --no-fund --ignore-scripts \
		--loglevel=error "${NPM_PKGS[@]}"; then
		echo "${NPM_PKGS[*]}" > "$tools/.installed"
	else
		echo "setup: npm install failed: the export's npm checks will be skipped" >&2
	fi
fi
