#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: what turning the doublewrite buffer off buys on the hardware path. In a QEMU guest
# on an emulated NVMe namespace with NAWUPF 16 KiB (XFS with a 16 KiB stripe unit, the data
# directory laid out by awr prepare): Debian 12's MariaDB with sysbench oltp_write_only,
# innodb_doublewrite=ON against OFF with every page write RWF_ATOMIC (libatomicwr-preload), the
# same durability (innodb_flush_log_at_trx_commit=1, O_DIRECT), ROUNDS in alternating order, a
# fresh server per run on the same data (the guest group bench_mariadb, tests/vm/guest/mariadb.sh
# --bench). Prints each run, the medians and the paired ratios (OFF+atomic / ON), and how many
# tablespace blocks moved on the device during each run (0: every write in place).
#   bench/guest_mariadb.sh [-r ROUNDS] [-s SECONDS] [KERNEL]   (defaults: 6 rounds, 20 s, kernel 7)
# Needs what the guest stage needs (tests/vm/run.sh), mariadb-server and sysbench on the host
# (apt-get install mariadb-server sysbench): their programs are packed into the guest.
# The guest runs under software emulation (TCG): the TPS are the emulated machine's; the paired
# ratio is the figure to read.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
rounds=6 seconds=20
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-h|--help) sed -n '3,17p' "$0"; exit 0 ;;
	-*) echo "guest_mariadb.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
for c in mariadbd sysbench; do
	command -v $c >/dev/null || { echo "guest_mariadb.sh: $c not found: apt-get install mariadb-server sysbench" >&2; exit 2; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-mariadb.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT	# AWR_BENCH_KEEP=1 keeps the guest's serial log and results
[ "${AWR_BENCH_KEEP:-0}" = 1 ] && trap 'echo "kept: $out"' EXIT
AWR_BENCH_ROUNDS=$rounds AWR_BENCH_SECONDS=$seconds AWR_VM_ONLY=bench_mariadb AWR_VM_KERNELS=${1:-7} \
	AWR_VM_OUT=$out "$top/tests/vm/run.sh" >"$out/run.log" 2>&1
rc=$?
grep -E '^vm: (QEMU|kernel)' "$out/run.log"
grep -E '^INFO bench_mariadb setup' "$out/results.txt" | sed 's/^INFO bench_mariadb setup /  /'
# round config tps p99 atomic moved
grep -E '^INFO bench_mariadb.run ' "$out/results.txt" |
	sed 's/.*round=\([0-9]*\) config=\([a-z]*\) tps=\([0-9.]*\) p99_ms=\([0-9.]*\) atomic_writes=\([0-9-]*\) moved_blocks=\([0-9]*\).*/\1 \2 \3 \4 \5 \6/' \
	>"$out/runs"
printf '%-6s %-8s %10s %10s %14s %13s\n' round config tps p99_ms atomic_writes moved_blocks
awk '{ printf "%-6s %-8s %10s %10s %14s %13s\n", $1, $2, $3, $4, $5, $6 }' "$out/runs"
doublewrite_pairs "$out/runs" "$rounds"
grep -E '^(PASS|FAIL)' "$out/run.log" | grep -v case_count
exit $rc
