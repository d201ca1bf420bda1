#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: a loop device detached mid-run, and its backing store failing mid-run, during awr
# stress and awr write on an XFS on that loop device.
#
# What Linux does (drivers/block/loop.c, 6.18): `losetup -d` (LOOP_CLR_FD) on a device that is open
# (here: mounted) does not detach it; loop_clr_fd() sets LO_FLAGS_AUTOCLEAR and lo_release() detaches
# it at the last close. So the run must go on unharmed, sysfs loop/autoclear reads 1, and the device
# is gone once the filesystem is unmounted. What really makes such a device fail is its backing file
# failing: the XFS holding the image is shut down (xfs_io -x -c shutdown, no log flush), the loop
# device's reads and writes end in EIO, and so do the atomic writes on the XFS above it.
# Expected: awr exits 1 naming EIO and the offset, within the hang detector's 120 s (not a
# performance figure); after both filesystems are mounted again (log recovery) the stress journal
# verifies (no torn, corrupt or misplaced unit, no acknowledged write lost) and every unit awr write
# reported before the failed one (--dsync) holds its data.
# Negative control: a unit made torn by hand (halves of two writes) on the recovered filesystem must be found.
#
#   with-scratch-xfs.sh faults_loop.sh AWR
set -u
awr=$1
outer=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
outer_dev=${AWR_SCRATCH_DEV:?}
j=$(mktemp -d "${TMPDIR:-/tmp}/awr-loop.XXXXXX") || exit 2	# journal, input and the inner mount
inner=$j/mnt
lb=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts; }
cleanup() {
	mounted "$inner" && { umount "$inner" 2>/dev/null || umount -l "$inner"; }
	[ -n "$lb" ] && losetup -d "$lb" 2>/dev/null
	rm -rf "$j"
}
trap cleanup EXIT
command -v xfs_io >/dev/null || { echo "SKIP: xfs_io not installed (xfsprogs)"; exit 77; }
U=16384

# attach: the inner XFS on a loop device over $outer/inner.img, mounted at $inner
attach() {
	lb=$(losetup -f --show "$outer/inner.img") || return 1
	mount "$lb" "$inner"
}
# recover: both filesystems mounted again (log recovery), the inner one at $inner
recover() {
	mounted "$inner" && umount "$inner"
	[ -n "$lb" ] && [ -e "/sys/block/${lb#/dev/}/loop/backing_file" ] && losetup -d "$lb"
	lb=
	umount "$outer" && mount "$outer_dev" "$outer" && attach
}
# wait_end PID NAME: the exit status of PID, or 124 after 120 s (the hang detector)
wait_end() {
	for _ in $(seq 1200); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	fail "$2: no exit 120 s after the fault (a hang)"
	kill -KILL "$1"
	wait "$1"
	return 124
}
# wait_size FILE BYTES: until FILE holds BYTES (the run is writing)
wait_size() {
	for _ in $(seq 300); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

mkdir -p "$inner"
truncate -s 300M "$outer/inner.img"
mkfs.xfs -q "$outer/inner.img" || exit 2
attach || { echo "FAIL: cannot attach and mount the inner XFS"; exit 1; }

# --- stress: losetup -d (deferred), then the backing filesystem shut down ------------------------------
"$awr" stress "$inner/t" --unit 16k --size 8M --threads 4 --seconds 3600 --journal "$j/journal" -o json \
	>"$j/stress.json" 2>"$j/stress.err" &
pid=$!
wait_size "$j/journal" 4800 || fail "stress wrote no journal in 30 s"
name=${lb#/dev/}
losetup -d "$lb" || fail "losetup -d $lb failed"
sleep 1
ac=$(cat "/sys/block/$name/loop/autoclear" 2>/dev/null)
echo "losetup -d $lb while mounted: sysfs loop/autoclear $ac, backing file $(cat "/sys/block/$name/loop/backing_file" 2>/dev/null)"
[ "$ac" = 1 ] || fail "after losetup -d: autoclear '$ac', expected 1 (detach at the last close)"
kill -0 "$pid" 2>/dev/null || fail "stress ended after losetup -d alone: $(cat "$j/stress.err")"
before=$(stat -c %s "$j/journal")
sleep 1
[ "$(stat -c %s "$j/journal")" -gt "$before" ] || fail "stress stopped writing after losetup -d"
xfs_io -x -c shutdown "$outer" || fail "cannot shut down the backing filesystem"
wait_end "$pid" stress
rc=$?
read -r err eoff writes < <(json "$j/stress.json" "d['error'], d['error_offset'], d['writes']") ||
	fail "stress: the report is not JSON: $(cat "$j/stress.err")"
echo "stress: exit $rc after the backing filesystem's shutdown: error $err at offset $eoff after $writes writes"
[ "$rc" = 1 ] || fail "stress: exit $rc, expected 1"
[ "$err" = EIO ] || fail "stress: error $err, expected EIO"
[ "$eoff" != None ] && [ $((eoff % U)) = 0 ] || fail "stress: no unit offset named ($eoff)"
umount "$inner" || fail "the inner XFS cannot be unmounted"
if [ -e "/sys/block/$name/loop/backing_file" ]; then
	fail "$lb still bound after its last close"
else
	echo "$lb detached at its last close (the unmount)"
	lb=
fi
recover || { echo "FAIL: the filesystems cannot be mounted again"; exit 1; }
"$awr" verify "$inner/t" --unit 16k --journal "$j/journal" -o json >"$j/verify.json" 2>&1
vrc=$?
[ "$vrc" = 0 ] || fail "stress: verify exited $vrc: $(head -c 400 "$j/verify.json")"
read -r torn corrupt misplaced lost acked < <(json "$j/verify.json" \
	"d['counts']['torn'], d['counts']['corrupt'], d['counts']['misplaced'], d['lost'], d['acked_writes']" | tr -d '(),')
echo "stress: verify after recovery: torn $torn, corrupt $corrupt, misplaced $misplaced, lost $lost, acknowledged $acked"
[ "$torn $corrupt $misplaced $lost" = "0 0 0 0" ] || fail "stress: verify found damage"
[ "$acked" -gt 0 ] && [ "$acked" -le "$writes" ] || fail "stress: $acked acknowledged in the journal, $writes reported"
# negative control: unit 0 torn by hand: its second half from the write before the last one
dd if="$inner/t" of="$j/unit0" bs=$U count=1 status=none
"$awr" stress "$inner/t" --unit 16k --size 16k --threads 1 --writes 1 --force >/dev/null 2>&1
dd if="$j/unit0" of="$inner/t" bs=8192 skip=1 seek=1 count=1 conv=notrunc status=none
"$awr" verify "$inner/t" --unit 16k -o json >"$j/verify2.json" 2>&1
[ "$(json "$j/verify2.json" "d['counts']['torn']")" = 1 ] ||
	fail "control: a unit torn by hand was not found: $(head -c 300 "$j/verify2.json")"

# --- write --dsync: the backing filesystem shut down mid-run ------------------------------------------
head -c 128M /dev/urandom >"$j/new"
rm -f "$inner/w"
"$awr" write "$inner/w" --offset 0 --length 128M --unit 16k --dsync --input "$j/new" >"$j/write.out" 2>&1 &
pid=$!
wait_size "$inner/w" $((1024 * 1024)) || fail "write wrote nothing in 30 s"
xfs_io -x -c shutdown "$outer" || fail "cannot shut down the backing filesystem"
wait_end "$pid" write
rc=$?
out=$(cat "$j/write.out")
echo "write: exit $rc after the backing filesystem's shutdown: $out"
off=$(sed -n 's/.* at \([0-9][0-9]*\) failed: Input\/output error.*/\1/p' <<<"$out")
[ "$rc" = 1 ] || fail "write: exit $rc, expected 1"
if [ -z "$off" ]; then
	fail "write: no 'at N failed: Input/output error'"
else
	recover || { echo "FAIL: the filesystems cannot be mounted again"; exit 1; }
	cmp -s -n "$off" "$inner/w" "$j/new" || fail "write: the $off bytes before the failed write are not all there after recovery"
	echo "write: the $((off / U)) units before the failed one hold their data after recovery"
fi

[ "$fails" = 0 ] || { echo "faults_loop: $fails failure(s)"; exit 1; }
echo "faults_loop: all passed"
