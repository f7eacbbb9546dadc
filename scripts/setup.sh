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
# libdw-dev (elfutils): `ccsg spikes` symbolises sampled addresses offline.
# libmicrohttpd-dev and node-d3: `ccsg serve` (the viewer: its HTTP server,
# and d3, served from /usr/share/nodejs/d3); chromium, chromium-driver and
# python3-selenium: the viewer's browser test (test/browser/).
PKGS=(build-essential pkg-config libtirpc-dev libunwind-dev libzstd-dev
      libmsgpack-dev check libsqlite3-dev sqlite3 rpcsvc-proto rpcbind
      util-linux zstd clang libclang-rt-14-dev clang-format python3 time
      graphviz man-db groff-base git libbpf-dev bpftool libdw-dev
      libfftw3-dev libcairo2-dev libfontconfig-dev
      libmicrohttpd-dev node-d3 chromium chromium-driver python3-selenium)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
