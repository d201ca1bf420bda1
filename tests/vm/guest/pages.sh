#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the page store's example (examples/dbpages) on XFS over a device
# with hardware atomic writes:
#   pages.sh DEV UNIT   (DEV: a whole disk of at least 300 MB whose atomic unit_max is UNIT = 16 KiB)
# On a file made by awr prepare (extent size hint UNIT, aligned extents) AUTO
# picks hardware mode, says why, writes 16 KiB pages in place (xfs_io's FIEMAP
# listing before and after) and reads them back; a run ended by the fault point
# AWR_PAGES_FAULT=crash:N in the middle of a batch leaves every page whole after
# reopening (dbpages check), for two values of N; the check reports a page
# torn by hand (its second half overwritten). Prints PASS/FAIL/SKIP NAME
# lines. Leaves DEV unmounted and without a filesystem signature.
dev=$1 unit=$2
AWR=${AWR:-/awr/awr}
DB=${DBPAGES:-/awr/dbpages}
mnt=/mnt/pages

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }

# "logical physical length" in bytes per extent of FILE, from xfs_io (holes left out)
xfiemap() {
	xfs_io -r -c 'fiemap -v' "$1" | awk '$2 ~ /^\[/ && $3 != "hole" {
		s = $2 " " $3; gsub(/[^0-9]+/, " ", s); split(s, a, " ");
		printf "%d %d %d\n", a[1] * 512, a[3] * 512, (a[2] - a[1] + 1) * 512 }'
}
# the device byte of each of the first N pages of FILE (16 KiB), one per line ("-" unmapped)
pagemap() {
	xfiemap "$1" | awk -v n="$2" '{ lo[NR] = $1; ph[NR] = $2; len[NR] = $3 }
		END { for (p = 0; p < n; p++) { o = p * 16384; d = "-";
			for (i = 1; i <= NR; i++) if (lo[i] <= o && o < lo[i] + len[i]) d = ph[i] + o - lo[i];
			print p, d } }'
}

CASES="xfs_mount prepare auto_hardware in_place_fiemap crash_exit crash_whole crash2_exit crash2_whole check_catches_torn"
# hardware mode for 16 KiB pages on XFS needs its multi-block atomic writes (6.16)
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then
	for c in $CASES; do
		echo "SKIP $c: Linux $kv: XFS writes at most one 4 KiB block atomically before 6.16, so no hardware mode for $unit-byte pages"
	done
	exit 0
fi

t0=$(date +%s)
cleanup() { umount "$mnt" 2>/dev/null; }
modprobe xfs 2>/dev/null
trap cleanup EXIT
mkdir -p "$mnt"
if ! mkfs.xfs -f -q "$dev" >/tmp/pages.mkfs 2>&1 || ! mount -t xfs "$dev" "$mnt" >>/tmp/pages.mkfs 2>&1; then
	fail xfs_mount "$(head -n 3 /tmp/pages.mkfs | tr '\n' ' ')"
	for c in $CASES; do [ "$c" = xfs_mount ] || fail "$c" "no XFS on $dev"; done
	exit 0
fi
pass xfs_mount

pages=256	# 4 MiB of 16 KiB pages in a file of 8 MiB
$AWR prepare "$mnt/db" --size 8m --unit "$unit" >/tmp/pages.out 2>&1
check prepare $? "$(cat /tmp/pages.out)"

before=$(pagemap "$mnt/db" $pages)
"$DB" "$mnt/db" auto $pages >/tmp/pages.out 2>&1
rc=$?
cat /tmp/pages.out
grep -q "^mode: hardware$" /tmp/pages.out && grep -q "^why: hardware: " /tmp/pages.out &&
	grep -q "^$pages pages of 16384 bytes written twice, read back: 0 wrong$" /tmp/pages.out && [ "$rc" = 0 ]
check auto_hardware $? "exit $rc: $(tr '\n' ' ' </tmp/pages.out)"
after=$(pagemap "$mnt/db" $pages)
moved=$(printf '%s\n%s\n' "$before" "$after" |
	awk 'NF == 2 { if ($1 in d) { if (d[$1] != $2 || $2 == "-") m++ } else d[$1] = $2 }
	END { print m + 0 }')
[ -n "$before" ] && [ "$moved" = 0 ]
check in_place_fiemap $? "$moved of $pages pages moved or unmapped by xfs_io's listing"

# a crash in the middle of a batch: N page writes issued, then _exit(99); reopening must show
# every page whole (old, new or never written) and none stale (every flush before the one in flight
# there). N in the first pass, then in the second.
n=0
for at in 45 301; do
	n=$((n + 1))
	sfx=; [ $n = 1 ] || sfx=$n
	rm -f "$mnt/db"
	$AWR prepare "$mnt/db" --size 8m --unit "$unit" >/tmp/pages.out 2>&1 ||
		{ fail "crash${sfx}_exit" "awr prepare: $(cat /tmp/pages.out)"; fail "crash${sfx}_whole" "no store"; continue; }
	AWR_PAGES_FAULT=crash:$at "$DB" "$mnt/db" auto $pages >/tmp/pages.out 2>&1
	rc=$?
	grep -q "^mode: hardware$" /tmp/pages.out && [ "$rc" = 99 ]
	check "crash${sfx}_exit" $? "crash:$at: exit $rc (99 expected), $(tr '\n' ' ' </tmp/pages.out)"
	"$DB" "$mnt/db" check $pages >/tmp/pages.out 2>&1
	rc=$?
	cat /tmp/pages.out
	[ "$rc" = 0 ] && grep -q "^$pages pages checked: 0 torn, 0 stale, " /tmp/pages.out
	check "crash${sfx}_whole" $? "after crash:$at, exit $rc: $(tr '\n' ' ' </tmp/pages.out)"
done
# the control: the check must see a torn page (page 7's second half of other data, written by hand)
dd if=/dev/urandom of="$mnt/db" bs=8192 seek=15 count=1 conv=notrunc,fsync 2>/dev/null
"$DB" "$mnt/db" check $pages >/tmp/pages.out 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "^page 7 is torn$" /tmp/pages.out && grep -q "^$pages pages checked: 1 torn, " /tmp/pages.out
check check_catches_torn $? "exit $rc: $(tr '\n' ' ' </tmp/pages.out)"
umount "$mnt"
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
echo "pages.sh: $(( $(date +%s) - t0 )) s"
exit 0
