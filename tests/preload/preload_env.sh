# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the preload tests: $preload_libs, the LD_PRELOAD list for PRELOAD. In the sanitizer
# build the preload is instrumented, and the sanitizer runtimes must come first in a program that
# is not (the writer, mariadbd, /bin/echo); the programs' own leaks are not the preload's.
preload_libs=$preload
if ldd "$preload" 2>/dev/null | grep -q 'libasan\.so'; then
	for rt in libubsan.so libasan.so; do
		f=$(ldd "$preload" | awk -v rt="$rt" 'index($1, rt) == 1 { print $3 }')
		[ -n "$f" ] && preload_libs=$f:$preload_libs
	done
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
# need_xfs_atomic BYTES: skip (exit 77) unless the scratch XFS ($dir) takes atomic writes of BYTES
# (statx read straight from the kernel: kstatx of expect.sh, sourced by every caller)
need_xfs_atomic() {
	local kmax
	touch "$dir/statx-probe"
	read -r _ _ kmax _ < <(kstatx "$dir/statx-probe")
	rm -f "$dir/statx-probe"
	[ "${kmax:-0}" -ge "$1" ] && return 0
	echo "SKIP: XFS takes no $(($1 / 1024)) KiB atomic writes here (unit_max ${kmax:-?}; Linux 6.16+ needed)"
	exit 77
}
