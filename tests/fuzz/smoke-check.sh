#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the fuzz smoke (smoke.sh) must fail on a planted bug: tiny harnesses built here with
# clang, one clean and four with a bug that a committed-style seed reaches (a crash, a leak, a heap
# overflow, a hang), plus a harness without a corpus and a corpus without a harness. Each must get
# its own line, the clean one PASS and every other FAIL, and smoke.sh must exit non-zero.
#
#   smoke-check.sh SMOKE_SH
set -u
smoke=$1
cc=${AWR_FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "SKIP: $cc not installed (Debian: clang, libclang-rt-14-dev)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-fuzz-check.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mk() { # mk NAME BODY: a harness whose body runs on (const uint8_t *d, size_t n)
	printf '#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n%s\n' \
		"int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { $2 return 0; }" >"$work/$1.c"
	"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		"$work/$1.c" -o "$work/bin/fuzz-$1" 2>"$work/$1.err"
}
mkdir -p "$work/bin" "$work/corpus"
if ! mk ok 'volatile size_t s = n; (void)s;'; then
	cat "$work/ok.err"
	echo "SKIP: $cc cannot build a libFuzzer harness (Debian: libclang-rt-14-dev)"
	exit 77
fi
mk crash 'if (n >= 3 && !memcmp(d, "BUG", 3)) *(volatile int *)0 = 1;' || fail "crash harness did not build"
mk leak 'if (n >= 4 && !memcmp(d, "LEAK", 4)) { void *volatile p = malloc(64); p = 0; (void)p; }' ||
	fail "leak harness did not build"
mk overflow 'if (n >= 3 && !memcmp(d, "OVF", 3)) { char *p = malloc(n); memcpy(p, d, n); volatile char c = p[n]; (void)c; free(p); }' ||
	fail "overflow harness did not build"
mk hang 'if (n >= 4 && !memcmp(d, "HANG", 4)) for (;;) pause();' || fail "hang harness did not build"
mk nocorpus '(void)d; (void)n;' || fail "nocorpus harness did not build"
for h in ok crash leak overflow hang; do
	mkdir -p "$work/corpus/$h"
	printf 'seed' >"$work/corpus/$h/plain"
done
printf 'BUG!' >"$work/corpus/crash/planted"
printf 'LEAK' >"$work/corpus/leak/planted"
printf 'OVF' >"$work/corpus/overflow/planted"
printf 'HANG' >"$work/corpus/hang/planted"
mkdir -p "$work/corpus/orphan"
printf 'x' >"$work/corpus/orphan/seed"

# a per-input timeout of 2 s instead of 25 s for the hang case
AWR_FUZZ_INPUT_TIMEOUT=2 AWR_FUZZ_KEEP=$work/kept "$smoke" "$work/bin" "$work/corpus" 3 2 >"$work/out" 2>&1
rc=$?
cat "$work/out"
expect() { grep -qE "$1" "$work/out" || fail "no line matching: $1"; }
expect '^PASS fuzz/ok: [0-9]+ runs in 3 s'
expect '^FAIL fuzz/crash: SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer): SEGV'
expect '^FAIL fuzz/leak: SUMMARY: AddressSanitizer: [0-9]+ byte\(s\) leaked'
expect '^FAIL fuzz/overflow: SUMMARY: AddressSanitizer: heap-buffer-overflow'
expect '^FAIL fuzz/hang: SUMMARY: libFuzzer: timeout'
expect '^FAIL fuzz/nocorpus: no committed seed corpus'
expect '^FAIL fuzz/orphan: a seed corpus without a harness'
expect '^fuzz: 1 passed, 6 failed, 0 skipped$'
[ "$rc" != 0 ] || fail "smoke.sh exited 0 with failing harnesses"
[ -f "$work/kept/crash/log" ] || fail "the crash's log was not kept"
ls "$work/kept/crash/" | grep -q '^crash-' || fail "the crashing input was not kept"
# and the clean harness alone passes, exit 0
rm -rf "$work/corpus/"{orphan,crash,leak,overflow,hang} "$work/bin/fuzz-"{crash,leak,overflow,hang,nocorpus}
"$smoke" "$work/bin" "$work/corpus" 1 2 >"$work/out2" 2>&1 || fail "smoke.sh failed on a clean harness: $(cat "$work/out2")"
grep -q '^fuzz: 1 passed, 0 failed, 0 skipped$' "$work/out2" || fail "clean run: $(tail -n 1 "$work/out2")"
[ "$fails" = 0 ] && echo "PASS: every planted bug failed the smoke, the clean harness passed"
[ "$fails" = 0 ]
