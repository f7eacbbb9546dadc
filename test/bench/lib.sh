# lib.sh - what the benchmark scripts share; sourced, not run.
# shellcheck shell=bash

# The median of the numbers on standard input, one a line.
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure NAME CMD...: run CMD, its output into $dir/NAME.out and
# $dir/NAME.err; sets secs (wall), cpu (user + system) and peak_mb (the
# largest resident set, from /usr/bin/time -v when $timer names it, else
# 0).  A failure prints the command's last lines as "$bench: NAME failed"
# and exits 1.  The caller sets dir, timer and bench.
# shellcheck disable=SC2154,SC2034 # dir, timer, bench: the caller's; secs, cpu, peak_mb: for it
measure() {
	local name=$1
	shift
	if [ -n "$timer" ]; then
		"$timer" -v -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
			{ echo "$bench: $name failed:" >&2; tail -5 "$dir/$name.err" >&2; exit 1; }
		secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + p[i]
			print s }' "$dir/$name.time")
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$dir/$name.time")
		peak_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$dir/$name.time")
	else
		local start end
		start=$(date +%s.%N)
		"$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
			{ echo "$bench: $name failed:" >&2; tail -5 "$dir/$name.err" >&2; exit 1; }
		end=$(date +%s.%N)
		secs=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
		cpu=$secs
		peak_mb=0
	fi
}

# rpc_round KIND PROCS CALLS [VAR=VALUE...]: one round of an RPC loop
# benchmark: a demo server, then for each procedure of PROCS ("null say")
# a demo client calling it CALLS times over TCP loopback, both with the
# VAR=VALUE environment and on CPU 0 (taskset: a cross-CPU loopback
# wake-up costs 300-450 us on these VMs and would swamp everything else);
# the server stopped by its PID.  Appends "KIND PROC wall client_cpu
# server_cpu" (ns: the client's loop, its own getrusage() around it, the
# server's read by its CPU_NS procedure) to $tmp/results; the server's
# output is left in $tmp/server.out, the clients' stderr in
# $tmp/client.err.  The caller sets tmp and BUILD; rpc_spid is the
# server's PID while it runs, for the caller's trap.
# shellcheck disable=SC2154 # tmp: the caller's
rpc_round() {
	local kind=$1 procs=$2 calls=$3 port proc i
	shift 3
	rm -rf "$tmp/logs" "$tmp/ready"
	env "$@" taskset -c 0 "$BUILD/test/rpc/demo-server" -1 -r "$tmp/ready" \
		>"$tmp/server.out" 2>&1 &
	rpc_spid=$!
	for ((i = 0; i < 500; i++)); do
		[ -e "$tmp/ready" ] && break
		sleep 0.01
	done
	port=$(awk '/^tcp/ { print $2 }' "$tmp/ready")
	: >"$tmp/client.err"
	for proc in $procs; do
		env "$@" taskset -c 0 "$BUILD/test/rpc/demo-client" -P "$port" \
			bench "$proc" "$calls" 2>>"$tmp/client.err" |
			awk -v k="$kind" '/^bench/ { print k, $2, $10, $6, $8 }' \
				>>"$tmp/results"
	done
	kill "$rpc_spid"
	wait "$rpc_spid" || true
	rpc_spid=
}

# own_bpf_clock DIR: a bpf clock of the benchmark's own, pinned in DIR
# (causalctl bpf-clock start; the caller stops it).  Fails quietly where
# there can be none (not root, no kernel BTF); where there can, a clock
# that does not start ends the benchmark with causalctl's message.
own_bpf_clock() {
	{ [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ]; } || return 1
	"$BUILD/causalctl" bpf-clock start --dir "$1" >/dev/null ||
		{ echo "${0##*/}: cannot start a bpf clock in '$1'" >&2; exit 1; }
}

# stop_own_bpf_clock DIR: the clock own_bpf_clock started in DIR, stopped
# (for a trap: quiet, and nothing to fail where none was started)
stop_own_bpf_clock() {
	"$BUILD/causalctl" bpf-clock stop --dir "$1" >/dev/null 2>&1 || true
}

# traced_clock FILE...: "bpf" when a traced program said in one of the
# files (its standard error) that it reads the bpf clock, else "syscall".
traced_clock() {
	if grep -q "reading the cpu clock from the bpf clock" "$@" 2>/dev/null; then
		echo bpf
	else
		echo syscall
	fi
}
