#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: ENOSPC on a tiny full XFS during awr write (sync and io_uring), awr stress, awr bench
# and the page store (examples/dbpages). Each run must end (meson's timeout is the only hang detector,
# no timed assertion) with exit 1 and an error naming ENOSPC and the offset (the page for the store);
# nothing outside the named range may change: the bytes before the write's range, the units past the
# failed one that the report does not count as landed, and a file filling the filesystem are read back
# and compared (cmp, sha256sum). A stress run's journal is verified afterwards: no torn, corrupt,
# misplaced or lost unit, its acknowledgements equal the writes reported. Last, stress's journal on a
# full filesystem (a 256 KiB tmpfs): the run stops naming ENOSPC, the journal holds whole records only
# and verifies.
#
# XFS over a loop device has no hardware atomics: an atomic write takes the copy-on-write path and
# needs free blocks even when it overwrites (xfs_atomic_write_cow_iomap_begin, fs/xfs/xfs_iomap.c,
# Linux 6.16+), so a full filesystem refuses atomic writes that plain overwrites still make.
#
# Negative controls: the checks below are run on copies with one byte changed outside the named range
# and with one unit past the failed one changed, and must fail.
#
#   with-scratch-xfs.sh --size 300M faults_enospc.sh AWR DBPAGES
set -u
awr=$1 dbpages=$2
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
j=$(mktemp -d "${TMPDIR:-/tmp}/awr-enospc.XXXXXX") || exit 2	# inputs and journals on another filesystem
trap 'rm -rf "$j"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
U=16384
MiB=1048576

# fill_fs KIB: fill the filesystem with $dir/fill, then free KIB KiB of it again
fill_fs() {
	rm -f "$dir/fill"
	sync
	dd if=/dev/urandom of="$dir/fill" bs=1M status=none 2>/dev/null
	[ "$1" -gt 0 ] && truncate -s "-$1K" "$dir/fill"
	sync
	fill_hash=$(sha256sum <"$dir/fill")
}
fill_same() { [ "$(sha256sum <"$dir/fill")" = "$fill_hash" ] || fail "$1: the file filling the filesystem changed"; }

# check_units FILE INPUT BASE FAILED LANDED: the units of FILE from BASE on against INPUT (its data
# from BASE): every unit before FAILED holds INPUT's; the one at FAILED does not; each one after it
# holds INPUT's or zeros (or lies past the end); LANDED (or "-") is how many hold INPUT's. Prints
# what differs, exit 1.
check_units() {
	python3 - "$@" <<'EOF'
import sys
path, inp, base, failed, landed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
U = 16384
f, want = open(path, 'rb').read(), open(inp, 'rb').read()
bad, got = [], 0
for i in range(len(want) // U):
    off = base + i * U
    have, w = f[off:off + U], want[i * U:(i + 1) * U]
    if have == w:
        got += 1
        if off == failed:
            bad.append(f'the unit at {off} (the failed write) holds the new data')
    elif off < failed:
        bad.append(f'the unit at {off}, before the failed write, does not hold the new data')
    elif have.strip(b'\0'):
        bad.append(f'the unit at {off} holds data that is neither old (zeros) nor new')
if landed != '-' and got != int(landed):
    bad.append(f'{got} units hold the new data, the report says {landed} landed')
for b in bad[:5]:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

# same_range FILE SAVED OFF LEN: FILE's bytes [OFF, OFF+LEN) equal SAVED's
same_range() { cmp -s <(dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$3" count="$4" status=none) \
	<(dd if="$2" bs=1M iflag=skip_bytes,count_bytes skip="$3" count="$4" status=none); }

# error_offset TEXT: the offset named by "... at N ..."
error_offset() { sed -n 's/.* at \([0-9][0-9]*\)[:, ].*/\1/p' <<<"$1" | head -n 1; }

head -c $((4 * MiB)) /dev/urandom >"$j/old"
head -c $((16 * MiB)) /dev/urandom >"$j/new"

# --- awr write: 4 MiB of data, then 16 MiB of units appended at 4 MiB with about 1 MiB free -----------
for engine in sync uring; do
	t=$dir/write-$engine
	rm -f "$dir"/write-*
	cp "$j/old" "$t"
	fill_fs 1024
	out=$("$awr" write "$t" --offset 4M --length 16M --unit 16k --input "$j/new" --engine "$engine" --force 2>&1)
	rc=$?
	off=$(error_offset "$out")
	echo "write ($engine): exit $rc: $out"
	[ "$rc" = 1 ] || fail "write ($engine): exit $rc, expected 1"
	grep -q "No space left on device" <<<"$out" || fail "write ($engine): the error does not name ENOSPC"
	if [ -z "$off" ]; then
		fail "write ($engine): the error names no offset"
		continue
	fi
	[ $((off % U)) = 0 ] && [ "$off" -ge $((4 * MiB)) ] && [ "$off" -lt $((20 * MiB)) ] ||
		fail "write ($engine): the offset $off is not a unit of the range [4 MiB, 20 MiB)"
	landed=$(sed -n 's/.*; \([0-9][0-9]*\) of [0-9]* units landed.*/\1/p' <<<"$out")
	[ "$engine" = sync ] && landed=$(( (off - 4 * MiB) / U ))
	same_range "$t" "$j/old" 0 $((4 * MiB)) || fail "write ($engine): the 4 MiB before --offset changed"
	why=$(check_units "$t" "$j/new" $((4 * MiB)) "$off" "${landed:--}") || fail "write ($engine): $why"
	fill_same "write ($engine)"
	echo "write ($engine): ENOSPC at $off, $landed units landed before it; the 4 MiB before and the filling file unchanged"
	if [ "$engine" = uring ]; then
		# negative controls: one byte before the range, one unit past the failed one
		cp "$t" "$j/ctl"
		# the byte turned into its complement (a constant may be the random byte already: 1 in 256)
		b=$(od -An -tu1 -j4096 -N1 "$j/ctl" | tr -d ' ')
		printf "\\x$(printf %02x $((255 - b)))" | dd of="$j/ctl" bs=1 seek=4096 conv=notrunc status=none
		same_range "$j/ctl" "$j/old" 0 $((4 * MiB)) && fail "control: a byte changed before the range was not seen"
		cp "$t" "$j/ctl"
		dd if="$j/new" of="$j/ctl" bs=$U skip=$(( (off - 4 * MiB) / U + 1 )) seek=$(( off / U + 1 )) count=1 \
			conv=notrunc status=none
		check_units "$j/ctl" "$j/new" $((4 * MiB)) "$off" "${landed:--}" >/dev/null &&
			fail "control: a unit past the failed write holding new data was not counted"
		dd if=/dev/urandom of="$j/ctl" bs=$U seek=$(( off / U + 1 )) count=1 conv=notrunc status=none
		check_units "$j/ctl" "$j/new" $((4 * MiB)) "$off" - >/dev/null &&
			fail "control: a unit past the failed write holding other data was not seen"
		rm -f "$j/ctl"
	fi
done
rm -f "$dir"/write-*

# --- awr stress: 4 writers over an 8 MiB span: 4 MiB of data, a 4 MiB hole, 512 KiB / 2 MiB free
t=$dir/stress
rm -f "$dir/fill"
cp "$j/old" "$t"
cp "$j/old" "$dir/stress-text"
fill_fs 512
"$awr" stress "$dir/stress-text" --unit 16k --size 8M --threads 4 --seconds 3600 --force >"$j/text.out" 2>&1
grep -q "stopped by a failed write at offset [0-9]*: No space left on device" "$j/text.out" ||
	fail "stress (text): no 'stopped by a failed write at offset N: No space left on device': $(cat "$j/text.out")"
fill_same "stress (text)"
fill_fs 2048
"$awr" stress "$t" --unit 16k --size 8M --threads 4 --seconds 3600 --journal "$j/journal" --force -o json \
	>"$j/stress.json" 2>"$j/stress.err"
rc=$?
[ "$rc" = 1 ] || fail "stress: exit $rc, expected 1: $(cat "$j/stress.err")"
read -r err eoff writes < <(json "$j/stress.json" "d['error'], d['error_offset'], d['writes']") ||
	fail "stress: the report is not JSON"
echo "stress: exit $rc, error $err at offset $eoff after $writes writes"
[ "$err" = ENOSPC ] || fail "stress: error $err, expected ENOSPC"
[ "$eoff" != None ] && [ $((eoff % U)) = 0 ] && [ "$eoff" -lt $((8 * MiB)) ] ||
	fail "stress: the error offset $eoff is not a unit of the span"
size=$(stat -c %s "$j/journal")
[ $((size % 48)) = 0 ] || fail "stress: the journal ends with a partial record ($size bytes)"
rm -f "$dir/fill"	# verify reads; space back for nothing else
"$awr" verify "$t" --unit 16k --journal "$j/journal" -o json >"$j/verify.json" 2>&1
vrc=$?
[ "$vrc" = 0 ] || fail "stress: verify exited $vrc: $(head -c 400 "$j/verify.json")"
read -r torn corrupt misplaced lost acked < <(json "$j/verify.json" \
	"d['counts']['torn'], d['counts']['corrupt'], d['counts']['misplaced'], d['lost'], d['acked_writes']" | tr -d '(),')
echo "stress: verify: torn $torn, corrupt $corrupt, misplaced $misplaced, lost $lost, acknowledged $acked"
[ "$torn $corrupt $misplaced $lost" = "0 0 0 0" ] || fail "stress: verify found damage"
[ "$acked" = "$writes" ] || fail "stress: the journal acknowledges $acked writes, the report counts $writes"
rm -f "$t" "$dir/stress-text" "$j/journal"

# --- awr bench: an 8 MiB file, bench's span its first 4 MiB, the filesystem full --------------------
t=$dir/bench
head -c $((8 * MiB)) /dev/urandom >"$j/bench-old"
cp "$j/bench-old" "$t"
fill_fs 0
"$awr" bench "$t" --unit 16k --size 4M --seconds 3600 --mode atomic --force >"$j/bench.out" 2>&1
rc=$?
out=$(grep -m1 "failed" "$j/bench.out")
off=$(error_offset "$out")
echo "bench: exit $rc: $out"
[ "$rc" = 1 ] || fail "bench: exit $rc, expected 1: $(cat "$j/bench.out")"
grep -q "No space left on device" <<<"$out" || fail "bench: the error does not name ENOSPC"
[ -n "$off" ] && [ $((off % U)) = 0 ] && [ "$off" -lt $((4 * MiB)) ] || fail "bench: no offset in its span named"
same_range "$t" "$j/bench-old" $((4 * MiB)) $((4 * MiB)) || fail "bench: the file past its span changed"
fill_same bench
rm -f "$t"

# --- the page store: no room for its doublewrite area (8 MiB), 2 MiB free ------------------------------
# It fails naming the area; the half-made area is left empty, so that with the space back the store opens.
t=$dir/pages
fill_fs 2048
"$dbpages" "$t" auto 1024 >"$j/pages.out" 2>&1
rc=$?
echo "pages (area): exit $rc: $(tr '\n' ' ' <"$j/pages.out" | cut -c 1-300)"
[ "$rc" = 1 ] || fail "pages (area): exit $rc, expected 1"
grep -q "cannot write the doublewrite area .*No space left on device" "$j/pages.out" ||
	fail "pages (area): the error does not name the area and ENOSPC"
fill_same pages
rm -f "$dir/fill"
"$dbpages" "$t" auto 64 >"$j/pages1.out" 2>&1 || fail "pages (area): with the space back: $(cat "$j/pages1.out")"
rm -f "$t" "$t.awr-dw"

# --- the page store: examples/dbpages, 1024 pages of 16 KiB twice, 12 MiB free (the area fits) ---------
fill_fs 12288
"$dbpages" "$t" auto 1024 >"$j/pages.out" 2>&1
rc=$?
echo "pages: exit $rc: $(tr '\n' ' ' <"$j/pages.out" | cut -c 1-300)"
[ "$rc" = 1 ] || fail "pages: exit $rc, expected 1"
grep -qE "^page [0-9]+: No space left on device" "$j/pages.out" || fail "pages: no page named with ENOSPC"
fill_same pages
# the store stays usable: with the space back it opens, recovers, writes every page and reads it back
rm -f "$dir/fill"
"$dbpages" "$t" auto 1024 >"$j/pages2.out" 2>&1 || fail "pages: after ENOSPC and the space freed: $(cat "$j/pages2.out")"
echo "pages: with the space back: $(grep reopened "$j/pages2.out")"

# --- a full journal filesystem: stress's journal on a 256 KiB tmpfs with 8 KiB free ------------------
# The run must stop (it is given an hour), name ENOSPC, exit 2 (the environment failed, not the
# device), leave whole records only, and verify against that journal: nothing torn, nothing lost.
jm=$j/jfs
mkdir -p "$jm"
mount -t tmpfs -o size=256k awr-journal "$jm" || { echo "FAIL: cannot mount a tmpfs"; exit 1; }
trap 'umount "$jm" 2>/dev/null; rm -rf "$j"' EXIT
dd if=/dev/zero of="$jm/fill" bs=4k status=none 2>/dev/null
truncate -s -8k "$jm/fill"
for mode in text json; do	# the json run's target and journal are checked below
	t=$dir/stress-jfull-$mode
	rm -f "$jm/journal"
	"$awr" stress "$t" --unit 16k --size 8M --threads 4 --seconds 3600 --journal "$jm/journal" --force \
		$([ $mode = json ] && echo -o json) >"$j/jfull.$mode" 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "full journal ($mode): exit $rc, expected 2: $(head -c 300 "$j/jfull.$mode")"
done
grep -q "the journal failed: No space left on device" "$j/jfull.text" ||
	fail "full journal: no 'the journal failed: No space left on device': $(cat "$j/jfull.text")"
read -r jerr err writes < <(json "$j/jfull.json" "d['journal_error'], d['error'], d['writes']") ||
	fail "full journal: the report is not JSON"
size=$(stat -c %s "$jm/journal")
echo "full journal: stress exit 2, journal_error $jerr, error $err, $writes writes, journal $size bytes"
[ "$jerr $err" = "ENOSPC None" ] || fail "full journal: journal_error $jerr error $err, expected ENOSPC None"
[ $((size % 48)) = 0 ] || fail "full journal: the journal ends with a partial record ($size bytes)"
"$awr" verify "$t" --unit 16k --journal "$jm/journal" -o json >"$j/jverify.json" 2>&1 ||
	fail "full journal: verify failed: $(head -c 400 "$j/jverify.json")"
read -r torn corrupt misplaced lost acked < <(json "$j/jverify.json" \
	"d['counts']['torn'], d['counts']['corrupt'], d['counts']['misplaced'], d['lost'], d['acked_writes']" | tr -d '(),')
echo "full journal: verify: torn $torn, corrupt $corrupt, misplaced $misplaced, lost $lost, acknowledged $acked of $writes writes"
[ "$torn $corrupt $misplaced $lost" = "0 0 0 0" ] || fail "full journal: verify found damage"
[ "$acked" -gt 0 ] && [ "$acked" -le "$writes" ] || fail "full journal: $acked acknowledged, $writes written"
# negative control: an acknowledged unit put back to its content before the run (zeros) is lost
u=$(python3 - "$jm/journal" <<'EOF2'
import struct, sys
b = open(sys.argv[1], 'rb').read()
acks = [struct.unpack_from('<Q', b, i + 8)[0] for i in range(0, len(b), 48) if b[i + 3] ^ 0x4a == 3]
print(acks[-1] if acks else -1)
EOF2
)
if [ "$u" -ge 0 ] 2>/dev/null; then
	dd if=/dev/zero of="$t" bs=$U seek="$u" count=1 conv=notrunc status=none
	"$awr" verify "$t" --unit 16k --journal "$jm/journal" -o json >"$j/jverify2.json" 2>&1
	[ "$(json "$j/jverify2.json" "d['lost']")" -ge 1 ] 2>/dev/null ||
		fail "control: acknowledged unit $u zeroed, verify found no lost write: $(head -c 300 "$j/jverify2.json")"
else
	fail "control: no acknowledgement found in the journal"
fi
umount "$jm"

[ "$fails" = 0 ] || { echo "faults_enospc: $fails failure(s)"; exit 1; }
echo "faults_enospc: all passed"
