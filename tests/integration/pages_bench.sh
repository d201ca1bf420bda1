#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr bench --mode pages measures the page store in the mode it chooses (named, with its
# reason), --mode all sets it beside atomic, plain and doublewrite with the pages/doublewrite ratio, the
# scratch store beside the target is removed, and qualify names the mode the store would choose.
#
#   pages_bench.sh AWR   (run under with-scratch-xfs.sh)
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
f=$dir/bench-pages.dat
fail() { echo "FAIL: $*"; exit 1; }

out=$("$awr" bench "$f" --mode pages --seconds 0.5 --size 16M -o json 2>&1); rc=$?
echo "$out"
[ $rc = 0 ] || fail "bench --mode pages exited $rc"
python3 - "$out" <<'PY' || fail "bench --mode pages JSON"
import json, sys
r = json.loads(sys.argv[1])
m = r["modes"]
assert list(m) == ["pages"], m
assert m["pages"]["pages"] > 0 and m["pages"]["error"] is None, m
assert r["pages_store"].split(":")[0] in ("software", "doublewrite", "hardware"), r["pages_store"]
PY
rm -f "$f"
out=$("$awr" bench "$f" --mode all --seconds 0.5 --size 16M 2>&1); rc=$?
echo "$out"
[ $rc = 0 ] || fail "bench --mode all exited $rc"
for m in atomic plain doublewrite pages; do
	grep -Eq "^$m +[0-9]+" <<<"$out" || fail "no $m row"
done
grep -Eq "^pages: the store chose (software|doublewrite|hardware): " <<<"$out" || fail "the store's mode not named"
grep -Eq "^pages/doublewrite: [0-9.]+x$" <<<"$out" || fail "no pages/doublewrite ratio"
left=$(find "$dir" -name 'bench-pages.dat.awr-*')
[ -z "$left" ] || fail "scratch store left behind: $left"
rm -f "$f"

out=$("$awr" qualify "$dir" --quick 2>&1)
grep -Eq "^note: page store: (software|doublewrite|hardware) mode for 16 KiB pages: " <<<"$out" ||
	fail "qualify names no page store mode: $out"
grep "^note: page store" <<<"$out"
left=$(find "$dir" -name '.awr-qualify-pages.*')
[ -z "$left" ] || fail "qualify left its scratch store: $left"
echo "pages_bench: ok"
