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
	fail "no awr_qualify_verdict{target=\"$want\"}: $(grep -a awr_qualify_verdict "$dir/q.prom")"
fi
[ -e "$dir/$name" ] && fail "qualify left its scratch file" || ok "the scratch file is removed"
[ "$fails" = 0 ]
