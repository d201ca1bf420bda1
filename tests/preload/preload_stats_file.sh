#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the counters file AWR_PRELOAD_STATS names never hurts a program. A second
# program started with the same environment while the first writes the file (systemd's
# ExecStartPre/Post) keeps its counters in memory and says so once: the first runs on, its
# counters intact. A child the writer starts adds to its counters. A file that is not a
# counters file (a copy of a data file, the right size with the wrong magic), a symlink, a FIFO
# is refused at start (exit 78, the file left byte for byte as it was, no wait on the FIFO); a
# symlink on the way owned by another user is not followed, one owned by root is; a full
# filesystem is exit 78 with a message, not a SIGBUS; a dead writer's file is taken again.
#
#   preload_stats_file.sh AWR PRELOAD WRITER      (under with-scratch-xfs.sh)
set -u
awr=$1 preload=$2 writer=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
P=16384
need_xfs_atomic $P
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-preload.XXXXXX") || exit 2
full=$w/full
trap 'mountpoint -q "$full" && umount "$full"; rm -rf "$w"' EXIT
chmod 755 "$w"
xfs_io -f -c "pwrite -q 0 $((16 * P))" "$dir/t.ibd" > /dev/null

# pre STATS CMD...: CMD under the preload, its counters in STATS; output in $w/out, $w/err
pre() {
	local st=$1
	shift
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$st \
		"$@" > "$w/out" 2> "$w/err"
	rc=$?
}
field() {	# STATS FIELD: one counter (awr preload-stats -o json)
	"$awr" preload-stats "$1" -o json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])" 2>/dev/null
}
refused() {	# WHAT MESSAGE
	if [ "$rc" = 78 ] && grep -q -- "$2" "$w/err" && [ ! -s "$w/out" ]; then
		ok "$1: exit 78: $(cat "$w/err")"
	else
		fail "$1: exit $rc (expected 78 and '$2'), stdout '$(cat "$w/out")', stderr: $(cat "$w/err")"
	fi
}

# 1. a live writer, and a second program with the same environment started beside it
st=$w/live.stats
LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$st \
	"$writer" "$dir/t.ibd" $P loop 2 > "$w/out.first" 2> "$w/err.first" &
first=$!
sleep 0.5
for i in 1 2 3; do
	pre "$st" "$writer" "$dir/t.ibd" $P loop 0
	[ "$rc" = 0 ] || fail "the second program exited $rc: $(cat "$w/err")"
done
grep -q "libatomicwr-preload: AWR_PRELOAD_STATS=$st is in use by a running program (pid $first): pid [0-9]* keeps its counters in memory" "$w/err" &&
	[ "$(grep -c "AWR_PRELOAD_STATS" "$w/err")" = 1 ] && ok "the second program says once that it counts in memory" ||
	fail "the second program's message: $(cat "$w/err")"
wait $first
rc=$?
n=$(awk '$1 == "wrote" { print $2 }' "$w/out.first")
[ "$rc" = 0 ] && ok "the first writer survived ($n page writes)" || fail "the first writer exited $rc: $(cat "$w/err.first")"
[ "$(field "$st" pid)" = "$first" ] && [ "$(field "$st" atomic_pwrite)" = "$n" ] && [ "$(field "$st" files_named)" = 1 ] &&
	ok "its counters are intact: pid $first, $n page writes made atomic, 1 file named" ||
	fail "its counters: pid $(field "$st" pid) (expected $first), atomic_pwrite $(field "$st" atomic_pwrite) (expected $n), files_named $(field "$st" files_named)"
# a dead writer's counters file is taken again, from zero
pre "$st" "$writer" "$dir/t.ibd" $P loop 0
[ "$rc" = 0 ] && [ "$(field "$st" atomic_pwrite)" = 1 ] && [ "$(field "$st" pid)" != "$first" ] &&
	ok "a dead writer's file is taken again" || fail "a dead writer's file: exit $rc, $(cat "$w/err")"

# 2. a child started by the writer counts in its parent's file
pre "$w/child.stats" sh -c "'$writer' '$dir/t.ibd' $P loop 0 && '$writer' '$dir/t.ibd' $P loop 0"
[ "$rc" = 0 ] && [ "$(field "$w/child.stats" atomic_pwrite)" = 2 ] && ! grep -q "in use" "$w/err" &&
	ok "two children of the writer count in its file" || fail "children: exit $rc, $(cat "$w/err"); $("$awr" preload-stats "$w/child.stats")"

# 3. what is not a counters file: refused at start, left as it was
head -c 1048576 /dev/urandom > "$w/ibdata1"
cp "$w/ibdata1" "$w/ibdata1.orig"
pre "$w/ibdata1" /bin/echo started
refused "a copy of a data file" "AWR_PRELOAD_STATS=$w/ibdata1 is a file of 1048576 bytes that is not a counters file of libatomicwr-preload (magic AWRPRLD1, version 1, 256 bytes): not touched"
cmp -s "$w/ibdata1" "$w/ibdata1.orig" && ok "the data file is byte for byte as it was" || fail "the data file was changed"
head -c 256 /dev/urandom > "$w/odd.stats"
cp "$w/odd.stats" "$w/odd.orig"
pre "$w/odd.stats" /bin/echo started
refused "256 bytes, not the magic" "is a file of 256 bytes that is not a counters file"
cmp -s "$w/odd.stats" "$w/odd.orig" && ok "the 256-byte file is as it was" || fail "the 256-byte file was changed"
ln -s ibdata1 "$w/link.stats"
pre "$w/link.stats" /bin/echo started
refused "a symlink" "AWR_PRELOAD_STATS=$w/link.stats is a symlink: not followed"
cmp -s "$w/ibdata1" "$w/ibdata1.orig" && ok "the symlink's target is as it was" || fail "the symlink's target was changed"
mkfifo "$w/fifo.stats"
# (timeout outside the preload: a start that waited on the FIFO would be killed, exit 124)
timeout 10 env LD_PRELOAD="$preload_libs" AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k \
	AWR_PRELOAD_STATS="$w/fifo.stats" AWR_PRELOAD_STATS_OWNER=1 /bin/echo started > "$w/out" 2> "$w/err"
rc=$?
refused "a FIFO (no wait on it)" "AWR_PRELOAD_STATS=$w/fifo.stats is not a regular file: not touched"

# 4. symlinks on the way: one another user owns is not followed, one root owns is
mkdir -m 755 "$w/real"
ln -s real "$w/theirs"
chown -h nobody "$w/theirs"
pre "$w/theirs/a.stats" /bin/echo started
refused "a symlink on the way owned by another user" "its component 'theirs' is a symlink owned by uid $(id -u nobody), neither root nor this process's user"
[ ! -e "$w/real/a.stats" ] && ok "nothing made through it" || fail "a file was made through another user's symlink"
ln -s real "$w/roots"
pre "$w/roots/b.stats" /bin/echo started
[ "$rc" = 0 ] && [ "$(field "$w/real/b.stats" page_size)" = $P ] && ok "a symlink on the way owned by root is followed" ||
	fail "a root symlink on the way: exit $rc, $(cat "$w/err")"

# 5. a full filesystem: exit 78 and a message, never a SIGBUS
mkdir "$full"
if mount -t tmpfs -o size=4k tmpfs "$full"; then
	dd if=/dev/zero of="$full/fill" bs=4096 count=16 2>/dev/null
	pre "$full/c.stats" "$writer" "$dir/t.ibd" $P loop 0
	refused "a full filesystem" "AWR_PRELOAD_STATS=$full/c.stats: no room for its 256 bytes: No space left on device"
	[ ! -e "$full/c.stats" ] && ok "no file left on the full filesystem" || fail "a file was left on the full filesystem"
	umount "$full"
else
	fail "cannot mount a 4 KiB tmpfs"
fi

[ "$fails" -eq 0 ] || { echo "preload_stats_file: $fails failure(s)"; exit 1; }
echo "preload_stats_file: all checks passed"
