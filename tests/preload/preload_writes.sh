#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: libatomicwr-preload on a program that knows nothing of atomic writes
# (preload_writer): its one-page, page-aligned O_DIRECT writes through pwrite, pwritev,
# pwritev2, io_uring (WRITE, WRITEV) and libaio (PWRITE, PWRITEV) become RWF_ATOMIC (two pages
# in one pwrite: two atomic page writes); its other writes (two pages through io_uring and
# libaio, half a page off, two iovecs, buffered) go down as they were; a
# descriptor opened where the preload does not see (a raw openat) is named when F_SETFL gives
# it O_DIRECT. Writes queued N to an io_uring submit are each made atomic (every CQE checked);
# a page write the kernel refuses is counted and makes awr preload-stats exit 1.
# Read independently: on this scratch XFS (a loop device: no hardware atomics) an atomic
# write takes the copy-on-write path, so exactly the pages made atomic move on the device
# (xfs_io fiemap before and after) while a plain overwrite stays in place; the counters
# (awr preload-stats) and the report at exit say the same; every page holds what was
# written (no write was changed). Negative control: the same run on a file the patterns do
# not name moves no page and counts nothing.
#
#   with-scratch-xfs.sh preload_writes.sh AWR PRELOAD WRITER
set -u
awr=$1 preload=$2 writer=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
P=16384
command -v xfs_io >/dev/null || { echo "SKIP: xfs_io not installed (xfsprogs)"; exit 77; }
need_xfs_atomic $P
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-preload.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT

# the device offset of each page of FILE, one line "page offset" (xfs_io's fiemap, in 512-byte units)
page_map() {
	xfs_io -r -c 'fiemap -v' "$1" | awk -v P=$P '$2 ~ /^\[/ && $3 != "hole" {
		a = $2; gsub(/[^0-9]+/, " ", a); split(a, l); b = $3; gsub(/[^0-9]+/, " ", b); split(b, p);
		for (s = l[1]; s <= l[2]; s += P / 512) if (s % (P / 512) == 0) print s / (P / 512), (p[1] + s - l[1]) * 512 }'
}
make_file() {
	xfs_io -f -c "pwrite -q -S 0x11 0 $((20 * P))" -c fsync "$1" || exit 2
}
# run the writer on FILE with the preload, the patterns naming PATTERN
run() {
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES=$2 AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.$3 \
		"$writer" "$1" $P > "$w/out.$3" 2> "$w/err.$3"
}

make_file "$dir/data.ibd"
page_map "$dir/data.ibd" > "$w/before"
[ -s "$w/before" ] || fail "xfs_io maps no page of the file"
if run "$dir/data.ibd" "$dir/*.ibd" named; then ok "the writer's writes all returned their length"; else fail "the writer failed: $(cat "$w/err.named")"; fi
page_map "$dir/data.ibd" > "$w/after"

# 1. the pages made atomic moved (copy-on-write), the others stayed
moved=$(join "$w/before" "$w/after" | awk '$2 != $3 { print $1 }' | tr '\n' ' ')
want=$(awk '$4 == "atomic" { print $2 }' "$w/out.named" | sort -n | tr '\n' ' ')
[ -n "$want" ] || fail "the writer printed no case"
if [ "$moved" = "$want" ]; then ok "exactly the pages made atomic moved on the device: $moved"
else fail "pages that moved on the device: '$moved'; the atomic cases: '$want' (see $(cat "$w/out.named" | tr '\n' ';'))"; fi

# 2. the counters, by how each write reached the kernel and why the others were left alone
"$awr" preload-stats "$w/stats.named" -o json > "$w/stats.json" || fail "awr preload-stats exited $?"
expect() {	# FIELD VALUE
	local got
	got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$w/stats.json" "$1")
	[ "$got" = "$2" ] && ok "$1 = $2" || fail "$1 is $got, expected $2"
}
expect files_named 3	# the O_DIRECT descriptor, the buffered one, the one opened unseen
expect atomic_pwrite 6
expect split_pwrite 1
expect atomic_uring 2
expect atomic_aio 2
expect plain_size 2
expect plain_misaligned 1
expect plain_segments 1
expect plain_buffered 1
expect refused 0
report="page writes made atomic (pwrite 6, io_uring 2, libaio 2; 1 writes of several pages split)"
report="libatomicwr-preload: pid [0-9]*: 10 $report to 3 named file opens; 5 writes to them left"
grep -q "$report" "$w/err.named" \
	&& ok "the report at exit" || fail "the report at exit: $(cat "$w/err.named")"
"$awr" preload-stats "$w/stats.named" |
	grep -q "10 page writes made atomic, 5 writes to named files left as they were, 0 refused" \
	&& ok "preload-stats text" || fail "preload-stats text: $("$awr" preload-stats "$w/stats.named")"

# 3. no write was changed: the file holds the writer's bytes where it wrote and 0x11 elsewhere
python3 - "$dir/data.ibd" "$w/out.named" $P <<'PY' && ok "every page holds what was written" || fail "the file's contents differ from the writes made"
import sys
data = open(sys.argv[1], 'rb').read()
P = int(sys.argv[3])
want = bytearray(b'\x11' * (20 * P))
for line in open(sys.argv[2]):
    _, page, how, what = line.split()
    page = int(page)
    off = page * P + (P // 2 if what == 'plain-misaligned' else 0)
    n = 2 * P if what == 'plain-size' else P
    want[off:off + n] = b'\x5a' * n
sys.exit(0 if data == bytes(want) else 1)
PY

# negative control: the preload loaded, the file not named: nothing moves, nothing is counted
make_file "$dir/other.dat"
page_map "$dir/other.dat" > "$w/before2"
run "$dir/other.dat" "$dir/*.ibd" control || fail "the control's writer failed: $(cat "$w/err.control")"
page_map "$dir/other.dat" > "$w/after2"
moved=$(join "$w/before2" "$w/after2" | awk '$2 != $3 { print $1 }' | tr '\n' ' ')
[ -z "$moved" ] && ok "control: no page of a file not named moved" || fail "control: pages of a file not named moved: $moved"
"$awr" preload-stats "$w/stats.control" -o json > "$w/stats.json" || fail "awr preload-stats (control) exited $?"
expect files_named 0
expect atomic_pwrite 0
expect atomic_uring 0
[ -s "$w/err.control" ] && fail "the control printed a report: $(cat "$w/err.control")" || ok "control: no report"

# 4. N page writes queued before each io_uring_submit: every one made atomic, every CQE whole
make_file "$dir/batch.ibd"
LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.batch \
	"$writer" "$dir/batch.ibd" $P uring-batch 4 8 > "$w/out.batch" 2> "$w/err.batch" \
	&& ok "io_uring, 4 writes a submit: every CQE has its length" || fail "io_uring batches: $(cat "$w/err.batch")"
"$awr" preload-stats "$w/stats.batch" -o json > "$w/stats.json" || fail "awr preload-stats (batches) exited $?"
expect atomic_uring 32

# 5. a page write the kernel refuses (its buffer off the O_DIRECT alignment): the program gets
# the error, the write is counted refused, and awr preload-stats says so with exit status 1
LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.refused \
	"$writer" "$dir/batch.ibd" $P misaligned-buffer > "$w/out.refused" 2> "$w/err.refused"
grep -q "misaligned-buffer -22" "$w/out.refused" && ok "the refused write returned EINVAL" ||
	fail "the misaligned write: $(cat "$w/out.refused" "$w/err.refused")"
"$awr" preload-stats "$w/stats.refused" -o json > "$w/stats.json"
[ $? = 1 ] && ok "preload-stats exits 1 after a refused write" || fail "preload-stats did not exit 1 after a refused write"
expect refused 1
expect atomic_pwrite 0

[ "$fails" -eq 0 ] || { echo "preload_writes: $fails failure(s)"; exit 1; }
echo "preload_writes: all checks passed"
