#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: libatomicwr-preload refuses what it cannot make atomic, with one clear message:
# a named file on tmpfs (statx: no atomic writes) stops the program before it runs (exit 78,
# the file and the rule named, the program never started); a named file created later on
# tmpfs fails its open with EOPNOTSUPP and is counted; a page size XFS does not take (below
# statx unit_min, or above unit_max) is refused for a file on the scratch XFS; a missing or bad page size and a
# relative pattern are refused; no pattern at all runs the program unchanged with a note.
# Control: the same XFS file and page size 16 KiB runs.
#
#   with-scratch-xfs.sh preload_refuse.sh AWR PRELOAD WRITER
set -u
awr=$1 preload=$2
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
touch "$dir/statx-probe"
read -r _ kmin kmax _ < <(kstatx "$dir/statx-probe")
rm -f "$dir/statx-probe"
[ "${kmax:-0}" -ge 16384 ] || { echo "SKIP: XFS takes no 16 KiB atomic writes here (unit_max ${kmax:-?}; Linux 6.16+ needed)"; exit 77; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-preload.XXXXXX") || exit 2
shm=$(mktemp -d /dev/shm/awr-preload.XXXXXX) || exit 2
trap 'rm -rf "$w" "$shm"' EXIT

# pre FILES PAGE CMD...: the command under the preload; its stderr in $w/err, status in $rc
pre() {
	local files=$1 page=$2
	shift 2
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES=$files AWR_PRELOAD_PAGE_SIZE=$page AWR_PRELOAD_STATS=$w/stats \
		"$@" > "$w/out" 2> "$w/err"
	rc=$?
}
expect_refused() {	# WHAT PATTERN-IN-MESSAGE
	if [ "$rc" = 78 ] && grep -q -- "$2" "$w/err" && [ "$(wc -l < "$w/err")" = 1 ] && [ ! -s "$w/out" ]; then
		ok "$1: exit 78, one message: $(cat "$w/err")"
	else
		fail "$1: exit $rc (expected 78 and one line with '$2'), stdout '$(cat "$w/out")', stderr: $(cat "$w/err")"
	fi
}

echo x > "$shm/t.ibd"
pre "$shm/*.ibd" 16k /bin/echo started
expect_refused "a named file on tmpfs" "libatomicwr-preload: $shm/t.ibd cannot take atomic writes of 16384 bytes: .*(rule unsupported)\. Not run"

rm -f "$shm/t.ibd"
pre "$shm/*.ibd" 16k sh -c "echo started; : > $shm/new.ibd"
if [ "$rc" != 0 ] && grep -q "started" "$w/out" && grep -q "libatomicwr-preload: $shm/new.ibd cannot take atomic writes of 16384 bytes: .*not opened (EOPNOTSUPP)" "$w/err" \
	&& grep -q "Operation not supported" "$w/err"; then
	ok "a named file created later on tmpfs: its open fails with EOPNOTSUPP"
else
	fail "a named file created later on tmpfs: exit $rc, stdout '$(cat "$w/out")', stderr: $(cat "$w/err")"
fi
[ "$("$awr" preload-stats "$w/stats" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["files_refused"])')" = 1 ] \
	&& ok "the refused open is counted" || fail "files_refused is not 1: $("$awr" preload-stats "$w/stats")"
"$awr" preload-stats "$w/stats" > /dev/null
[ $? = 1 ] && ok "preload-stats exits 1 when a named file was refused" || fail "preload-stats did not exit 1 after a refused file"

xfs_io -f -c "pwrite -q 0 1m" "$dir/big.ibd" > /dev/null
small=$((kmin / 2))
if [ $small -ge 512 ]; then
	pre "$dir/*.ibd" $small /bin/echo started
	expect_refused "a page of $small bytes where XFS takes $kmin..$kmax" "$dir/big.ibd cannot take atomic writes of $small bytes: .*(rule too_small)"
fi
big=$((kmax * 2))
if [ $big -le 1048576 ]; then
	pre "$dir/*.ibd" $big /bin/echo started
	expect_refused "a page of $big bytes where XFS takes at most $kmax" "$dir/big.ibd cannot take atomic writes of $big bytes: .*(rule too_large)"
fi
[ $small -ge 512 ] || [ $big -le 1048576 ] || fail "XFS takes $kmin..$kmax: no page size from 512 to 1M lies outside it to test the refusal"
pre "$dir/*.ibd" 16k /bin/echo started
[ "$rc" = 0 ] && [ "$(cat "$w/out")" = started ] && ok "control: 16 KiB pages on XFS run" || fail "control: exit $rc, $(cat "$w/err")"

pre "$dir/*.ibd" "" /bin/echo started
expect_refused "no page size" "AWR_PRELOAD_PAGE_SIZE=(not set): give the engine's page size"
pre "$dir/*.ibd" 12k /bin/echo started
expect_refused "a page size not a power of two" "AWR_PRELOAD_PAGE_SIZE=12k: give the engine's page size"
pre "data/*.ibd" 16k /bin/echo started
expect_refused "a relative pattern" "AWR_PRELOAD_FILES: 'data/\*.ibd' is not an absolute pattern"
pre "" 16k /bin/echo started
[ "$rc" = 0 ] && [ "$(cat "$w/out")" = started ] && grep -q "AWR_PRELOAD_FILES is not set" "$w/err" \
	&& ok "no pattern: the program runs unchanged, with a note" || fail "no pattern: exit $rc, $(cat "$w/err")"

[ "$fails" -eq 0 ] || { echo "preload_refuse: $fails failure(s)"; exit 1; }
echo "preload_refuse: all checks passed"
