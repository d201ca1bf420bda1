#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: which files libatomicwr-preload names, at open and at start, by one rule
# (AWR_PRELOAD_FILES through preload_names.c): a file is named when a pattern matches the path
# the program gave (made absolute) or the path it resolves to. A data directory reached through
# a symlink (patterns name link/*.ibd, the program opens link/t.ibd) has its page writes made
# atomic; so has a data file that is itself a symlink to a file elsewhere (only the path given
# matches), and a file opened by its symlinked name whose pattern names the real directory (only
# the resolved path matches). At start, '*' crosses '/' as at open: a file in a subdirectory
# that cannot take atomic writes (tmpfs) is refused (exit 78); a FIFO a pattern matches is not
# opened (the start does not block); a list of separators only names nothing and says so.
#
#   with-scratch-xfs.sh preload_names.sh AWR PRELOAD WRITER
set -u
awr=$1 preload=$2 writer=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
P=16384
need_xfs_atomic $P
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-preload.XXXXXX") || exit 2
shm=$(mktemp -d /dev/shm/awr-preload.XXXXXX) || exit 2
trap 'rm -rf "$w" "$shm"' EXIT

# pre NAME FILES CMD...: CMD under the preload (16 KiB pages); output in $w/out.NAME, $w/err.NAME
pre() {
	local name=$1 files=$2
	shift 2
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES=$files AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.$name \
		timeout 20 "$@" > "$w/out.$name" 2> "$w/err.$name"
	rc=$?
}
# atomic NAME WANT: the page writes the run NAME made atomic (pwrite family)
atomic() {
	local got
	got=$("$awr" preload-stats "$w/stats.$1" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["atomic_pwrite"])' 2>/dev/null)
	[ "$got" = "$2" ] && ok "$1: $2 page write(s) made atomic" ||
		fail "$1: atomic_pwrite is ${got:-?}, expected $2 (exit $rc: $(cat "$w/err.$1"))"
}
mkdir -p "$dir/real" "$dir/elsewhere"
xfs_io -f -c "pwrite -q 0 $((4 * P))" "$dir/real/t.ibd" > /dev/null
xfs_io -f -c "pwrite -q 0 $((4 * P))" "$dir/elsewhere/u.dat" > /dev/null
ln -s real "$dir/link"
ln -s ../elsewhere/u.dat "$dir/real/u.ibd"

pre link "$dir/link/*.ibd" "$writer" "$dir/link/t.ibd" $P loop 0
atomic link 1
pre file-link "$dir/link/*.ibd" "$writer" "$dir/link/u.ibd" $P loop 0
atomic file-link 1
pre by-real-dir "$dir/real/*.ibd" "$writer" "$dir/link/t.ibd" $P loop 0
atomic by-real-dir 1
cd "$dir/link" || exit 2	# a relative path: joined to the working directory
pre relative "$dir/link/*.ibd" "$writer" t.ibd $P loop 0
cd / || exit 2
atomic relative 1
pre control "$dir/link/*.dat" "$writer" "$dir/link/t.ibd" $P loop 0
atomic control 0

# the check at start: '*' crosses '/' as at open
mkdir -p "$shm/db"
echo x > "$shm/db/t.ibd"
pre nested "$shm/*.ibd" /bin/echo started
if [ "$rc" = 78 ] && grep -q "libatomicwr-preload: $shm/db/t.ibd cannot take atomic writes of 16384 bytes: .*Not run" "$w/err.nested" \
	&& [ ! -s "$w/out.nested" ]; then
	ok "a file in a subdirectory the pattern names is checked at start: exit 78"
else
	fail "a file in a subdirectory of $shm/*.ibd: exit $rc (expected 78), stdout '$(cat "$w/out.nested")', stderr: $(cat "$w/err.nested")"
fi
mkfifo "$dir/real/fifo.ibd"
ln -s fifo.ibd "$dir/real/fifo-link.ibd"
pre fifo "$dir/real/*.ibd" /bin/echo started
[ "$rc" = 0 ] && [ "$(cat "$w/out.fifo")" = started ] && ok "a FIFO a pattern matches: the start does not open it" ||
	fail "a FIFO a pattern matches: exit $rc (124: it blocked), $(cat "$w/err.fifo")"
pre separators "::" /bin/echo started
if [ "$rc" = 0 ] && [ "$(cat "$w/out.separators")" = started ] && grep -q "AWR_PRELOAD_FILES: '::' names no file" "$w/err.separators"; then
	ok "separators only: the program runs unchanged, a note says nothing is named"
else
	fail "separators only: exit $rc, stdout '$(cat "$w/out.separators")', stderr '$(cat "$w/err.separators")'"
fi

[ "$fails" -eq 0 ] || { echo "preload_names: $fails failure(s)"; exit 1; }
echo "preload_names: all checks passed"
