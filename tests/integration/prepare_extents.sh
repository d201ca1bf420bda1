#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr prepare, awr extents, awr write --report-path and probe's fs section on
# scratch XFS over a loop device (no hardware atomics: the software path only). Prepared files
# are 100% unit-aligned by xfs_io's own FIEMAP listing, also on a deliberately fragmented
# filesystem; the hint is what xfs_io extsize shows; a file grown without a hint there shows
# misaligned ranges (and the alignment checker is shown to catch them); every atomic write
# reports software and xfs_io sees its blocks move; each refusal gives its message and leaves
# no file behind.
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fails=0

. "$(dirname "$0")/expect.sh"	# fail, ok, expect_rc, expect_text, kstatx
command -v xfs_io >/dev/null || { echo "SKIP: xfs_io not installed (xfsprogs)"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }

# xfs_io's FIEMAP listing as "logical physical length" in bytes, one extent a line (holes left out)
xfiemap() {
	xfs_io -r -c 'fiemap -v' "$1" | awk '$2 ~ /^\[/ && $3 != "hole" {
		a = $2; gsub(/[^0-9]+/, " ", a); split(a, l); b = $3; gsub(/[^0-9]+/, " ", b); split(b, p);
		printf "%d %d %d\n", l[1] * 512, p[1] * 512, (l[2] - l[1] + 1) * 512 }'
}
# misaligned extents of FILE against UNIT by xfs_io's listing: prints their count
misaligned_count() {
	xfiemap "$1" | awk -v u="$2" '($1 % u) || ($2 % u) || ($3 % u) { n++ } END { print n + 0 }'
}
mapped_bytes() { xfiemap "$1" | awk '{ s += $3 } END { print s + 0 }'; }

touch "$dir/statx-probe"
read -r _ _ kmax _ < <(kstatx "$dir/statx-probe")
rm -f "$dir/statx-probe"
[ "${kmax:-0}" -gt 4096 ] || { echo "SKIP: no multi-block atomic writes on XFS here (unit_max ${kmax:-?}; Linux 6.16+ needed)"; exit 77; }

# --- fragment the free space on purpose: 12 KiB files, every other one removed
mkdir "$dir/frag"
for i in $(seq 1 600); do head -c 12288 /dev/zero > "$dir/frag/f$i"; done
sync
for i in $(seq 1 2 600); do rm "$dir/frag/f$i"; done
sync

# --- a file grown without a hint on the fragmented filesystem: misaligned ranges
grown=$dir/grown
for i in $(seq 0 39); do
	xfs_io -f -c "pwrite -q $((i * 12288)) 12288" -c fsync "$grown"
	head -c 4096 /dev/zero >> "$dir/frag/spacer"; sync "$dir/frag/spacer"
done
expect_rc 0 "extents of the grown file" "$awr" extents "$grown" --unit 64k -o json
j=$out
nmis=$(jq '.misaligned | length' <<<"$j")
[ "$nmis" -ge 1 ] && ok "grown file: $nmis misaligned ranges named" || fail "grown file shows no misaligned range: $j"
[ "$(jq '.aligned_bytes < .total_bytes' <<<"$j")" = true ] && ok "grown file: not fully aligned" ||
	fail "grown file reported fully aligned"
[ "$(misaligned_count "$grown" 65536)" -ge 1 ] && ok "negative control: the checker finds xfs_io's misaligned extents" ||
	fail "negative control: the checker found no misaligned extent in the grown file"
# awr's extents equal xfs_io's
if [ "$(jq -r '.extents[] | "\(.logical) \(.physical) \(.length)"' <<<"$j")" = "$(xfiemap "$grown")" ]; then
	ok "grown file: extents equal xfs_io fiemap"
else
	fail "grown file: extents differ from xfs_io fiemap"
fi
text=$("$awr" extents "$grown" --unit 64k)
grep -q "misaligned ranges:" <<<"$text" && ok "normal output lists misaligned ranges" ||
	fail "normal output lacks the misaligned ranges"
# the summary names the total and the unit, each its own (one buffer passed twice printed the unit twice)
total_kib=$(($(jq .total_bytes <<<"$j") / 1024))
if grep -Eq "^aligned: .* of $total_kib KiB \([0-9]+%\) lie in whole 64 KiB units" <<<"$text"; then
	ok "summary: $(grep '^aligned:' <<<"$text")"
else
	fail "summary line: '$(grep '^aligned:' <<<"$text")', expected 'of $total_kib KiB (N%) lie in whole 64 KiB units'"
fi

# --- prepare --unit 64k on the fragmented filesystem: 100% aligned
db=$dir/db
expect_rc 0 "prepare 32m --unit 64k" "$awr" prepare "$db" --size 32m --unit 64k -o json
j=$out
[ "$(stat -c %s "$db")" = $((32 << 20)) ] && ok "size is 32 MiB" || fail "size $(stat -c %s "$db")"
[ "$(mapped_bytes "$db")" = $((32 << 20)) ] && ok "xfs_io: 32 MiB mapped" || fail "xfs_io maps $(mapped_bytes "$db") bytes"
[ "$(misaligned_count "$db" 65536)" = 0 ] && ok "xfs_io: every extent 64 KiB aligned (logical, physical, length)" ||
	{ fail "xfs_io: misaligned extents after prepare"; xfiemap "$db"; }
shared=0
for f in $(xfs_io -r -c 'fiemap -v' "$db" | awk '$2 ~ /^\[/ && $3 != "hole" { print $NF }'); do
	(( f & 0x2000 )) && shared=$((shared + 1))	# FIEMAP_EXTENT_SHARED
done
[ "$shared" = 0 ] && ok "no extent left shared" || fail "$shared prepared extents are still shared"
# negative control: a reflinked copy makes the file's extents shared, and the same check sees it
cp --reflink=always "$db" "$dir/db.clone"
shared=0
for f in $(xfs_io -r -c 'fiemap -v' "$db" | awk '$2 ~ /^\[/ && $3 != "hole" { print $NF }'); do
	(( f & 0x2000 )) && shared=$((shared + 1))
done
[ "$shared" -ge 1 ] && ok "negative control: the shared check sees a reflinked copy" ||
	fail "negative control: the shared check missed a reflinked copy"
rm "$dir/db.clone"
sync
hint=$(xfs_io -c extsize "$db" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
[ "$hint" = 65536 ] && ok "xfs_io extsize shows 65536" || fail "xfs_io extsize shows '$hint'"
[ "$(jq .extsize_hint <<<"$j")" = "$hint" ] && ok "prepare reports the hint xfs_io shows" || fail "hint in JSON $(jq .extsize_hint <<<"$j")"
[ "$(jq '.aligned_bytes == .total_bytes and .total_bytes == 33554432' <<<"$j")" = true ] &&
	ok "prepare reports 100% aligned" || fail "prepare report: $j"
expect_rc 0 "extents of the prepared file" "$awr" extents "$db" --unit 64k -o json
[ "$(jq '.aligned_bytes == .total_bytes and (.misaligned | length) == 0 and ([.extents[].aligned] | all)' <<<"$out")" = true ] &&
	ok "awr extents: all aligned, no misaligned range" || fail "awr extents on the prepared file: $out"
[ "$(jq -r '.extents[] | "\(.logical) \(.physical) \(.length)"' <<<"$out")" = "$(xfiemap "$db")" ] &&
	ok "prepared file: extents equal xfs_io fiemap" || fail "prepared file: extents differ from xfs_io"
# the hint-only mode keeps its promise honestly: exit 0 only when xfs_io agrees that all is aligned
"$awr" prepare "$dir/hinted" --size 8m --unit 64k --hint-only >/dev/null 2>&1; rc=$?
m=$(misaligned_count "$dir/hinted" 65536)
{ [ "$rc" = 0 ] && [ "$m" = 0 ]; } || { [ "$rc" = 1 ] && [ "$m" != 0 ]; } &&
	ok "--hint-only: exit $rc agrees with xfs_io ($m misaligned extents)" || fail "--hint-only: exit $rc but $m misaligned extents"

# --- probe: the filesystem view, for the file and for the directory (an O_TMPFILE made there)
expect_rc 0 "probe the prepared file" "$awr" probe "$db" -o json
j=$out
[ "$(jq -r .fs.type <<<"$j")" = xfs ] && ok "fs.type xfs" || fail "fs.type $(jq -r .fs.type <<<"$j")"
[ "$(jq .fs.extsize_hint <<<"$j")" = 65536 ] && ok "fs.extsize_hint 65536" || fail "fs.extsize_hint $(jq .fs.extsize_hint <<<"$j")"
[ "$(jq .fs.hw_atomic <<<"$j")" = false ] && ok "no hardware atomics on the loop device" || fail "fs.hw_atomic $(jq .fs.hw_atomic <<<"$j")"
[ "$(jq .fs.software_max <<<"$j")" = "$kmax" ] && ok "fs.software_max = statx unit_max ($kmax)" || fail "fs.software_max $(jq .fs.software_max <<<"$j")"
# the fact is said once: the probe's software_path_only, not again in the filesystem's findings
jq -r '.findings[] | select(.id == "software_path_only") | .message' <<<"$j" |
	grep -q "takes the filesystem's software (copy-on-write) path" &&
	ok "finding: copy-on-write only" || fail "no copy-on-write-only finding: $(jq -c .findings <<<"$j")"
[ "$(jq '[.fs.findings[]? | select(.id == "fs_software_only")] | length' <<<"$j")" = 0 ] &&
	ok "the filesystem's findings do not say it again" || fail "said twice: $(jq -c .fs.findings <<<"$j")"
expect_rc 0 "probe the directory" "$awr" probe "$dir" -o json
[ "$(jq '.fs.tmpfile and .fs.extsize_hint == 0' <<<"$out")" = true ] && ok "directory: a new file's view, no hint" ||
	fail "directory view: $(jq -c .fs <<<"$out")"
expect_rc 0 "probe the directory (normal output)" "$awr" probe "$dir"
expect_text "a new file in this directory"
expect_text "software"

# --- every atomic write takes the software path here, and xfs_io sees its blocks move
before=$(xfiemap "$db")
expect_rc 0 "write --report-path 4 x 64k" "$awr" write "$db" --offset 1m --length 256k --unit 64k --report-path -o json
j=$out
[ "$(jq '[.units[].path] == ["software","software","software","software"] and .software == 4' <<<"$j")" = true ] &&
	ok "every unit reports software" || fail "paths: $j"
after=$(xfiemap "$db")
phys() { awk -v o="$2" '$1 <= o && o < $1 + $3 { print $2 + o - $1 }' <<<"$1"; }
for o in 1048576 1114112 1179648 1245184; do
	[ "$(phys "$before" $o)" != "$(phys "$after" $o)" ] && ok "xfs_io: unit at $o moved (copy-on-write)" ||
		fail "xfs_io: unit at $o stayed at $(phys "$after" $o)"
done
expect_rc 0 "write --report-path 16k units" "$awr" write "$db" --offset 0 --length 64k --unit 16k --report-path
expect_text "paths: 0 hardware, 4 software, 0 unknown"
expect_rc 2 "--report-path with the uring engine" "$awr" write "$db" --offset 0 --length 64k --unit 16k --report-path --engine uring
expect_text "works with --engine sync"

# --- refusals: each names what was wrong; nothing is left behind
expect_rc 2 "prepare a file holding data" "$awr" prepare "$grown" --size 1m --unit 64k
expect_text "the file holds data"
[ "$(xfiemap "$grown")" = "$(jq -r '.extents[] | "\(.logical) \(.physical) \(.length)"' <<<"$("$awr" extents "$grown" -o json)")" ] &&
	ok "the file holding data is unchanged" || fail "the file holding data changed"
touch "$dir/kept" && xfs_io -c "falloc -k 0 64k" "$dir/kept"
expect_rc 2 "prepare an empty file with blocks" "$awr" prepare "$dir/kept" --size 1m --unit 64k
expect_text "allocated"
expect_rc 2 "unit not a power of two" "$awr" prepare "$dir/new1" --size 1m --unit 48k
expect_text "not a power of two"
[ ! -e "$dir/new1" ] && ok "no file left by a refusal" || fail "a refused prepare left $dir/new1"
expect_rc 2 "unit above the filesystem's atomic maximum" "$awr" prepare "$dir/new2" --size 8m --unit $((kmax * 2))
expect_text "above what xfs writes atomically"
expect_rc 2 "size not a multiple of the unit" "$awr" prepare "$dir/new3" --size 100k --unit 64k
expect_text "not a positive multiple of the unit"
expect_rc 2 "unit below the block" "$awr" prepare "$dir/new4" --size 1m --unit 1k
expect_text "below the filesystem block"
expect_rc 2 "a filesystem other than XFS or ext4" "$awr" prepare /dev/shm/awr-prepare-$$ --size 1m --unit 64k
expect_text "not XFS or ext4"
rm -f /dev/shm/awr-prepare-$$
expect_rc 2 "extents --unit not a power of two" "$awr" extents "$db" --unit 48k
expect_text "not a power of two"

# --- ext4 with bigalloc (16 KiB clusters) on a loop device: the view against dumpe2fs
e4img=$dir/ext4.img e4mnt=$dir/e4mnt e4dev=
e4cleanup() {
	mountpoint -q "$e4mnt" && umount "$e4mnt"
	[ -n "$e4dev" ] && losetup -d "$e4dev"
	e4dev=	# called twice (here and at exit): never detach a number reused by another test
	rm -f "$e4img"
}
trap e4cleanup EXIT
if command -v mkfs.ext4 >/dev/null && command -v dumpe2fs >/dev/null; then
	truncate -s 64M "$e4img" && mkfs.ext4 -q -F -O bigalloc -C 16384 "$e4img" &&
		e4dev=$(losetup -f --show "$e4img") && mkdir -p "$e4mnt" && mount "$e4dev" "$e4mnt"
	if mountpoint -q "$e4mnt"; then
		cluster=$(dumpe2fs -h "$e4dev" 2>/dev/null | awk -F: '/^Cluster size/ { print $2 + 0 }')
		expect_rc 0 "probe a directory on ext4 bigalloc" "$awr" probe "$e4mnt" -o json
		[ "$(jq -r .fs.type <<<"$out")" = ext4 ] && ok "fs.type ext4" || fail "fs.type $(jq -r .fs.type <<<"$out")"
		[ "$(jq .fs.bigalloc <<<"$out")" = true ] && ok "fs.bigalloc" || fail "fs.bigalloc $(jq .fs.bigalloc <<<"$out")"
		[ "$(jq .fs.cluster_size <<<"$out")" = "$cluster" ] && ok "fs.cluster_size = dumpe2fs $cluster" ||
			fail "fs.cluster_size $(jq .fs.cluster_size <<<"$out"), dumpe2fs $cluster"
		read -r _ e4min _ _ < <(touch "$e4mnt/s" && kstatx "$e4mnt/s")
		if [ "${e4min:-0}" = 0 ]; then
			# ext4 has no software path: without hardware atomics below, no atomic writes at all
			expect_rc 2 "prepare on ext4 without hardware atomics" "$awr" prepare "$e4mnt/db" --size 1m --unit 16k
			expect_text "no atomic writes on this file"
		else
			echo "note: ext4 offers atomic writes on this loop device: prepare refusal not checked"
		fi
	else
		echo "note: no ext4 bigalloc loop mount here: ext4 view not checked"
	fi
fi

# --- XFS with an odd AG size (65537 blocks): the kernel judges an extent's alignment by its
# block number within the AG (xfs_bmap_hw_atomic_write_possible()), so a file placed in AG 1 and
# 64 KiB aligned there is not 64 KiB aligned as a device offset (AG 1 starts at block 65537).
# awr prepare places, awr extents judges and probe's fs view reads it all one way: the AG's.
# Independent reading: xfs_bmap -v (AG-OFFSET in 512-byte sectors). On this loop device (no
# hardware atomics) the AG cap is 65536 blocks (rounded down to a power of two), no finding.
agimg=$dir/oddag.img agmnt=$dir/agmnt agdev=
agcleanup() {
	mountpoint -q "$agmnt" && umount "$agmnt"
	[ -n "$agdev" ] && losetup -d "$agdev"
	agdev=	# called twice (here and at exit): never detach a number reused by another test
	rm -f "$agimg"
}
trap 'e4cleanup; agcleanup' EXIT
truncate -s 1100M "$agimg" && mkfs.xfs -q -f -b size=4096 -m reflink=1 -d agsize=$((65537 * 4096)) "$agimg" &&
	agdev=$(losetup -f --show "$agimg") && mkdir -p "$agmnt" && mount "$agdev" "$agmnt"
if mountpoint -q "$agmnt"; then
	agblocks=$(xfs_info "$agmnt" | sed -n 's/.*agsize=\([0-9]*\) blks.*/\1/p')
	[ "$agblocks" = 65537 ] && ok "mkfs.xfs kept agsize 65537 blocks" || fail "agsize is $agblocks blocks, not 65537"
	# new directories go to other AGs: prepare a file in each until one lands beyond AG 0
	agfile= agno=
	for i in 1 2 3 4 5 6; do
		mkdir -p "$agmnt/d$i"
		"$awr" prepare "$agmnt/d$i/db" --size 4m --unit 64k >"$dir/ag.out" 2>&1
		rc=$?
		agno=$(xfs_bmap -v "$agmnt/d$i/db" | awk 'NR > 2 && $4 != "" { print $4; exit }')
		if [ "${agno:-0}" -gt 0 ]; then agfile=$agmnt/d$i/db; break; fi
	done
	if [ -z "$agfile" ]; then
		fail "no prepared file landed beyond AG 0 in 6 directories (xfs_bmap -v: AG ${agno:-?})"
	else
		[ "$rc" = 0 ] && ok "awr prepare --unit 64k in AG $agno: exit 0" ||
			fail "awr prepare --unit 64k in AG $agno exited $rc: $(head -c 300 "$dir/ag.out")"
		# xfs_bmap -v: every extent's AG-OFFSET (sectors) a multiple of 64 KiB; and at least one
		# device offset (FIEMAP) that is not, else this case could not tell the two rules apart
		ag_off_bad=$(xfs_bmap -v "$agfile" | awk 'NR > 2 && $4 != "" { split($5, a, /[.:]/); if (a[1] % 128) n++ } END { print n + 0 }')
		[ "$ag_off_bad" = 0 ] && ok "xfs_bmap -v: every extent 64 KiB aligned within AG $agno" ||
			fail "xfs_bmap -v: $ag_off_bad extents not 64 KiB aligned within their AG"
		dev_bad=$(misaligned_count "$agfile" 65536)
		[ "$dev_bad" -gt 0 ] && ok "as device offsets, $dev_bad extents are not 64 KiB aligned (the rules differ here)" ||
			fail "every extent is 64 KiB aligned as a device offset too: the case cannot tell AG from device alignment"
		expect_rc 0 "awr extents --unit 64k in AG $agno" "$awr" extents "$agfile" --unit 64k -o json
		[ "$(jq .aligned_bytes <<<"$out")" = 4194304 ] && [ "$(jq .total_bytes <<<"$out")" = 4194304 ] &&
			ok "awr extents: 4 MiB of 4 MiB aligned within the AG" ||
			fail "awr extents: $(jq .aligned_bytes <<<"$out") of $(jq .total_bytes <<<"$out") bytes aligned"
		[ "$(jq .ag_size <<<"$out")" = $((65537 * 4096)) ] && ok "awr extents: ag_size $((65537 * 4096))" ||
			fail "awr extents: ag_size $(jq .ag_size <<<"$out")"
		expect_rc 0 "probe the file" "$awr" probe "$agfile" -o json
		[ "$(jq .fs.ag_atomic_max <<<"$out")" = $((65536 * 4096)) ] &&
			ok "fs.ag_atomic_max: 65536 blocks (65537 rounded down; no device atomics)" ||
			fail "fs.ag_atomic_max $(jq .fs.ag_atomic_max <<<"$out"), expected $((65536 * 4096))"
		jq -e '.fs.findings | map(.id) | index("fs_ag_size_caps_atomic") == null' <<<"$out" >/dev/null &&
			ok "no AG-size finding without device atomics" || fail "an AG-size finding without device atomics"
	fi
	agcleanup
else
	fail "could not make and mount the odd-agsize XFS"
fi

# (LeakSanitizer cannot run under ptrace: leaks are off for the traced command in the sanitizer build)
# --- a file another program makes while prepare runs is never removed: prepare decided "created" by
# an lstat before its open and removed the file on a refusal. Each of prepare's looks at the path
# is delayed 1.5 s (strace fault injection); meanwhile another program writes 64 KiB there; prepare
# opens that file, refuses it (it holds data), and it must still be there, unchanged.
if command -v strace >/dev/null; then
	race=$dir/race.db
	rm -f "$race"
	( sleep 0.5; head -c 65536 /dev/urandom >"$race.tmp" && mv "$race.tmp" "$race" ) &
	maker=$!
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o /dev/null -P "$race" -e trace=lstat,newfstatat,statx,stat \
		-e inject=lstat,newfstatat,statx,stat:delay_exit=1500000 \
		"$awr" prepare "$race" --size 1m --unit 64k >"$dir/race.out" 2>&1
	rc=$?
	wait "$maker"
	if [ -f "$race" ] && [ "$(stat -c %s "$race")" = 65536 ]; then
		ok "a file made by another program during prepare (exit $rc) is still there"
	else
		fail "the file another program made during prepare is gone or changed (prepare exit $rc: $(head -c 300 "$dir/race.out"))"
	fi
	rm -f "$race"
else
	fail "strace is not installed (scripts/deps.sh installs it)"
fi

echo "prepare_extents: $fails failure(s)"
[ "$fails" = 0 ]
