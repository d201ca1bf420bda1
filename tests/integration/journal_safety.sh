#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr stress --journal takes only a new file or a journal: the issue's text file
# (seq 1 100000), an ext4 filesystem's block device, a symbolic link (to a text file and to a
# journal), a FIFO and a directory are refused with a message saying what the file is, each
# victim byte-identical (sha256 before and after) and no target created; --force is about the
# target only (a text journal is still refused), --journal-force replaces a regular file that is
# not a journal, a damaged journal is never replaced; a journal is appended to; awr verify refuses a file that is not a journal,
# and a 10 MB journal crafted for the widest generation spread keeps verify's peak RSS under
# 10 times its size.
#   journal_safety.sh AWR
set -u
awr=$(readlink -f "$1")
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for the loop device holding ext4"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "SKIP: mkfs.ext4 not installed (e2fsprogs)"; exit 77; }
command -v losetup >/dev/null || { echo "SKIP: losetup not installed"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-journal-safety.XXXXXX") || exit 2
dev=
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sum() { sha256sum <"$1" | cut -d' ' -f1; }
cd "$work" || exit 2

# refused WHAT VICTIM WORDS ARGS...: awr stress with ARGS exits 2 naming WORDS, VICTIM keeps its
# sha256, and no target t.dat appears
refused() {
	local what=$1 victim=$2 words=$3 before after rc
	shift 3
	before=$(sum "$victim")
	timeout 60 "$awr" stress t.dat --unit 4k --writes 1 --no-atomic "$@" >out.txt 2>&1
	rc=$?
	after=$(sum "$victim")
	[ "$rc" = 2 ] || fail "$what: exit $rc, expected 2: $(cat out.txt)"
	grep -qF -- "$words" out.txt || fail "$what: the message does not say \"$words\": $(cat out.txt)"
	[ "$before" = "$after" ] || fail "$what: $victim changed (sha256 $before -> $after)"
	[ ! -e t.dat ] || { fail "$what: the target was created although the journal was refused"; rm -f t.dat; }
	echo "refused ($what): $(head -c 200 out.txt)"
}

# 1. the issue: a text file as the journal
seq 1 100000 >p.txt
[ "$(stat -c %s p.txt)" = 588895 ] || fail "p.txt is $(stat -c %s p.txt) bytes"
refused "text file" p.txt "it holds 588895 bytes that are not an awr journal" --journal p.txt

# 2. the issue: a block device holding ext4 (O_APPEND does not apply: records would land at 0)
truncate -s 64M disk.img && mkfs.ext4 -q -F disk.img || { echo "FAIL: mkfs.ext4"; exit 1; }
dev=$(losetup --find --show disk.img) || { echo "SKIP: no free loop device"; exit 77; }
refused "ext4 block device" "$dev" "it is a block device" --journal "$dev"
refused "ext4 block device, --force" "$dev" "it is a block device" --journal "$dev" --force
# read the device, not its page cache (BLKFLSBUF writes back and drops it): seen once under two
# test runs at once, e2fsck found no superblock on a device awr had refused to open
blockdev --flushbufs "$dev"
e2fsck -fn "$dev" >fsck.txt 2>&1 || fail "ext4 on $dev damaged: $(tail -3 fsck.txt)"

# 3. symbolic links: to the text file, and to a real journal (never followed, even with --force)
ln -s p.txt link.j
refused "symlink to a text file" p.txt "it is a symbolic link" --journal link.j
refused "symlink to a text file, --force" p.txt "it is a symbolic link" --journal link.j --force
"$awr" stress real.dat --unit 4k --writes 8 --no-atomic --journal real.j >/dev/null ||
	fail "a stress run with a new journal exited $?"
ln -s real.j link2.j
refused "symlink to a journal" real.j "it is a symbolic link" --journal link2.j

# 4. a FIFO (refused without waiting for a reader) and a directory
mkfifo fifo.j
refused "FIFO" p.txt "it is a FIFO" --journal fifo.j
mkdir dir.j
refused "directory" p.txt "it is a directory" --journal dir.j

# 5. a journal is appended to, its records byte for byte (--force: the target holds data; a
# journal is never emptied by it)
size=$(stat -c %s real.j)
head -c "$size" real.j | sha256sum | cut -d' ' -f1 >prefix.before
"$awr" stress real.dat --unit 4k --writes 8 --no-atomic --journal real.j --force >/dev/null 2>&1 ||
	fail "a stress run appending to its journal exited $?"
[ "$(head -c "$size" real.j | sha256sum | cut -d' ' -f1)" = "$(cat prefix.before)" ] ||
	fail "appending changed the journal's earlier records"
[ "$(stat -c %s real.j)" -gt "$size" ] || fail "nothing appended to the journal"
"$awr" verify real.dat --unit 4k --journal real.j >out.txt 2>&1 || fail "verify with the journal: $(cat out.txt)"

# 6. --force is the target's: a text journal is still refused; --journal-force replaces it
cp p.txt forced.txt
before=$(sum forced.txt)
"$awr" stress f.dat --unit 4k --writes 4 --no-atomic --journal forced.txt --force >out.txt 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q -- "--journal-force" out.txt && [ "$(sum forced.txt)" = "$before" ] ||
	fail "--force alone with a text journal: exit $rc, the file $([ "$(sum forced.txt)" = "$before" ] && echo kept || echo changed): $(cat out.txt)"
"$awr" stress f.dat --unit 4k --writes 4 --no-atomic --journal forced.txt --force --journal-force >out.txt 2>&1 ||
	fail "--journal-force with a text journal exited $?: $(cat out.txt)"
"$awr" verify f.dat --unit 4k --journal forced.txt >out.txt 2>&1 || fail "verify after --journal-force: $(cat out.txt)"
grep -q "journal: 9 records" out.txt || fail "after --journal-force the journal holds: $(grep journal: out.txt)"
# a journal damaged before its end (a record's byte flipped) is never emptied, even asked to
cp forced.txt damaged.j
printf '\377' | dd of=damaged.j bs=1 seek=100 conv=notrunc status=none
before=$(sum damaged.j)
"$awr" stress f.dat --unit 4k --writes 4 --no-atomic --journal damaged.j --force --journal-force >out.txt 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "never empties a journal" out.txt && [ "$(sum damaged.j)" = "$before" ] ||
	fail "--journal-force with a damaged journal: exit $rc ($(cat out.txt)); the journal $([ "$(sum damaged.j)" = "$before" ] && echo kept || echo changed)"

# 7. verify refuses a file that is not a journal, and leaves it
before=$(sum p.txt)
"$awr" verify real.dat --unit 4k --journal p.txt >out.txt 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "is not an awr journal" out.txt || fail "verify with p.txt: exit $rc: $(cat out.txt)"
[ "$(sum p.txt)" = "$before" ] || fail "verify changed p.txt"

# 8. a hostile 10 MB journal: every record but the last a RUN record, then an intent at the
# highest generation the reader accepts (records + 256 per RUN record); verify's peak RSS
python3 - hostile.j <<'EOF' || fail "cannot write the hostile journal"
import ctypes, struct, sys
x = ctypes.CDLL('libxxhash.so.0')
x.XXH3_64bits.restype = ctypes.c_uint64
x.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
n = 10 * 1000 * 1000 // 48
def rec(t, unit, gen, value):
    b = struct.pack('<IIQQQQ', 0x4a525741 ^ (t << 24), 0, unit, gen, value, 1)
    return b + struct.pack('<Q', x.XXH3_64bits(b, 40))
with open(sys.argv[1], 'wb') as f:
    f.write(rec(1, 4096, 1, 1 << 20) * (n - 1) + rec(2, 3, n + 256 * (n - 1), 0))
EOF
truncate -s 1M h.dat
before=$(sum hostile.j)
rss=$(python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
	"$awr" verify h.dat --unit 4k --journal hostile.j)
jsize=$(stat -c %s hostile.j)
echo "hostile journal $jsize bytes: verify exit ${rss% *}, peak RSS ${rss#* } KiB"
[ "${rss% *}" = 0 ] || fail "verify with the hostile journal exited ${rss% *}"
[ "${rss#* }" -lt $((10 * jsize / 1024)) ] || fail "verify's peak RSS ${rss#* } KiB is not under 10x the journal"
[ "$(sum hostile.j)" = "$before" ] || fail "verify changed the journal"

[ "$fails" = 0 ] || { echo "journal_safety: $fails failure(s)"; exit 1; }
echo "journal_safety: ok"
