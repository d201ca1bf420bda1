#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the page store against the naive doublewrite in whole processes on a scratch XFS image:
# rounds of `awr bench --mode doublewrite` (the naive doublewrite on a file written in full) and
# `awr bench --mode pages` (the store in the mode AUTO chooses, the store forced to doublewrite mode and
# the naive doublewrite again, batch by batch in one process), in alternating order; prints each round
# and the medians of the per-round ratios; writes pages-DATE-COMMIT.md and .json (the awr bench -o json
# documents) to DIR (default bench/results/, bench/results.py) and ends with its summary line.
#
#   bench/pages.sh [-B BUILDDIR] [-s SECONDS] [-r ROUNDS] [-S SPAN] [-d DIR]
#
# SECONDS per mode (default 5; pages mode runs three writers, about 3 x SECONDS), ROUNDS (default 6,
# keep it even: each order runs as often). Needs root (loop device, mount) and xfsprogs.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
seconds=5
rounds=6
span=256M
results=$here/results
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-S) span=$2; shift 2 ;;
	-d) results=$2; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0"; exit 0 ;;
	*) echo "pages.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
build=$(absolute "$build") results=$(absolute "$results")

if [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	build_tree
	exec "$top/tests/integration/with-scratch-xfs.sh" --size 3G "$0" -B "$build" -s "$seconds" -r "$rounds" -S "$span" \
		-d "$results"
fi

awr=$build/cli/awr
dir=$AWR_SCRATCH_DIR
tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-pages-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# get FILE PYTHON-EXPRESSION-ON-r: one figure of a JSON report
get() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

naive() {	# the bench's naive doublewrite on a file written in full
	rm -f "$dir/dw.dat" && sync	# the same extents each run (see fresh() in run.sh)
	fill "$dir/dw.dat" $(( $(numfmt --from=iec "$span") >> 20 )) || exit 1
	"$awr" bench "$dir/dw.dat" --force --mode doublewrite --seconds "$seconds" --size "$span" -o json \
		>"$tmp/a.json" 2>"$tmp/a.err" || { cat "$tmp/a.err"; exit 1; }
	results_add "naive doublewrite, round $r" "$tmp/a.json" "$tmp/runs.jsonl" || exit 1
}
store() {	# the store (its scratch files are written in full by bench itself)
	rm -f "$dir/pages.dat"
	"$awr" bench "$dir/pages.dat" --mode pages --seconds "$seconds" --size "$span" -o json \
		>"$tmp/b.json" 2>"$tmp/b.err" || { cat "$tmp/b.err"; exit 1; }
	results_add "page store, round $r" "$tmp/b.json" "$tmp/runs.jsonl" || exit 1
}

{
echo "awr bench --mode doublewrite vs --mode pages: $rounds rounds of $seconds s, span $span, $(uname -r), $(nproc) CPUs"
printf '%-5s %-11s %10s %10s %10s %10s %9s %9s %9s\n' round mode naive pages pages-dw naive-dw "pages/A" "p-dw/A" "paired"
: >"$tmp/r1"; : >"$tmp/r2"; : >"$tmp/r3"
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then naive; store; else store; naive; fi
	a=$(get "$tmp/a.json" 'r["modes"]["doublewrite"]["pages_per_s"]')
	p=$(get "$tmp/b.json" 'r["modes"]["pages"]["pages_per_s"]')
	pd=$(get "$tmp/b.json" 'r["pages_paired"]["pages_doublewrite"]["pages_per_s"]')
	nd=$(get "$tmp/b.json" 'r["pages_paired"]["naive_doublewrite"]["pages_per_s"]')
	pm=$(get "$tmp/b.json" 'r["pages_paired"]["pages_to_naive_median"]')
	mode=$(get "$tmp/b.json" 'r["pages_store"].split(":")[0]')
	r1=$(ratio "$p" "$a") r2=$(ratio "$pd" "$a")
	echo "$r1" >>"$tmp/r1"; echo "$r2" >>"$tmp/r2"; echo "$pm" >>"$tmp/r3"
	printf '%-5s %-11s %10.0f %10.0f %10.0f %10.0f %9s %9s %9s\n' "$r" "$mode" "$a" "$p" "$pd" "$nd" "$r1" "$r2" "$pm"
done
echo "median pages/naive (whole processes): $(median_lower <"$tmp/r1")x (lowest $(sort -g "$tmp/r1" | head -1), highest $(sort -g "$tmp/r1" | tail -1))"
echo "median pages-dw/naive (whole processes): $(median_lower <"$tmp/r2")x (lowest $(sort -g "$tmp/r2" | head -1), highest $(sort -g "$tmp/r2" | tail -1))"
echo "median of the in-process paired pages/naive-dw: $(median_lower <"$tmp/r3")x"
} | tee "$tmp/body.txt"
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
{ echo '```'; cat "$tmp/body.txt"; echo '```'; } >"$tmp/body.md"
"$here/results.py" pages --runs "$tmp/runs.jsonl" --dir "$results" --body "$tmp/body.md" \
	--summary "pages/naive doublewrite $(median_lower <"$tmp/r1") in whole processes, pages-dw/naive $(median_lower <"$tmp/r2")"
