#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: what turning the doublewrite buffer off under libatomicwr-preload buys a real engine:
# Debian's MariaDB with sysbench oltp_write_only, innodb_doublewrite=ON against
# innodb_doublewrite=OFF with every page write RWF_ATOMIC (the preload), the same durability
# (innodb_flush_log_at_trx_commit=1, O_DIRECT), on a scratch XFS image (a loop device: XFS's
# copy-on-write software path for the atomic writes). Rounds in alternating order, a fresh
# server per run on the same data; prints each run's TPS and p99 latency, the medians and the
# paired ratios (OFF+atomic / ON).
#
#   bench/mariadb.sh [-B BUILDDIR] [-s SECONDS] [-r ROUNDS] [-t THREADS] [-n ROWS]
#
# SECONDS per run (default 20), ROUNDS (default 4, keep it even), THREADS (default 4), ROWS per
# table (default 100000, 4 tables: about 100 MB of data against a 32 MiB buffer pool, so pages
# are written back all the time). Needs root, xfsprogs, mariadb-server and sysbench
# (apt-get install mariadb-server sysbench). The long form of the crash cycles is
# AWR_MARIADB_CYCLES=20 meson test -C BUILDDIR mariadb_preload.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
seconds=20 rounds=4 threads=4 rows=100000
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-t) threads=$2; shift 2 ;;
	-n) rows=$2; shift 2 ;;
	-h|--help) sed -n '3,17p' "$0"; exit 0 ;;
	*) echo "mariadb.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
build=$(absolute "$build")
for c in mariadbd mariadb-install-db sysbench; do
	command -v $c >/dev/null || { echo "mariadb.sh: $c not found: apt-get install mariadb-server sysbench" >&2; exit 2; }
done
if [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	build_tree
	exec "$top/tests/integration/with-scratch-xfs.sh" --size 4G "$0" -B "$build" -s "$seconds" -r "$rounds" \
		-t "$threads" -n "$rows"
fi

preload=$build/preload/libatomicwr-preload.so
[ -f "$preload" ] || { echo "mariadb.sh: $preload not built" >&2; exit 2; }
dir=$AWR_SCRATCH_DIR
my=$dir/mysql
tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-mariadb-bench.XXXXXX") || exit 2
spid=
trap '[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT

start() {	# start on|atomic
	local pre=()
	[ "$1" = atomic ] && pre=(env LD_LIBRARY_PATH="$build/lib" LD_PRELOAD="$preload"
		AWR_PRELOAD_FILES="$my/*.ibd:$my/ibdata*:$my/undo[0-9]*" AWR_PRELOAD_PAGE_SIZE=16k
		AWR_PRELOAD_STATS="$tmp/stats")
	rm -f "$tmp/sock"
	"${pre[@]}" mariadbd --no-defaults --datadir="$my" --socket="$tmp/sock" --skip-networking --user=root \
		--innodb-doublewrite=$([ "$1" = on ] && echo 1 || echo 0) --innodb-flush-method=O_DIRECT \
		--innodb-flush-log-at-trx-commit=1 --innodb-buffer-pool-size=32M --innodb-log-file-size=256M \
		--max-connections=64 >>"$tmp/server.log" 2>&1 &
	spid=$!
	for _ in $(seq 600); do
		mariadb --socket="$tmp/sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 20 "$tmp/server.log" >&2
	exit 1
}
stop() { mariadb-admin --socket="$tmp/sock" shutdown >/dev/null 2>&1; wait "$spid"; spid=; }
sb() { sysbench oltp_write_only --db-driver=mysql --mysql-socket="$tmp/sock" --mysql-user=root \
	--mysql-db=sb --tables=4 --table-size="$rows" --threads="$threads" "$@"; }

mariadb-install-db --no-defaults --datadir="$my" --user=root --auth-root-authentication-method=normal \
	--skip-test-db --innodb-page-size=16k >"$tmp/install.log" 2>&1 || { tail "$tmp/install.log"; exit 1; }
start on
mariadb --socket="$tmp/sock" -e 'CREATE DATABASE sb'
sb prepare >"$tmp/prepare.log" 2>&1 || { tail "$tmp/prepare.log"; exit 1; }
stop
echo "MariaDB $(mariadbd --version | awk '{print $3}'), kernel $(uname -r), sysbench oltp_write_only:" \
	"4 tables of $rows rows, $threads threads, ${seconds} s a run, 32 MiB buffer pool, 16 KiB pages, on scratch XFS"
printf '%-6s %-8s %10s %10s %14s\n' round config tps p99_ms atomic_writes
for ((r = 1; r <= rounds; r++)); do
	order=(on atomic); [ $((r % 2)) = 0 ] && order=(atomic on)
	for cfg in "${order[@]}"; do
		rm -f "$tmp/stats"
		start "$cfg"
		sb run --time="$seconds" --percentile=99 >"$tmp/run.log" 2>&1 || { tail "$tmp/run.log"; exit 1; }
		stop
		tps=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' "$tmp/run.log")
		p99=$(awk '/99th percentile:/ { print $3 }' "$tmp/run.log")
		atomic=-
		[ "$cfg" = atomic ] && atomic=$("$build/cli/awr" preload-stats "$tmp/stats" -o json |
			python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["atomic"], "of", d["atomic"] + d["plain"])')
		printf '%-6s %-8s %10s %10s %14s\n' "$r" "$cfg" "$tps" "$p99" "$atomic"
		echo "$r $cfg $tps $p99" >>"$tmp/results"
	done
done
doublewrite_pairs "$tmp/results" "$rounds"
