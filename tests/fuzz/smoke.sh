#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the fuzz smoke: every libFuzzer harness runs from its committed seed corpus for a
# fixed time, a few at a time; a crash, a leak, a sanitizer report, a timeout or an out-of-memory
# input fails it.
#
#   smoke.sh HARNESS_DIR CORPUS_ROOT [SECONDS] [JOBS]
#
# HARNESS_DIR holds the executables fuzz-NAME; CORPUS_ROOT/NAME is the seed corpus of fuzz-NAME
# (never written: new inputs go to a scratch copy). Prints one line per harness,
#   PASS fuzz/NAME: N runs in S s, corpus A -> B inputs
#   FAIL fuzz/NAME: REASON (the report's SUMMARY line; the input kept in a file named there)
# then "fuzz: N passed, N failed, N skipped". A harness without a corpus, a corpus without a
# harness, no harness at all, or a run that did not finish (no "Done N runs") is a FAIL.
# Exit 0 only when nothing failed. Defaults: 6 s (60 s with AWR_TEST_LONG=1), 2 jobs (AWR_FUZZ_SECONDS, AWR_FUZZ_JOBS), 25 s
# for one input (AWR_FUZZ_INPUT_TIMEOUT); failing inputs and logs are kept in AWR_FUZZ_KEEP
# (default HARNESS_DIR/fuzz-artifacts).
set -u
[ $# -ge 2 ] || { echo "usage: $0 HARNESS_DIR CORPUS_ROOT [SECONDS] [JOBS]" >&2; exit 2; }
dir=$1 corpus=$2
secs_default=6
[ "${AWR_TEST_LONG:-0}" = 1 ] && secs_default=60
secs=${3:-${AWR_FUZZ_SECONDS:-$secs_default}}
jobs=${4:-${AWR_FUZZ_JOBS:-2}}
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-fuzz.XXXXXX") || exit 2
keep=${AWR_FUZZ_KEEP:-$dir/fuzz-artifacts}
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0

names=()
for h in "$dir"/fuzz-*; do
	[ -f "$h" ] && [ -x "$h" ] || continue
	names+=("$(basename "$h")")
done

# run_one NAME: fuzz one harness; its verdict goes to $work/NAME.result
run_one() {
	local n=${1#fuzz-} out=$work/$1 rc runs reason
	mkdir -p "$out/corpus" "$out/art"
	cp -r "$corpus/$n/." "$out/corpus/"
	local before
	before=$(find "$out/corpus" -type f | wc -l)
	# -timeout: one input running 25 s is a hang; -rss_limit_mb: an input needing 2 GB is a bug
	"$dir/$1" -max_total_time="$secs" -timeout="${AWR_FUZZ_INPUT_TIMEOUT:-25}" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/art/" "$out/corpus" >"$out/log" 2>&1 </dev/null
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -n 1)
	if [ "$rc" != 0 ] || [ -n "$(ls -A "$out/art")" ]; then
		reason=$(grep -m1 -E '^SUMMARY: ' "$out/log" || true)
		[ -n "$reason" ] || reason=$(grep -m1 -E 'ERROR: ' "$out/log" || true)
		mkdir -p "$keep/$n"
		cp "$out/art/"* "$keep/$n/" 2>/dev/null
		tail -n 60 "$out/log" >"$keep/$n/log"
		echo "FAIL ${reason:-exit $rc} (exit $rc; input and log kept in $keep/$n)" >"$out/result"
	elif ! grep -qE '^Done [0-9]+ runs' "$out/log" || [ -z "$runs" ]; then
		echo "FAIL the run did not finish (no \"Done N runs\"): $(tail -n 1 "$out/log")" >"$out/result"
	else
		echo "PASS $runs runs in $secs s, corpus $before -> $(find "$out/corpus" -type f | wc -l) inputs" \
			>"$out/result"
	fi
}

if [ ${#names[@]} = 0 ]; then
	echo "FAIL fuzz-stage: no harness fuzz-* in $dir"
	failed=1
fi
for c in "$corpus"/*/; do
	c=$(basename "$c")
	[ -x "$dir/fuzz-$c" ] || { echo "FAIL fuzz/$c: a seed corpus without a harness ($dir/fuzz-$c)"; failed=$((failed + 1)); }
done

running=0
for h in "${names[@]}"; do
	n=${h#fuzz-}
	if [ ! -d "$corpus/$n" ] || [ -z "$(ls -A "$corpus/$n" 2>/dev/null)" ]; then
		mkdir -p "$work/$h"
		echo "FAIL no committed seed corpus ($corpus/$n)" >"$work/$h/result"
		continue
	fi
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$h" &
	running=$((running + 1))
done
wait

for h in "${names[@]}"; do
	r=$(cat "$work/$h/result" 2>/dev/null || echo "FAIL no result")
	case "$r" in
	PASS*) passed=$((passed + 1)); echo "PASS fuzz/${h#fuzz-}: ${r#PASS }" ;;
	*) failed=$((failed + 1)); echo "FAIL fuzz/${h#fuzz-}: ${r#FAIL }" ;;
	esac
done
echo "fuzz: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
