#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: examples/dbpages runs on scratch XFS in AUTO and in every mode the target offers,
# reads every page back after reopening, and says which mode it chose; a forced mode the target
# lacks is refused with a reason and exit 1.
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
echo "pages_example: ok ($ran modes)"
