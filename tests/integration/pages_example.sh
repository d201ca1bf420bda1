#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: examples/dbpages runs on scratch XFS in AUTO and in every mode the target offers,
# reads every page back after reopening, and says which mode it chose; a forced mode the target
# lacks is refused with a reason and exit 1. dbpages check (used after crashes in the guest,
# tests/vm/guest/pages.sh) finds every page whole and none stale after a run ended by
# AWR_PAGES_FAULT=crash:N or tear:N and reopened, and reports the stale pages of the flush in flight
# (crash) and the torn page (tear) when the doublewrite area is removed first.
#
#   pages_example.sh DBPAGES   (run under with-scratch-xfs.sh)
set -u
dbpages=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

ran=0
for mode in auto software doublewrite hardware; do
	db=$dir/example-$mode.db
	"$dbpages" "$db" "$mode" 200 >"$out" 2>&1
	rc=$?
	cat "$out"
	if [ "$rc" = 1 ] && grep -q "Operation not supported: $mode mode is not possible here: " "$out"; then
		[ "$mode" != auto ] && [ "$mode" != doublewrite ] || fail "$mode refused on a file of XFS"
		echo "($mode mode refused here, with its reason)"
		continue
	fi
	[ "$rc" = 0 ] || fail "dbpages $mode exited $rc"
	grep -q "^200 pages of 16384 bytes written twice, read back: 0 wrong$" "$out" || fail "$mode: pages not read back"
	chosen=$(sed -n 's/^mode: //p' "$out")
	case $mode in
	auto) [ "$chosen" = software ] || [ "$chosen" = doublewrite ] || [ "$chosen" = hardware ] ||
		fail "auto chose '$chosen'" ;;
	*) [ "$chosen" = "$mode" ] || fail "asked for $mode, got '$chosen'" ;;
	esac
	# the store holds the pages: 200 pages of 16 KiB
	[ "$(stat -c %s "$db")" = $((200 * 16384)) ] || fail "$db is $(stat -c %s "$db") bytes"
	ran=$((ran + 1))
done
[ "$ran" -ge 2 ] || fail "only $ran mode(s) ran"

# crashes mid-batch, then dbpages check: every page whole (never written, first or second pass) and
# none stale: in doublewrite mode the flush in flight (its records in the area) is applied whole
for fault in crash:45 crash:301 tear:45 tear:301; do
	db=$dir/example-crash.db
	rm -f "$db" "$db.awr-dw"
	AWR_PAGES_FAULT=$fault "$dbpages" "$db" doublewrite 200 >"$out" 2>&1
	rc=$?
	[ "$rc" = 99 ] || { cat "$out"; fail "$fault: exit $rc, 99 expected"; }
	grep -q "^mode: doublewrite$" "$out" || fail "$fault: the mode was not printed before the crash"
	"$dbpages" "$db" check 200 doublewrite >"$out" 2>&1
	rc=$?
	cat "$out"
	[ "$rc" = 0 ] && grep -q "^200 pages checked: 0 torn, 0 stale, " "$out" || fail "$fault: check exit $rc"
done
# the control of staleness: a crash whose recovery does nothing (the area removed first) leaves the
# flush in flight in part: write 45 was never made, so pages 45..63 lack it
rm -f "$db" "$db.awr-dw"
AWR_PAGES_FAULT=crash:45 "$dbpages" "$db" doublewrite 200 >/dev/null 2>&1
rm -f "$db.awr-dw"
"$dbpages" "$db" check 200 doublewrite >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 1 ] && grep -q "^page 45 is stale: it lacks pass 1 of flush 1, " "$out" &&
	grep -q "^200 pages checked: 0 torn, 19 stale, " "$out" ||
	fail "crash:45 without the area: pages 45..63 of the flush in flight were not reported stale (exit $rc)"
# the control: the same tear with the area removed before reopening is a torn page for the check
rm -f "$db" "$db.awr-dw"
AWR_PAGES_FAULT=tear:45 "$dbpages" "$db" doublewrite 200 >/dev/null 2>&1
rm -f "$db.awr-dw"
"$dbpages" "$db" check 200 >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 1 ] && grep -q "^page 45 is torn$" "$out" && grep -q "^200 pages checked: 1 torn, " "$out" ||
	fail "the torn page 45 (the 46th written) was not reported without the area (exit $rc)"
rm -f "$db" "$db.awr-dw"
echo "pages_example: ok ($ran modes, 4 crashes recovered, the stale and the torn pages caught without the area)"
