#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: rewrap the statements of FILE... that run past 100 columns (tabs at 8) with
# clang-format and the project's .clang-format, leaving every other line as it is. String
# literals are not split: a sentence longer than a line is split by hand where it reads well.
#
#   scripts/wrap-lines.sh FILE...
set -eu
command -v clang-format >/dev/null ||
	{ echo "wrap-lines: needs clang-format (apt-get install -y clang-format)" >&2; exit 2; }
cd "$(dirname "$0")/.."
for f in "$@"; do
	lines=$(expand -t8 "$f" | awk 'length > 100 { printf "--lines=%d:%d ", NR, NR }')
	[ -n "$lines" ] || continue
	# shellcheck disable=SC2086
	clang-format -i $lines "$f"
	left=$(expand -t8 "$f" | awk 'length > 100' | wc -l)
	[ "$left" -eq 0 ] || echo "$f: $left lines still over 100 columns (strings or comments: split by hand)"
done
