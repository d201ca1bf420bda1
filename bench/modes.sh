#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr bench's own comparison, every mode (atomic, plain, doublewrite, the page
# store) on one file, ROUNDS rounds; writes the dated results file from the runs' `awr bench -o
# json` documents (bench/results.py) and prints its summary line.
#
#   bench/modes.sh [-B BUILDDIR] [-s SECONDS] [-r ROUNDS] [-S SPAN] [-d DIR] [FILE]
#
# SECONDS per mode (default 10), ROUNDS (default 4), SPAN (default 256M). FILE (default: a file
# on a scratch XFS image this script makes, which needs root, a loop device and xfsprogs) is
# overwritten. The results go to DIR (default bench/results/): modes-DATE-COMMIT.md and .json.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
seconds=10
rounds=4
span=256M
dir=$here/results
file=
while [ $# -gt 0 ]; do
	case "$1" in
	-B) build=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-S) span=$2; shift 2 ;;
	-d) dir=$2; shift 2 ;;
	-h|--help) sed -n '3,11p' "$0"; exit 0 ;;
	-*) echo "modes.sh: unknown option $1" >&2; exit 2 ;;
	*) file=$1; shift ;;
	esac
done
build=$(absolute "$build") dir=$(absolute "$dir")
if [ -z "$file" ] && [ -z "${AWR_SCRATCH_DIR:-}" ]; then
	build_tree
	exec "$top/tests/integration/with-scratch-xfs.sh" --size 2G "$0" -B "$build" -s "$seconds" \
		-r "$rounds" -S "$span" -d "$dir"
fi
[ -n "$file" ] || file=$AWR_SCRATCH_DIR/modes.dat

tmp=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-modes.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
for ((r = 1; r <= rounds; r++)); do
	"$build/cli/awr" bench "$file" --force --seconds "$seconds" --size "$span" -o json \
		>"$tmp/run.json" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	results_add "round $r" "$tmp/run.json" "$tmp/runs.jsonl" || exit 1
	echo "  round $r of $rounds done" >&2
done
"$here/results.py" modes --runs "$tmp/runs.jsonl" --dir "$dir" \
	--about "awr bench, every mode, $rounds rounds of $seconds s per mode over a span of $span."
