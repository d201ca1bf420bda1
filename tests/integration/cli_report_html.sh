#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the HTML qualification report, on scratch XFS: a real awr qualify --quick run
# writes --report and --html; awr report draws the saved JSON to the same page byte for byte, and
# the same report in the spelling of awr before 0.1.0 (PASS, FAIL in capitals) to the same words;
# tests/report_check.py opens it in headless Chromium, checks the DOM against the JSON (every
# check, every chart point, nothing loaded from outside) and takes a screenshot. Negative
# controls: the page with one check's row removed, and with an outside image added, must fail.
# The same browser then opens the pages awr report draws from that JSON damaged (tests/
# report_damaged.py: members missing, of the wrong type, null, markup injected into keys, mode
# names and paths): each drawn without a crash, whole, naming what it lacks, the markup as text,
# the counts the JSON's. awr report refuses JSON that is not a report and a file that holds
# something else.
set -u
awr=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fails=0

. "$here/expect.sh"	# fail, ok, expect_rc, expect_text, kstatx

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
	echo "SKIP: Debian's chromium and chromium-driver are not installed" \
		"(scripts/deps.sh installs them)"
	exit 77
fi
truncate -s 1M "$dir/probe.dat"
read -r reported kmin _ < <(kstatx "$dir/probe.dat")
rm -f "$dir/probe.dat"
if [ "$reported" != 1 ] || [ "$kmin" = 0 ]; then
	echo "SKIP: this kernel's XFS reports no atomic writes for files (needs Linux 6.13+)"
	exit 77
fi

work=$dir/report
mkdir -p "$work"
expect_rc 0 "qualify --quick --report --html" "$awr" qualify --quick --create "$dir/q.dat" \
	--report "$work/r.json" --html "$work/r.html"
expect_rc 0 "awr report draws the saved JSON" "$awr" report "$work/r.json" --html "$work/again.html"
cmp -s "$work/r.html" "$work/again.html" && ok "the saved JSON draws the same page as the run" ||
	fail "awr report's page differs from qualify --html's"

# sizes for people in the tables (the exact bytes in the title and the JSON), times too
umax='<td data-key="unit_max"><span title="[0-9]+ bytes">[0-9.]+ [KMG]iB</span>'
grep -Eq "$umax" "$work/r.html" &&
	ok "the limits table gives unit_max in binary units, the bytes in its title" ||
	fail "the limits table gives unit_max as a bare number"
grep -Eq '<td class="num">[0-9.]+ (us|ms|s)</td></tr>' "$work/r.html" &&
	ok "each check's time in human units" || fail "a check's time is a bare number"

# a report saved by awr before 0.1.0 spells results and the verdict in capitals and has no scope
# nor what to do: awr report reads it as the same words
python3 - "$work/r.json" "$work/old.json" <<'PY' || fail "cannot write the old-spelling report"
import json, sys
d = json.load(open(sys.argv[1]))
d["verdict"] = d["verdict"].upper()
for c in d["checks"]:
    c["result"] = c["result"].upper()
    del c["what_to_do"]
for k in ("scope", "scope_text"):
    del d[k]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "awr report draws a report of the old spelling" \
	"$awr" report "$work/old.json" --html "$work/old.html"
results() { grep -o 'data-result="[A-Z]*"\|id="verdict">[A-Z]*<' "$1"; }
[ -n "$(results "$work/r.html")" ] &&
	[ "$(results "$work/r.html")" = "$(results "$work/old.html")" ] &&
	ok "the old spelling reads as the same words: $(results "$work/r.html" | tr '\n' ' ')" ||
	fail "the old spelling reads otherwise: $(results "$work/old.html" | tr '\n' ' ')"
grep -q 'class="lack"' "$work/old.html" && fail "the old report's page lists something it lacks" ||
	ok "the old report lacks nothing the page needs"

# the page in a real browser, and the negative controls in the same browser: a check removed, an
# outside resource added; each must fail for its reason (report_check.py --control)
shot=${AWR_REPORT_SHOT:-$work/r.png}
sed '/<tr class="check" data-check="concurrent_torn"/d' "$work/r.html" >"$work/c1.html"
sed 's|<section id="checks">|<img src="http://127.0.0.1:9/track.png" alt="">&|' "$work/r.html" \
	>"$work/c2.html"
cmp -s "$work/r.html" "$work/c1.html" && fail "control 1: the sed changed nothing"
cmp -s "$work/r.html" "$work/c2.html" && fail "control 2: the sed changed nothing"
if python3 "$here/../report_check.py" "$work/r.json" "$work/r.html" "$shot" \
	--control "a page missing the concurrent_torn check" "$work/c1.html" \
		"check concurrent_torn is in the page" \
	--control "a page that loads an outside image" "$work/c2.html" \
		"no element that loads something" \
	--damaged "$awr" "$work"; then
	ok "the report, opened in headless Chromium, matches its JSON; both controls fail for" \
		"their reason; every damaged report is drawn"
else
	fail "the report does not match its JSON in the browser, or a control passed (above)"
fi

# awr report's refusals: not a report, not JSON, a file holding something else; a report over a
# report
echo '{"devices": []}' > "$work/list.json"
expect_rc 2 "awr report on JSON that is not a report" \
	"$awr" report "$work/list.json" --html "$work/l.html"
expect_text "not an awr qualify report"
[ -e "$work/l.html" ] && fail "awr report wrote a page for a non-report" ||
	ok "nothing written for it"
echo 'not json' > "$work/bad.json"
expect_rc 2 "awr report on a file that is not JSON" \
	"$awr" report "$work/bad.json" --html "$work/l.html"
expect_text "cannot read"
expect_rc 2 "awr report without --html" "$awr" report "$work/r.json"
expect_text "--html OUT"
echo "my notes" > "$work/notes.html"
expect_rc 2 "awr report over a file that holds something else" \
	"$awr" report "$work/r.json" --html "$work/notes.html"
expect_text "--force"
[ "$(cat "$work/notes.html")" = "my notes" ] &&
	ok "the file is untouched" ||
	fail "awr report overwrote notes.html"
expect_rc 2 "qualify --html over a file that holds something else, refused before it runs" \
	"$awr" qualify --quick --create "$dir/q2.dat" --html "$work/notes.html"
[ -e "$dir/q2.dat" ] && fail "qualify created its scratch file before refusing" ||
	ok "nothing created"
expect_rc 0 "awr report over its own earlier page" \
	"$awr" report "$work/r.json" --html "$work/again.html"
expect_rc 0 "awr report --force over the other file" \
	"$awr" report "$work/r.json" --html "$work/notes.html" --force
cmp -s "$work/r.html" "$work/notes.html" &&
	ok "--force replaced it with the report" ||
	fail "--force did not write the report"

rm -rf "$work"
[ "$fails" = 0 ]
