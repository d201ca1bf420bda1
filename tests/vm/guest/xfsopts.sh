#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: XFS's mount option max_atomic_write= on this kernel against the rules table awr
# carries (awr version -o json: xfs_max_atomic_write, 6.16, xfs_set_max_atomic_write_opt();
# xfs_max_atomic_write_reflink, 6.17, its refusal above one block without reflink), over a device
# that writes UNIT atomically:
#   xfsopts.sh DEV UNIT   (DEV: a whole disk of at least 300 MB)
# Cases: a reflink XFS mounts with max_atomic_write=4*UNIT exactly where the table says the option
# exists; there statx's unit_max of a new file is that size and awr probe's fs view reads the option
# and the software maximum as statx does; 3*UNIT (not a power of two) is refused on every kernel; an
# XFS without reflink refuses 4*UNIT where the table says so (or where the option does not exist)
# and takes one block where the option exists (the device writes a block atomically).
# Prints PASS/FAIL NAME lines. Leaves DEV without a filesystem signature.
dev=$1 unit=$2
AWR=${AWR:-/awr/awr}
T=${AWRVM:-/awr/awr-vmtest}
mnt=/mnt/xo
big=$((unit * 4))

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $(echo "$2" | tr '\n' ' ')"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
# applies RULE: "true" or "false", as awr version -o json says for this kernel
applies() {
	$AWR version -o json | awk -v r="\"$1\": {" 'index($0, r) { f = 1; next } f && /"applies"/ { sub(/.*: /, ""); sub(/,$/, ""); print; exit }'
}
# try_mount NAME WANT MKFS-OPTS MOUNT-OPTS: mounted (WANT yes) or refused (WANT no), as the table says
try_mount() {
	umount "$mnt" 2>/dev/null
	# shellcheck disable=SC2086
	mkfs.xfs -f -q $3 "$dev" >/tmp/xo.mkfs 2>&1 || { fail "$1" "mkfs.xfs $3: $(head -n 2 /tmp/xo.mkfs)"; return 1; }
	if mount -t xfs -o "$4" "$dev" "$mnt" >/tmp/xo.mount 2>&1; then got=yes; else got=no; fi
	[ "$got" = "$2" ]
	check "$1" $? "mount -o $4 (mkfs.xfs $3): mounted $got, the rules table says $2 on $(uname -r): $(cat /tmp/xo.mount) $(dmesg | grep -i 'xfs.*atomic' | tail -n 1)"
	[ "$got" = yes ]
}
modprobe crc32c_generic 2>/dev/null	# 6.12: XFS asks the crypto API for crc32c
modprobe xfs 2>/dev/null
mkdir -p "$mnt"
trap 'umount "$mnt" 2>/dev/null' EXIT
maw=$(applies xfs_max_atomic_write)
maw_reflink=$(applies xfs_max_atomic_write_reflink)
[ "$maw" = true ] || [ "$maw" = false ] || { fail maw_option "awr version -o json names no rule xfs_max_atomic_write"; exit 1; }
echo "INFO xfsopts: kernel $(uname -r): xfs_max_atomic_write $maw, xfs_max_atomic_write_reflink $maw_reflink"
want=no; [ "$maw" = true ] && want=yes
if try_mount maw_option $want "-m reflink=1" "max_atomic_write=$((big / 1024))k"; then
	touch "$mnt/f"
	# shellcheck disable=SC2046
	set -- $($T statx "$mnt/f")
	[ "${3:-}" = "$big" ]
	check maw_statx $? "statx unit_min/max ${2:-?}/${3:-?} of a new file, expected unit_max $big"
	j=$($AWR probe "$mnt/f" -o json)
	o=$(echo "$j" | sed -n 's/.*"max_atomic_write": \([0-9]*\).*/\1/p' | head -n 1)
	s=$(echo "$j" | sed -n 's/.*"software_max": \([0-9]*\).*/\1/p' | head -n 1)
	[ "$o" = "$big" ] && [ "$s" = "${3:-}" ]
	check maw_probe $? "awr probe: max_atomic_write '$o', software_max '$s'; statx unit_max ${3:-?}"
fi
try_mount maw_not_pow2 no "-m reflink=1" "max_atomic_write=$((unit * 3 / 1024))k"
want=yes; { [ "$maw" = false ] || [ "$maw_reflink" = true ]; } && want=no
try_mount maw_no_reflink $want "-m reflink=0" "max_atomic_write=$((big / 1024))k"
want=no; [ "$maw" = true ] && want=yes
try_mount maw_no_reflink_block $want "-m reflink=0" "max_atomic_write=4k"
umount "$mnt" 2>/dev/null
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
exit 0
