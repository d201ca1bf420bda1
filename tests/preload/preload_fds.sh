#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: libatomicwr-preload re-checks at each write what the write relies on. O_DIRECT
# belongs to the open file description: set or cleared by F_SETFL through a dup(), it holds for
# the original too (a buffered write never gets RWF_ATOMIC, an O_DIRECT one is made atomic). A
# named descriptor closed where the preload does not see (fclose after fdopen, close_range,
# closefrom, a raw close) leaves no state: the file fopen gives that number next takes its
# writes unchanged. O_APPEND and RWF_APPEND writes land at the end: never made atomic, counted
# plain_append. A descriptor an exec'd program inherits (opened O_DIRECT by its parent) is named
# at start.
#
#   with-scratch-xfs.sh preload_fds.sh AWR PRELOAD WRITER
set -u
awr=$1 preload=$2 writer=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
P=16384
need_xfs_atomic $P
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-preload.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT

make_file() {
	xfs_io -f -c "pwrite -q -S 0x11 0 $((8 * P))" -c fsync "$1" > /dev/null || exit 2
}
# run NAME WRITER-ARGS...: the writer under the preload naming $dir/*.ibd
run() {
	local name=$1
	shift
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.$name \
		"$writer" "$@" > "$w/out.$name" 2> "$w/err.$name"
	rc=$?
	[ "$rc" = 0 ] && ok "$name: every write returned its length" ||
		fail "$name: the writer exited $rc: $(cat "$w/err.$name")"
	"$awr" preload-stats "$w/stats.$name" -o json > "$w/stats.json" 2>/dev/null
}
expect() {	# RUN FIELD VALUE
	local got
	got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$w/stats.json" "$2" 2>/dev/null)
	[ "$got" = "$3" ] && ok "$1: $2 = $3" || fail "$1: $2 is ${got:-?}, expected $3"
}

make_file "$dir/d.ibd"
run dup-direct "$dir/d.ibd" $P dup-direct
expect dup-direct atomic_pwrite 2
expect dup-direct plain_buffered 1
expect dup-direct refused 0

make_file "$dir/r.ibd"
make_file "$dir/other.dat"
run reuse "$dir/r.ibd" $P reuse "$dir/other.dat"
expect reuse atomic_pwrite 4
expect reuse plain_buffered 0
expect reuse refused 0

make_file "$dir/a.ibd"
run append "$dir/a.ibd" $P append
expect append plain_append 2
expect append atomic_pwrite 0
[ "$(stat -c %s "$dir/a.ibd")" = $((10 * P)) ] && ok "append: both pages landed at the end" ||
	fail "append: the file has $(stat -c %s "$dir/a.ibd") bytes, expected $((10 * P))"

make_file "$dir/i.ibd"
# the parent (not under the preload) opens the file O_DIRECT and execs the writer with it as 3
AWR_LIBS=$preload_libs AWR_PRELOAD_FILES="$dir/*.ibd" AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.inherited \
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
os.dup2(fd, 3)
os.set_inheritable(3, True)
env = dict(os.environ, LD_PRELOAD=os.environ["AWR_LIBS"])
os.execve(sys.argv[2], [sys.argv[2], sys.argv[1], sys.argv[3], "fd", "3"], env)' \
	"$dir/i.ibd" "$writer" $P > "$w/out.inherited" 2> "$w/err.inherited" ||
	fail "inherited: the writer failed: $(cat "$w/err.inherited")"
"$awr" preload-stats "$w/stats.inherited" -o json > "$w/stats.json" 2>/dev/null
expect inherited atomic_pwrite 1
expect inherited files_named 1

[ "$fails" -eq 0 ] || { echo "preload_fds: $fails failure(s)"; exit 1; }
echo "preload_fds: all checks passed"
