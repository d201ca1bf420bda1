#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: what turning full_page_writes off buys when the page writes are atomic, on the
# hardware path. In a QEMU guest on an emulated NVMe namespace with NAWUPF 16 KiB (XFS with an
# 8 KiB stripe unit, the relation files laid out by awr prepare): Debian 13's PostgreSQL 17 with
# pgbench (tpcb-like; the scale, 4 clients, SECONDS a run) in three configurations on the same
# files, ROUNDS in rotating order, a fresh server per run: stock (buffered, full_page_writes=on),
# direct (debug_io_direct=data, full_page_writes=on) and atomic (debug_io_direct=data under
# libatomicwr-preload, full_page_writes=off); shared_buffers 128 MB (the working set: with direct
# I/O PostgreSQL 17 has no readahead), checkpoint_timeout=30s (two timed checkpoints in a 60 s
# run, more where the WAL volume asks). Per run: TPS, p99 latency (pgbench's per-transaction log),
# WAL bytes and full-page images per transaction (pg_stat_wal, reset at the start of the run),
# checkpoints, the preload's atomic and plain page writes, relation file blocks moved on the device
# (filefrag -v before and after: 0 is the hardware path). Then each configuration's medians, the
# per-round ratios and their medians, and whether WAL per transaction with full_page_writes=off
# under the preload is at most a tenth of the same configuration with it on (direct).
#   bench/guest_postgres.sh [-r ROUNDS] [-s SECONDS] [-S SCALE] [-o FILE] [KERNEL]
#   (defaults: 6 rounds, 60 s, scale 5, kernel 7; FILE bench/results/guest_postgres-DATE.txt)
# Needs what the guest stage needs (tests/vm/run.sh); the tool tree holds postgresql-17 (run.sh
# guest_pkgs) and run.sh makes the data directory (pgbench -i at the scale) in it.
# The guest runs under software emulation (TCG): the TPS are the emulated machine's; the paired
# ratios are the figures to read.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
rounds=6 seconds=60 scale=5 file=
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-S) scale=$2; shift 2 ;;
	-o) file=$2; shift 2 ;;
	-h|--help) sed -n '3,22p' "$0"; exit 0 ;;
	-*) echo "guest_postgres.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
kernel=${1:-7}
if [ -z "$file" ]; then
	file=$top/bench/results/guest_postgres-$(date +%F).txt
	[ -e "$file" ] && file=$top/bench/results/guest_postgres-$(date +%F-%H%M).txt
fi
mkdir -p "$(dirname "$file")" || exit 2
out=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-postgres.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT	# AWR_BENCH_KEEP=1 keeps the guest's serial log and results
[ "${AWR_BENCH_KEEP:-0}" = 1 ] && trap 'echo "kept: $out"' EXIT
# the guest's time: three runs a round plus a server start and stop each, and the boot
AWR_VM_TIMEOUT=${AWR_VM_TIMEOUT:-$((rounds * 3 * (seconds + 60) + 600))} AWR_BENCH_ROUNDS=$rounds \
	AWR_BENCH_SECONDS=$seconds AWR_BENCH_PG_SCALE=$scale AWR_VM_ONLY=bench_postgres AWR_VM_KERNELS=$kernel \
	AWR_VM_OUT=$out "$top/tests/vm/run.sh" >"$out/run.log" 2>&1
rc=$?

# the per-round ratio of FIELD (column) between configurations A and B: "ROUND RATIO" lines
pair() {
	local col=$1 a=$2 b=$3
	awk -v c="$col" -v a="$a" -v b="$b" '$2 == a { x[$1] = $c } $2 == b { y[$1] = $c }
		END { for (r in x) if ((r in y) && y[r] > 0) printf "%s %.3f\n", r, x[r] / y[r] }' "$out/runs" | sort -n
}
report() {
	echo "# bench/guest_postgres.sh -r $rounds -s $seconds -S $scale $kernel, $(date '+%F %H:%M')"
	grep -E '^vm: (QEMU|kernel)' "$out/run.log"
	grep -E '^INFO bench_postgres setup' "$out/results.txt" | sed 's/^INFO bench_postgres setup /  /'
	echo "configurations: stock = buffered, full_page_writes=on; direct = debug_io_direct=data,"
	echo "full_page_writes=on; atomic = debug_io_direct=data under libatomicwr-preload, full_page_writes=off"
	echo
	printf '%-5s %-7s %8s %8s %7s %9s %8s %5s %8s %6s %6s\n' round config tps p99_ms tx wal_B/tx fpi/tx ckpt atomic plain moved
	awk '{ printf "%-5s %-7s %8s %8s %7s %9s %8s %5s %8s %6s %6s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$out/runs"
	echo
	for cfg in stock direct atomic; do
		printf '%-6s median: tps %s, p99 %s ms, WAL %s B/tx, FPI %s /tx, checkpoints %s, blocks moved %s\n' "$cfg" \
			"$(awk -v c=$cfg '$2 == c { print $3 }' "$out/runs" | median)" \
			"$(awk -v c=$cfg '$2 == c { print $4 }' "$out/runs" | median)" \
			"$(awk -v c=$cfg '$2 == c { print $6 }' "$out/runs" | median)" \
			"$(awk -v c=$cfg '$2 == c { print $7 }' "$out/runs" | median)" \
			"$(awk -v c=$cfg '$2 == c { print $8 }' "$out/runs" | median)" \
			"$(awk -v c=$cfg '$2 == c { s += $11 } END { print s + 0 }' "$out/runs")"
	done
	echo
	echo "paired ratios per round (median; range):"
	for p in "direct stock" "atomic stock" "atomic direct"; do
		set -- $p
		for m in "3 tps" "4 p99" "6 WAL/tx"; do
			set -- $p ${m% *} ${m#* }
			pair "$3" "$1" "$2" >"$out/ratio"
			[ -s "$out/ratio" ] || continue
			printf '  %-6s / %-6s %-7s %s (%s .. %s; rounds %s)\n' "$1" "$2" "$4" \
				"$(awk '{ print $2 }' "$out/ratio" | median)" "$(awk '{ print $2 }' "$out/ratio" | sort -g | head -n 1)" \
				"$(awk '{ print $2 }' "$out/ratio" | sort -g | tail -n 1)" "$(wc -l <"$out/ratio")"
		done
	done
	pair 6 atomic direct >"$out/ratio"
	if [ -s "$out/ratio" ]; then
		worst=$(awk '{ print $2 }' "$out/ratio" | sort -g | tail -n 1)
		echo
		echo "WAL per transaction, full_page_writes=off under the preload / on (direct): at most $worst in every round:" \
			"$(awk -v w="$worst" 'BEGIN { print (w <= 0.1) ? "at most a tenth (met)" : "more than a tenth (not met)" }')"
	fi
	# writes to named files the preload left plain, and why (plain_segments: a pwritev of several pages)
	grep -E '^INFO bench_postgres.run .*plain_why=' "$out/results.txt" |
		sed -E 's/.*round=([0-9]+) config=([a-z]+).* plain_why=([^ ]*).*/left plain: round \1 \2 \3/'
	grep -E '^(PASS|FAIL)' "$out/run.log" | grep -v case_count
}
# round config tps p99 tx wal_per_tx fpi_per_tx checkpoints atomic plain moved
grep -E '^INFO bench_postgres.run ' "$out/results.txt" 2>/dev/null |
	awk '{ delete v; for (i = 3; i <= NF; i++) { k = $i; sub(/=.*/, "", k); x = $i; sub(/^[^=]*=/, "", x); v[k] = x }
		print v["round"], v["config"], v["tps"], v["p99_ms"], v["tx"], v["wal_bytes_per_tx"], v["fpi_per_tx"],
			v["checkpoints"], v["atomic_writes"], v["plain_writes"], v["moved_blocks"] }' >"$out/runs"
report | tee "$file"
echo "written: $file"
exit $rc
