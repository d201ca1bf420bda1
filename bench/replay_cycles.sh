#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the figures of the replayed power cuts (the guest group replay,
# tests/vm/guest/replay_cycles.sh): per kernel, the dm-log-writes log recorded (entries, flush
# points, marks), the replay points tried and the failures per workload (the page store in
# doublewrite and software mode, awr stress with qualify --crash's writers), where each negative
# control (nosync:0) was caught, and the guest's PASS/FAIL lines. The README's reliability
# figures quote the file it writes.
#   bench/replay_cycles.sh [-l] [-o FILE] [KERNEL...]
#   (-l: AWR_TEST_LONG=1, every flush point and mark; default kernels 6.18 7;
#    FILE bench/results/replay_cycles-DATE.txt)
# Needs what the guest stage needs (tests/vm/run.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
long=0 file=
while [ $# -gt 0 ]; do
	case "$1" in
	-l) long=1; shift ;;
	-o) file=$2; shift 2 ;;
	-h|--help) sed -n '3,12p' "$0"; exit 0 ;;
	-*) echo "replay_cycles.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
kernels=${*:-6.18 7}
if [ -z "$file" ]; then
	file=$top/bench/results/replay_cycles-$(date +%F).txt
	[ -e "$file" ] && file=$top/bench/results/replay_cycles-$(date +%F-%H%M).txt
fi
mkdir -p "$(dirname "$file")" || exit 2
out=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-replay.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT	# AWR_BENCH_KEEP=1 keeps the guests' serial logs and results
[ "${AWR_BENCH_KEEP:-0}" = 1 ] && trap 'echo "kept: $out"' EXIT
AWR_TEST_LONG=$long AWR_VM_ONLY=replay AWR_VM_KERNELS=$kernels AWR_VM_OUT=$out "$top/tests/vm/run.sh" \
	>"$out/run.log" 2>&1
rc=$?

report() {
	echo "# bench/replay_cycles.sh$([ $long = 1 ] && echo " -l") $kernels, $(date '+%F %H:%M')"
	grep -E '^vm: (QEMU|kernel)' "$out/run.log"
	echo "workloads: the page store (64 pages of 16 KiB, batches of 15) in doublewrite and in software"
	echo "mode, and awr stress with qualify --crash's writers (4 threads, 16 KiB units over 4 MiB, a"
	echo "journal off the logged device), at once on one XFS over dm-log-writes; each replay point"
	echo "mounted on a snapshot (log recovery) and checked by every workload; the control: the three"
	echo "one after the other under nosync:0 (acknowledged without being made durable), replayed to"
	echo "each mark in turn"
	awk '/^# libatomicwr VM stage: guest facts/ { k = $8; sub(/,$/, "", k); print ""; print "kernel " k }
		/^INFO replay / { sub(/^INFO replay /, "  "); print }' "$out/results.txt"
	echo
	grep -E '^(PASS|FAIL|SKIP) [^ ]*/replay\.' "$out/run.log"
	grep -E '^vm: [0-9]+ passed' "$out/run.log"
}
report | tee "$file"
echo "written: $file"
exit $rc
