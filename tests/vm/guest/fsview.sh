#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: which path atomic writes take on a filesystem over a device with
# hardware atomics, told by awr and checked against xfs_io's FIEMAP listing:
#   fsview.sh DEV UNIT   (DEV: a whole disk of at least 300 MB, UNIT: its atomic unit_max)
# XFS: after awr prepare, aligned UNIT writes report hardware and stay in place,
# 4*UNIT writes report software and move; a file with physically misaligned
# extents reports software and awr extents / probe name its misaligned ranges.
# ext4 bigalloc (clusters of UNIT): UNIT writes hardware in place, 4*UNIT refused.
# Prints PASS/FAIL/SKIP NAME lines. Leaves DEV unmounted.
dev=$1 unit=$2
AWR=${AWR:-/awr/awr}
mnt=/mnt/fsview
big=$((unit * 4))

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
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

CASES="xfs.mount xfs.probe_dir xfs.prepare xfs.prepare_aligned_fiemap xfs.prepare_hint xfs.unit_hardware
xfs.unit_in_place_fiemap xfs.big_software xfs.big_moved_fiemap xfs.misaligned_file xfs.misaligned_software
xfs.misaligned_extents xfs.misaligned_probe ext4.mount ext4.probe_dir ext4.prepare ext4.unit_hardware
ext4.unit_in_place_fiemap ext4.big_refused"
# XFS multi-block atomic writes (and their copy-on-write path) and ext4 bigalloc ones came in 6.16
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then
	for c in $CASES; do echo "SKIP $c: Linux $kv has no multi-block atomic writes on XFS or ext4 (6.16+)"; done
	exit 0
fi

cleanup() { umount "$mnt" 2>/dev/null; }
modprobe xfs 2>/dev/null
modprobe ext4 2>/dev/null
trap cleanup EXIT
mkdir -p "$mnt"

# --- XFS
if ! mkfs.xfs -f -q "$dev" >/tmp/fsview.mkfs 2>&1 || ! mount -t xfs "$dev" "$mnt" >>/tmp/fsview.mkfs 2>&1; then
	fail xfs.mount "$(head -n 3 /tmp/fsview.mkfs | tr '\n' ' ')"
else
	pass xfs.mount
	out=$($AWR probe "$mnt" 2>&1)
	case "$out" in *"fs_hardware_path: up to $((unit / 1024)) KiB in place"*) pass xfs.probe_dir ;;
	*) fail xfs.probe_dir "probe of the directory does not name the hardware path up to $unit: $out" ;; esac

	$AWR prepare "$mnt/db" --size 8m --unit "$unit" >/tmp/fsview.out 2>&1
	check xfs.prepare $? "$(cat /tmp/fsview.out)"
	m=$(misaligned "$mnt/db" "$unit")
	[ "$(mapped "$mnt/db")" = 8388608 ] && [ "$m" = 0 ]
	check xfs.prepare_aligned_fiemap $? "xfs_io maps $(mapped "$mnt/db") bytes, $m extents not $unit-aligned"
	hint=$(xfs_io -c extsize "$mnt/db" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
	[ "$hint" = "$unit" ]; check xfs.prepare_hint $? "xfs_io extsize shows '$hint'"

	before=$(xfiemap "$mnt/db")
	report_write "$mnt/db" $((unit * 4)) $((unit * 4)) "$unit"
	[ "$rc" = 0 ] && [ "$paths" = "4 0 0" ]; check xfs.unit_hardware $? "exit $rc, paths '$paths': $out"
	after=$(xfiemap "$mnt/db")
	moved=0
	for i in 4 5 6 7; do
		p0=$(phys_at "$before" $((unit * i)))
		[ -n "$p0" ] && [ "$p0" = "$(phys_at "$after" $((unit * i)))" ] || moved=$((moved + 1))
	done
	check xfs.unit_in_place_fiemap "$moved" "$moved of 4 units moved by xfs_io's listing"

	before=$after
	report_write "$mnt/db" $((big * 4)) "$big" "$big"
	[ "$rc" = 0 ] && [ "$paths" = "0 1 0" ]; check xfs.big_software $? "exit $rc, paths '$paths': $out"
	after=$(xfiemap "$mnt/db")
	p0=$(phys_at "$before" $((big * 4)))
	[ -n "$p0" ] && [ "$p0" != "$(phys_at "$after" $((big * 4)))" ]
	check xfs.big_moved_fiemap $? "the $big write at $((big * 4)) stayed in place by xfs_io's listing"

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
		[ "$rc" = 0 ] && [ "$paths" = "0 1 0" ]; check xfs.misaligned_software $? "exit $rc, paths '$paths': $out"
		out=$($AWR extents "$mnt/mis" --unit "$unit" 2>&1)
		case "$out" in *"misaligned ranges:"*) pass xfs.misaligned_extents ;;
		*) fail xfs.misaligned_extents "awr extents names no misaligned range: $out" ;; esac
		out=$($AWR probe "$mnt/mis" 2>&1)
		case "$out" in *"fs_extents:"*"misaligned range"*) pass xfs.misaligned_probe ;;
		*) fail xfs.misaligned_probe "probe names no misaligned range: $out" ;; esac
	fi
	umount "$mnt"
fi

# --- ext4 with bigalloc, clusters of UNIT
if ! mkfs.ext4 -q -F -b 4096 -O bigalloc -C "$unit" "$dev" >/tmp/fsview.mkfs 2>&1 ||
   ! mount -t ext4 "$dev" "$mnt" >>/tmp/fsview.mkfs 2>&1; then
	fail ext4.mount "$(head -n 3 /tmp/fsview.mkfs | tr '\n' ' ')"
else
	pass ext4.mount
	out=$($AWR probe "$mnt" 2>&1)
	case "$out" in *"ext4 bigalloc, clusters of $((unit / 1024)) KiB"*) pass ext4.probe_dir ;;
	*) fail ext4.probe_dir "probe does not name the bigalloc clusters: $out" ;; esac
	$AWR prepare "$mnt/db" --size 8m --unit "$unit" >/tmp/fsview.out 2>&1
	check ext4.prepare $? "$(cat /tmp/fsview.out)"
	before=$(xfiemap "$mnt/db")
	report_write "$mnt/db" $((unit * 4)) $((unit * 4)) "$unit"
	[ "$rc" = 0 ] && [ "$paths" = "4 0 0" ]; check ext4.unit_hardware $? "exit $rc, paths '$paths': $out"
	# the units' blocks stay where they were (a written part splits an unwritten extent in two)
	after=$(xfiemap "$mnt/db")
	moved=0
	for i in 4 5 6 7; do
		p0=$(phys_at "$before" $((unit * i)))
		[ -n "$p0" ] && [ "$p0" = "$(phys_at "$after" $((unit * i)))" ] || moved=$((moved + 1))
	done
	check ext4.unit_in_place_fiemap "$moved" "$moved of 4 units moved (or were not listed) by xfs_io"
	out=$($AWR write "$mnt/db" --offset 0 --length "$big" --unit "$big" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && case "$out" in *"refused before writing"*) true ;; *) false ;; esac
	check ext4.big_refused $? "exit $rc: $out"
	umount "$mnt"
fi
# leave the namespace as it was found: no filesystem signature
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
