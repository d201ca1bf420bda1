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

passed=0 failed=0 skipped=0 finished=0 failures=()
count() { # count RESULT NAME [REASON]
	case "$1" in
	PASS) passed=$((passed + 1)); echo "PASS $2" ;;
	SKIP) skipped=$((skipped + 1)); echo "SKIP $2: $3" ;;
	*) failed=$((failed + 1)); failures+=("  $2${3:+: $3}"); echo "FAIL $2${3:+: $3}" ;;
	esac
}
# summary: the failing cases again, just above the final line, so that the tail of a
# long log (all a CI page may keep) says what failed, not only how many.
summary() {
	finished=1
	if [ "$failed" != 0 ]; then
		echo "== failed ($failed):"
		printf '%s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
}
finish() {
	summary
	[ "$failed" = 0 ]
	exit $?
}
# A run that stops early (a shell error, a signal) still ends with the summary line, failed.
trap '[ "$finished" = 1 ] || { count FAIL run-tests "stopped before the end (exit $?)"; summary; exit 1; }' EXIT
trap 'exit 130' INT TERM HUP

# relay_meson PREFIX BUILD MESON_EXIT [SELECTION...]: count the results of one
# `meson test -C BUILD SELECTION` run through tests/meson-results.py, which also
# fails the run for a missing, truncated or malformed testlog.json, a result count
# that differs from `meson test --list`, or a non-zero meson exit with no failing
# result. The parser's own failure (no output, an exit status that its lines do not
# explain) is a failure too. Returns 1 when the stage failed.
relay_meson() {
	local prefix=$1 dir=$2 mrc=$3 out prc res name reason n=0 nfail=0
	shift 3
	out=$(python3 "$src/tests/meson-results.py" "$dir" "$mrc" "$@" 2>"$dir/meson-results.err")
	prc=$?
	while IFS=$'\t' read -r res name reason; do
		[ -n "$res$name$reason" ] || continue
		n=$((n + 1))
		case "$res" in
		PASS|SKIP) count "$res" "$prefix$name" "$reason" ;;
		FAIL) nfail=$((nfail + 1)); count FAIL "$prefix$name" "$reason" ;;
		*) nfail=$((nfail + 1)); count FAIL "${prefix}meson-results" "not a result line: $res $name $reason" ;;
		esac
	done <<<"$out"
	if [ -s "$dir/meson-results.err" ]; then
		cat "$dir/meson-results.err"
	fi
	if [ "$n" = 0 ]; then
		count FAIL "${prefix}meson-results" "tests/meson-results.py printed no result (exit $prc)"
		return 1
	fi
	if [ "$prc" != 0 ] && [ "$nfail" = 0 ]; then
		count FAIL "${prefix}meson-results" "tests/meson-results.py exited $prc without a failing result"
		return 1
	fi
	if [ "$prc" = 0 ] && [ "$nfail" != 0 ]; then
		count FAIL "${prefix}meson-results" "tests/meson-results.py exited 0 after $nfail failing result(s)"
	fi
	[ "$nfail" = 0 ]
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

# The suite selections of the two meson stages: the results of each are counted
# against `meson test --list` with the same selection.
main_sel=()
asan_sel=(--no-suite vm)

echo "== meson test"
rm -f "$build/meson-logs/testlog.json"		# a stale log must not stand in for this run
meson test -C "$build" "${main_sel[@]}" --print-errorlogs >"$build/meson-test.out" 2>&1
meson_rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$build/meson-test.out"
relay_meson "" "$build" "$meson_rc" "${main_sel[@]}" ||
	sed -n '/Summary of Failures/,$p' "$build/meson-test.out" | head -60

echo "== the same tests built with AddressSanitizer and UBSan"
asan=$build-asan
if { [ -f "$asan/build.ninja" ] || meson setup "$asan" "$src" -Db_sanitize=address,undefined \
	-Db_lundef=false >"$build/asan-setup.out" 2>&1; } && ninja -C "$asan" >"$build/asan-build.out" 2>&1; then
	rm -f "$asan/meson-logs/testlog.json"
	# The same code paths for memory errors; the long hunts (60 s of concurrent writers, 20
	# shutdown cycles) ran in full in the stage above, so they run shorter here (2.3 min saved).
	AWR_CONCURRENCY_SECONDS=${AWR_CONCURRENCY_SECONDS:-20} AWR_CRASH_CYCLES=${AWR_CRASH_CYCLES:-8} \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson test -C "$asan" "${asan_sel[@]}" \
		--print-errorlogs >"$build/asan-test.out" 2>&1
	asan_rc=$?
	relay_meson sanitizers/ "$asan" "$asan_rc" "${asan_sel[@]}" ||
		sed -n '/Summary of Failures/,$p' "$build/asan-test.out" | head -80
else
	tail -30 "$build/asan-setup.out" "$build/asan-build.out" 2>/dev/null
	count FAIL sanitizers "the sanitizer build failed"
fi

# relay_stage STAGE OUT RC: count the "PASS name", "FAIL name: reason", "SKIP name: reason"
# lines of a stage script's output OUT, which must end with "STAGE: N passed, N failed,
# N skipped" agreeing with those lines and with its exit status RC.
relay_stage() {
	local stage=$1 out=$2 rc=$3 p=0 f=0 s=0 res name reason last
	while read -r res name reason; do
		case "$res" in
		PASS) p=$((p + 1)) ;;
		FAIL) f=$((f + 1)) ;;
		SKIP) s=$((s + 1)) ;;
		esac
		count "$res" "${name%:}" "$reason"
	done < <(grep -aE '^(PASS|FAIL|SKIP) ' "$out")
	last=$(grep -av '^[[:space:]]*$' "$out" | tail -n 1)
	if [[ ! "$last" =~ ^$stage:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		count FAIL "$stage-stage" "exit $rc without a final \"$stage: N passed, N failed, N skipped\" (last line: ${last:-none})"
	elif [ "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" != "$p $f $s" ]; then
		count FAIL "$stage-stage" "says \"$last\" but printed $p PASS, $f FAIL, $s SKIP lines"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		count FAIL "$stage-stage" "exited $rc without a failing case"
	elif [ "$rc" = 0 ] && [ "$f" != 0 ]; then
		count FAIL "$stage-stage" "exited 0 after $f failing case(s)"
	elif [ "$p" = 0 ]; then
		count FAIL "$stage-stage" "nothing passed"
	fi
}

# Fuzz smoke: every libFuzzer harness (clang build, -Dfuzz=true) from its committed seed
# corpus, AWR_FUZZ_SECONDS (60) each, two at a time; a crash, leak or sanitizer report fails.
echo "== fuzz smoke (tests/fuzz/smoke.sh)"
fuzzb=$build-fuzz
if { [ -f "$fuzzb/build.ninja" ] || CC=clang meson setup "$fuzzb" "$src" -Dfuzz=true \
	>"$build/fuzz-setup.out" 2>&1; } && ninja -C "$fuzzb" fuzz >"$build/fuzz-build.out" 2>&1; then
	"$src/tests/fuzz/smoke.sh" "$fuzzb/tests/fuzz" "$src/tests/fuzz/corpus" >"$build/fuzz.out" 2>&1
	fuzz_rc=$?
	cat "$build/fuzz.out"
	relay_stage fuzz "$build/fuzz.out" "$fuzz_rc"
else
	tail -30 "$build/fuzz-setup.out" "$build/fuzz-build.out" 2>/dev/null
	count FAIL fuzz-build "the clang build of tests/fuzz failed"
fi

# valgrind memcheck: awr's main commands on a scratch XFS; a memory error or a definite or
# indirect leak fails (tests/memcheck.sh, with its own control that must be caught).
echo "== valgrind memcheck (tests/memcheck.sh)"
"$src/tests/integration/with-scratch-xfs.sh" "$src/tests/memcheck.sh" "$build/cli/awr" "$src/tests/fixtures" \
	>"$build/memcheck.out" 2>&1
memcheck_rc=$?
cat "$build/memcheck.out"
relay_stage memcheck "$build/memcheck.out" "$memcheck_rc"

echo "== install and build a consumer through pkg-config"
if "$src/tests/install-consumer.sh" "$build" >"$build/consumer.out" 2>&1; then
	count PASS install-consumer
else
	consumer_rc=$?
	cat "$build/consumer.out"
	count FAIL install-consumer "tests/install-consumer.sh exited $consumer_rc (output above)"
fi

# The guest stage reports "PASS name", "FAIL name: reason", "SKIP name: reason"
# and ends with "vm: N passed, N failed, N skipped". Its exit status, that final
# line and the lines relayed must agree; anything else is a failure of the stage.
echo "== QEMU guest stage"
if [ -x "$src/tests/vm/run.sh" ]; then
	"$src/tests/vm/run.sh" >"$build/vm.out" 2>&1
	vm_rc=$?
	cat "$build/vm.out"
	vp=0 vf=0 vs=0
	while read -r res name reason; do
		case "$res" in
		PASS) vp=$((vp + 1)) ;;
		FAIL) vf=$((vf + 1)) ;;
		SKIP) vs=$((vs + 1)) ;;
		esac
		count "$res" "vm/${name%:}" "$reason"
	done < <(grep -aE '^(PASS|FAIL|SKIP) ' "$build/vm.out")
	vm_last=$(grep -av '^[[:space:]]*$' "$build/vm.out" | tail -n 1)
	if [[ ! "$vm_last" =~ ^vm:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		count FAIL vm-stage "tests/vm/run.sh (exit $vm_rc) did not end with \"vm: N passed, N failed, N skipped\" (its last line: ${vm_last:-none})"
	elif [ "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" != "$vp $vf $vs" ]; then
		count FAIL vm-stage "tests/vm/run.sh says \"$vm_last\" but printed $vp PASS, $vf FAIL, $vs SKIP lines"
	elif [ "$vm_rc" != 0 ] && [ "$vf" = 0 ]; then
		count FAIL vm-stage "tests/vm/run.sh exited $vm_rc without a failing case: the guest could not be built or booted"
	elif [ "$vm_rc" = 0 ] && [ "$vf" != 0 ]; then
		count FAIL vm-stage "tests/vm/run.sh exited 0 after $vf failing case(s)"
	elif [ "$vp" = 0 ]; then
		count FAIL vm-stage "no guest case passed"
	fi
else
	count FAIL vm-stage "tests/vm/run.sh is missing"
fi
finish
