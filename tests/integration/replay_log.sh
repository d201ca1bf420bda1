#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr replay on dm-log-writes logs written here in the kernel's format
# (replay_mklog.py): the listing (entries, flags, flush points, marks), the device's state at
# every entry, flush point and mark, incremental replay, discards, and a damaged log, an
# unknown flag or a too small target refused naming the entry (the kernel's own logs:
# tests/vm/guest/logwrites.sh). As root also a loop device target: the filesystem refusal,
# --force and BLKZEROOUT.
set -u
awr=$1
mklog=$2
. "$(dirname "$0")/expect.sh"
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-replay.XXXXXX") || exit 2
dev=
cleanup() {
	mountpoint -q "$work/mnt" 2>/dev/null && umount "$work/mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fails=0

# A log of both kinds of flush, FUA, metadata, marks and a discard over data written before it.
# Entries: 1 w 2 w(meta) 3 flush 4 w(fua) 5 mark one 6 discard 7 w(flush+fua) 8 w 9 mark two
OPS="w:0:2 w:4:1:meta f w:8:3:fua m:one d:0:1 w:1:1:flush+fua w:12:4 m:two"
NR=9
FLUSH_POINTS="3 4 7"

# the listing against the model's: every key of every entry, the flush points, the marks
check_listing() { # SECTORSIZE
	local dir=$work/s$1 got
	"$awr" replay "$dir/log" -o json > "$work/got.json" || { fail "list ($1): exit $?"; return; }
	python3 - "$dir/entries.json" "$work/got.json" <<'PY' && ok "list ($1): -o json equals the log written" ||
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
got.pop('outcome', None)
want['log'] = got['log']
for k in set(want) | set(got):
    if got.get(k) != want.get(k):
        print('key', k, 'got', got.get(k), 'want', want.get(k))
sys.exit(got != want)
PY
		fail "list ($1): -o json differs from the log written"
	out=$("$awr" replay "$dir/log")
	expect_text "$NR entries, 3 flush points, 2 marks"
	expect_text "FLUSH|FUA"
}

# replay to a point onto a fresh zeroed image; the image must equal the model's state there
check_state() { # SECTORSIZE N DESC ARGS...
	local dir=$work/s$1 n=$2 desc=$3
	shift 3
	rm -f "$work/t"
	truncate -s "$(stat -c %s "$dir/state.0")" "$work/t"
	expect_rc 0 "$desc ($dir)" "$awr" replay "$dir/log" --target "$work/t" "$@"
	cmp -s "$work/t" "$dir/state.$n" && ok "$desc: the target equals the device after entry $n" ||
		fail "$desc: the target differs from the device after entry $n"
}

for ss in 4096 512; do
	python3 "$mklog" "$work/s$ss/log" --sectorsize "$ss" --dev-sectors 32 --states "$work/s$ss" $OPS ||
		{ echo "replay_mklog.py failed"; exit 1; }
	check_listing "$ss"
	for n in $(seq 1 $NR); do
		check_state "$ss" "$n" "--to-entry $n" --to-entry "$n"
	done
	k=0
	for n in $FLUSH_POINTS; do
		k=$((k + 1))
		check_state "$ss" "$n" "--to-flush $k" --to-flush "$k"
	done
	check_state "$ss" 5 "--to-mark one" --to-mark one
	check_state "$ss" $NR "--to-mark two" --to-mark two
	check_state "$ss" $NR "the whole log"
	# incremental: 1..4, then 5..7 onto the same target (the discard of entry 6 zeroes data of 1)
	check_state "$ss" 4 "incremental, first part" --to-entry 4
	expect_rc 0 "incremental, second part" "$awr" replay "$work/s$ss/log" --target "$work/t" \
		--from-entry 5 --to-entry 7
	cmp -s "$work/t" "$work/s$ss/state.7" && ok "incremental: equals the device after entry 7" ||
		fail "incremental: differs from the device after entry 7"
done

# a discard zeroes what was there, also when the replay starts at it (target full of 0xff)
s=$work/s4096
python3 -c "import sys; sys.stdout.buffer.write(b'\xff' * (32 * 4096))" > "$work/t"
expect_rc 0 "discard alone" "$awr" replay "$s/log" --target "$work/t" --from-entry 6 --to-entry 6 -o json
case "$out" in *'"discards": 1'*) ok "discard counted" ;; *) fail "discard not counted: $out" ;; esac
python3 - "$work/t" <<'PY' && ok "discard: sector 0 reads zeros, sector 1 still 0xff" || fail "discard: range not zeroed as logged"
import sys
d = open(sys.argv[1], 'rb').read()
sys.exit(0 if d[:4096] == bytes(4096) and d[4096:8192] == b'\xff' * 4096 else 1)
PY

# a listing prints every entry, one line each, and the summary
out=$("$awr" replay "$s/log")
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+  ' <<<"$out")" = $NR ] && ok "normal output: $NR entry lines" ||
	fail "normal output: not $NR entry lines: $out"

# damaged logs: refused, naming the entry and what is wrong; the target left alone
refused() { # DESC TEXT MKLOG-ARGS...
	local desc=$1 text=$2
	shift 2
	python3 "$mklog" "$work/bad.log" "$@" || { fail "$desc: replay_mklog.py failed"; return; }
	expect_rc 2 "$desc: listing refused" "$awr" replay "$work/bad.log"
	expect_text "$text"
	printf 'keep' > "$work/keep"
	expect_rc 2 "$desc: replay refused" "$awr" replay "$work/bad.log" --target "$work/keep"
	expect_text "$text"
	[ "$(cat "$work/keep")" = keep ] && ok "$desc: nothing written" || fail "$desc: the target was written"
}
refused "bad magic" "super block: bad magic" --damage magic $OPS
refused "bad version" "super block: version 2" --damage version $OPS
refused "bad sector size" "sector size 3000" --damage sectorsize $OPS
refused "truncated data" "entry 8: its 4 sectors of data" --damage truncate:4196 $OPS
refused "truncated mark" "entry 9: the log ends" --damage truncate:100 $OPS
refused "truncated header" "entry 10: the log ends" --damage count:10 $OPS
refused "unknown flag" "entry 2: unknown flag bits 0x40" w:0:1 x:1:1:0x40 $OPS
refused "NUL in a mark" "entry 5: the mark's name holds a NUL" --damage namenul $OPS
out=$("$awr" replay "$work/bad.log" -o json 2>/dev/null)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert "entry 5" in d["error"]' "$out" &&
	ok "the error document names the entry" || fail "error document: $out"

# a target smaller than the logged device: refused before any write, naming the entry
printf 'keep' > "$work/keep"
truncate -s 24k "$work/keep"
expect_rc 2 "target too small" "$awr" replay "$s/log" --target "$work/keep"
expect_text "entry 4: a write of sectors 8..10"
[ "$(head -c 4 "$work/keep")" = keep ] && ok "target too small: nothing written" ||
	fail "target too small: written"

# ranges that do not exist, and options that do not go together
for a in "--to-entry 10" "--to-flush 4" "--to-mark three" "--from-entry 6 --to-entry 5" "--to-entry 0" \
	 "--to-entry 2 --to-flush 1"; do
	# shellcheck disable=SC2086
	expect_rc 2 "refused: $a" "$awr" replay "$s/log" --target "$work/t" $a
done
expect_rc 2 "a bound without --target" "$awr" replay "$s/log" --to-entry 2
cp "$s/log" "$work/self.log"
expect_rc 2 "the log as its own target" "$awr" replay "$work/self.log" --target "$work/self.log"
expect_text "onto itself"
cmp -s "$s/log" "$work/self.log" && ok "the log left as it was" || fail "the log was written"

# hostile logs: the good one with bytes of its headers changed at random (a fixed seed) is listed
# or refused (exit 0 or 2), never a crash, and replayed onto a file the same way
python3 - "$s/log" "$work/fuzz" <<'PY'
import random, sys
good = open(sys.argv[1], 'rb').read()
rnd = random.Random(41)
for i in range(40):
    b = bytearray(good)
    for _ in range(rnd.randint(1, 4)):
        blk = rnd.randrange(len(b) // 4096)
        off = blk * 4096 + rnd.randrange(40)
        b[off] = rnd.randrange(256)
    if i % 5 == 0:
        del b[rnd.randrange(len(b)):]
    open('%s.%d' % (sys.argv[2], i), 'wb').write(b)
PY
crashed=0
for f in "$work"/fuzz.*; do
	"$awr" replay "$f" -o json >/dev/null 2>&1
	rc=$?
	rm -f "$work/ft"
	"$awr" replay "$f" --target "$work/ft" >/dev/null 2>&1
	rc2=$?
	# (exit 1: a write the target's filesystem refused, e.g. EFBIG for an entry at 2^48 bytes)
	case "$rc $rc2" in [02]\ [012]) ;; *) crashed=$((crashed + 1)); echo "INFO $f: exit $rc, $rc2" ;; esac
done
[ "$crashed" = 0 ] && ok "40 damaged logs: each listed or refused, replayed or refused" ||
	fail "$crashed of 40 damaged logs ended otherwise than with exit 0, 1 (replay) or 2"

# a loop device: refused while it holds a filesystem, written with --force; discards by BLKZEROOUT
if [ "$(id -u)" = 0 ] && command -v mkfs.xfs >/dev/null && command -v losetup >/dev/null; then
	truncate -s 300M "$work/disk.img"
	mkfs.xfs -f -q "$work/disk.img"
	dev=$(losetup -f --show "$work/disk.img") || { fail "losetup"; dev=; }
fi
if [ -n "$dev" ]; then
	expect_rc 2 "loop device with XFS: refused" "$awr" replay "$s/log" --target "$dev"
	expect_text "refusing to write $dev (awr replay): it holds a filesystem or volume signature"
	mkdir "$work/mnt"
	if mount -t xfs "$dev" "$work/mnt" 2>/dev/null; then
		expect_rc 2 "mounted loop device: refused with --force too" "$awr" replay "$s/log" \
			--target "$dev" --force
		expect_text "is mounted on $work/mnt"
		umount "$work/mnt"
	else
		fail "mount -t xfs $dev"
	fi
	expect_rc 0 "loop device with XFS: --force" "$awr" replay "$s/log" --target "$dev" --force -o json
	expect_text "warning: writing $dev although it holds a filesystem or volume signature: xfs"
	case "$out" in *'"discard_method": "blkzeroout"'*) ok "BLKZEROOUT on a block device" ;;
	*) fail "not BLKZEROOUT: $out" ;; esac
	dd if=/dev/zero of="$dev" bs=1M count=1 oflag=direct status=none
	expect_rc 0 "zeroed loop device: no --force needed" "$awr" replay "$s/log" --target "$dev"
	cmp -s -n $((32 * 4096)) "$dev" "$s/state.$NR" && ok "loop device equals the device at the end" ||
		fail "loop device differs from the device at the end"
else
	echo "INFO: the loop device cases need root, mkfs.xfs and losetup: not run"
fi

echo "replay_log: $fails failed"
[ "$fails" = 0 ]
