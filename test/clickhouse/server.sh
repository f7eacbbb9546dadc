#!/usr/bin/env bash
# server.sh - a private clickhouse-server for the tests and benchmarks of
# the ClickHouse store: its own HTTP port, its own data directory, run as
# the caller, stopped by PID.
#
#   bash test/clickhouse/server.sh start DIR PORT   start it, wait until it
#        answers, print its PID; DIR holds config.xml, users.xml, data/
#        and the logs (server.log, err.log, stdout); a DIR used before
#        keeps its data (a restarted server finds its tables again)
#   bash test/clickhouse/server.sh run DIR PORT     the same server in the
#        foreground (exec: its PID is the caller's child's), for a test
#        that starts it itself and waits until it answers
#   bash test/clickhouse/server.sh stop DIR         kill -9 the PID in
#        DIR/pid and wait until it is gone
#   bash test/clickhouse/server.sh have             exit 0 if
#        clickhouse-server is installed (scripts/setup.sh installs it)
#
# Users: "default" without a password, "causal" with the password
# "secret" (the tests of a wrong password) and "reader", read-only (the
# tests of a refused insert).  The native protocol's port
# is PORT + 1, the inter-server one PORT + 2.
set -euo pipefail

server=$(command -v clickhouse-server || true)
[ -n "$server" ] || [ ! -x /usr/bin/clickhouse ] || server="/usr/bin/clickhouse server"

case "${1:-}" in
have)
	[ -n "$server" ]
	;;
start|run)
	mode=$1 dir=$2 port=$3
	[ -n "$server" ] || { echo "server.sh: clickhouse-server is not installed (bash scripts/setup.sh)" >&2; exit 2; }
	mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas"
	dir=$(cd "$dir" && pwd)
	cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/err.log</errorlog></logger>
  <http_port>$port</http_port>
  <tcp_port>$((port + 1))</tcp_port>
  <interserver_http_port>$((port + 2))</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
$( [ -f "$dir/remote_servers.xml" ] && cat "$dir/remote_servers.xml" )
</yandex>
XML
	cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default>
    <readonly><readonly>1</readonly></readonly></profiles>
  <users>
    <default><password></password><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></default>
    <causal><password>secret</password><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></causal>
    <reader><password></password><networks><ip>::/0</ip></networks><profile>readonly</profile><quota>default</quota></reader>
  </users>
  <quotas><default/></quotas>
</yandex>
XML
	if [ "$mode" = run ]; then
		# shellcheck disable=SC2086 # "clickhouse server" is two words
		exec $server --config-file="$dir/config.xml" >"$dir/stdout" 2>&1 </dev/null
	fi
	# shellcheck disable=SC2086
	setsid $server --config-file="$dir/config.xml" >"$dir/stdout" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/pid"
	for _ in $(seq 1 600); do
		if curl -sf "http://127.0.0.1:$port/?query=SELECT%201" >/dev/null 2>&1; then
			echo "$pid"
			exit 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "server.sh: clickhouse-server on port $port did not start:" >&2
	tail -5 "$dir/stdout" "$dir/err.log" >&2 2>/dev/null || true
	kill -9 "$pid" 2>/dev/null || true
	exit 1
	;;
stop)
	dir=$2
	[ -f "$dir/pid" ] || exit 0
	pid=$(cat "$dir/pid")
	kill -9 "$pid" 2>/dev/null || true
	for _ in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	rm -f "$dir/pid"
	;;
*)
	echo "usage: server.sh start DIR PORT | run DIR PORT | stop DIR | have" >&2
	exit 2
	;;
esac
