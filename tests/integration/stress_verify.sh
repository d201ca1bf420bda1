#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr stress and awr verify on scratch XFS: journaled overlapping writers verify clean,
# a second run continues the journal, a wrong unit and a damaged journal are caught, a torn journal
# tail is tolerated, a plain control run (no RWF_ATOMIC) verifies against its journal, bad options
# are usage errors.
#
#   stress_verify.sh AWR   (run under with-scratch-xfs.sh)
set -u

awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed (reads the JSON)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-stress-test.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
t=$dir/stress.dat j=$work/journal
py() { local f=$1 code=$2; shift 2; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $code" "$f" "$@"; }
expect_rc() { # expect_rc RC WHAT CMD...
	local want=$1 what=$2 rc
	shift 2
	"$@" >"$work/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { cat "$work/out"; fail "$what: exit $rc, expected $want"; }
}

"$awr" stress "$t" --unit 16k --threads 4 --writes 3000 --size 2M --journal "$j" -o json >"$work/s1.json" ||
	fail "stress exited $?"
py "$work/s1.json" "assert d['writes'] == 3000 and d['first_generation'] == 1 and d['last_generation'] == 3000 and d['dsync'], d" ||
	fail "first run figures"
"$awr" verify "$t" --unit 16k --journal "$j" -o json >"$work/v1.json" || { cat "$work/v1.json"; fail "verify exited $?"; }
py "$work/v1.json" "c=d['counts']; assert d['units'] == 128 and c['intact'] + c['never_written'] == 128 and c['intact'] >= 8, d
assert d['lost'] == 0 and d['unjournaled'] == 0 and d['acked_writes'] == 3000 and d['journal_records'] == 6001, d
assert d['direct'] and d['mb_per_s'] > 0 and d['ok'] and d['what_to_do'] is None, d" || fail "first verify figures"

# a second run continues the journal's generations; the result still verifies
"$awr" stress "$t" --force --unit 16k --seconds 1 --journal "$j" -o json >"$work/s2.json" || fail "second stress exited $?"
py "$work/s2.json" "assert d['first_generation'] == 3001 and d['writes'] > 0, d" || fail "continued generations"
expect_rc 0 "verify after the second run" "$awr" verify "$t" --unit 16k --journal "$j"
grep -q "lost 0, unjournaled 0" "$work/out" || { cat "$work/out"; fail "no journal line"; }

# the wrong unit: without the journal every stamped unit is misplaced, with it a usage error
expect_rc 1 "verify --unit 8k" "$awr" verify "$t" --unit 8k
grep -q "misplaced:" "$work/out" && grep -q "give --unit 16384" "$work/out" || { cat "$work/out"; fail "wrong unit not reported as misplaced with a hint"; }
grep -q "^result: FAILED: the target was stamped with another unit size" "$work/out" ||
	{ cat "$work/out"; fail "the failed verification does not say what to do"; }
"$awr" verify "$t" --unit 8k -o json >"$work/v8.json"
py "$work/v8.json" "assert not d['ok'] and d['what_to_do'].startswith('the target was stamped with another unit size'), d" ||
	fail "the JSON of a failed verification does not say what to do"
expect_rc 2 "verify --unit 8k --journal" "$awr" verify "$t" --unit 8k --journal "$j"
grep -q "written with --unit 16384" "$work/out" || { cat "$work/out"; fail "no hint at the journal's unit"; }

# a torn last record (a crash during an append) is ignored; damage before the end is an error
cp "$j" "$work/torn" && truncate -s -20 "$work/torn"
expect_rc 0 "verify with a torn journal tail" "$awr" verify "$t" --unit 16k --journal "$work/torn"
b=$(od -An -tu1 -j500 -N1 "$j" | tr -d ' ')	# the byte's complement: never the byte itself
cp "$j" "$work/bad" && printf "\\x$(printf %02x $((255 - b)))" | dd of="$work/bad" bs=1 seek=500 conv=notrunc status=none
expect_rc 2 "verify with a damaged journal" "$awr" verify "$t" --unit 16k --journal "$work/bad"
grep -q "damaged" "$work/out" || { cat "$work/out"; fail "no damage message"; }

# a control run without RWF_ATOMIC works, says so, and what it wrote verifies against its journal
# (without a crash plain writes land whole too: the control shows the writers and the verifier
# work without RWF_ATOMIC, not that atomic writes are needed)
"$awr" stress "$dir/plain.dat" --unit 16k --no-atomic --seconds 1 --size 1M --journal "$work/pj" -o json \
	>"$work/p.json" || fail "plain stress exited $?"
py "$work/p.json" "assert d['atomic'] is False and d['dsync'] and d['writes'] > 0 and d['error'] is None, d" ||
	fail "control run"
"$awr" verify "$dir/plain.dat" --unit 16k --journal "$work/pj" -o json >"$work/pv.json" ||
	{ cat "$work/pv.json"; fail "verify of the control run exited $?"; }
py "$work/pv.json" "w=json.load(open(sys.argv[2]))['writes']; c=d['counts']
assert d['units'] == 64 and c['intact'] + c['never_written'] == 64 and c['intact'] >= 8, d
assert c['torn'] == c['corrupt'] == c['misplaced'] == 0 and d['lost'] == 0 and d['unjournaled'] == 0, d
assert d['acked_writes'] == w and d['journal_records'] == 2 * w + 1 and d['ok'], (w, d)" "$work/p.json" ||
	fail "control run figures"

# usage errors
expect_rc 2 "stress without --unit" "$awr" stress "$t"
expect_rc 2 "stress --unit 1000" "$awr" stress "$t" --unit 1000
expect_rc 2 "stress --seconds and --writes" "$awr" stress "$t" --unit 16k --seconds 1 --writes 5
expect_rc 2 "verify of a missing file" "$awr" verify "$dir/missing" --unit 16k
expect_rc 2 "stress with a unit the target refuses" "$awr" stress "$t" --force --unit 2M --writes 1
grep -q "rule" "$work/out" || { cat "$work/out"; fail "refused unit without its rule"; }
expect_rc 2 "stress on a file holding data, without --force" "$awr" stress "$t" --unit 16k --writes 1
grep -q "holds .* bytes of data" "$work/out" || { cat "$work/out"; fail "the data refusal does not say why"; }
echo "stress_verify: ok"
