#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the bench scripts' results writer on a tiny run: bench/modes.sh writes
# modes-DATE-COMMIT.md and .json from awr bench -o json, the table's figures are the JSON's, the
# summary line names the file; a run that is not awr's JSON is refused and writes nothing.
#
#   bench_results.sh AWR   (under with-scratch-xfs.sh: AWR_SCRATCH_DIR)
set -u
awr=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$awr")/.." && pwd)
f=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}/modes.dat
command -v python3 >/dev/null || { echo "SKIP: python3 not installed (the writer)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-results.XXXXXX") || exit 2
trap 'rm -rf "$work" "$f"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

"$top/bench/modes.sh" -B "$build" -s 0.2 -r 2 -S 16M -d "$work/out" "$f" >"$work/stdout" \
	2>"$work/stderr"; rc=$?
md=$(find "$work/out" -name 'modes-*.md' 2>/dev/null); json=${md%.md}.json
date=$(date -u +%Y-%m-%d)
if [ $rc = 0 ] && [ "$(find "$work/out" -type f | wc -l)" = 2 ] && [ -s "$json" ] &&
   [[ $(basename "$md") =~ ^modes-$date-[0-9a-f]{7,}(-dirty)?\.md$ ]]; then
	pass dated_files
else
	fail dated_files "exit $rc, files: $(ls "$work/out" 2>&1) $(cat "$work/stderr")"
fi

# every mode's pages/s and p99 in the table are the JSON document's, as awr printed it
check=$(python3 - "$md" "$json" <<'EOF'
import json, re, sys
md = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
assert len(doc['runs']) == 2, 'runs: %d' % len(doc['runs'])
assert all(r['bench']['path'] == 'modes.dat' for r in doc['runs']), 'a machine path is kept'
for run in doc['runs']:
    for mode, m in run['bench']['modes'].items():
        row = '| %s | %s | %.0f |' % (run['label'], mode, m['pages_per_s'])
        assert row in md, 'no row %r' % row
        assert m['pages'] > 0 and not m['error'], (mode, m)
p99 = doc['runs'][0]['bench']['modes']['atomic']['latency_us']['p99']
assert re.search(r'\| round 1 \| atomic \| .* [0-9.]+ (us|ms|s) \|', md), 'no human p99'
print('ok %s p99 %s us' % (len(doc['runs']), p99))
EOF
)
if [ $? = 0 ]; then pass table_from_json; else fail table_from_json "$check"; fi

# the summary line: NAME DATE COMMIT: the ratios' medians (FILE)
line=$(tail -1 "$work/stdout")
if [[ $line =~ ^modes\ $date\ [0-9a-f]{7,}(-dirty)?:\ atomic/doublewrite\ [0-9.]+\ \(median\ of\ 2\ runs\),\ atomic/plain\ [0-9.]+.*\($md\)$ ]] &&
   [ "$(wc -l <"$work/stdout")" = 1 ]; then
	pass summary_line
else
	fail summary_line "$(cat "$work/stdout")"
fi

# the control: text output of awr bench is not a document, nothing is written
"$awr" bench "$f" --force --mode plain --seconds 0.2 --size 16M >"$work/text" 2>&1
printf '{"label": "text", "bench": %s}\n' "$(python3 -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read()))' "$work/text")" \
	>"$work/runs.jsonl"
"$top/bench/results.py" control --runs "$work/runs.jsonl" --dir "$work/control" >"$work/c.out" 2>&1; rc=$?
if [ $rc != 0 ] && ! ls "$work/control"/control-* >/dev/null 2>&1 && grep -q "not an awr bench -o json" "$work/c.out"; then
	pass text_refused
else
	fail text_refused "exit $rc: $(cat "$work/c.out")"
fi
[ $fails = 0 ]
