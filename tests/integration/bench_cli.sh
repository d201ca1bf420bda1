#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr bench measures atomic, plain and doublewrite page writes on a real file, reports a refused atomic size per mode, and refuses mounted devices and bad options.
#
#   bench_cli.sh AWR     (under with-scratch-xfs.sh: AWR_SCRATCH_DIR, AWR_SCRATCH_DEV)
set -u
awr=$1
f=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}/bench.dat
err=$(mktemp "${TMPDIR:-/tmp}/awr-bench.XXXXXX") || exit 2
json_num() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" | head -1; }	# the first "KEY": NUMBER
trap 'rm -f "$err" "$f"' EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# json_get MODE KEY: the first "KEY": value after "MODE": { in awr's pretty JSON.
json_get() {
	awk -v m="\"$1\": {" -v k="\"$2\":" 'index($0, m) { on = 1 } on && index($0, k) { sub(/.*: /, ""); sub(/,$/, ""); print; exit }'
}

out=$("$awr" bench "$f" --seconds 0.3 --size 16M --qd 8 -o json 2>"$err"); rc=$?
ok=1
for m in atomic plain doublewrite; do
	p=$(json_get "$m" pages <<<"$out"); e=$(json_get "$m" error <<<"$out")
	[ "${p:-0}" -gt 0 ] && [ "$e" = null ] || ok=0
done
size=$(stat -c %s "$f")
if [ $rc = 0 ] && [ $ok = 1 ] && [ "$size" = 16777216 ] && grep -q '"atomic_to_doublewrite": [0-9]' <<<"$out" && [ ! -s "$err" ]; then
	pass all_modes_json
else
	fail all_modes_json "rc $rc size $size: $out $(cat "$err")"
fi
# the path each mode's writes took, from the file's map before and after: over a loop device (no
# hardware atomics) the new file was written in full first and every atomic write moved its page
# (copy-on-write), while plain writes stayed in place; xfs_io reads the map the same way after
if grep -q '"layout": "written in full' <<<"$out" && [ "$(json_get atomic moved_pages <<<"$out")" -gt 0 ] &&
   [ "$(json_get plain moved_pages <<<"$out")" = 0 ] && [ "$(json_get pages moved_pages <<<"$out")" = null ]; then
	pass modes_report_their_path
else
	fail modes_report_their_path "layout $(grep -o '"layout": "[^"]*"' <<<"$out"), moved atomic $(json_get atomic moved_pages <<<"$out") plain $(json_get plain moved_pages <<<"$out")"
fi

# where a batch's time goes (fdatasync durability): each mode's batches timed step by step; the
# steps account for most of the mode's time and never for more; atomic has no copy, doublewrite has
# one; pages mode's store writes a batch in one call (null)
steps_ok=1 why=
for m in atomic plain doublewrite; do
	n=$(json_get "$m" batches <<<"$out"); c=$(json_get "$m" copy <<<"$out"); w=$(json_get "$m" writes <<<"$out")
	fl=$(json_get "$m" flush <<<"$out"); sec=$(json_get "$m" seconds <<<"$out")
	why="$why $m: $n batches, copy $c writes $w flush $fl ms, mode $sec s;"
	awk -v m="$m" -v n="$n" -v c="$c" -v w="$w" -v f="$fl" -v s="$sec" 'BEGIN {
		t = (c + w + f) * n / 1000
		# the JSON rounds each step to 0.001 ms and the mode to 0.001 s: allow what that adds up to
		slack = n * 3 * 0.0005 / 1000 + 0.0005
		exit !(n > 0 && w > 0 && f > 0 && (m == "doublewrite" ? c > 0 : c == 0) && t <= s * 1.001 + slack &&
		       t >= s * 0.5) }' ||
		steps_ok=0
done
if [ $steps_ok = 1 ] && [ "$(json_get pages batch_ms <<<"$out")" = null ]; then
	pass batch_steps
else
	fail batch_steps "$why pages: $(json_get pages batch_ms <<<"$out")"
fi

# the file now holds data: refused without --force, and left alone
sum=$(sha256sum <"$f")
out=$("$awr" bench "$f" --seconds 0.2 --size 16M 2>&1); rc=$?
if [ $rc = 2 ] && grep -q "holds .* bytes of data" <<<"$out" && [ "$(sha256sum <"$f")" = "$sum" ]; then
	pass data_file_refused
else
	fail data_file_refused "rc $rc: $out"
fi

out=$("$awr" bench "$f" --force --mode atomic --durability none --order sequential --qd 1 --seconds 0.2 --size 16M 2>"$err"); rc=$?
if [ $rc = 0 ] && grep -q "durability: none" <<<"$out" && grep -Eq "^atomic +[0-9]+" <<<"$out" && ! grep -q $'\r' "$err" &&
   ! grep -q "a batch of" <<<"$out"; then	# no batches without a sync step: no step times
	pass atomic_sequential_qd1
else
	fail atomic_sequential_qd1 "rc $rc: $out $(cat "$err")"
fi

# 2 MiB pages exceed XFS's default atomic maximum (1 MiB): atomic refused with its rule, plain runs, exit 1.
out=$("$awr" bench "$f" --force --unit 2M --qd 4 --mode all --durability dsync --seconds 0.2 --size 32M 2>&1); rc=$?
# (a refused mode wrote nothing: no line says where its pages went)
if [ $rc = 1 ] && grep -q "^atomic .*failed: .*rule too_large" <<<"$out" && grep -Eq "^plain +[0-9]+" <<<"$out" &&
   ! grep -q "^atomic: .* pages moved" <<<"$out"; then
	pass refused_unit_too_large
else
	fail refused_unit_too_large "rc $rc: $out"
fi

# Two jobs (one ring each), plain writes from registered buffers, SQPOLL: the JSON names them, every
# page of both jobs counted, the queue held (writes in the kernel at a reap, from awr_queue_stats()),
# CPU per write reported; the data area still reads back as written pages (not the zeros from before).
dd if=/dev/zero of="$f" bs=1M count=16 oflag=direct status=none
out=$("$awr" bench "$f" --force --mode plain --durability none --jobs 2 --fixed-buffers --sqpoll --qd 8 \
	--seconds 0.5 --size 16M -o json 2>"$err"); rc=$?
pages=$(json_num pages <<<"$out"); inflight=$(json_num inflight_mean <<<"$out"); cpu=$(json_num cpu_ns_per_write <<<"$out")
queue=$(json_num queue_ns_per_write <<<"$out")
# the library's part of a write (queueing, no system call) is a part of the process's CPU per write
if [ $rc = 0 ] && grep -q '"jobs": 2' <<<"$out" && grep -q '"fixed_buffers": true' <<<"$out" &&
	grep -q '"sqpoll": true' <<<"$out" && [ "${pages:-0}" -gt 0 ] &&
	awk -v i="$inflight" 'BEGIN { exit !(i > 4 && i <= 8) }' && awk -v c="$cpu" 'BEGIN { exit !(c > 0) }' &&
	awk -v q="$queue" -v c="$cpu" 'BEGIN { exit !(q > 0 && q < c) }' &&
	[ "$(head -c 8M "$f" | tr -d '\0' | head -c 1 | wc -c)" = 1 ]; then
	pass jobs2_fixed_buffers_sqpoll
else
	fail jobs2_fixed_buffers_sqpoll "rc $rc (pages ${pages:-?}, in flight ${inflight:-?}, CPU ns ${cpu:-?}, queue ns ${queue:-?}): $out $(cat "$err")"
fi
out=$("$awr" bench "$f" --force --jobs 0 2>&1); rc=$?
[ $rc = 2 ] && grep -q "awr: --jobs" <<<"$out" && pass "usage --jobs" || fail "usage --jobs 0" "rc $rc: $out"

out=$("$awr" bench "$AWR_SCRATCH_DEV" --seconds 0.2 2>&1); rc=$?
[ $rc = 2 ] && grep -q "refusing to write" <<<"$out" && pass refuses_mounted_device || fail refuses_mounted_device "rc $rc: $out"

# an unknown word: every word the option takes is named, from the library's names
out=$("$awr" bench "$f" --mode fast 2>&1); rc=$?
[ $rc = 2 ] && grep -q "use one of atomic, plain, doublewrite, pages, all" <<<"$out" &&
	pass "usage --mode names every mode" || fail "usage --mode names every mode" "rc $rc: $out"

for bad in "--mode fast" "--seconds 0" "--unit 1000" "--qd 0" "--durability always" "--order backwards"; do
	# shellcheck disable=SC2086
	out=$("$awr" bench "$f" $bad 2>&1); rc=$?
	[ $rc = 2 ] && grep -q "awr: --" <<<"$out" && pass "usage ${bad%% *}" || fail "usage $bad" "rc $rc: $out"
done

[ $fails = 0 ]
