#!/bin/bash
# SPDX-License-Identifier: MIT
# Install what the tests need, build with -Werror, run every test (unit, XFS
# integration, install + pkg-config consumer, the QEMU guest stage) and end with
#   N passed, N failed, N skipped
# Exit status is non-zero on any failure.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${AWR_BUILD_DIR:-$src/build-test}
. "$src/scripts/deps.sh"
require_root "$@"

install_packages "${BUILD_DEPS[@]}" "${TEST_DEPS[@]}" || { echo "package installation failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

passed=0 failed=0 skipped=0
count() { # count RESULT NAME [REASON]
	case "$1" in
	PASS) passed=$((passed + 1)); echo "PASS $2" ;;
	SKIP) skipped=$((skipped + 1)); echo "SKIP $2: $3" ;;
	*) failed=$((failed + 1)); echo "FAIL $2${3:+: $3}" ;;
	esac
}
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit $?
}

echo "== build ($build)"
if ! { meson setup "$build" "$src" --wipe --werror >"$build.setup.log" 2>&1 ||
       meson setup "$build" "$src" --werror >"$build.setup.log" 2>&1; } ||
   ! ninja -C "$build" >"$build.ninja.log" 2>&1; then
	cat "$build.setup.log" "$build.ninja.log" 2>/dev/null | tail -40
	count FAIL build "see the output above"
	finish
fi
rm -f "$build.setup.log" "$build.ninja.log"

echo "== meson test"
meson test -C "$build" --print-errorlogs >"$build/meson-test.out" 2>&1
grep -E '^ *[0-9]+/[0-9]+ ' "$build/meson-test.out"
while IFS=$'\t' read -r res name reason; do
	count "$res" "$name" "$reason"
done < <(python3 "$src/tests/meson-results.py" "$build/meson-logs/testlog.json")
grep -q 'FAIL\|TIMEOUT' <(python3 "$src/tests/meson-results.py" "$build/meson-logs/testlog.json" | cut -f1) &&
	sed -n '/Summary of Failures/,$p' "$build/meson-test.out" | head -60

echo "== the same tests built with AddressSanitizer and UBSan"
asan=$build-asan
if { [ -f "$asan/build.ninja" ] || meson setup "$asan" "$src" -Db_sanitize=address,undefined \
	-Db_lundef=false >"$build/asan-setup.out" 2>&1; } && ninja -C "$asan" >"$build/asan-build.out" 2>&1; then
	if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson test -C "$asan" --no-suite vm \
		--print-errorlogs >"$build/asan-test.out" 2>&1; then
		count PASS sanitizers "$(grep -c ' OK ' "$build/asan-test.out") tests clean"
	else
		sed -n '/Summary of Failures/,$p' "$build/asan-test.out" | head -80
		count FAIL sanitizers "a test failed or a sanitizer reported an error (above)"
	fi
else
	tail -30 "$build/asan-setup.out" "$build/asan-build.out" 2>/dev/null
	count FAIL sanitizers "the sanitizer build failed"
fi

echo "== install and build a consumer through pkg-config"
if "$src/tests/install-consumer.sh" "$build" >"$build/consumer.out" 2>&1; then
	count PASS install-consumer
else
	cat "$build/consumer.out"
	count FAIL install-consumer "see the output above"
fi

echo "== QEMU guest stage"
if [ -x "$src/tests/vm/run.sh" ]; then
	"$src/tests/vm/run.sh" >"$build/vm.out" 2>&1
	vm_rc=$?
	cat "$build/vm.out"
	while read -r res name reason; do
		count "$res" "vm/${name%:}" "$reason"
	done < <(grep -E '^(PASS|FAIL|SKIP) ' "$build/vm.out")
	if [ "$vm_rc" != 0 ] && ! grep -q '^FAIL ' "$build/vm.out"; then
		count FAIL vm-stage "tests/vm/run.sh exited $vm_rc without a failing case: the guest could not be built or booted"
	fi
else
	count FAIL vm-stage "tests/vm/run.sh is missing"
fi
finish
