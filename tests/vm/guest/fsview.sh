#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: which path atomic writes take on a filesystem over a device with
# hardware atomics, told by awr and checked against xfs_io's FIEMAP listing:
#   fsview.sh DEV UNIT   (DEV: a whole disk of at least 300 MB, UNIT: its atomic unit_max)
#   fsview.sh --software-only DEV UNIT   (DEV's atomic unit_min above the 4 KiB block)
# The same cases on every device (an NVMe namespace, a scsi_debug disk):
# XFS: after awr prepare, aligned UNIT writes report hardware and stay in place,
# 4*UNIT writes report software and move; a file with physically misaligned
# extents reports software and awr extents / probe name its misaligned ranges.
# ext4 bigalloc (clusters of UNIT): UNIT writes hardware in place, 4*UNIT refused.
# awr prepare refuses a unit above the device's (XFS) or the filesystem's (ext4)
# atomic maximum and a file holding data, with the reason, changing nothing.
# --software-only: XFS ignores the device's atomics (its unit_min exceeds the
# filesystem block): probe says copy-on-write only and why, and a prepared
# file's aligned UNIT writes report software and move.
# Prints PASS/FAIL/SKIP NAME lines. Leaves DEV unmounted.
mode=all
[ "$1" = --software-only ] && { mode=software; shift; }
# where the guest's time goes: a plain console line per step (not a case)
at() { echo "fsview: $1 at uptime $(cut -d' ' -f1 /proc/uptime)"; }
dev=$1 unit=$2
AWR=${AWR:-/awr/awr}
mnt=/mnt/fsview
big=$((unit * 4))
kib() { echo "$(($1 / 1024)) KiB"; }

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $(echo "$2" | tr '\n' ' ')"; }	# one line: the relay reads lines
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }

# "logical physical length" in bytes per extent of FILE, from xfs_io (holes left out)
xfiemap() {
	xfs_io -r -c 'fiemap -v' "$1" | awk '$2 ~ /^\[/ && $3 != "hole" {
		s = $2 " " $3; gsub(/[^0-9]+/, " ", s); split(s, a, " ");
		printf "%d %d %d\n", a[1] * 512, a[3] * 512, (a[2] - a[1] + 1) * 512 }'
}
mapped() { xfiemap "$1" | awk '{ s += $3 } END { print s + 0 }'; }
# the device offset of file byte OFF in a listing
phys_at() { echo "$1" | awk -v o="$2" '$1 <= o && o < $1 + $3 { print $2 + o - $1 }'; }
misaligned() { xfiemap "$1" | awk -v u="$2" '($1 % u) || ($2 % u) || ($3 % u) { n++ } END { print n + 0 }'; }

# write LEN at OFF in units of U with --report-path; $paths: "H S U"
report_write() {
	out=$($AWR write "$1" --offset "$2" --length "$3" --unit "$4" --report-path --dsync 2>&1)
	rc=$?
	paths=$(echo "$out" | sed -n 's/^paths: \([0-9]*\) hardware, \([0-9]*\) software, \([0-9]*\) unknown$/\1 \2 \3/p')
}
# check_paths NAME "H S U": PASS when the last report_write exited 0 with these paths
check_paths() {
	[ "$rc" = 0 ] && [ "$paths" = "$2" ]; check "$1" $? "exit $rc, paths '$paths': $out"
}

# expect_text NAME TEXT: PASS when the last $out holds TEXT
expect_text() {
	case "$out" in *"$2"*) pass "$1" ;; *) fail "$1" "no '$2' in: $out" ;; esac
}

# awr prepare FILE --size 8m --unit U must refuse (exit 2) saying TEXT, and leave
# a new FILE absent or an existing one's extents as they were
prepare_refused() {	# NAME FILE U TEXT
	local before after
	before=$(xfiemap "$2" 2>/dev/null)
	out=$($AWR prepare "$2" --size 8m --unit "$3" 2>&1)
	rc=$?
	after=$(xfiemap "$2" 2>/dev/null)
	if [ "$rc" != 2 ]; then
		fail "$1" "exit $rc, expected 2: $out"
	elif [ -z "$before" ] && [ -e "$2" ]; then
		fail "$1" "a refused prepare left $2 behind"
	elif [ "$before" != "$after" ]; then
		fail "$1" "the refused prepare changed the extents of $2"
	else
		expect_text "$1" "$4"
	fi
}

# FS.units_hardware, FS.units_in_place_fiemap: 4 aligned UNIT writes into the
# prepared FILE report hardware, and xfs_io lists each unit where it was (on
# ext4 a written part splits an unwritten extent in two: same blocks)
units_in_place() {	# FS FILE
	local before after i p0 moved=0
	before=$(xfiemap "$2")
	report_write "$2" $((unit * 4)) $((unit * 4)) "$unit"
	check_paths "$1.unit_hardware" "4 0 0"
	after=$(xfiemap "$2")
	for i in 4 5 6 7; do
		p0=$(phys_at "$before" $((unit * i)))
		[ -n "$p0" ] && [ "$p0" = "$(phys_at "$after" $((unit * i)))" ] || moved=$((moved + 1))
	done
	check "$1.unit_in_place_fiemap" "$moved" "$moved of 4 units moved (or were not listed) by xfs_io"
}

# SW-CASE, MOVED-CASE: one atomic write of LEN at OFF into FILE reports software,
# and xfs_io lists its first block elsewhere afterwards (copy-on-write)
moved_write() {	# SW-CASE MOVED-CASE FILE OFF LEN
	local before p0
	before=$(xfiemap "$3")
	report_write "$3" "$4" "$5" "$5"
	check_paths "$1" "0 1 0"
	p0=$(phys_at "$before" "$4")
	[ -n "$p0" ] && [ "$p0" != "$(phys_at "$(xfiemap "$3")" "$4")" ]
	check "$2" $? "the $5 write at $4 stayed in place by xfs_io's listing"
}

# cached_after_atomic FILE: a 64 KiB file written and flushed, the cache dropped, then one RWF_ATOMIC
# O_DIRECT write of UNIT at UNIT (xfs_io, exit in rc); cached: how many of its pages mincore finds
cached_after_atomic() {
	xfs_io -f -c "pwrite -q 0 64k" -c fsync "$1" >/dev/null 2>&1
	sync
	echo 3 >/proc/sys/vm/drop_caches
	xfs_io -d -c "pwrite -q -A -V 1 -b $unit $unit $unit" "$1" >/tmp/fsview.xio 2>&1
	rc=$?
	cached=$(xfs_io -r -c "mmap -r 0 64k" -c "mincore 0 64k" "$1" 2>/dev/null |
		awk '/pages/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "pages") n += $i } END { print n + 0 }')
}

# mount_fs FS MKFS...: make and mount the filesystem, FS.mount
mount_fs() {
	local fs=$1
	shift
	if ! "$@" "$dev" >/tmp/fsview.mkfs 2>&1 || ! mount -t "$fs" "$dev" "$mnt" >>/tmp/fsview.mkfs 2>&1; then
		fail "$fs.mount" "$(head -n 3 /tmp/fsview.mkfs | tr '\n' ' ')"
		return 1
	fi
	pass "$fs.mount"
	at "$fs mounted"
}

# FS.probe_dir, FS.prepare (a new 8 MiB file of UNITs), then the unit writes
common_cases() {	# FS PROBE-TEXT [PROBE-CASE]
	out=$($AWR probe "$mnt" 2>&1)
	expect_text "$1.${3:-probe_dir}" "$2"
	$AWR prepare "$mnt/db" --size 8m --unit "$unit" >/tmp/fsview.out 2>&1
	check "$1.prepare" $? "$(cat /tmp/fsview.out)"
	at "$1 prepared"
}

CASES="xfs.mount xfs.probe_dir xfs.prepare xfs.prepare_aligned_fiemap xfs.prepare_hint xfs.unit_hardware
xfs.unit_in_place_fiemap xfs.big_software xfs.big_moved_fiemap xfs.misaligned_file xfs.misaligned_software
xfs.misaligned_extents xfs.misaligned_probe xfs.prepare_above_device xfs.prepare_holding_data xfs.bench_layout
xfs_oddag.mount xfs_oddag.statx_one_block xfs_oddag.probe_cap xfs_oddag.probe_hardware xfs_oddag.unit_hardware
xfs_oddag.unit_in_place_fiemap xfs_oddag.device_unit_refused ext4.mount
ext4.probe_dir ext4.prepare ext4.unit_hardware ext4.unit_in_place_fiemap ext4.big_refused ext4.prepare_above_fs
ext4.direct_uncached ext4_journal.mount ext4_journal.kernel_buffers ext4_journal.probe ext4_journal.write_refused"
# the page cache cases (ext4.direct_uncached, ext4 with data=journal) on the NVMe namespace only
# (the guests' time: the kernel's path is the same)
cache_cases=0
case "$dev" in /dev/nvme*) cache_cases=1 ;; esac
[ $cache_cases = 1 ] || CASES=$(echo $CASES | sed 's/ext4.direct_uncached ext4_journal[^ ]*//; s/ ext4_journal[.][a-z_]*//g')
[ "$mode" = software ] && CASES="xfs.mount xfs.probe_software_only xfs.prepare xfs.unit_software xfs.unit_moved_fiemap"
# XFS multi-block atomic writes (and their copy-on-write path) and ext4 bigalloc ones came in 6.16
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then
	for c in $CASES; do echo "SKIP $c: Linux $kv has no multi-block atomic writes on XFS or ext4 (6.16+)"; done
	exit 0
fi

at start
cleanup() { umount "$mnt" 2>/dev/null; }
# leave the disk as it was found: no filesystem signature
wipe() { dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null; }
modprobe xfs 2>/dev/null
modprobe ext4 2>/dev/null
trap cleanup EXIT
mkdir -p "$mnt"

# --- XFS over a device whose atomic unit_min is above the block: no hardware path
# (xfs_configure_buftarg_atomic_writes(), fs/xfs/xfs_buf.c, 6.16, drops such limits)
if [ "$mode" = software ]; then
	if mount_fs xfs mkfs.xfs -f -q; then
		common_cases xfs "served by copy-on-write only: the device's atomic unit does not cover the filesystem block" \
			probe_software_only
		moved_write xfs.unit_software xfs.unit_moved_fiemap "$mnt/db" $((unit * 4)) "$unit"
		umount "$mnt"
	fi
	at "xfs done"
	wipe
	exit 0
fi

# --- XFS
if mount_fs xfs mkfs.xfs -f -q; then
	common_cases xfs "fs_hardware_path: up to $(kib "$unit") in place"
	m=$(misaligned "$mnt/db" "$unit")
	[ "$(mapped "$mnt/db")" = 8388608 ] && [ "$m" = 0 ]
	check xfs.prepare_aligned_fiemap $? "xfs_io maps $(mapped "$mnt/db") bytes, $m extents not $unit-aligned"
	hint=$(xfs_io -c extsize "$mnt/db" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
	[ "$hint" = "$unit" ]; check xfs.prepare_hint $? "xfs_io extsize shows '$hint'"
	units_in_place xfs "$mnt/db"

	moved_write xfs.big_software xfs.big_moved_fiemap "$mnt/db" $((big * 4)) "$big"

	at "xfs unit writes done"
	# a file whose extents are physically misaligned: collapse its first block(s) away, which
	# shifts the file onto the device offsets one block further
	xfs_io -f -c "pwrite -q 0 $((unit * 9))" -c fsync "$mnt/mis"
	n=0
	p=$(phys_at "$(xfiemap "$mnt/mis")" 0)
	while [ -n "$p" ] && [ $((p % unit)) = 0 ] && [ $n -lt 3 ]; do
		n=$((n + 1))
		xfs_io -c "fcollapse 0 4k" -c fsync "$mnt/mis"
		p=$(phys_at "$(xfiemap "$mnt/mis")" 0)
	done
	if [ -z "$p" ] || [ $((p % unit)) = 0 ]; then
		fail xfs.misaligned_file "could not make a file whose first extent is misaligned (device byte $p)"
	else
		pass xfs.misaligned_file
		report_write "$mnt/mis" 0 "$unit" "$unit"
		check_paths xfs.misaligned_software "0 1 0"
		out=$($AWR extents "$mnt/mis" --unit "$unit" 2>&1)
		expect_text xfs.misaligned_extents "misaligned ranges:"
		out=$($AWR probe "$mnt/mis" 2>&1)
		case "$out" in *"fs_extents:"*"misaligned range"*) pass xfs.misaligned_probe ;;
		*) fail xfs.misaligned_probe "probe names no misaligned range: $out" ;; esac
	fi
	# XFS writes 4*UNIT atomically (copy-on-write), the device only UNIT: a hardware-path
	# file of 4*UNIT units cannot be made
	prepare_refused xfs.prepare_above_device "$mnt/new" "$big" \
		"is above what the device ${dev#/dev/} writes atomically ($(kib "$unit"))"
	prepare_refused xfs.prepare_holding_data "$mnt/mis" "$unit" "the file holds data"
	# awr bench lays a new file out for the hardware path (its atomic figures then measure it)
	out=$($AWR bench "$mnt/bench" --mode atomic --unit "$unit" --seconds 1 --size 4m 2>&1)
	rc=$?
	[ "$rc" = 0 ] && case "$out" in *"layout: prepared: 4 MiB of 4 MiB on $(kib "$unit")-aligned extents"*) true ;; *) false ;; esac &&
		case "$out" in *"atomic: 0 of "*" pages moved on the device (written in place)"*) true ;; *) false ;; esac
	check xfs.bench_layout $? "exit $rc: $(echo "$out" | grep -E 'layout|awr:|moved' | tr '\n' ' ')"
	umount "$mnt"
fi

at "xfs done"
# --- XFS with an odd AG size (24577 blocks, 96 MiB + 4 KiB: an AG must hold the 64 MiB log): over a
# device that writes atomically, XFS caps every
# atomic write at the largest power of two dividing the AG's block count (xfs_calc_group_awu_max(),
# fs/xfs/xfs_mount.c, 6.16+), here one block, so that an AG-aligned unit is device-aligned too.
# The kernel's statx says one block; probe names the AG size as the reason and calls a one-block
# write hardware (the device covers the block); it stays in place by xfs_io's listing; the
# device's own unit is refused (above statx unit_max).
if mkfs.xfs -f -q -d agsize=$((24577 * 4096)) "$dev" >/tmp/fsview.mkfs 2>&1 &&
   mount -t xfs "$dev" "$mnt" >>/tmp/fsview.mkfs 2>&1; then
	pass xfs_oddag.mount
	touch "$mnt/s"
	# shellcheck disable=SC2046
	set -- $(/awr/awr-vmtest statx "$mnt/s")
	[ "${2:-}" = 4096 ] && [ "${3:-}" = 4096 ]
	check xfs_oddag.statx_one_block $? "statx of a new file: unit_min/max ${2:-?}/${3:-?}, expected 4096/4096"
	out=$($AWR probe "$mnt/s" 2>&1)
	expect_text xfs_oddag.probe_cap "the allocation group size (24577 blocks) caps atomic writes at 4 KiB"
	expect_text xfs_oddag.probe_hardware "fs_hardware_path: up to 4 KiB in place"
	xfs_io -f -c "pwrite -q 0 1m" -c fsync "$mnt/f"
	before=$(xfiemap "$mnt/f")
	report_write "$mnt/f" 65536 4096 4096
	check_paths xfs_oddag.unit_hardware "1 0 0"
	p0=$(phys_at "$before" 65536)
	[ -n "$p0" ] && [ "$p0" = "$(phys_at "$(xfiemap "$mnt/f")" 65536)" ]
	check xfs_oddag.unit_in_place_fiemap $? "the one-block write at 64 KiB moved from device byte $p0 by xfs_io's listing"
	out=$($AWR write "$mnt/f" --offset 0 --length "$unit" --unit "$unit" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && case "$out" in *"refused before writing"*) true ;; *) false ;; esac
	check xfs_oddag.device_unit_refused $? "a $(kib "$unit") write: exit $rc: $out"
	umount "$mnt"
else
	fail xfs_oddag.mount "$(head -n 3 /tmp/fsview.mkfs | tr '\n' ' ')"
fi
at "xfs odd agsize done"
# --- ext4 with bigalloc, clusters of UNIT
if mount_fs ext4 mkfs.ext4 -q -F -b 4096 -O bigalloc -C "$unit"; then
	common_cases ext4 "ext4 bigalloc, clusters of $(kib "$unit")"
	units_in_place ext4 "$mnt/db"
	out=$($AWR write "$mnt/db" --offset 0 --length "$big" --unit "$big" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && case "$out" in *"refused before writing"*) true ;; *) false ;; esac
	check ext4.big_refused $? "exit $rc: $out"
	# ext4 has no software path: min(cluster, device unit_max)
	prepare_refused ext4.prepare_above_fs "$mnt/new" "$big" \
		"is above what ext4 writes atomically here ($(kib "$unit")"
	if [ $cache_cases = 1 ]; then
		cached_after_atomic "$mnt/c"
		[ "$cached" = 0 ]
		check ext4.direct_uncached $? "after an RWF_ATOMIC O_DIRECT write (xfs_io pwrite -A, exit $rc) $cached of its pages are in the page cache (mincore)"
		echo "INFO ext4.direct_uncached: xfs_io pwrite -A exit $rc, $cached pages cached after it"
	fi
	umount "$mnt"
fi
at "ext4 done"
# --- ext4 bigalloc with data=journal: ext4_dio_alignment() is 0, statx's STATX_DIOALIGN says no direct
# I/O, and ext4_dio_write_iter() sends O_DIRECT writes, RWF_ATOMIC ones too, through the page cache:
# the kernel takes the atomic write (exit 0) and leaves its pages cached (mincore), while statx still
# reports atomic writes. awr says none is atomic and refuses to write.
if [ $cache_cases = 0 ]; then :
elif mkfs.ext4 -q -F -b 4096 -O bigalloc -C "$unit" "$dev" >/tmp/fsview.mkfs 2>&1 &&
   mount -t ext4 -o data=journal "$dev" "$mnt" >>/tmp/fsview.mkfs 2>&1; then
	pass ext4_journal.mount
	cached_after_atomic "$mnt/c"
	[ "$rc" = 0 ] && [ "$cached" -gt 0 ]
	check ext4_journal.kernel_buffers $? "xfs_io pwrite -A (O_DIRECT) exit $rc, $cached of its pages in the page cache (mincore): $(head -c 300 /tmp/fsview.xio)"
	echo "INFO ext4_journal.kernel_buffers: xfs_io pwrite -A exit $rc, $cached pages cached after it; statx: $(/awr/awr-vmtest statx "$mnt/c")"
	out=$($AWR probe "$mnt/c" 2>&1)
	expect_text ext4_journal.probe "no_direct_io"
	out=$($AWR write "$mnt/c" --offset 0 --length "$unit" --unit "$unit" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && case "$out" in *"refused before writing"*) true ;; *) false ;; esac
	check ext4_journal.write_refused $? "awr write: exit $rc: $out"
	umount "$mnt"
else
	fail ext4_journal.mount "$(head -n 3 /tmp/fsview.mkfs | tr '\n' ' ')"
fi
at "ext4 data=journal done"
wipe
