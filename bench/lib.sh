# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Description: what bench/run.sh, bench/pages.sh and bench/modes.sh share; sourced (". "$here/lib.sh"") after
# they set here (this folder). Sets top (the source tree) and build (its build/, the default).
top=$(dirname "${here:?set by the script that sources lib.sh}")
build=$top/build

# absolute PATH: PATH, relative to the current directory when it is not absolute
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

# build_tree: BUILDDIR set up (when it is not yet) and built, or exit 2
build_tree() {
	[ -f "$build/build.ninja" ] || meson setup "$build" "$top" >/dev/null || exit 2
	ninja -C "$build" -j2 >/dev/null || exit 2
}

# middle EVEN: the middle one of the numbers on stdin; of an even count the mean of the two middle
# ones (EVEN "mean") or the lower one (EVEN "lower")
middle() {
	sort -g | awk -v even="$1" '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else if (NR && even == "lower") print v[NR / 2]
		else if (NR) print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# median: the middle one, of an even count the mean of the two middle ones (the lower one alone
# would bias a ratio of medians: pages/s and wall time would pick different runs)
median() { middle mean; }
# median_lower: the middle one, of an even count the lower one
median_lower() { middle lower; }

# ratio A B: A / B to three decimals, n/a when B is not above 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

# fill FILE MIB: FILE written in full with MIB MiB of zeros, direct and flushed
fill() { dd if=/dev/zero of="$1" bs=1M count="$2" oflag=direct conv=fsync status=none; }

# doublewrite_pairs RESULTS ROUNDS: from RESULTS lines "ROUND CONFIG TPS P99" (CONFIG on: doublewrite
# ON; atomic: OFF under the preload), each configuration's medians, the per-round ratios OFF+atomic
# / ON and their medians (bench/mariadb.sh, bench/guest_mariadb.sh); a round missing one side is left out
doublewrite_pairs() {
	local f=$1 rounds=$2 r t1 p1 t2 p2 cfg ratios
	ratios=$(mktemp "${TMPDIR:-/tmp}/awr-ratios.XXXXXX") || return 1
	for cfg in on atomic; do
		printf '%s median: tps %s, p99 %s ms\n' "$cfg" "$(awk -v c=$cfg '$2 == c { print $3 }' "$f" | median)" \
			"$(awk -v c=$cfg '$2 == c { print $4 }' "$f" | median)"
	done
	echo "paired ratios OFF+atomic / ON, per round (tps, p99):"
	for ((r = 1; r <= rounds; r++)); do
		t1= t2=
		read -r t1 p1 < <(awk -v r=$r '$1 == r && $2 == "on" { print $3, $4 }' "$f")
		read -r t2 p2 < <(awk -v r=$r '$1 == r && $2 == "atomic" { print $3, $4 }' "$f")
		[ -n "$t1" ] && [ -n "$t2" ] || continue
		echo "$(ratio "$t2" "$t1") $(ratio "$p2" "$p1")" >>"$ratios"
		echo "  round $r: tps $(ratio "$t2" "$t1"), p99 $(ratio "$p2" "$p1")"
	done
	[ -s "$ratios" ] && echo "median ratio: tps $(awk '{ print $1 }' "$ratios" | median), p99 $(awk '{ print $2 }' "$ratios" | median)"
	rm -f "$ratios"
}

# results_add LABEL JSON RUNS: the awr bench -o json document in file JSON appended to RUNS (JSON
# lines) as one run named LABEL, for bench/results.py (which writes the dated results file)
results_add() {
	python3 -c 'import json, sys
print(json.dumps({"label": sys.argv[1], "bench": json.load(open(sys.argv[2]))}))' "$1" "$2" >>"$3"
}
