#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the HTML report draws qualify's short_pin check of a block device: a real awr
# qualify --quick report of a scratch XFS file (which has no such check: no section, the negative
# control) given the check as the 7.3.4 guest's NVMe namespace produced it (12288 of 16384 bytes
# returned, 3 pages new, 1 old: torn); awr report --html must draw its section with those
# figures. The check itself runs in the guests (tests/vm/README, short_pin).
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-pinrep.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$awr" qualify --quick "$dir" --report "$work/file.json" >"$work/q.out" 2>&1
[ -s "$work/file.json" ] || { cat "$work/q.out"; echo "FAIL: no report from qualify"; exit 1; }
python3 - "$work/file.json" "$work/blk.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert not [c for c in d["checks"] if c["name"] == "short_pin"], "a file's qualify lists short_pin"
d["target_type"] = "block_device"
d["checks"].append({"name": "short_pin", "result": "fail", "seconds": 0.012,
    "reason": "the write tore: an atomic write of 16 KiB from a buffer whose last page cannot be "
              "read returned a short count and left 3 of 4 pages new (from page 0), 1 old",
    "figures": {"unit": 16384, "offset": 16384, "pages": 4, "readable_pages": 3,
                "returned": 12288, "pages_new": 3, "pages_old": 1, "outcome": "torn",
                "kernel_has_fix": False}})
json.dump(d, open(sys.argv[2], "w"))
PY
"$awr" report "$work/file.json" --html "$work/file.html" || fail "awr report of the file's report"
"$awr" report "$work/blk.json" --html "$work/blk.html" || fail "awr report with short_pin"
grep -q 'id="short-pin"' "$work/file.html" && fail "a report without short_pin draws its section"
grep -q '<tr class="check" data-check="short_pin" data-result="FAIL"' "$work/blk.html" ||
	fail "the checks table has no short_pin row"
for kv in 'returned">12288' 'pages_new">3' 'pages_old">1' 'outcome">torn' \
	'kernel_has_fix">false'; do
	grep -q "data-key=\"$kv<" "$work/blk.html" || fail "the short_pin section lacks $kv"
done
grep -q 'id="short-pin"' "$work/blk.html" || fail "no short_pin section"
[ "$fails" = 0 ] && echo "qualify_short_pin_report: ok"
[ "$fails" = 0 ]
