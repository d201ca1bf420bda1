#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: benchmark awr's io_uring engine side by side on a scratch XFS image: awr bench modes, a raw liburing RWF_ATOMIC loop (the overhead reference), fio plain randwrite, and the library's CPU cost per queued write; writes a markdown table.
#
#   bench/run.sh [-B BUILDDIR] [-s SECONDS] [-r REPEATS] [RESULTS.md]
#
# BUILDDIR (default: build/ in the source tree) is set up and built when
# needed. Each comparison runs REPEATS times (default 3), the two tools
# interleaved, each on a freshly written file; the median is reported.
# Results go to RESULTS.md (default bench/results.md) and stdout.
# Needs root (loop device, mount), xfsprogs, fio.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
seconds=10
repeats=3
out=$here/results.md
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-r) repeats=$2; shift 2 ;;
	-h|--help) sed -n '3,12p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) out=$1; shift ;;
	esac
done
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
case "$build" in /*) ;; *) build=$PWD/$build ;; esac

if [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	command -v fio >/dev/null || { echo "run.sh: fio is not installed (apt-get install fio)" >&2; exit 2; }
	[ -f "$build/build.ninja" ] || meson setup "$build" "$top" >/dev/null || exit 2
	ninja -C "$build" -j2 >/dev/null || exit 2
	exec "$top/tests/integration/with-scratch-xfs.sh" --size 2G "$0" -B "$build" -s "$seconds" -r "$repeats" "$out"
fi

awr=$build/cli/awr
raw=$build/bench/raw_uring_atomic
qcost=$build/bench/queue_cost
f=$AWR_SCRATCH_DIR/bench.dat
unit=16384
qd=32
span=$((256 << 20))
dw_span=$((span - qd * unit))	# awr bench keeps the last batch for its doublewrite area

# A fresh, fully written file: every run starts from the same allocation.
fresh() {
	rm -f "$f"
	dd if=/dev/zero of="$f" bs=1M count=$((span >> 20)) oflag=direct status=none
}

# json_get MODE KEY: the first "KEY": value after "MODE": { in awr's pretty JSON.
json_get() {
	awk -v m="\"$1\": {" -v k="\"$2\":" 'index($0, m) { on = 1 } on && index($0, k) { sub(/.*: /, ""); sub(/,$/, ""); print; exit }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

awr_stream() {	# MODE: pages/s of awr bench, durability none, queue kept full
	fresh
	"$awr" bench "$f" --mode "$1" --durability none --unit $unit --qd $qd --seconds "$seconds" \
		--size $span -o json | json_get "$1" pages_per_s
}
raw_stream() {	# [plain]: pages/s of the raw liburing loop
	fresh
	"$raw" "$f" $unit $qd "$seconds" $dw_span "$@" | sed -n 's/^pages_per_s=\([0-9.]*\).*/\1/p'
}
fio_plain() {	# IOPS of fio randwrite, io_uring, same depth, size, block size
	fresh
	fio --name=plain --filename="$f" --ioengine=io_uring --direct=1 --rw=randwrite --bs=$unit \
		--iodepth=$qd --size=$span --time_based --runtime="$seconds" --norandommap --randrepeat=0 \
		--output-format=terse | cut -d';' -f49
}

modes_table() {	# DURABILITY: the awr bench --mode all table
	local j m
	fresh
	j=$("$awr" bench "$f" --mode all --durability "$1" --unit $unit --qd $qd --seconds "$seconds" \
		--size $span -o json) || echo "awr bench --durability $1 reported a failed mode" >&2
	echo "| mode | pages/s | MB/s | p50 us | p99 us | p99.9 us |"
	echo "|---|---:|---:|---:|---:|---:|"
	for m in atomic plain doublewrite; do
		echo "| $m | $(json_get $m pages_per_s <<<"$j") | $(json_get $m mb_per_s <<<"$j") |" \
			"$(json_get $m p50 <<<"$j") | $(json_get $m p99 <<<"$j") | $(json_get $m p99_9 <<<"$j") |"
	done
	echo
	echo "atomic/doublewrite: $(json_get ratios atomic_to_doublewrite <<<"$j")x," \
		"atomic/plain: $(json_get ratios atomic_to_plain <<<"$j")x"
}

echo "running: $repeats x (raw loop, awr atomic, awr plain, fio plain) of ${seconds} s, then the mode tables" >&2
a_runs= r_runs= p_runs= f_runs=
for i in $(seq "$repeats"); do
	r_runs="$r_runs $(raw_stream)"
	a_runs="$a_runs $(awr_stream atomic)"
	f_runs="$f_runs $(fio_plain)"
	p_runs="$p_runs $(awr_stream plain)"
	echo "  round $i: raw$r_runs | awr atomic$a_runs | fio$f_runs | awr plain$p_runs" >&2
done
raw_med=$(tr ' ' '\n' <<<"$r_runs" | grep . | median)
awr_med=$(tr ' ' '\n' <<<"$a_runs" | grep . | median)
fio_med=$(tr ' ' '\n' <<<"$f_runs" | grep . | median)
plain_med=$(tr ' ' '\n' <<<"$p_runs" | grep . | median)
fresh
cost=$("$qcost" "$f" $unit 200)
check_ns=$(sed -n 's/.*check_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
queue_ns=$(sed -n 's/.*queue_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
prep_ns=$(sed -n 's/.*liburing_prep_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
table_fdatasync=$(modes_table fdatasync)
table_dsync=$(modes_table dsync)
table_none=$(modes_table none)

{
	echo "# awr bench results"
	echo
	echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), kernel $(uname -r)."
	echo "Target: a file on XFS (reflink, 4 KiB blocks) on a loop device over an image file (scratch, 2 GiB)."
	echo "XFS on a loop device has no hardware atomic path: every RWF_ATOMIC write takes XFS's"
	echo "copy-on-write software path. Pages of $((unit / 1024)) KiB, queue depth $qd, span 256 MiB, random page order,"
	echo "$seconds s per run; each run on a freshly written file."
	echo
	echo "## Library overhead (median of $repeats runs, queue kept full, no durability step)"
	echo
	echo "| measure | awr | reference | awr / reference | target |"
	echo "|---|---:|---:|---:|---|"
	echo "| RWF_ATOMIC pages/s: awr bench --mode atomic vs raw liburing loop | $awr_med | $raw_med | $(ratio "$awr_med" "$raw_med") | >= 0.97 |"
	echo "| plain O_DIRECT randwrite pages/s: awr bench --mode plain vs fio io_uring | $plain_med | $fio_med | $(ratio "$plain_med" "$fio_med") | >= 0.95 |"
	echo "| CPU ns per queued atomic write (rule check + SQE) vs liburing prep alone | $queue_ns | $prep_ns | | < 200 ns |"
	echo "| CPU ns per rule check alone (awr_file_check) | $check_ns | | | |"
	echo
	echo "Runs (pages/s): raw loop$r_runs; awr atomic$a_runs; fio plain$f_runs; awr plain$p_runs."
	echo
	echo "## awr bench --mode all, durability fdatasync after each batch of $qd pages"
	echo
	echo "$table_fdatasync"
	echo
	echo "## awr bench --mode all, durability RWF_DSYNC on every write"
	echo
	echo "$table_dsync"
	echo
	echo "## awr bench --mode all, no durability step"
	echo
	echo "$table_none"
	echo
	echo "Latency: per page, from queueing it until it is written in place (and synced, with fdatasync;"
	echo "the pages of a batch share its end). Doublewrite counts each page once though it is written twice."
} >"$out.tmp" && mv "$out.tmp" "$out"
cat "$out"
