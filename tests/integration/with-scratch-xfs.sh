#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: run a test command against a scratch XFS filesystem on a loop device.
#
#   with-scratch-xfs.sh [--size 1G] [--mount-opts OPTS] CMD [ARGS...]
#
# Creates an image, a loop device and a mount, runs CMD with
#   AWR_SCRATCH_DIR  the mount point
#   AWR_SCRATCH_DEV  the loop device
#   AWR_SCRATCH_IMG  the image file
# and removes all three on any exit (trap), passing CMD's exit status on.
# Exit 77 (skip) with a reason when not root or no loop device or mkfs.xfs.
set -u

size=1G
mount_opts=
while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift 2 ;;
	--mount-opts) mount_opts=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--size S] [--mount-opts O] CMD [ARGS...]" >&2; exit 2; }

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for loop devices and mounts"
command -v mkfs.xfs >/dev/null || skip "mkfs.xfs not installed (xfsprogs)"
command -v losetup >/dev/null || skip "losetup not installed"

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-xfs.XXXXXX") || exit 2
img=$work/xfs.img
mnt=$work/mnt
dev=

# Is $1 a mount point? By /proc/self/mounts (which escapes blanks, tabs, newlines and backslashes as
# octal), not by `mountpoint`, which stats the directory: that fails (EIO) on a shut-down filesystem.
mounted() {
	local esc=${1//\\/\\134}
	esc=${esc// /\\040}
	esc=${esc//$'\t'/\\011}
	esc=${esc//$'\n'/\\012}
	M=$esc awk '$2 == ENVIRON["M"] { found = 1 } END { exit !found }' /proc/self/mounts
}

cleanup() {
	# every mount stacked on $mnt, also a filesystem that a crash test left shut down
	local n=0
	while mounted "$mnt" && [ $((n += 1)) -le 10 ]; do
		umount "$mnt" 2>/dev/null || umount -l "$mnt"
	done
	exec 9<&-
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	if mounted "$mnt"; then
		echo "with-scratch-xfs: $mnt is still mounted: $work left in place" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$mnt"
truncate -s "$size" "$img" || exit 2
mkfs.xfs -f -q "$img" || { echo "mkfs.xfs failed" >&2; exit 2; }
dev=$(losetup -f --show "$img") || skip "no free loop device"
# Hold the device open until the end: a test that unmounts and mounts it again (crash tests) then
# keeps its own device even if another program asks to detach it (the detach waits for our close).
exec 9<"$dev" || exit 2
mount ${mount_opts:+-o "$mount_opts"} "$dev" "$mnt" || { echo "mount $dev failed" >&2; exit 2; }

export AWR_SCRATCH_DIR=$mnt AWR_SCRATCH_DEV=$dev AWR_SCRATCH_IMG=$img
"$@"
