# SPDX-License-Identifier: MIT
# Sourced by the CLI test scripts: counted failures and the checks they share.
# The script sets fails=0 first and ends with [ "$fails" = 0 ].

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# expect_rc RC DESC CMD...: run CMD, compare its exit status, keep its stdout+stderr in $out
expect_rc() {
	local want=$1 desc=$2; shift 2
	out=$("$@" 2>&1); local rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc"; else fail "$desc: exit $rc, expected $want: $out"; fi
}
expect_text() {
	case "$out" in *"$1"*) ok "message has '$1'" ;; *) fail "message lacks '$1': $out" ;; esac
}

# statx read straight from the kernel (x86_64 syscall 332), independent of the library
kstatx() {
	python3 - "$1" <<'PY'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
if libc.syscall(332, -100, sys.argv[1].encode(), 0, 0x10000 | 0x7ff, buf) != 0:
    sys.exit("statx failed")
mask, = struct.unpack_from('<I', buf.raw, 0)
umin, umax, segs = struct.unpack_from('<III', buf.raw, 0xa8)
print(mask & 0x10000 and 1 or 0, umin, umax, segs)
PY
}
