#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: benchmark awr's io_uring engine side by side on a scratch XFS image: awr bench modes, a raw liburing RWF_ATOMIC loop (the overhead reference), fio plain randwrite, and the library's CPU cost per queued write; writes a markdown table.
#
#   bench/run.sh [-B BUILDDIR] [-s SECONDS] [-r REPEATS] [RESULTS.md]
#
# BUILDDIR (default: build/ in the source tree) is set up and built when
# needed. Each comparison runs REPEATS rounds (default 4; keep it even), the
# two tools in alternating order so that position effects cancel, each run on
# a freshly written file; medians and the geometric mean of the per-round
# ratios are reported.
# Results go to RESULTS.md (default bench/results.md) and stdout.
# Needs root (loop device, mount), xfsprogs, fio.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
seconds=10
repeats=4
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

# Stop the whole run (also from a $(...) subshell): no table from a broken filesystem.
abort() {
	echo "run.sh: $*; no results written" >&2
	kill -TERM $$
	exit 1
}

# A fresh, fully written file: every run starts from the same allocation.
fresh() {
	rm -f "$f" && dd if=/dev/zero of="$f" bs=1M count=$((span >> 20)) oflag=direct status=none ||
		abort "cannot write $f (was the scratch filesystem shut down? see dmesg)"
	sync
}

# json_get MODE KEY: the first "KEY": value after "MODE": { in awr's pretty JSON.
json_get() {
	awk -v m="\"$1\": {" -v k="\"$2\":" 'index($0, m) { on = 1 } on && index($0, k) { sub(/.*: /, ""); sub(/,$/, ""); print; exit }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' TERM INT

# timed CMD...: run CMD, stdout in $tmp/out; $cpu = "USER SYS" CPU seconds it used.
timed() {
	local TIMEFORMAT='%3U %3S'
	{ time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/time"
	cpu=$(cat "$tmp/time")
}
# per_page_us "USER SYS" PAGES: "TOTAL_US USER_US" of CPU per page
per_page_us() {
	awk -v p="$2" '{ if (p > 0) printf "%.2f %.3f", ($1 + $2) * 1e6 / p, $1 * 1e6 / p; else print "n/a n/a" }' <<<"$1"
}

# Each prints "PAGES_PER_S CPU_US_PER_PAGE USER_CPU_US_PER_PAGE" for one run on a fresh file.
awr_stream() {	# MODE: awr bench, durability none, queue kept full
	fresh
	timed "$awr" bench "$f" --force --mode "$1" --durability none --unit $unit --qd $qd --seconds "$seconds" \
		--size $span -o json
	echo "$(json_get "$1" pages_per_s <"$tmp/out") $(per_page_us "$cpu" "$(json_get "$1" pages <"$tmp/out")")"
}
raw_stream() {	# [plain]: the raw liburing loop
	fresh
	timed "$raw" "$f" $unit $qd "$seconds" $dw_span "$@"
	echo "$(sed -n 's/^pages_per_s=\([0-9.]*\).*/\1/p' "$tmp/out")" \
		"$(per_page_us "$cpu" "$(sed -n 's/.* pages=\([0-9]*\).*/\1/p' "$tmp/out")")"
}
fio_plain() {	# fio randwrite, io_uring, same depth, size, block size
	fresh
	timed fio --name=plain --filename="$f" --ioengine=io_uring --direct=1 --rw=randwrite --bs=$unit \
		--iodepth=$qd --size=$span --time_based --runtime="$seconds" --norandommap --randrepeat=0 \
		--output-format=terse
	echo "$(cut -d';' -f49 "$tmp/out") $(per_page_us "$cpu" $(( $(cut -d';' -f47 "$tmp/out") * 1024 / unit )))"
}

# pair NAME AWR_CMD REF_CMD: REPEATS rounds, the order alternating; appends to runs/NAME.{awr,ref}.
pair() {
	local name=$1 awr_cmd=$2 ref_cmd=$3 i a r
	for i in $(seq "$repeats"); do
		if [ $((i % 2)) = 1 ]; then r=$($ref_cmd); a=$($awr_cmd); else a=$($awr_cmd); r=$($ref_cmd); fi
		echo "$a" >>"$tmp/$name.awr"
		echo "$r" >>"$tmp/$name.ref"
		echo "  $name round $i: awr $a | reference $r (pages/s, CPU us/page, user CPU us/page)" >&2
	done
}
col() { awk -v c="$1" '{ print $c }' "$2"; }
med() { col "$1" "$2" | median; }
ratios() { paste -d' ' "$tmp/$1.awr" "$tmp/$1.ref" | awk '$4 > 0 { printf "%.3f\n", $1 / $4 }'; }
geomean() { awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.3f", exp(s / n); else print "n/a" }'; }
row() {	# NAME LABEL TARGET: a markdown row of medians and ratios
	echo "| $2 | $(med 1 "$tmp/$1.awr") | $(med 1 "$tmp/$1.ref") |" \
		"$(ratio "$(med 1 "$tmp/$1.awr")" "$(med 1 "$tmp/$1.ref")") | $(ratios "$1" | geomean) |" \
		"$(med 2 "$tmp/$1.awr") | $(med 2 "$tmp/$1.ref") | $(med 3 "$tmp/$1.awr") | $(med 3 "$tmp/$1.ref") | $3 |"
}
runs() { echo "$1: awr $(col 1 "$tmp/$1.awr" | tr '\n' ' ')/ reference $(col 1 "$tmp/$1.ref" | tr '\n' ' ')"; }

modes_table() {	# DURABILITY: the awr bench --mode all table
	local j m
	fresh
	j=$("$awr" bench "$f" --force --mode all --durability "$1" --unit $unit --qd $qd --seconds "$seconds" \
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

echo "running: $repeats rounds each of awr atomic vs the raw loop and awr plain vs fio, ${seconds} s a run" >&2
pair atomic "awr_stream atomic" raw_stream
pair plain "awr_stream plain" fio_plain
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
	echo "## Library overhead ($repeats rounds, queue kept full, no durability step)"
	echo
	echo "| measure | awr pages/s | reference pages/s | ratio of medians | geometric mean of per-round ratios | awr CPU us/page | reference CPU us/page | awr user CPU us/page | reference user CPU us/page | target |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	row atomic "RWF_ATOMIC: awr bench --mode atomic vs the raw liburing loop" ">= 0.97"
	row plain "plain O_DIRECT randwrite: awr bench --mode plain vs fio (io_uring)" ">= 0.95"
	echo
	echo "| CPU per write, no I/O | ns |"
	echo "|---|---:|"
	echo "| awr_ring_queue_write(): rule check + SQE (target < 200 ns) | $queue_ns |"
	echo "| awr_file_check(): rule check alone | $check_ns |"
	echo "| liburing get_sqe + prep_write alone (floor) | $prep_ns |"
	echo
	echo "Runs in pages/s, each on a freshly written file, the order alternating per round:"
	echo "$(runs atomic); $(runs plain)."
	echo "CPU us/page: user + system CPU time of the writing process per page written (medians);"
	echo "user CPU us/page: its user-space part alone, where a library's overhead shows."
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
