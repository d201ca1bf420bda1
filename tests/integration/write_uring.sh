#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr write --engine uring writes a range as atomic units through io_uring, reads back, and refuses broken writes with the rule named.
#
#   write_uring.sh AWR [FILE]    (FILE default: $AWR_SCRATCH_DIR/write_uring.dat)
set -u
awr=$1
f=${2:-${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh or give FILE}/write_uring.dat}
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-wu.XXXXXX") || exit 2
trap 'rm -rf "$work"; rm -f "$f"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# 1 MiB of 0xa5 as 64 atomic 16 KiB writes, queue depth 8, verified.
out=$("$awr" write "$f" --offset 0 --length 1M --unit 16k --engine uring --qd 8 --pattern 0xa5 --verify 2>&1)
rc=$?
head -c 1M /dev/zero | tr '\0' '\245' >"$work/want"
if [ $rc = 0 ] && grep -q "as 64 atomic writes of 16 KiB" <<<"$out" && cmp -s "$work/want" <(head -c 1M "$f"); then
	pass pattern_qd8
else
	fail pattern_qd8 "rc $rc, output: $out"
fi

# Random data from --input at 1 MiB, 64 KiB units, depth 1, dsync, JSON output.
head -c 2M /dev/urandom >"$work/in"
out=$("$awr" write "$f" --offset 1M --length 2M --unit 64k --engine uring --qd 1 --dsync \
	--input "$work/in" -o json 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q '"writes": 32' <<<"$out" && cmp -s "$work/in" <(tail -c +$((1048576 + 1)) "$f" | head -c 2M); then
	pass input_qd1_dsync_json
else
	fail input_qd1_dsync_json "rc $rc, output: $out"
fi

# A unit not aligned to its own size is refused before the kernel, rule named, exit 1.
out=$("$awr" write "$f" --offset 8k --length 64k --unit 16k --engine uring 2>&1)
rc=$?
if [ $rc = 1 ] && grep -q "rule misaligned" <<<"$out" && cmp -s "$work/want" <(head -c 1M "$f"); then
	pass refused_misaligned
else
	fail refused_misaligned "rc $rc, output: $out"
fi

# Usage errors exit 2 with a message saying what would be right.
out=$("$awr" write "$f" --offset 0 --length 16k --engine warp 2>&1); rc=$?
[ $rc = 2 ] && grep -q "use sync, uring, nvme or scsi" <<<"$out" && pass bad_engine || fail bad_engine "rc $rc: $out"
out=$("$awr" write "$f" --offset 0 --length 16k --engine uring --qd 0 2>&1); rc=$?
[ $rc = 2 ] && grep -q "queue depth from 1" <<<"$out" && pass bad_qd || fail bad_qd "rc $rc: $out"

[ $fails = 0 ]
