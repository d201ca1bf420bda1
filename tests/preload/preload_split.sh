#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: libatomicwr-preload splits a write of several whole pages (one buffer, page
# iovecs, iovecs of whole pages; pwritev2's RWF_DSYNC kept) into atomic page writes, in order,
# and leaves plain, counted, what cannot be split (a page across iovecs, 2.5 pages, half a page
# off). Read independently: on this scratch XFS (a loop device) an atomic write takes the
# copy-on-write path, so exactly the pages made atomic move on the device (xfs_io fiemap before
# and after); strace shows one RWF_ATOMIC pwritev2 a page, the caller's flags on each, offsets in
# order; the file holds what was written. A write that runs into RLIMIT_FSIZE after k pages
# returns k pages, as the same pwritev gives without the preload (and -1 EFBIG at k = 0); a page
# whose buffer is not mapped, after 3 written, gives those 3 pages as a short count.
# Negative control: the same writes to a file the patterns do not name move nothing.
#
#   with-scratch-xfs.sh preload_split.sh AWR PRELOAD WRITER
set -u
awr=$1 preload=$2 writer=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
P=16384
command -v xfs_io >/dev/null || { echo "SKIP: xfs_io not installed (xfsprogs)"; exit 77; }
command -v strace >/dev/null || { echo "SKIP: strace not installed (each write)"; exit 77; }
need_xfs_atomic $P
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-split.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT

# the device offset of each page of FILE, one line "page offset" (xfs_io's fiemap, 512-byte units)
page_map() {
	xfs_io -r -c 'fiemap -v' "$1" | awk -v P=$P '$2 ~ /^\[/ && $3 != "hole" {
		a = $2; gsub(/[^0-9]+/, " ", a); split(a, l); b = $3; gsub(/[^0-9]+/, " ", b); split(b, p)
		for (s = l[1]; s <= l[2]; s += P / 512)
			if (s % (P / 512) == 0) print s / (P / 512), (p[1] + s - l[1]) * 512 }'
}
# under the preload, the patterns naming *.dat: STATS FILE ARGS...
preloaded() {
	local stats=$1
	shift
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.dat" AWR_PRELOAD_PAGE_SIZE=16k \
		AWR_PRELOAD_STATS=$stats "$@"
}
make_file() {
	rm -f "$1"
	xfs_io -f -c "pwrite -q -S 0x11 0 $((24 * P))" -c fsync "$1" || exit 2
}
moved() {	# BEFORE AFTER: the pages whose device offset changed
	join "$1" "$2" | awk '$2 != $3 { print $1 }' | sort -n | tr '\n' ' '
}
expect() {	# FIELD VALUE
	local got
	got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
		"$w/stats.json" "$1")
	[ "$got" = "$2" ] && ok "$1 = $2" || fail "$1 is $got, expected $2"
}
# the file holds 0x20 + P in page P where a range was written, 0x11 elsewhere
content() {	# FILE OUT
	python3 - "$1" "$2" $P <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
P = int(sys.argv[3])
want = bytearray(b'\x11' * (24 * P))
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] != 'range':
        continue
    off, n = int(f[1]), int(f[2])
    want[off:off + n] = bytes(0x20 + i // P for i in range(off, off + n))
sys.exit(0 if data == bytes(want) else 1)
PY
}

# 1. the split and the unsplittable writes, under strace (every pwritev2 the writer makes)
make_file "$dir/rel.dat"
page_map "$dir/rel.dat" > "$w/before"
if preloaded "$w/stats" strace -qq -o "$w/strace" -e trace=pwrite64,pwritev,pwritev2 \
	-e signal=none "$writer" "$dir/rel.dat" $P split > "$w/out" 2> "$w/err"
then ok "every write returned its length"; else fail "the writer failed: $(cat "$w/err")"; fi
page_map "$dir/rel.dat" > "$w/after"
want=$(awk -v P=$P '$1 == "range" && $5 == "atomic" {
	for (p = $2 / P; p < ($2 + $3) / P; p++) print p }' "$w/out" | sort -n | tr '\n' ' ')
got=$(moved "$w/before" "$w/after")
[ -n "$want" ] || fail "the writer printed no atomic range"
[ "$got" = "$want" ] && ok "exactly the pages of the split writes moved on the device: $got" ||
	fail "pages moved: '$got'; pages of the split writes: '$want'"
content "$dir/rel.dat" "$w/out" && ok "every page holds what was written" ||
	fail "the file's contents differ from the writes made"

# one pwritev2 of one page with RWF_ATOMIC for each page, in order, RWF_DSYNC kept on pages 8-11
# (strace may not know RWF_ATOMIC by name: 0x40)
awk -v P=$P '/^pwritev2\(/ && /RWF_ATOMIC|0x40/ {
	match($0, /iov_len=[0-9]+/); len = substr($0, RSTART + 8, RLENGTH - 8)
	n = split($0, f, ", "); off = f[n - 1]; flags = f[n]; sub(/\).*/, "", flags)
	print off / P, len, (flags ~ /RWF_DSYNC/ ? "dsync" : "-") }' "$w/strace" > "$w/calls"
exp=$(for p in $(seq 0 11); do echo "$p $P $([ "$p" -ge 8 ] && echo dsync || echo -)"; done)
if [ "$(cat "$w/calls")" = "$exp" ]; then
	ok "12 one-page RWF_ATOMIC pwritev2 calls, in order, RWF_DSYNC on pages 8-11"
else
	fail "the atomic calls (page length flags): $(tr '\n' ';' < "$w/calls")"
fi

"$awr" preload-stats "$w/stats" -o json > "$w/stats.json" || fail "awr preload-stats exited $?"
expect atomic_pwrite 12
expect split_pwrite 3
expect plain_segments 1
expect plain_size 1
expect plain_misaligned 1
expect refused 0
report="12 page writes made atomic (pwrite 12, io_uring 0, libaio 0; 3 writes of several pages"
report="$report split) to 1 named file opens; 3 writes to them left as they were"
grep -qF "$report" "$w/err" && ok "the report at exit" || fail "the report at exit: $(cat "$w/err")"

# 2. negative control: the same writes, the file not named: nothing moves, nothing is counted
make_file "$dir/other.bin"
page_map "$dir/other.bin" > "$w/before2"
preloaded "$w/stats2" "$writer" "$dir/other.bin" $P split > "$w/out2" 2> "$w/err2" ||
	fail "the control's writer failed: $(cat "$w/err2")"
page_map "$dir/other.bin" > "$w/after2"
got=$(moved "$w/before2" "$w/after2")
[ -z "$got" ] && ok "control: no page of a file not named moved" ||
	fail "control: pages of a file not named moved: $got"
content "$dir/other.bin" "$w/out2" && ok "control: every page holds what was written" ||
	fail "control: contents differ"
"$awr" preload-stats "$w/stats2" -o json > "$w/stats.json" ||
	fail "awr preload-stats (control) exited $?"
expect atomic_pwrite 0
expect split_pwrite 0

# 3. a partial failure: RLIMIT_FSIZE at k pages; the short count pwritev gives without the preload
for k in 3 0; do
	make_file "$dir/fsize.dat"
	"$writer" "$dir/fsize.dat" $P fsize $k 6 > "$w/plain.$k" 2> "$w/err.$k"
	make_file "$dir/fsize.dat"
	page_map "$dir/fsize.dat" > "$w/before3"
	preloaded "$w/stats3" "$writer" "$dir/fsize.dat" $P fsize $k 6 > "$w/split.$k" 2>> "$w/err.$k"
	page_map "$dir/fsize.dat" > "$w/after3"
	plain=$(cat "$w/plain.$k") split=$(cat "$w/split.$k")
	want=$([ $k = 0 ] && echo "fsize -1 EFBIG" || echo "fsize $((k * P)) -")
	[ "$plain" = "$want" ] ||
		fail "without the preload, $k pages under the limit: '$plain', expected '$want'"
	[ "$split" = "$plain" ] && ok "$k pages under RLIMIT_FSIZE: '$split', as without the preload" ||
		fail "$k pages under RLIMIT_FSIZE: '$split' under the preload, '$plain' without"
	got=$(moved "$w/before3" "$w/after3")
	exp=$(seq 0 $((k - 1)) 2>/dev/null | tr '\n' ' ')
	[ "$got" = "$exp" ] && ok "$k pages under RLIMIT_FSIZE: pages moved '$got'" ||
		fail "$k pages: pages moved '$got', expected '$exp'"
	"$awr" preload-stats "$w/stats3" -o json > "$w/stats.json" ||
		fail "awr preload-stats (fsize) exited $?"
	expect atomic_pwrite $k
	expect split_pwrite 1
done

# 4. a page that fails after others (its buffer not mapped: EFAULT): the bytes written before it,
# as a short count. (A plain O_DIRECT pwritev on XFS gives -1 EFAULT for the whole here.)
make_file "$dir/fault.dat"
plain=$("$writer" "$dir/fault.dat" $P unmapped 3 6 2>&1)
make_file "$dir/fault.dat"
page_map "$dir/fault.dat" > "$w/before4"
got=$(preloaded "$w/stats4" "$writer" "$dir/fault.dat" $P unmapped 3 6 2> "$w/err4")
page_map "$dir/fault.dat" > "$w/after4"
[ "$got" = "unmapped $((3 * P)) -" ] && ok "page 3 not mapped: '$got' (plain: '$plain')" ||
	fail "page 3 not mapped: '$got', expected 'unmapped $((3 * P)) -'"
got=$(moved "$w/before4" "$w/after4")
[ "$got" = "0 1 2 " ] && ok "page 3 not mapped: pages 0-2 moved" ||
	fail "page 3 not mapped: moved '$got'"

[ "$fails" -eq 0 ] || { echo "preload_split: $fails failure(s)"; exit 1; }
echo "preload_split: all checks passed"
