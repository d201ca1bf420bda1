#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the page store on an XFS whose free space is left in small pieces. XFS aligns each
# copy-on-write allocation of an atomic write to the file's CoW extent size hint (32 blocks when
# none is set) and keeps that alignment when space is low, so such a filesystem refuses atomic writes
# with ENOSPC while much is free. The state is made as a user makes it: random 16 KiB atomic
# overwrites of a 256 MiB file (each moves its blocks), then files written in full take the large
# free extents. Control: an RWF_ATOMIC overwrite in a written file fails with ENOSPC. Then a store
# forced to software mode writes and reads back every page, having set its file's cowextsize hint to
# the page size after the first ENOSPC (xfs_io shows 16384), and nothing outside it changed. A
# second store carries a 256 KiB extent size hint (as `awr prepare --unit 256k` leaves), which keeps
# the alignment at 64 blocks whatever the CoW hint: forced to software mode it fails with ENOSPC,
# naming the pages; AUTO writes the batch in doublewrite mode, keeps that mode and says why.
#
#   pages_enospc.sh AWR DBPAGES    (run under with-scratch-xfs.sh --size 2G)
set -u
awr=$1
dbpages=$2
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; }

store=$dir/store.db
pages=1024
out=$("$dbpages" "$store" doublewrite $pages 2>&1) || fail "making the store (doublewrite): $out"
xfs_io -f -c "pwrite -q 0 1m" -c fsync "$dir/control.dat" >/dev/null || fail "writing control.dat"
store2=$dir/hinted.db
xfs_io -f -c "extsize 256k" "$store2" || fail "setting the extent size hint on $store2"
out=$("$dbpages" "$store2" doublewrite $pages 2>&1) || fail "making the hinted store: $out"
[ "$(xfs_io -c cowextsize "$store" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')" = 0 ] || fail "the store already has a cowextsize hint"

# Rounds of churn and fill until an atomic overwrite is refused (at most four), then the control.
rounds=0
fragment() {
	local refused=0 i n
	for n in 1 2 3 4; do
		rounds=$((rounds + 1))
		# churn; it may itself end in ENOSPC once free space is in small pieces
		"$awr" bench "$dir/churn$rounds.dat" --mode atomic --seconds 5 --size 256M >/dev/null 2>&1 ||
			echo "round $rounds: the churn stopped early (ENOSPC is expected once space is fragmented)"
		for i in $(seq $([ $rounds = 1 ] && echo 3 || echo 1)); do
			xfs_io -f -c "pwrite -q -b 4m 0 $([ $rounds = 1 ] && echo 256m || echo 64m)" \
				"$dir/fill$rounds.$i" >/dev/null 2>&1 || fail "filling"
		done
		sync
		out=$("$awr" write "$dir/control.dat" --offset 16384 --length 16k --force 2>&1); rc=$?
		if [ $rc != 0 ] && grep -q "No space left" <<<"$out"; then
			refused=1
			break
		fi
		echo "round $rounds: the atomic overwrite still found space ($out)"
	done
	[ $refused = 1 ] || fail "control: no round left free space in pieces small enough to refuse an atomic write"
	avail=$(df -B1M --output=avail "$dir" | tail -1 | tr -d ' ')
	[ "$avail" -ge 200 ] || fail "only $avail MiB free: the refusal would not show fragmentation"
	echo "free: $avail MiB"
	xfs_spaceman -c 'freesp' "$dir" 2>/dev/null
	pass "control: an RWF_ATOMIC overwrite in a written file: $(tail -1 <<<"$out")"
}
fragment
sum=$(cat "$dir"/fill* "$dir/control.dat" | md5sum)

# the hinted store first: the other store's software writes free its old blocks in large pieces
out=$("$dbpages" "$store2" software $pages 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^page [0-9]*: No space left on device" <<<"$out" ||
	fail "the hinted store in software mode should fail with ENOSPC naming pages (rc $rc): $out"
pass "the hinted store, software mode forced: $(grep -m1 'No space' <<<"$out")"
out=$("$dbpages" "$store2" auto $pages 2>&1) || fail "the hinted store in AUTO: $out"
echo "$out"
grep -q "after the writes: mode doublewrite: .*ENOSPC" <<<"$out" || fail "AUTO did not fall back to doublewrite"
grep -q "read back: 0 wrong" <<<"$out" || fail "AUTO: pages read back wrong"
out=$("$dbpages" "$store2" check $pages 2>&1) || fail "check: $out"
grep -q " 0 torn" <<<"$out" || fail "check of the hinted store: $out"
pass "AUTO fell back to doublewrite on ENOSPC"
[ "$(cat "$dir"/fill* "$dir/control.dat" | md5sum)" = "$sum" ] || fail "the fill files or control.dat changed"
fragment	# AUTO's scratch files and the area freed larger pieces
sum=$(cat "$dir"/fill* "$dir/control.dat" | md5sum)
out=$("$dbpages" "$store" software $pages 2>&1) || fail "software mode with fragmented free space: $out"
echo "$out"
grep -q "read back: 0 wrong" <<<"$out" || fail "software mode: pages read back wrong"
hint=$(xfs_io -c cowextsize "$store" | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
[ "$hint" = 16384 ] || fail "the store's cowextsize hint is $hint, expected 16384"
pass "software mode after ENOSPC with the cowextsize hint at 16 KiB (xfs_io: [$hint])"
grep -q "after the writes: mode software: .*CoW extent size hint" <<<"$out" || fail "the store did not say it set the hint"
[ "$(cat "$dir"/fill* "$dir/control.dat" | md5sum)" = "$sum" ] || fail "the fill files or control.dat changed"
out=$("$dbpages" "$store" check $pages 2>&1) || fail "check: $out"
grep -q " 0 torn" <<<"$out" || fail "check: $out"
pass "every page whole; nothing outside the store changed"
rm -f "$dir"/fill* "$dir"/churn* "$dir/control.dat" "$store" "$store.awr-dw" "$store2" "$store2.awr-dw"
echo "pages_enospc: ok"
