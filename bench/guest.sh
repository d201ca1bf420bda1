#!/bin/bash
# SPDX-License-Identifier: MIT
# awr bench in a QEMU guest on the hardware path: XFS over an emulated NVMe namespace with NAWUPF
# 16 KiB (QEMU 11's namespace atomic fields), 16 KiB pages, QD 32, 3 s a mode, 32 MiB span: one
# --mode all run, then paired rounds (the guest group "bench" of tests/vm/guest/cases.sh). Prints each round's figures
# and the ratios; the kernel and QEMU come from the guest stage's cache (tests/vm/run.sh).
#   [FIO=PATH] bench/guest.sh [-r ROUNDS] [-s SECONDS] [KERNEL]
#     KERNEL: a series for AWR_VM_KERNELS (default 7); ROUNDS paired rounds (default 6) of SECONDS a
#     mode (default 3)
# FIO: a fio 3.38+ built from source (outside the tree): its io_uring engine with --atomic=1 and its
# io_uring_cmd engine (NVMe passthrough) join the passthrough rounds, packed for the guest with
# their libraries (tests/vm/run.sh AWR_VM_FIO).
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=6 seconds=3
while [ $# -gt 0 ]; do
	case "$1" in
	-r) rounds=$2; shift 2 ;;
	-s) seconds=$2; shift 2 ;;
	-*) echo "guest.sh: unknown option $1 (expected -r ROUNDS, -s SECONDS, then a KERNEL series)" >&2; exit 2 ;;
	*) break ;;
	esac
done
case "$rounds$seconds" in *[!0-9]*) echo "guest.sh: -r and -s take whole numbers (got -r $rounds -s $seconds)" >&2; exit 2 ;; esac
out=$(mktemp -d "${TMPDIR:-/tmp}/awr-bench-guest.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT	# AWR_BENCH_KEEP=1 keeps the guest's serial log and results
[ "${AWR_BENCH_KEEP:-0}" = 1 ] && trap 'echo "kept: $out"' EXIT
[ -z "${FIO:-}" ] || [ -x "$FIO" ] || { echo "guest.sh: FIO=$FIO is not an executable" >&2; exit 2; }
AWR_BENCH_ROUNDS=$rounds AWR_BENCH_SECONDS=$seconds AWR_VM_FIO=${FIO:-} AWR_VM_ONLY=bench AWR_VM_KERNELS=${1:-7} AWR_VM_OUT=$out "$here/../tests/vm/run.sh" >"$out/run.log" 2>&1
rc=$?
grep -E '^vm: (QEMU|kernel)' "$out/run.log"
grep -E '^INFO bench' "$out/results.txt" | grep -v '^INFO bench.p[at][ir ]' | sed 's/^INFO //'
# the paired rounds: each mode a process of its own, alternating order; ratios per round and medians
echo "paired rounds (pages/s; each mode its own awr bench run on the same prepared file):"
grep -E '^INFO bench.pair ' "$out/results.txt" |
	sed 's/.*round=\([0-9]*\) mode=\([a-z]*\) pages_per_s=\([0-9.]*\).*/\1 \2 \3/' |
	awk '{ v[$1 " " $2] = $3; if ($1 > n) n = $1 }
	     END { for (r = 1; r <= n; r++) {
	               printf "  round %d: atomic %d plain %d doublewrite %d pages %d\n", r, v[r " atomic"], v[r " plain"],
	                      v[r " doublewrite"], v[r " pages"] > "/dev/stderr"
	               printf "atomic/plain %.3f\natomic/doublewrite %.3f\npages/doublewrite %.3f\n", v[r " atomic"] / v[r " plain"],
	                      v[r " atomic"] / v[r " doublewrite"], v[r " pages"] / v[r " doublewrite"] } }' 2>&1 >"$out/ratios" |
	cat
for k in atomic/plain atomic/doublewrite pages/doublewrite; do
	awk -v k="$k" '$1 == k { print $2 }' "$out/ratios" | sort -n |
		awk -v k="$k" '{ a[NR] = $1 } END { if (NR) printf "  %s: median %.2fx of %d rounds (%.2f..%.2f)\n", k, (a[int((NR + 1) / 2)] + a[int(NR / 2) + 1]) / 2, NR, a[1], a[NR] }'
done
# the passthrough engines: median milliseconds of the three rounds per device, engine and depth
echo "passthrough (8 MiB in 16 KiB units; median of 3 rounds, ms: the whole process, and the writes' own"
echo "time (awr write -o json \"seconds\", fio's run=); fio_*: fio's engines):"
grep -E '^INFO bench.pt dev=' "$out/results.txt" |
	sed 's/.*dev=\([^ ]*\) engine=\([^ ]*\) qd=\([^ ]*\) round=[^ ]* ms=\([0-9]*\) io_ms=\([0-9?]*\).*/\1 \2 \3 \4 \5/' |
	awk '{ k = $1 " " $2 " qd " $3; w[k] = w[k] " " $4; io[k] = io[k] " " $5; n[k]++; if (!(k in seen)) { seen[k] = 1; o[++m] = k } }
		function med(s, c,   a, i, j, t) { split(substr(s, 2), a, " "); for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((c + 1) / 2)] }
		END { for (i = 1; i <= m; i++) printf "  %-28s whole %5s ms, writes %5s ms (rounds:%s |%s)\n", o[i], med(w[o[i]], n[o[i]]), med(io[o[i]], n[o[i]]), w[o[i]], io[o[i]] }'
grep -E '^(PASS|FAIL)' "$out/run.log" | grep -v case_count
exit $rc
