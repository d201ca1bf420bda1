#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr bench --mode pages measures the page store in the mode it chooses (named, with its
# reason), the store forced to doublewrite mode and a naive doublewrite, one batch each in turn, with
# the paired ratios; --mode all sets them beside atomic, plain and doublewrite; the scratch files
# beside the target are removed, and qualify names the mode the store would choose.
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
p = r["pages_paired"]
n = p["rounds"]
assert n > 0, p
# every writer wrote the same batches: one per round
for w in ("pages_doublewrite", "naive_doublewrite"):
    assert p[w]["error"] is None and p[w]["pages"] == m["pages"]["pages"], (w, p[w], m["pages"])
    assert p[w]["seconds"] > 0, p[w]
assert m["pages"]["pages"] % n == 0, (m["pages"], n)
assert p["pages_to_naive_q1"] <= p["pages_to_naive_median"] <= p["pages_to_naive_q3"], p
assert p["pages_doublewrite_to_naive_median"] > 0, p
PY
rm -f "$f"
# (LeakSanitizer cannot run under ptrace: leaks are off for the traced command in the sanitizer build)
# the scratch files are never opened by their path again but through the guard (O_NOFOLLOW): a
# symbolic link put in their place between two opens must not be followed (bench reopened its
# scratch file O_WRONLY | O_DIRECT by path to fill it)
if command -v strace >/dev/null; then
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,open -o "$dir/strace.txt" "$awr" bench "$f" --mode pages --seconds 0.2 \
		--size 8M >/dev/null 2>&1 || fail "bench --mode pages under strace exited $?"
	opens=$(grep -c 'awr-pages\.' "$dir/strace.txt")
	loose=$(grep 'awr-pages\.' "$dir/strace.txt" | grep -v 'O_NOFOLLOW\|O_EXCL')
	[ "$opens" -ge 2 ] && [ -z "$loose" ] ||
		fail "scratch files opened by path without O_NOFOLLOW or O_EXCL ($opens opens): $loose"
	echo "ok: $opens opens of the scratch files, each O_NOFOLLOW or O_EXCL"
	rm -f "$dir/strace.txt" "$f"
else
	fail "strace is not installed (scripts/deps.sh installs it)"
fi
out=$("$awr" bench "$f" --mode all --seconds 0.5 --size 16M 2>&1); rc=$?
echo "$out"
[ $rc = 0 ] || fail "bench --mode all exited $rc"
for m in atomic plain doublewrite pages pages-dw naive-dw; do
	grep -Eq "^$m +[0-9]+" <<<"$out" || fail "no $m row"
done
grep -Eq "^pages: the store chose (software|doublewrite|hardware): " <<<"$out" || fail "the store's mode not named"
grep -Eq "^pages/doublewrite: [0-9.]+x$" <<<"$out" || fail "no pages/doublewrite ratio"
grep -Eq "^pages/naive-dw: [0-9.]+x \(median over [0-9]+ rounds" <<<"$out" || fail "no paired pages/naive-dw ratio"
grep -Eq "^pages-dw/naive-dw: [0-9.]+x$" <<<"$out" || fail "no paired pages-dw/naive-dw ratio"
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
