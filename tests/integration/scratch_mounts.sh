# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the crash tests run under with-scratch-xfs.sh: the mounts of the scratch device and
# a remount after a shutdown that checks it mounts our own image again.
#   scratch_hold DEV        hold DEV open on fd 8 and remember its backing file (before any shutdown)
#   mounts_of_dev DEV       its mount points, from /proc/self/mountinfo (never by stat: a shut-down
#                           XFS gives EIO)
#   other_ns_mounts DEV     its mounts in other mount namespaces ("pid N: PATH")
#   holders_of DIR          the processes with their working directory or a file below DIR
#   scratch_remount DEV DIR unmount a (shut-down) DIR and mount DEV there again (log recovery);
#                           prints why and returns 1 when that is not safe or fails

# Hold the loop device open while the filesystem is unmounted, so that it stays attached to our
# image even if another program asks to detach it; checked before each mount.
scratch_hold() {
	exec 8<"$1" || return 1
	scratch_backing=$(cat "/sys/block/${1##*/}/loop/backing_file" 2>/dev/null)
}

mounts_of_dev() {
	local mm
	mm=$(printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")")
	awk -v mm="$mm" '$3 == mm { print $5 }' /proc/self/mountinfo
}

# A program that made a mount namespace (unshare -m) while the filesystem was mounted holds a copy,
# which keeps the shut-down filesystem alive after our umount; mounting again would then give back
# the shut-down filesystem instead of recovering the log.
other_ns_mounts() {
	local self p ns mm
	mm=$(printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")")
	self=$(stat -L -c %i /proc/self/ns/mnt)
	for p in /proc/[0-9]*; do
		ns=$(stat -L -c %i "$p/ns/mnt" 2>/dev/null) || continue
		[ "$ns" = "$self" ] && continue
		awk -v mm="$mm" -v pid="${p#/proc/}" '$3 == mm { print "pid " pid ": " $5 }' "$p/mountinfo" 2>/dev/null
	done
}

# holders_of DIR: the processes whose working directory or an open file lies below DIR (read from
# the /proc links' text: nothing below a shut-down DIR is stat'ed)
holders_of() {
	local p l
	for p in /proc/[0-9]*; do
		for l in "$p/cwd" "$p"/fd/*; do
			case "$(readlink "$l" 2>/dev/null)" in "$1"|"$1"/*) echo -n " ${p#/proc/} ($(cat "$p/comm" 2>/dev/null))"; break ;; esac
		done
	done
}

scratch_remount() {
	local dev=$1 dir=$2 others w
	# a killed program's io_uring drops its files in the kernel's own time after the exit
	# (io_ring_exit_work), and a child of it (MariaDB starts addr2line when it dies of an I/O
	# error) may still sit in the directory: try for up to 5 s, then say who holds it
	for ((w = 0; w < 50; w++)); do
		umount "$dir" 2>/dev/null && break
		sleep 0.1
	done
	[ "$w" -lt 50 ] || { echo "umount failed for 5 s (target busy; held by:$(holders_of "$dir"))"; return 1; }
	[ -z "$(mounts_of_dev "$dev")" ] || { echo "$dev is still mounted: $(mounts_of_dev "$dev")"; return 1; }
	for ((w = 0; w < 100; w++)); do
		others=$(other_ns_mounts "$dev")
		[ -z "$others" ] && break
		sleep 0.1
	done
	[ -z "$others" ] || { echo "$dev is still mounted in another mount namespace for 10 s: $others"; return 1; }
	[ "$(cat "/sys/block/${dev##*/}/loop/backing_file" 2>/dev/null)" = "$scratch_backing" ] ||
		{ echo "$dev no longer holds $scratch_backing (detached by another program?): not mounting it"; return 1; }
	mount "$dev" "$dir" || { echo "mount (log recovery) failed"; return 1; }
	stat "$dir" >/dev/null || { echo "the filesystem mounted again is still shut down"; return 1; }
}
