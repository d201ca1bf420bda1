#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: benchmark awr's io_uring engine side by side on a scratch XFS image: awr bench plain beside fio plain and awr bench atomic beside fio --atomic=1 (4, 16 and 64 KiB, QD 1 and 32), awr bench atomic beside a raw liburing RWF_ATOMIC loop, awr write --engine uring of 128 MiB beside the raw loop writing the same range (whole-process wall time), and the library's CPU cost per queued write; writes a markdown table of ratios of medians.
#
#   [FIO=PATH] bench/run.sh [-B BUILDDIR] [-s SECONDS] [-r REPEATS] [-u "4k 16k 64k"] [-q "1 32"] [-c CPUS]
#                           [-d DIR]
#
# FIO (default: fio on PATH) must know --atomic=1 (fio 3.38 or later; Debian 12
# ships 3.33) for the atomic comparison; without it that row is left out with a
# note. BUILDDIR (default: build/ in the source tree) is set up and built when
# needed. Each comparison runs REPEATS rounds (default 4; keep it even), the
# two tools in alternating order so that position effects cancel, each run on a
# new XFS (mkfs again, on the image it made) holding a freshly written file;
# the table gives medians, the ratio of medians and the spread (lowest and
# highest per-round ratio). CPUS (default 0; -c '' for none)
# pins every measured process, awr and reference alike, with taskset -c: on a
# small virtual machine the scheduler otherwise settles each run, at random,
# into waking the writer on the CPU that completed its write or on another
# one (an inter-processor interrupt per write), which moves QD 1 results by
# up to 30% whichever tool runs.
# Results go to DIR (default bench/results/) as run-DATE-COMMIT.md, with every awr bench -o json
# document beside it in run-DATE-COMMIT.json (bench/results.py writes both); the last line on
# stdout is the summary line docs/performance.md keeps.
# Needs root (loop device, mount), xfsprogs, fio.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
seconds=10
repeats=4
units="4k 16k 64k"
qds="1 32"
cpus=0
dir=$here/results
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-r) repeats=$2; shift 2 ;;
	-u) units=$2; shift 2 ;;
	-q) qds=$2; shift 2 ;;
	-c) cpus=$2; shift 2 ;;
	-d) dir=$2; shift 2 ;;
	-h|--help) sed -n '3,24p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
dir=$(absolute "$dir") build=$(absolute "$build")
fio=${FIO:-fio}

if [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	command -v "$fio" >/dev/null || { echo "run.sh: fio is not installed (apt-get install fio, or FIO=PATH)" >&2; exit 2; }
	build_tree
	FIO=$fio AWR_BENCH_OWN_SCRATCH=new exec "$top/tests/integration/with-scratch-xfs.sh" --size 2G "$0" -B "$build" -s "$seconds" \
		-r "$repeats" -u "$units" -q "$qds" -c "$cpus" -d "$dir"
fi
# the image with-scratch-xfs.sh just made for this run: its device, which fresh() may format again
if [ "${AWR_BENCH_OWN_SCRATCH:-}" = new ] && [ -n "${AWR_SCRATCH_IMG:-}" ] &&
   [ "$(losetup -nO BACK-FILE "$AWR_SCRATCH_DEV" 2>/dev/null)" = "$AWR_SCRATCH_IMG" ]; then
	AWR_BENCH_OWN_SCRATCH=$AWR_SCRATCH_DEV
else
	AWR_BENCH_OWN_SCRATCH=
fi
pin=()
[ -n "$cpus" ] && pin=(taskset -c "$cpus")

awr=$build/cli/awr
raw=$build/bench/raw_uring_atomic
qcost=$build/bench/queue_cost
f=$AWR_SCRATCH_DIR/bench.dat
span=$((256 << 20))
write_len=$((128 << 20))
fio_version=$("$fio" --version 2>/dev/null)
fio_atomic=0
"$fio" --cmdhelp=atomic >/dev/null 2>&1 && fio_atomic=1

# Stop the whole run (also from a $(...) subshell): no table from a broken filesystem.
abort() {
	echo "run.sh: $*; no results written" >&2
	kill -TERM $$
	exit 1
}

# A fresh filesystem and a fully written file: every run starts from the same
# extents and the same free space. Removing the file and writing it again was
# not enough on two counts: XFS does not reuse extents freed by a transaction
# not yet on disk (busy extents), so each new file went to the other half of
# the image, where runs were 25-50% faster on the loop device (plain 16 KiB
# QD 32: 76-81k pages/s against 99-119k, alternating run by run; xfs_io fiemap
# showed the two places); and atomic runs remap the file (copy-on-write), so
# free space fragmented run after run (8.9k down to 7.7k pages/s in six runs).
# Only on the scratch image this script made itself (AWR_BENCH_OWN_SCRATCH, set
# below): on a directory the caller gave, the file alone is written again.
fresh() {
	if [ "${AWR_BENCH_OWN_SCRATCH:-}" = "$AWR_SCRATCH_DEV" ]; then
		# a ring torn down after its process exited may hold a file a moment longer (EBUSY)
		for _ in $(seq 50); do umount "$AWR_SCRATCH_DIR" 2>/dev/null && break; sleep 0.1; done
		! mountpoint -q "$AWR_SCRATCH_DIR" && mkfs.xfs -f -q "$AWR_SCRATCH_DEV" &&
			mount "$AWR_SCRATCH_DEV" "$AWR_SCRATCH_DIR" ||
			abort "cannot make a fresh XFS on $AWR_SCRATCH_DEV (see dmesg)"
	else
		rm -f "$f" && sync || abort "cannot remove $f"
	fi
	fill "$f" $((span >> 20)) ||
		abort "cannot write $f (was the scratch filesystem shut down? see dmesg)"
	sync
}

# json_get MODE KEY: MODE's KEY in the awr bench -o json document on stdin
json_get() {
	python3 -c 'import json, sys; print(json.load(sys.stdin)["modes"][sys.argv[1]][sys.argv[2]])' "$1" "$2"
}

bytes() { numfmt --from=iec "${1^^}"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' TERM INT

# timed CMD...: run CMD, stdout in $tmp/out; $cpu = "USER SYS" CPU seconds, $wall = wall seconds.
timed() {
	local TIMEFORMAT='%3U %3S %3R' t
	{ time "${pin[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/time"
	t=$(tail -1 "$tmp/time")
	cpu=${t% *}
	wall=${t##* }
}
# per_page_us "USER SYS" PAGES: "TOTAL_US USER_US" of CPU per page
per_page_us() {
	awk -v p="$2" '{ if (p > 0) printf "%.2f %.3f", ($1 + $2) * 1e6 / p, $1 * 1e6 / p; else print "n/a n/a" }' <<<"$1"
}

# Each prints "PAGES_PER_S CPU_US_PER_PAGE USER_CPU_US_PER_PAGE" for one run on a fresh file
# (awr_stream adds QUEUE_NS: the library's CPU per queued write in the loop, from its JSON).
awr_stream() {	# MODE UNIT QD: awr bench, durability none, queue kept full
	fresh
	timed "$awr" bench "$f" --force --mode "$1" --durability none --unit "$2" --qd "$3" --seconds "$seconds" \
		--size $span -o json
	results_add "$1 $2 QD $3, round ${round:-1}" "$tmp/out" "$tmp/runs.jsonl" ||
		abort "awr bench printed no JSON document: $(head -c 300 "$tmp/err")"
	echo "$(json_get "$1" pages_per_s <"$tmp/out") $(per_page_us "$cpu" "$(json_get "$1" pages <"$tmp/out")")" \
		"$(json_get "$1" queue_ns_per_write <"$tmp/out")"
}
raw_stream() {	# UNIT QD: the raw liburing RWF_ATOMIC loop
	local unit
	unit=$(bytes "$1")
	fresh
	timed "$raw" "$f" "$unit" "$2" "$seconds" $((span - 32 * unit))
	echo "$(sed -n 's/^pages_per_s=\([0-9.]*\).*/\1/p' "$tmp/out")" \
		"$(per_page_us "$cpu" "$(sed -n 's/.* pages=\([0-9]*\).*/\1/p' "$tmp/out")")"
}
fio_run() {	# MODE UNIT QD: fio randwrite, io_uring, O_DIRECT, same depth, size, block size
	local unit atomic=
	unit=$(bytes "$2")
	[ "$1" = atomic ] && atomic=--atomic=1
	fresh
	timed "$fio" --name="$1" --filename="$f" --ioengine=io_uring --direct=1 $atomic --rw=randwrite --bs="$unit" \
		--iodepth="$3" --size=$span --time_based --runtime="$seconds" --norandommap --randrepeat=0 \
		--output-format=terse
	grep -q ';' "$tmp/out" || abort "fio failed: $(head -c 300 "$tmp/err")"
	echo "$(cut -d';' -f49 "$tmp/out") $(per_page_us "$cpu" $(( $(cut -d';' -f47 "$tmp/out") * 1024 / unit )))"
}
# Whole-process wall time of writing 128 MiB once in 16 KiB units at QD 32: "PAGES_PER_S WALL_S".
awr_write() {
	fresh
	timed "$awr" write "$f" --offset 0 --length $write_len --unit 16k --engine uring --qd 32
	[ -s "$tmp/out" ] || abort "awr write failed: $(head -c 300 "$tmp/err")"
	awk -v w="$wall" -v p=$((write_len / 16384)) 'BEGIN { printf "%.1f %s\n", p / w, w }'
}
raw_write() {
	fresh
	timed "$raw" "$f" 16384 32 0 $write_len once
	awk -v w="$wall" -v p=$((write_len / 16384)) 'BEGIN { printf "%.1f %s\n", p / w, w }'
}

# pair NAME AWR_CMD REF_CMD: REPEATS rounds, the order alternating; appends to $tmp/NAME.{awr,ref}.
pair() {
	local name=$1 awr_cmd=$2 ref_cmd=$3 i a r
	for i in $(seq "$repeats"); do
		round=$i
		if [ $((i % 2)) = 1 ]; then r=$($ref_cmd); a=$($awr_cmd); else a=$($awr_cmd); r=$($ref_cmd); fi
		echo "$a" >>"$tmp/$name.awr"
		echo "$r" >>"$tmp/$name.ref"
		echo "  $name round $i: awr $a | reference $r" >&2
	done
}
col() { awk -v c="$1" '{ print $c }' "$2"; }
med() { col "$1" "$2" | median; }
ratios() { paste -d' ' "$tmp/$1.awr" "$tmp/$1.ref" | awk -v n="$(awk '{ print NF; exit }' "$tmp/$1.awr")" \
	'$(n + 1) > 0 { printf "%.3f\n", $1 / $(n + 1) }'; }
spread() { ratios "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }
row() {	# NAME LABEL TARGET: a markdown row of medians and ratios
	echo "| $2 | $(med 1 "$tmp/$1.awr") | $(med 1 "$tmp/$1.ref") |" \
		"$(ratio "$(med 1 "$tmp/$1.awr")" "$(med 1 "$tmp/$1.ref")") | $(spread "$1") |" \
		"$(med 2 "$tmp/$1.awr") | $(med 2 "$tmp/$1.ref") | $(med 4 "$tmp/$1.awr") | $3 |"
}
runs() { echo "$1: awr $(col 1 "$tmp/$1.awr" | tr '\n' ' ')/ reference $(col 1 "$tmp/$1.ref" | tr '\n' ' ')"; }

echo "running: $repeats rounds per comparison, ${seconds} s a run, units $units, queue depths $qds, $fio_version" >&2
names=()
for u in $units; do
	for q in $qds; do
		pair "plain_${u}_qd$q" "awr_stream plain $u $q" "fio_run plain $u $q"
		names+=("plain_${u}_qd$q")
		if [ $fio_atomic = 1 ]; then
			pair "atomic_${u}_qd$q" "awr_stream atomic $u $q" "fio_run atomic $u $q"
			names+=("atomic_${u}_qd$q")
		fi
	done
done
pair atomic_raw "awr_stream atomic 16k 32" "raw_stream 16k 32"
pair write_raw awr_write raw_write
fresh
cost=$("${pin[@]}" "$qcost" "$f" 16384 200)
check_ns=$(sed -n 's/.*check_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
queue_ns=$(sed -n 's/.*queue_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
prep_ns=$(sed -n 's/.*liburing_prep_ns=\([0-9.]*\).*/\1/p' <<<"$cost")
own_ns=$(sed -n 's/.*library_ns=\([-0-9.]*\).*/\1/p' <<<"$cost")
# awr write against the raw loop in 16 pairs per way, unpinned and pinned (bench/write_loop.sh)
loop_pairs=$("$here/write_loop.sh" -B "$build" -p 16 -c "${cpus:-0}" 2>&1)

{
	echo "References: $fio_version, the raw liburing loop (bench/raw_uring_atomic.c)."
	echo "Target: a file on XFS (reflink, 4 KiB blocks) on a loop device over an image file (scratch, 2 GiB)."
	echo "XFS on a loop device has no hardware atomic path: every RWF_ATOMIC write takes XFS's"
	echo "copy-on-write software path. Random page order over a 256 MiB span, no durability step,"
	echo "$seconds s per run, each on a new XFS (mkfs) holding a freshly written file; $repeats rounds, the order alternating;" \
		"$([ -n "$cpus" ] && echo "every measured process pinned with taskset -c $cpus" || echo "no CPU pinning")."
	echo
	echo "| comparison | awr pages/s | reference pages/s | ratio of medians | per-round ratios | awr CPU us/page | reference CPU us/page | awr library ns/write | target |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
	for n in "${names[@]}"; do
		m=${n%%_*}; rest=${n#*_}; u=${rest%%_*}; q=${rest#*_qd}
		row "$n" "$m $u QD $q: awr bench --mode $m vs fio$([ "$m" = atomic ] && echo ' --atomic=1')" ">= 1.0"
	done
	row atomic_raw "atomic 16k QD 32: awr bench --mode atomic vs the raw liburing loop" ">= 0.97"
	echo "| write 128 MiB in 16k units, QD 32, whole process: awr write --engine uring vs the raw loop | $(med 1 "$tmp/write_raw.awr") | $(med 1 "$tmp/write_raw.ref") | $(ratio "$(med 1 "$tmp/write_raw.awr")" "$(med 1 "$tmp/write_raw.ref")") | $(spread write_raw) | wall $(med 2 "$tmp/write_raw.awr") s | wall $(med 2 "$tmp/write_raw.ref") s | | >= 0.97 |"
	if [ $fio_atomic != 1 ]; then
		echo
		echo "$fio_version does not know --atomic=1 (3.38 or later does): no atomic row beside fio. Give FIO=PATH."
	fi
	echo
	echo "| CPU per write, no I/O | ns |"
	echo "|---|---:|"
	echo "| the library's own part: awr_queue_write() minus liburing's floor, per round" \
		"(target < 50 ns) | $own_ns |"
	echo "| awr_queue_write(): the checks left after open + SQE | $queue_ns |"
	echo "| awr_file_check(): the whole rule check alone | $check_ns |"
	echo "| liburing get_sqe + prep_write alone (floor) | $prep_ns |"
	echo
	echo "Runs in pages/s: $(for n in "${names[@]}" atomic_raw write_raw; do runs "$n"; done | tr '\n' ';' | sed 's/;$//; s/;/; /g')."
	echo "CPU us/page: user + system CPU time of the writing process per page written (medians)."
	echo "awr library ns/write: awr bench's queue_ns_per_write, the time one write spends in"
	echo "awr_queue_write() inside the running loop (the checks, SQE), less one clock read" \
		"(median"
	echo "per run, then the median of the runs; target < 50 ns)."
	echo
	echo "awr write --engine uring against the raw loop, 128 MiB in 16 KiB units at QD 32 over a file written"
	echo "in full once, 16 alternating pairs unpinned and 16 pinned to CPU ${cpus:-0} (bench/write_loop.sh):"
	echo
	echo '```'
	echo "$loop_pairs"
	echo '```'
} >"$tmp/body.md" || exit 1
# the one summary line: the ratios of medians the targets are about, and the library's own cost
summary="atomic 16k QD 32 awr/raw loop $(ratio "$(med 1 "$tmp/atomic_raw.awr")" "$(med 1 "$tmp/atomic_raw.ref")")"
summary+=", awr write/raw loop $(ratio "$(med 1 "$tmp/write_raw.awr")" "$(med 1 "$tmp/write_raw.ref")")"
[ -s "$tmp/plain_16k_qd32.awr" ] && summary="plain 16k QD 32 awr/fio $(ratio "$(med 1 "$tmp/plain_16k_qd32.awr")" \
	"$(med 1 "$tmp/plain_16k_qd32.ref")"), $summary"
"$here/results.py" run --runs "$tmp/runs.jsonl" --dir "$dir" --body "$tmp/body.md" \
	--summary "$summary, library $own_ns ns/write"
