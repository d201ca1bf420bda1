#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr write --engine uring against the raw liburing loop (bench/raw_uring_atomic ...
# once) writing the same 128 MiB in 16 KiB RWF_ATOMIC units at QD 32 on a scratch XFS, whole
# process, in PAIRS alternating pairs, unpinned and pinned to one CPU (taskset -c CPU) in the same
# call: per way the median, quartiles and spread of the per-pair wall-time ratio awr/loop, how many
# pairs awr was ahead in, and the CPU time (user + system) per write of each. The file is written
# in full once, so every run overwrites existing pages (over a loop device: XFS's copy-on-write path).
#
#   bench/write_loop.sh [-B BUILDDIR] [-p PAIRS] [-c CPU]      (defaults: build/, 16, 0)
# Needs root (loop device, mount) and xfsprogs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
pairs=16 cpu=0
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-p) pairs=$2; shift 2 ;;
	-c) cpu=$2; shift 2 ;;
	-h|--help) sed -n '3,12p' "$0"; exit 0 ;;
	*) echo "write_loop.sh: unknown argument $1 (expected -B BUILDDIR, -p PAIRS, -c CPU)" >&2; exit 2 ;;
	esac
done
build=$(absolute "$build")
if [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	build_tree
	exec "$top/tests/integration/with-scratch-xfs.sh" --size 1G "$0" -B "$build" -p "$pairs" -c "$cpu"
fi
awr=$build/cli/awr raw=$build/bench/raw_uring_atomic
f=$AWR_SCRATCH_DIR/write_loop.dat len=$((128 << 20)) writes=$(((128 << 20) / 16384))
tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-write-loop.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fill "$f" 128 && sync || { echo "write_loop.sh: cannot write $f" >&2; exit 1; }

# run WAY TOOL: one whole-process run; appends "WALL CPU_US_PER_WRITE" to $tmp/WAY.TOOL
run() {
	local TIMEFORMAT='%3R %3U %3S' pin=() t
	[ "$1" = pinned ] && pin=(taskset -c "$cpu")
	if [ "$2" = awr ]; then
		{ time "${pin[@]}" "$awr" write "$f" --offset 0 --length $len --unit 16k --engine uring --qd 32 --force \
			>/dev/null 2>"$tmp/err"; } 2>"$tmp/time"
	else
		{ time "${pin[@]}" "$raw" "$f" 16384 32 0 $len once >/dev/null 2>"$tmp/err"; } 2>"$tmp/time"
	fi || { echo "write_loop.sh: the $2 run failed: $(head -c 300 "$tmp/err")" >&2; exit 1; }
	t=$(tail -n 1 "$tmp/time")
	awk -v n=$writes '{ printf "%s %.2f\n", $1, ($2 + $3) * 1e6 / n }' <<<"$t" >>"$tmp/$1.$2"
}
for way in unpinned pinned; do
	for i in $(seq "$pairs"); do
		if [ $((i % 2)) = 1 ]; then run $way loop; run $way awr; else run $way awr; run $way loop; fi
	done
	paste -d' ' "$tmp/$way.awr" "$tmp/$way.loop" | awk '{ print $1 / $3 }' | sort -g >"$tmp/$way.ratio"
	awk -v way=$way -v n="$pairs" '{ r[NR] = $1; if ($1 < 1) ahead++ }
		END { printf "%-9s wall awr/loop: median %.3f (quartiles %.3f..%.3f, spread %.3f..%.3f), awr ahead in %d of %d pairs\n",
		      way, (r[int((n + 1) / 2)] + r[int(n / 2) + 1]) / 2, r[int((n + 3) / 4)], r[int((3 * n + 3) / 4)], r[1], r[n], ahead, n }' "$tmp/$way.ratio"
	printf '%-9s CPU per write (user + system): awr %s us, loop %s us (medians)\n' $way \
		"$(awk '{ print $2 }' "$tmp/$way.awr" | median)" "$(awk '{ print $2 }' "$tmp/$way.loop" | median)"
done
