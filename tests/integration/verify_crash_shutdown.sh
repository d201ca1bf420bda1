#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: crash test of awr stress and awr verify on scratch XFS: journaled atomic writers, the
# filesystem shut down mid-flight without a log flush, mounted again (log recovery), verified.
#
#   verify_crash_shutdown.sh AWR XFS_SHUTDOWN   (run under with-scratch-xfs.sh)
#
# What it proves: every write the journal acknowledges before the crash instant survives the
# shutdown and log recovery (lost 0), and the verifier agrees with the journal (acknowledged plus
# late acknowledgements = the writes stress made; no torn, corrupt, misplaced or unjournaled unit).
# What it cannot prove: untornness. A shutdown of XFS on a loop device cannot tear a write that
# was sent (plain O_DIRECT writes without RWF_ATOMIC come through it untorn as well), so torn 0
# here says nothing about RWF_ATOMIC; that is shown by the verifier catching injected damage (the
# end of this test, verify_detects) and, on hardware, by a power pull.
#
# Each cycle checks that a crash happened: the shutdown comes 0.1..1.0 s after the first
# acknowledged write (so it never precedes the run), stress ends because a write got EIO (not by
# its time limit), and at most one acknowledgement per writer comes after the crash instant (the
# writes in flight). A shutdown helper that does nothing (`date +%s%N`) fails the test.
# The crash instant is taken right before the shutdown ioctl (xfs_shutdown prints it); each cycle
# uses a new target and journal, so the crash instant applies to every acknowledgement in it.
#   AWR_CRASH_CYCLES=N      cycles (default 4; 20 with AWR_TEST_LONG=1)
#   AWR_CRASH_SECONDS=S     stress time limit per cycle (default 10): reaching it fails the cycle
set -u

awr=$1
shutdown=$2
cycles_default=4
[ "${AWR_TEST_LONG:-0}" = 1 ] && cycles_default=20
cycles=${AWR_CRASH_CYCLES:-$cycles_default}
run_s=${AWR_CRASH_SECONDS:-10}
threads=4
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
	exec 8<&-
	rm -rf "$jdir"
	# a filesystem left shut down is unmounted by with-scratch-xfs.sh (by /proc/self/mounts)
}
trap cleanup EXIT
# shellcheck source=tests/integration/scratch_mounts.sh
. "$(dirname "$0")/scratch_mounts.sh"
scratch_hold "$dev" || fail "cannot open $dev"
[ "$(mounts_of_dev "$dev")" = "$dir" ] || fail "$dev is not mounted (only) at $dir: $(mounts_of_dev "$dev")"

units=(16k 4k 64k)
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
# Wait until JOURNAL holds an acknowledgement: before the first ACK it has the RUN record and at
# most one INTENT per writer (48 bytes each), so a longer journal holds one.
wait_first_ack() {
	local journal=$1 need=$((48 * (threads + 2))) i
	for ((i = 0; i < 1000; i++)); do
		[ "$(stat -c %s "$journal" 2>/dev/null || echo 0)" -ge "$need" ] && return 0
		kill -0 "$stress_pid" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

total_writes=0 total_late=0
for ((i = 1; i <= cycles; i++)); do
	u=${units[$((i % 3))]}
	target=$dir/crash-$i.dat
	journal=$jdir/journal-$i
	[ "$(mounts_of_dev "$dev")" = "$dir" ] || fail "cycle $i: $dev is not mounted (only) at $dir"
	"$awr" stress "$target" --unit "$u" --threads "$threads" --seconds "$run_s" --size 4M \
		--journal "$journal" -o json >"$jdir/stress.json" 2>"$jdir/stress.err" &
	stress_pid=$!
	wait_first_ack "$journal" || { cat "$jdir/stress.err"; fail "cycle $i: no acknowledged write within 10 s"; }
	# shut down 0.1..1.0 s after the first acknowledged write, without flushing the log
	sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
	crash_ns=$("$shutdown" "$dir") || fail "cycle $i: shutdown failed"
	[[ "$crash_ns" =~ ^[0-9]+$ ]] || fail "cycle $i: the shutdown helper printed no crash instant: '$crash_ns'"
	wait "$stress_pid"
	rc=$?
	stress_pid=
	# the crash ends stress: a write failed with EIO (exit 1); 0 means it ran out its time, 2 an error
	[ "$rc" = 1 ] || { cat "$jdir/stress.err" "$jdir/stress.json"; fail "cycle $i: stress exited $rc, expected 1 (a write ended by EIO from the shutdown)"; }
	error=$(field "$jdir/stress.json" "['error']")
	[ "$error" = EIO ] || fail "cycle $i: stress stopped by $error, expected EIO from the shutdown"
	why=$(scratch_remount "$dev" "$dir") || fail "cycle $i: $why"
	"$awr" verify "$target" --unit "$u" --journal "$journal" --crash-time "$crash_ns" -o json >"$jdir/verify.json"
	rc=$?
	[ "$rc" = 0 ] || { cat "$jdir/verify.json"; fail "cycle $i: verify exited $rc"; }
	writes=$(field "$jdir/stress.json" "['writes']")
	acked=$(field "$jdir/verify.json" "['acked_writes']")
	torn=$(field "$jdir/verify.json" "['counts']['torn']")
	lost=$(field "$jdir/verify.json" "['lost']")
	late=$(field "$jdir/verify.json" "['acked_late']")
	[ "$torn" = 0 ] && [ "$lost" = 0 ] || fail "cycle $i: torn $torn lost $lost"
	[ $((acked + late)) = "$writes" ] || fail "cycle $i: journal has $acked + $late acknowledged writes, stress made $writes"
	[ "$acked" -gt 0 ] || fail "cycle $i: no write acknowledged before the crash instant"
	# a writer has one write in flight: more late acknowledgements mean the filesystem went on
	# taking writes after the "crash"
	[ "$late" -le "$threads" ] ||
		fail "cycle $i: $late writes acknowledged after the crash instant, at most $threads (one per writer) can be in flight"
	echo "cycle $i: unit $u, $writes writes acknowledged ($late after the crash instant), ended by EIO: lost 0"
	total_writes=$((total_writes + writes)) total_late=$((total_late + late))
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
echo "verify_crash_shutdown: ok ($cycles crashes, $total_writes acknowledged writes, $total_late of them after the" \
	"crash instant: all survived shutdown and log recovery, the verifier agrees with the journal;" \
	"untornness is not shown here)"
