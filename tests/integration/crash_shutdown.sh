#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: crash test: journaled atomic stress on scratch XFS, shutdown mid-flight (no log flush),
# remount (log recovery), verify: zero torn, corrupt, misplaced and lost units in every cycle.
#
#   crash_shutdown.sh AWR XFS_SHUTDOWN   (run under with-scratch-xfs.sh)
#
# The crash instant is taken right before the shutdown ioctl (xfs_shutdown prints it); writes the
# kernel acknowledges after it count as in flight (a power cut has no "after"). Each cycle uses a
# new target and journal, so the crash instant applies to every acknowledgement in the journal.
#   AWR_CRASH_CYCLES=N      cycles (default 20); AWR_CRASH_SECONDS=S stress time per cycle (default 3)
set -u

awr=$1
shutdown=$2
cycles=${AWR_CRASH_CYCLES:-20}
run_s=${AWR_CRASH_SECONDS:-3}
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"

# The journal lives on another filesystem than the one that is shut down.
jdir=$(mktemp -d "${TMPDIR:-/tmp}/awr-crash-journal.XXXXXX") || exit 2
[ "$(stat -f -c %i "$jdir")" != "$(stat -f -c %i "$dir")" ] || fail "journal directory is on the scratch filesystem"
stress_pid=
cleanup() {
	[ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null && wait "$stress_pid" 2>/dev/null
	rm -rf "$jdir"
}
trap cleanup EXIT

units=(16k 4k 64k)
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

for ((i = 1; i <= cycles; i++)); do
	u=${units[$((i % 3))]}
	target=$dir/crash-$i.dat
	journal=$jdir/journal-$i
	mountpoint -q "$dir" || fail "cycle $i: $dir is not mounted"
	"$awr" stress "$target" --unit "$u" --threads 4 --seconds "$run_s" --size 4M \
		--journal "$journal" -o json >"$jdir/stress.json" 2>"$jdir/stress.err" &
	stress_pid=$!
	# shut down somewhere in the first half of the run, without flushing the log
	sleep "0.$((RANDOM % 9 + 2))$((RANDOM % 10))"
	crash_ns=$("$shutdown" "$dir") || fail "cycle $i: shutdown failed"
	wait "$stress_pid"
	rc=$?
	stress_pid=
	# 0: the run ended before the shutdown; 1: a write failed (EIO): the end, not a crash
	[ "$rc" -le 1 ] || { cat "$jdir/stress.err"; fail "cycle $i: stress exited $rc"; }
	umount "$dir" || fail "cycle $i: umount failed"
	mount "$dev" "$dir" || fail "cycle $i: mount (log recovery) failed"
	"$awr" verify "$target" --unit "$u" --journal "$journal" --crash-time "$crash_ns" -o json >"$jdir/verify.json"
	rc=$?
	[ "$rc" = 0 ] || { cat "$jdir/verify.json"; fail "cycle $i: verify exited $rc"; }
	writes=$(field "$jdir/stress.json" "['writes']")
	acked=$(field "$jdir/verify.json" "['acked_writes']")
	torn=$(field "$jdir/verify.json" "['counts']['torn']")
	lost=$(field "$jdir/verify.json" "['lost']")
	[ "$torn" = 0 ] && [ "$lost" = 0 ] || fail "cycle $i: torn $torn lost $lost"
	late=$(field "$jdir/verify.json" "['acked_late']")
	[ $((acked + late)) = "$writes" ] || fail "cycle $i: journal has $acked + $late acknowledged writes, stress made $writes"
	echo "cycle $i: unit $u, $writes writes acknowledged ($late after the crash instant): torn 0, lost 0"
	rm -f "$target"
done

# The CLI fails on damage: a sector of a stressed target overwritten with zeros.
journal=$jdir/journal-damage
"$awr" stress "$target" --unit "$u" --writes 200 --size 1M --journal "$journal" >/dev/null || fail "stress failed"
dd if=/dev/zero of="$target" bs=512 count=1 seek=3 conv=notrunc oflag=direct status=none ||
	fail "cannot damage the target"
"$awr" verify "$target" --unit "$u" --journal "$journal" >"$jdir/verify.txt"
rc=$?
[ "$rc" = 1 ] || { cat "$jdir/verify.txt"; fail "verify exited $rc on a damaged unit, expected 1"; }
grep -q "unit 0 at 0: torn" "$jdir/verify.txt" || { cat "$jdir/verify.txt"; fail "damaged unit 0 not reported"; }
echo "crash_shutdown: ok ($cycles cycles)"
