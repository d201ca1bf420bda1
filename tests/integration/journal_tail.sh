#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr stress appends after a journal tail a crash damaged (a partial record, zero-filled
# records): the damage is cut off, awr verify reads every record of the later runs, and generations
# are not reused.
#
#   journal_tail.sh AWR   (run under with-scratch-xfs.sh)
set -u

awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed (reads the JSON)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-journal-tail.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
t=$dir/tail.dat j=$work/journal
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }
size_of() { stat -c %s "$1"; }

# a journal holding one RUN record (generation 1), then 20 bytes of a half-written record
"$awr" stress "$t" --unit 16k --writes 50 --size 1M --journal "$j" >/dev/null || fail "first stress exited $?"
truncate -s 48 "$j" && printf 'garbage-garbage-garb' >>"$j" || fail "cannot damage the journal"
[ "$(size_of "$j")" = 68 ] || fail "damaged journal is $(size_of "$j") bytes, expected 68"
rm -f "$t"	# its stamps came from records just cut off

# stress_after WHAT WRITES FIRST RECORDS ACKED [ARGS...]: a stress run appending to the journal takes
# generations FIRST.. on, leaves RECORDS whole records, and verify reads them all, none unjournaled
stress_after() {
	local what=$1 writes=$2 first=$3 records=$4 acked=$5
	shift 5
	"$awr" stress "$t" "$@" --unit 16k --threads 4 --writes "$writes" --journal "$j" -o json >"$work/s.json" ||
		fail "stress after $what exited $?"
	py "$work/s.json" "assert d['first_generation'] == $first and d['last_generation'] == $((first + writes - 1)), d
assert d['journal_error'] is None, d" || fail "stress after $what: generations"
	[ "$(size_of "$j")" = $((48 * records)) ] || fail "after $what: journal is $(size_of "$j") bytes, expected $((48 * records))"
	"$awr" verify "$t" --unit 16k --journal "$j" -o json >"$work/v.json" || { cat "$work/v.json"; fail "verify after $what exited $?"; }
	py "$work/v.json" "assert d['journal_records'] == $records and d['acked_writes'] == $acked, d
assert d['unjournaled'] == 0 and d['lost'] == 0 and d['counts']['intact'] > 0 and d['ok'], d" ||
		fail "verify after $what"
}

# 2 RUN records, 300 intents, 300 acks, and nothing of the 20 bytes
stress_after "a damaged tail" 300 2 602 300 --size 1M
# zero-filled full records at the end (a crash after the size grew, before the data landed)
head -c 96 /dev/zero >>"$j"
stress_after "a zero-filled tail" 100 302 803 400 --force
echo "journal_tail: ok"
