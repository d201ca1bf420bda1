#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr qualify -o prometheus on scratch XFS, PATH a real file whose name holds bytes
# that are not UTF-8 (0xff, a sequence cut short), a double quote, a backslash and a newline: the
# textfile stays UTF-8 (node_exporter drops a whole textfile with one invalid byte) and reads back
# in the Prometheus parser (tests/prom_check.py) against the report, the target label equal to the
# report's path with each byte that is not UTF-8 spelled \xff, the rest escaped as the format says.
set -u
awr=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fails=0

. "$here/expect.sh"	# fail, ok

name=$'odd\xff "q" \\ \xe2\x82\nname.dat'
"$awr" qualify --quick --create "$dir/$name" -o prometheus --report "$dir/r.json" >"$dir/q.prom"
rc=$?
# the verdict is not the subject here: PASS (0) or FAIL (1), not an error
[ "$rc" -le 1 ] && ok "qualify -o prometheus on a path with bytes that are not UTF-8 (exit $rc)" ||
	fail "qualify -o prometheus exited $rc"
if python3 "$here/../prom_check.py" qualify "$dir/q.prom" "$dir/r.json"; then
	ok "the textfile is UTF-8, read by the Prometheus parser, equal to the report"
else
	fail "the textfile against its report (above)"
fi
# the label as the text format spells it, written out here rather than derived
want=$(printf '%s' "$dir/" | sed 's/\\/\\\\/g')'odd\\xff \"q\" \\ \\xe2\\x82\nname.dat'
if grep -qaF "awr_qualify_verdict{target=\"$want\"}" "$dir/q.prom"; then
	ok "the target label: 0xff and E2 82 spelled \\xff, quote, backslash and newline escaped"
else
	fail "no awr_qualify_verdict{target=\"$want\"}:" \
		"$(grep -a awr_qualify_verdict "$dir/q.prom")"
fi
# a check's seconds: labelled by the target and the check alone (the result is awr_qualify_check's)
secs=$(grep -ac '^awr_qualify_check_seconds{' "$dir/q.prom")
if [ "$secs" -gt 0 ] && ! grep -a '^awr_qualify_check_seconds{' "$dir/q.prom" | grep -qa 'result='
then
	ok "$secs checks' seconds, labelled by target and check"
else
	fail "awr_qualify_check_seconds: $secs samples, or one with a result label:" \
		"$(grep -a '^awr_qualify_check_seconds{' "$dir/q.prom" | head -n 2)"
fi
[ -e "$dir/$name" ] && fail "qualify left its scratch file" || ok "the scratch file is removed"
# JSON is UTF-8 (RFC 8259): the report and an error document spell such bytes \xff too (json-c
# wrote them raw: no JSON reader took the document)
# utf8_json FILE WANT-TARGET: FILE is strict UTF-8 JSON whose "target" is WANT-TARGET
utf8_json() {
	python3 -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
sys.exit(0 if d.get("target") == sys.argv[2] else 1)' "$1" "$2" 2>/dev/null
}
spelled="$dir/"'odd\xff "q" \ \xe2\x82'$'\n''name.dat'
utf8_json "$dir/r.json" "$spelled" && ok "the report is UTF-8 JSON, its target spelled \\xff" ||
	fail "the report is not UTF-8 JSON with the target spelled:" \
		"$(grep -a '"target"' "$dir/r.json")"
"$awr" probe "$dir/$name" -o json >"$dir/e.json" 2>/dev/null
utf8_json "$dir/e.json" "$spelled" &&
	ok "an error document (probe of the removed path): UTF-8, spelled" ||
	fail "the error document is not UTF-8 JSON with the target spelled: $(cat -v "$dir/e.json")"
rm -f "$dir/r.json" "$dir/e.json" "$dir/q.prom"
[ "$fails" = 0 ]
