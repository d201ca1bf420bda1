#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr write keeps its memory bounded whatever --length is: a 4 GiB write (uring engine, read back and verified) and streamed --input (a file read twice for --verify, a pipe) stay under 64 MiB peak RSS (the kernel's own accounting, wait4 ru_maxrss) and the data lands; the measurement itself is shown catching a process that does use 128 MiB.
#
#   write_memory.sh AWR    (run under with-scratch-xfs.sh --size 6G)
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
f=$dir/write_memory.dat
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-wm.XXXXXX") || exit 2
trap 'rm -rf "$work"; rm -f "$f"' EXIT
fails=0
limit_kib=$((64 * 1024))
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# peak_rss CMD...: run CMD (stdout to $work/out, stderr to $work/err), print its peak RSS in KiB
# (ru_maxrss of the reaped child, as the kernel accounted it) and exit with CMD's status.
peak_rss() {
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
    os.dup2(os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    os.execvp(sys.argv[3], sys.argv[3:])
_, status, ru = os.wait4(pid, 0)
print(ru.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))' "$work/out" "$work/err" "$@"
}

avail=$(df -k --output=avail "$dir" | tail -1)
[ "$avail" -gt $((4 * 1024 * 1024 + 65536)) ] || { echo "SKIP: $dir has ${avail} KiB free, 4 GiB needed (run under with-scratch-xfs.sh --size 6G)"; exit 77; }

# The instrument: a process that touches 128 MiB must read above the limit (else the check could not fail).
rss=$(peak_rss python3 -c 'b = bytearray(128 << 20); b[::4096] = b"x" * len(b[::4096])')
if [ "${rss:-0}" -gt $((128 * 1024)) ]; then
	pass "measure_catches_128MiB (${rss} KiB)"
else
	fail measure_catches_128MiB "a process holding 128 MiB read as ${rss:-?} KiB peak RSS"
fi

# 4 GiB of 0xc3 in 1 MiB atomic units, QD 16 (16 MiB of buffers: the AddressSanitizer build adds about
# 25 MiB of its own, and must stay under the limit too), read back and verified.
rss=$(peak_rss "$awr" write "$f" --offset 0 --length 4G --unit 1M --engine uring --qd 16 --pattern 0xc3 --verify -o json)
rc=$?
if [ $rc = 0 ] && [ "${rss:-999999999}" -lt $limit_kib ] && grep -q '"bytes_written": 4294967296' "$work/out" &&
	grep -q '"verified": true' "$work/out"; then
	pass "length_4G_uring_verified (${rss} KiB peak)"
else
	fail length_4G_uring_verified "exit $rc, peak RSS ${rss:-?} KiB (limit $limit_kib), output: $(cat "$work/out" "$work/err")"
fi
# independent reading: the last and a middle MiB hold the pattern
head -c 1M /dev/zero | tr '\0' '\303' >"$work/mib"
if cmp -s "$work/mib" <(dd if="$f" bs=1M skip=4095 count=1 status=none) &&
	cmp -s "$work/mib" <(dd if="$f" bs=1M skip=2047 count=1 status=none); then
	pass length_4G_data
else
	fail length_4G_data "the file does not hold 0xc3 at 2047 MiB and 4095 MiB"
fi

# --input streamed: 256 MiB from a file (sync engine, 64 KiB units), read twice for --verify.
head -c 256M /dev/urandom >"$work/in"
rss=$(peak_rss "$awr" write "$f" --offset 1M --length 256M --unit 64k --input "$work/in" --verify)
rc=$?
if [ $rc = 0 ] && [ "${rss:-999999999}" -lt $limit_kib ] && grep -q "read back and verified" "$work/out" &&
	cmp -s "$work/in" <(dd if="$f" bs=1M skip=1 count=256 status=none); then
	pass "input_file_256M_sync_verified (${rss} KiB peak)"
else
	fail input_file_256M_sync_verified "exit $rc, peak RSS ${rss:-?} KiB, output: $(cat "$work/out" "$work/err")"
fi

# --input from a pipe through the uring engine: streamed once; --verify is refused for a pipe.
rss=$(peak_rss bash -c "cat '$work/in' | exec '$awr' write '$f' --offset 0 --length 256M --unit 16k --engine uring --input /dev/stdin")
rc=$?
if [ $rc = 0 ] && [ "${rss:-999999999}" -lt $limit_kib ] && cmp -s "$work/in" <(head -c 256M "$f"); then
	pass "input_pipe_256M_uring (${rss} KiB peak)"
else
	fail input_pipe_256M_uring "exit $rc, peak RSS ${rss:-?} KiB, output: $(cat "$work/out" "$work/err")"
fi
out=$(head -c 64k "$work/in" | "$awr" write "$f" --offset 0 --length 64k --unit 16k --input /dev/stdin --verify 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "must be a regular file" <<<"$out" && pass verify_pipe_refused ||
	fail verify_pipe_refused "exit $rc: $out"

# An input shorter than --length: refused before any write, the target unchanged.
head -c 32k "$work/in" >"$work/short"
sum=$(head -c 1M "$f" | md5sum)
out=$("$awr" write "$f" --offset 0 --length 64k --unit 16k --input "$work/short" 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "holds 32768 bytes, fewer than --length 65536" <<<"$out" && [ "$sum" = "$(head -c 1M "$f" | md5sum)" ] &&
	pass input_short_refused || fail input_short_refused "exit $rc: $out"

[ $fails = 0 ]
