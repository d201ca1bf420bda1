#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: SIGINT and SIGTERM during awr stress and awr bench stop cleanly: stress exits 128+N
# after its report, its journal ends with a complete record and `awr verify --journal` finds no torn,
# corrupt, misplaced or lost unit, and every write the report counts is in the journal; bench exits
# 128+N with its figures. A control sends SIGKILL (no clean stop is possible): verify must still find
# no torn unit, and the journal's acknowledged writes all survive.
#
# Stress and bench run for an hour unless stopped: a stop that does not work ends in meson's timeout
# (no timed assertion here).
#
#   with-scratch-xfs.sh faults_signals.sh AWR
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
j=$(mktemp -d "${TMPDIR:-/tmp}/awr-signals.XXXXXX") || exit 2	# journals on another filesystem
trap 'rm -rf "$j"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# wait_writes JOURNAL: until the journal holds some acknowledgements (the run is writing)
wait_journal() {
	for _ in $(seq 300); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt 4800 ] && return 0
		sleep 0.1
	done
	return 1
}

for sig in INT TERM; do
	t=$dir/stress-$sig
	jf=$j/journal-$sig
	"$awr" stress "$t" --unit 16k --size 8M --threads 4 --seconds 3600 --journal "$jf" -o json \
		>"$j/out-$sig.json" 2>"$j/err-$sig" &
	pid=$!
	wait_journal "$jf" || fail "SIG$sig: stress wrote no journal in 30 s"
	sleep 1
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || fail "SIG$sig: stress exited $rc, expected $want: $(cat "$j/err-$sig")"
	grep -q "stopped by" "$j/err-$sig" || fail "SIG$sig: no 'stopped by' message: $(cat "$j/err-$sig")"
	writes=$(json "$j/out-$sig.json" "d['writes']") || { fail "SIG$sig: the report is not JSON"; continue; }
	[ "$writes" -gt 0 ] || fail "SIG$sig: no write before the signal"
	size=$(stat -c %s "$jf")
	[ $((size % 48)) = 0 ] || fail "SIG$sig: the journal ends with a partial record ($size bytes)"
	"$awr" verify "$t" --unit 16k --journal "$jf" -o json >"$j/v-$sig.json" 2>&1
	vrc=$?
	[ "$vrc" = 0 ] || fail "SIG$sig: verify exited $vrc: $(head -c 400 "$j/v-$sig.json")"
	read -r torn corrupt misplaced lost acked < <(json "$j/v-$sig.json" \
		"d['counts']['torn'], d['counts']['corrupt'], d['counts']['misplaced'], d['lost'], d['acked_writes']" | tr -d '(),')
	echo "SIG$sig: stress stopped after $writes writes (exit $rc); verify: torn $torn, corrupt $corrupt, misplaced $misplaced, lost $lost, acknowledged in the journal $acked"
	[ "$torn $corrupt $misplaced $lost" = "0 0 0 0" ] || fail "SIG$sig: verify found damage"
	[ "$acked" = "$writes" ] || fail "SIG$sig: the journal acknowledges $acked writes, the report counts $writes"

	b=$dir/bench-$sig
	"$awr" bench "$b" --unit 16k --size 8M --seconds 3600 --mode all -o json >"$j/b-$sig.json" 2>"$j/berr-$sig" &
	pid=$!
	sleep 4
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = "$want" ] || fail "SIG$sig: bench exited $rc, expected $want: $(cat "$j/berr-$sig")"
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$j/b-$sig.json" 2>/dev/null ||
		fail "SIG$sig: bench's report is not JSON: $(head -c 300 "$j/b-$sig.json")"
	echo "SIG$sig: bench stopped (exit $rc) with its report: $(grep -o 'stopped by[^;]*' "$j/berr-$sig")"
done

# The control: SIGKILL, no chance to stop cleanly; acknowledged writes must all survive, nothing torn.
t=$dir/stress-KILL
jf=$j/journal-KILL
"$awr" stress "$t" --unit 16k --size 8M --threads 4 --seconds 3600 --journal "$jf" >/dev/null 2>&1 &
pid=$!
wait_journal "$jf" || fail "KILL: no journal"
sleep 1
kill -KILL "$pid"
wait "$pid" 2>/dev/null
"$awr" verify "$t" --unit 16k --journal "$jf" -o json >"$j/v-KILL.json" 2>&1
vrc=$?
read -r torn lost < <(json "$j/v-KILL.json" "d['counts']['torn'], d['lost']" | tr -d '(),')
echo "KILL: verify exit $vrc: torn $torn, lost $lost (the journal's tail may hold writes not acknowledged)"
[ "$vrc" = 0 ] && [ "$torn $lost" = "0 0" ] || fail "KILL: verify found damage (exit $vrc)"

[ "$fails" = 0 ] && echo "faults_signals: ok"
[ "$fails" = 0 ]
