#!/bin/bash
# SPDX-License-Identifier: MIT
# awr bench in a QEMU guest on the hardware path: XFS over an emulated NVMe namespace with NAWUPF
# 16 KiB (QEMU 11's namespace atomic fields), 16 KiB pages, QD 32, 3 s a mode, 32 MiB span, three
# fresh rounds (the guest group "bench" of tests/vm/guest/cases.sh). Prints each round's figures
# and the ratios; the kernel and QEMU come from the guest stage's cache (tests/vm/run.sh).
#   bench/guest.sh [KERNEL]     (KERNEL: a series for AWR_VM_KERNELS, default 7)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-guest.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
AWR_VM_ONLY=bench AWR_VM_KERNELS=${1:-7} AWR_VM_OUT=$out "$here/../tests/vm/run.sh" >"$out/run.log" 2>&1
rc=$?
grep -E '^vm: (QEMU|kernel)' "$out/run.log"
grep -E '^INFO bench' "$out/results.txt" | sed 's/^INFO //'
grep -E '^(PASS|FAIL)' "$out/run.log" | grep -v case_count
exit $rc
