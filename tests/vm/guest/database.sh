#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: awr database on an InnoDB data directory made by Debian's MariaDB on the host
# (mariadb-install-db, 16 KiB pages; /awr/mydb, its files cut to 1 MiB: only page 0 and the
# extents are read), placed on a device with hardware atomic writes of UNIT:
#   database.sh DEV UNIT   (DEV: a whole NVMe disk of at least 300 MB, atomic unit_max UNIT = 16 KiB)
# XFS (files made by awr prepare: aligned extents) and ext4 bigalloc 16 KiB: device-implicit for
# the engine's plain O_DIRECT page writes (NVMe: they reach the device whole within its unit),
# and guaranteed with its page writes RWF_ATOMIC where the filesystem takes 16 KiB atomic
# writes (6.16+), not safe where it does not. Negative controls, each not safe with the reason
# named: XFS without a stripe unit of the page (the extents a growing file gets are placed at any
# block), ext4 bigalloc on a partition whose start is not a multiple of the page (awr-vmtest mbr's
# second partition), and on dm-linear 4 KiB into the disk; the partition at 1 MiB is the control.
# Prints PASS/FAIL/SKIP NAME lines; leaves DEV without a table or a filesystem signature.
dev=$1 unit=$2
AWR=${AWR:-/awr/awr}
T=${AWRVM:-/awr/awr-vmtest}
src=/awr/mydb
mnt=/mnt/db

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
multi=1	# XFS and ext4 take multi-block atomic writes (16 KiB) from 6.16
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then multi=0; fi

CASES="xfs_implicit xfs_guaranteed ext4_implicit ext4_guaranteed part_aligned part_misaligned dm_misaligned"
[ "$maj" -ge 7 ] && CASES="$CASES xfs_misaligned_file xfs_stripe_unit xfs_no_stripe_unit"
if [ ! -f "$src/ibdata1" ]; then
	for c in $CASES; do echo "SKIP $c: no InnoDB directory in the guest (run.sh makes it with the host's mariadb-install-db: package mariadb-server)"; done
	exit 0
fi
t0=$(date +%s)
cleanup() { umount "$mnt" 2>/dev/null; dmsetup remove awrdb 2>/dev/null; }
trap cleanup EXIT
modprobe crc32c_generic 2>/dev/null	# 6.12: XFS and ext4 ask the crypto API for crc32c
modprobe xfs 2>/dev/null
modprobe ext4 2>/dev/null
modprobe dm-mod 2>/dev/null
mkdir -p "$mnt"

# place FSTYPE BDEV: a fresh filesystem on BDEV with the directory's files copied in (on XFS
# into files made by awr prepare, so that every extent is aligned to the unit on the device)
place() {
	# XFS: the directory's extent size hint (inherited) aligns what awr prepare does not make
	# (before 6.16); mkfs.xfs makes no XFS below 300 MB, so the partitions get ext4. XFS with a
	# stripe unit of the page (new extents aligned where space allows), or (xfs-nosu) without
	case "$1" in
	xfs) mkfs.xfs -f -q -d su=$unit,sw=1,agcount=4 "$2" ;;
	xfs-nosu) mkfs.xfs -f -q "$2" ;;
	ext4) mkfs.ext4 -F -q -b 4096 -C 16384 -O bigalloc "$2" ;;
	esac >/tmp/db.mkfs 2>&1 || return 1
	mount -t "${1%-nosu}" "$2" "$mnt" >>/tmp/db.mkfs 2>&1 || { dmesg | tail -n 3 >>/tmp/db.mkfs; return 1; }
	mkdir -p "$mnt/db"
	[ "$1" != ext4 ] && xfs_io -c "extsize $unit" "$mnt/db"
	(cd "$src" && find . -type d) | while read -r d; do mkdir -p "$mnt/db/$d"; done
	(cd "$src" && find . -type f) | while read -r f; do
		if [ "$1" != ext4 ] && $AWR prepare "$mnt/db/$f" --size "$(stat -c %s "$src/$f")" --unit "$unit" >/dev/null 2>&1; then
			dd if="$src/$f" of="$mnt/db/$f" bs=1M conv=notrunc 2>/dev/null
		else
			cp "$src/$f" "$mnt/db/$f"
		fi
	done
	sync
}
# verdict CASE WANT [--atomic-writes] [REASON]: awr database's verdict (and a reason that must be named)
verdict() {
	c=$1 want=$2 flag=$3 why=$4
	$AWR database "$mnt/db" --for innodb $flag >/tmp/db.out 2>&1
	rc=$?
	got=$(sed -n 's/^verdict: //p' /tmp/db.out)
	[ "$got" = "$want" ] && { [ -z "$why" ] || grep -q -- "$why" /tmp/db.out; }
	check "$c" $? "verdict '$got' (exit $rc), expected '$want'${why:+ naming '$why'}: $(tr '\n' ' ' </tmp/db.out | cut -c1-900)"
}

for fs in xfs ext4; do
	if ! place $fs "$dev"; then
		fail ${fs}_implicit "no $fs on $dev: $(head -n 6 /tmp/db.mkfs | tr '\n' ' ')"
		[ $fs = xfs ] && [ "$maj" -ge 7 ] && { fail xfs_stripe_unit "no xfs on $dev"; fail xfs_misaligned_file "no xfs on $dev"; }
		fail ${fs}_guaranteed "no $fs on $dev"
		umount "$mnt" 2>/dev/null
		continue
	fi
	verdict ${fs}_implicit device-implicit "" "writes 16384-byte pages atomically"
	if [ $fs = xfs ] && [ "$maj" -ge 7 ]; then	# (7.x only: the rule is the kernel's anywhere)
		# one tablespace moved 4 KiB off the unit on the device: 4 KiB written before its content,
		# then collapsed away (the content keeps its file offsets, its blocks start one block late)
		f=$mnt/db/mysql/innodb_index_stats.ibd
		{ dd if=/dev/zero bs=4096 count=1 2>/dev/null; cat "$f"; } >/tmp/db.ibd
		rm -f "$f"
		xfs_io -f -c "extsize 0" -c "pwrite -q -i /tmp/db.ibd 0 $(stat -c %s /tmp/db.ibd)" -c fsync -c "fcollapse 0 4k" -c fsync "$f" 2>/tmp/db.xio
		phys=$(xfs_io -c "fiemap -v" "$f" | awk '$1 ~ /^0:/ { split($3, a, "[.]"); print a[1] * 512; exit }')
		if [ -n "$phys" ] && [ $((phys % unit)) != 0 ]; then
			verdict xfs_misaligned_file "not safe" "" "innodb_index_stats.ibd: .* mapped bytes are not in whole 16384-byte pages aligned on the device"
		else
			fail xfs_misaligned_file "could not place the file 4 KiB off the unit (device byte '$phys'): $(cat /tmp/db.xio)"
		fi
		rm -f /tmp/db.ibd
		umount "$mnt"; place $fs "$dev" || fail xfs_stripe_unit "no xfs on $dev the second time"
		# the stripe unit awr reads against xfs_io's geometry (blocks of bsize)
		su=$(xfs_io -c statfs "$mnt" | awk -F' = ' '$1 == "geom.sunit" { s = $2 } $1 == "geom.bsize" { b = $2 } END { print s * b }')
		g=$($AWR database "$mnt/db" --for innodb -o json | sed -n 's/.*"grow_align": \([0-9a-z]*\).*/\1/p' | sort -u | tr '\n' ' ')
		[ "$su" = "$unit" ] && [ "$g" = "$su " ]
		check xfs_stripe_unit $? "xfs_io statfs: stripe unit $su bytes; awr database's grow_align: $g"
	fi
	# on the hardware path turning the buffer off pays: the advice says so
	if [ $multi = 1 ]; then verdict ${fs}_guaranteed guaranteed --atomic-writes "advice: Turn the doublewrite buffer off"
	else verdict ${fs}_guaranteed "not safe" --atomic-writes "statx: "; fi
	cat /tmp/db.out
	umount "$mnt"
done
# XFS without a stripe unit: the files are aligned today (awr prepare), but the extents they get
# as they grow start at any block (mariadb.sh saw InnoDB grow a file half misaligned): not safe
# (7.x only, as the two XFS cases above)
if [ "$maj" -lt 7 ]; then :
elif place xfs-nosu "$dev"; then
	verdict xfs_no_stripe_unit "not safe" "" "xfs places the extents a growing file gets at any 4096-byte block (no stripe unit).*mkfs.xfs -d su=16384,sw=1 keeps them"
	cat /tmp/db.out
	umount "$mnt"
else
	fail xfs_no_stripe_unit "no xfs on $dev: $(head -n 6 /tmp/db.mkfs | tr '\n' ' ')"
fi

misaligned="the data starts at an offset that is a multiple of 4096 bytes only\|writes nothing atomically itself"
# the partitions of awr-vmtest mbr: the first at 1 MiB, the second one block past a MiB
case "$dev" in *[0-9]) p=${dev}p ;; *) p=$dev ;; esac
if $T mbr "$dev" >/tmp/db.mbr 2>&1 && sleep 1 && [ -b "${p}1" ] && [ -b "${p}2" ]; then
	place ext4 "${p}1" && verdict part_aligned device-implicit || fail part_aligned "no ext4 on ${p}1: $(head -n 5 /tmp/db.mkfs)"
	umount "$mnt" 2>/dev/null
	# the block layer turns a misaligned partition's atomics off, or awr names the offset
	place ext4 "${p}2" && verdict part_misaligned "not safe" "" "$misaligned" ||
		fail part_misaligned "no ext4 on ${p}2: $(head -n 5 /tmp/db.mkfs)"
	cat /tmp/db.out
	umount "$mnt" 2>/dev/null
	dd if=/dev/zero of="$dev" bs=4096 count=1 conv=fsync 2>/dev/null
	blockdev --rereadpt "$dev" 2>/dev/null
else
	fail part_aligned "awr-vmtest mbr: $(cat /tmp/db.mbr)"
	fail part_misaligned "no partitions"
fi

# dm-linear 4 KiB (8 sectors) into the disk
sectors=$(blockdev --getsz "$dev")
if echo "0 $((sectors - 8)) linear $dev 8" | dmsetup create awrdb 2>/tmp/db.dm && place ext4 /dev/mapper/awrdb; then
	verdict dm_misaligned "not safe" "" "$misaligned"
	cat /tmp/db.out
	umount "$mnt"
else
	fail dm_misaligned "dm-linear at 8 sectors: $(cat /tmp/db.dm /tmp/db.mkfs 2>/dev/null | head -n 3 | tr '\n' ' ')"
fi
dmsetup remove awrdb 2>/dev/null
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
echo "database.sh: $(( $(date +%s) - t0 )) s"
exit 0
