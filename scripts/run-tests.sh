#!/bin/bash
# SPDX-License-Identifier: MIT
# Install what the tests need, build with -Werror, run the tests and end with
#   N passed, N failed, N skipped
# Exit status is non-zero on any failure.
#
#   run-tests.sh            the full command (.ci/run): meson tests, sanitizers, fuzz smoke,
#                           valgrind, install + pkg-config consumer, the release stage (Debian
#                           packages, lintian, the ABI, installs in clean Debian 12 chroots), the
#                           QEMU guest stage
#   run-tests.sh --quick    everyday work: the unit tests and the integration tests of a few
#                           seconds each (meson suite `slow` left out); no sanitizers, fuzz,
#                           valgrind or guests. Its last lines say that it is the quick tier.
#   run-tests.sh --only NAME...  only these: a meson test (`write_concurrency`, `rules`), `sanitizers/NAME`,
#                           `vm/GROUP` (one guest group on every kernel; AWR_VM_KERNELS picks
#                           kernels), or a stage: `fuzz`, `memcheck`, `install-consumer`,
#                           `release`, `vm`
#   run-tests.sh --long     the long soak lengths of the benchmark machine and nightly runs
#                           (AWR_TEST_LONG=1: write_concurrency 60 s a part, 20 crash cycles, fuzz 60 s
#                           a harness, the guest's write_concurrency 30 s); combines with the others
# Environment: AWR_TEST_JOBS (meson tests run at once, default 6), AWR_BUILD_DIR.
# Stages that do not depend on each other run side by side: the guest stage in the
# background from the start, the host's meson tests several at a time; the output of each
# stage is printed whole, in a fixed order, when it is counted.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${AWR_BUILD_DIR:-$src/build-test}
. "$src/scripts/deps.sh"

usage() {
	sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'
}
tier=full only=()
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) tier=quick ;;
	--long) export AWR_TEST_LONG=1 ;;
	--only) shift
		while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do only+=("$1"); shift; done
		[ ${#only[@]} -gt 0 ] || { echo "run-tests.sh: --only needs at least one NAME (a meson test, sanitizers/NAME, vm/GROUP, fuzz, memcheck, install-consumer, release, vm)" >&2; exit 2; }
		continue ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run-tests.sh: unknown argument '$1' (expected --quick, --long, --only NAME..., --help)" >&2; exit 2 ;;
	esac
	shift
done
[ "$tier" = quick ] && [ ${#only[@]} -gt 0 ] && { echo "run-tests.sh: --quick and --only do not go together: --only already picks the tests" >&2; exit 2; }
require_root
jobs=${AWR_TEST_JOBS:-6}
case "$jobs" in ''|*[!0-9]*|0) echo "run-tests.sh: AWR_TEST_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac

# What runs: every stage (full), the quick tier, or what --only names.
want_meson=1 want_asan=1 want_fuzz=1 want_memcheck=1 want_consumer=1 want_release=1 want_vm=1
main_sel=(--no-suite sanonly) asan_sel=(--no-suite vm --no-suite nosan) vm_only=
if [ "$tier" = quick ]; then
	want_asan=0 want_fuzz=0 want_memcheck=0 want_consumer=0 want_release=0 want_vm=0
	main_sel=(--no-suite slow)
elif [ ${#only[@]} -gt 0 ]; then
	want_meson=0 want_asan=0 want_fuzz=0 want_memcheck=0 want_consumer=0 want_release=0 want_vm=0
	main_sel=() asan_sel=()
	for n in "${only[@]}"; do
		case "$n" in
		fuzz) want_fuzz=1 ;;
		memcheck) want_memcheck=1 ;;
		install-consumer) want_consumer=1 ;;
		release) want_release=1 ;;
		vm) want_vm=1 ;;
		vm/*) want_vm=1; vm_only=${vm_only:+$vm_only,}${n#vm/} ;;
		sanitizers/*) want_asan=1; asan_sel+=("${n#sanitizers/}") ;;
		*) want_meson=1; main_sel+=("$n") ;;
		esac
	done
fi

install_packages "${BUILD_DEPS[@]}" "${TEST_DEPS[@]}" || { echo "package installation failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

t_run=$(date +%s)
passed=0 failed=0 skipped=0 finished=0 failures=() bg=() stage_times=()
count() { # count RESULT NAME [REASON]
	case "$1" in
	PASS) passed=$((passed + 1)); echo "PASS $2" ;;
	SKIP) skipped=$((skipped + 1)); echo "SKIP $2: $3" ;;
	*) failed=$((failed + 1)); failures+=("  $2${3:+: $3}"); echo "FAIL $2${3:+: $3}" ;;
	esac
}
# timed NAME T0: note a stage's wall time (printed above the summary)
timed() { stage_times+=("$1 $(( $(date +%s) - $2 )) s"); }
# summary: the failing cases again, just above the final line, so that the tail of a
# long log (all a CI page may keep) says what failed, not only how many.
summary() {
	finished=1
	[ ${#stage_times[@]} = 0 ] || echo "== stage wall times: $(printf '%s; ' "${stage_times[@]}")whole run $(( $(date +%s) - t_run )) s"
	if [ "$tier" = quick ]; then
		echo "== this was the quick tier (unit tests and the short integration tests; not run: the"
		echo "   slow suite, sanitizers, fuzz smoke, valgrind, install, guests): the full command is ./scripts/run-tests.sh"
	elif [ ${#only[@]} -gt 0 ]; then
		echo "== only: ${only[*]} (the full command is ./scripts/run-tests.sh)"
	fi
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
# A run that stops early (a shell error, a signal) still ends with the summary line, failed;
# stages still running in the background are stopped.
stop_bg() {
	local p
	for p in "${bg[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
	for p in "${bg[@]}"; do wait "$p" 2>/dev/null; done
	bg=()
}
trap 'rc=$?; stop_bg; [ "$finished" = 1 ] || { count FAIL run-tests "stopped before the end (exit $rc)"; summary; exit 1; }' EXIT
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


# relay_stage STAGE OUT RC WHO [PREFIX]: count the "PASS name", "FAIL name: reason", "SKIP name:
# reason" lines of a stage script's output OUT (as PREFIXname), which must end with "STAGE: N
# passed, N failed, N skipped" agreeing with those lines and with its exit status RC. WHO names
# the script in the stage's own FAIL lines (STAGE-stage).
relay_stage() {
	local stage=$1 out=$2 rc=$3 who=$4 prefix=${5:-} p=0 f=0 s=0 res name reason last
	while read -r res name reason; do
		case "$res" in
		PASS) p=$((p + 1)) ;;
		FAIL) f=$((f + 1)) ;;
		SKIP) s=$((s + 1)) ;;
		esac
		count "$res" "$prefix${name%:}" "$reason"
	done < <(grep -aE '^(PASS|FAIL|SKIP) ' "$out")
	last=$(grep -av '^[[:space:]]*$' "$out" | tail -n 1)
	if [[ ! "$last" =~ ^$stage:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		count FAIL "$stage-stage" "$who (exit $rc) did not end with \"$stage: N passed, N failed, N skipped\" (its last line: ${last:-none})"
	elif [ "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" != "$p $f $s" ]; then
		count FAIL "$stage-stage" "$who says \"$last\" but printed $p PASS, $f FAIL, $s SKIP lines"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		count FAIL "$stage-stage" "$who exited $rc without a failing case"
	elif [ "$rc" = 0 ] && [ "$f" != 0 ]; then
		count FAIL "$stage-stage" "$who exited 0 after $f failing case(s)"
	elif [ "$p" = 0 ]; then
		count FAIL "$stage-stage" "$who: nothing passed"
	fi
}

# ------------------------------------------------------------------ the guest stage
# It builds its own static tree and boots its guests under QEMU: the longest stage, and
# independent of every other, so it starts first and runs in the background (its own
# process group, stopped with the run); its output is counted at the end.
vm_out=$build.vm.out
t_vm=$(date +%s)
if [ "$want_vm" = 1 ]; then
	rm -f "$vm_out" "$vm_out.rc"
	if [ -x "$src/tests/vm/run.sh" ]; then
		[ -n "$vm_only" ] && export AWR_VM_ONLY=$vm_only
		setsid -w bash -c '"$1" >"$2" 2>&1; echo $? >"$2.rc"' sh "$src/tests/vm/run.sh" "$vm_out" </dev/null &
		bg+=($!)
		echo "== QEMU guest stage started in the background (output: $vm_out)"
	fi
fi

# ------------------------------------------------------------------ the release stage
# The Debian packages (built, lintian, installed in a clean Debian 12 chroot), the ABI against
# abi/, and the README's install block in another clean chroot (tests/release/run.sh). It needs
# nothing of the host build, so it starts now, in the background (its own process group), and is
# counted at the end.
release_out=$build-release.out
t_release=$(date +%s)
if [ "$want_release" = 1 ]; then
	rm -f "$release_out" "$release_out.rc"
	setsid -w bash -c '"$1" "$2" >"$3" 2>&1; echo $? >"$3.rc"' sh "$src/tests/release/run.sh" \
		"$build-release" "$release_out" </dev/null &
	release_pid=$!
	bg+=("$release_pid")
	echo "== release stage started in the background (output: $release_out)"
fi

# ------------------------------------------------------------------ host build
t0=$(date +%s)
echo "== build ($build)"
if ! { meson setup "$build" "$src" --wipe --werror -Dtest_hooks=true >"$build.setup.log" 2>&1 ||
       meson setup "$build" "$src" --werror -Dtest_hooks=true >"$build.setup.log" 2>&1; } ||
   ! ninja -C "$build" >"$build.ninja.log" 2>&1; then
	cat "$build.setup.log" "$build.ninja.log" 2>/dev/null | tail -n 40
	count FAIL build "see the output above"
	finish
fi
rm -f "$build.setup.log" "$build.ninja.log"
timed build "$t0"

# bg_forget PID: a background job waited for leaves the list stop_bg kills
bg_forget() {
	local p rest=()
	for p in "${bg[@]}"; do [ "$p" = "$1" ] || rest+=("$p"); done
	bg=("${rest[@]}")
}
# The sanitizer and fuzz builds start now, at the lowest priority (nice 19), each in its own process
# group: they take the CPU the meson stage leaves idle (its last minutes are a few long tests that
# mostly wait) and are waited for where their stages begin.
asan=$build-asan fuzzb=$build-fuzz
prebuild() { # prebuild NAME DIR SETUP-ARGS...: meson setup (once) and ninja, exit status in $build/NAME-build.rc
	local name=$1 dir=$2
	shift 2
	rm -f "$build/$name-build.rc"
	setsid -w nice -n 19 bash -c '
		name=$1 build=$2 dir=$3 src=$4; shift 4
		{ if [ -f "$dir/build.ninja" ]; then meson configure "$dir" "$@"; else meson setup "$dir" "$src" "$@"; fi
		} >"$build/$name-setup.out" 2>&1 &&
			ninja -C "$dir" $AWR_PREBUILD_TARGETS >"$build/$name-build.out" 2>&1
		echo $? >"$build/$name-build.rc"' sh "$name" "$build" "$dir" "$src" "$@" </dev/null &
	bg+=("$!")
	eval "${name}_build_pid=$!"
}
prebuilt() { # prebuilt NAME: wait for its build; true when it built
	local pid_var=${1}_build_pid
	[ -n "${!pid_var:-}" ] || return 1
	wait "${!pid_var}"
	bg_forget "${!pid_var}"
	[ "$(cat "$build/$1-build.rc" 2>/dev/null)" = 0 ]
}
[ "$want_asan" = 1 ] && prebuild asan "$asan" -Dtest_hooks=true -Db_sanitize=address,undefined -Db_lundef=false
[ "$want_fuzz" = 1 ] && CC=clang AWR_PREBUILD_TARGETS=fuzz prebuild fuzz "$fuzzb" -Dtest_hooks=true -Dfuzz=true

# meson_stage PREFIX BUILD OUT SELECTION...: meson test, JOBS at once, its results counted against
# `meson test --list` with the same selection. Timeouts are multiplied by 3: tests share the
# machine with each other and with the guests.
meson_stage() {
	local prefix=$1 dir=$2 out=$3 rc
	shift 3
	rm -f "$dir/meson-logs/testlog.json"		# a stale log must not stand in for this run
	meson test -C "$dir" "$@" --num-processes "$jobs" --timeout-multiplier 3 --print-errorlogs >"$out" 2>&1
	rc=$?
	grep -E '^ *[0-9]+/[0-9]+ ' "$out"
	relay_meson "$prefix" "$dir" "$rc" "$@" ||
		sed -n '/Summary of Failures/,$p' "$out" | head -80
}

if [ "$want_meson" = 1 ]; then
	t0=$(date +%s)
	echo "== meson test ($jobs at once)"
	meson_stage "" "$build" "$build/meson-test.out" "${main_sel[@]}"
	timed meson "$t0"
fi

# Fuzz smoke: every libFuzzer harness (clang build, -Dfuzz=true) from its committed seed
# corpus, AWR_FUZZ_SECONDS each (6; 60 with --long), two at a time; a crash, leak or
# sanitizer report fails. It builds and runs in the background beside the sanitizer stage
# (whose last minutes are a few long tests that mostly wait) and is counted after it.
fuzz_start() {
	rm -f "$build/fuzz.out" "$build/fuzz.rc"
	if ! prebuilt fuzz; then
		echo build-failed >"$build/fuzz.rc"
		fuzz_pid=
		return
	fi
	# its own process group (stopped with the run, as the guests are)
	setsid -w bash -c '"$1/tests/fuzz/smoke.sh" "$2/tests/fuzz" "$1/tests/fuzz/corpus" >"$3/fuzz.out" 2>&1
		echo $? >"$3/fuzz.rc"' sh "$src" "$fuzzb" "$build" </dev/null &
	fuzz_pid=$!
	bg+=("$fuzz_pid")
}
fuzz_count() {
	local fuzz_rc
	echo "== fuzz smoke (tests/fuzz/smoke.sh)"
	if [ -n "$fuzz_pid" ]; then
		wait "$fuzz_pid"
		bg_forget "$fuzz_pid"
	fi
	fuzz_rc=$(cat "$build/fuzz.rc" 2>/dev/null) || fuzz_rc=255
	if [ "$fuzz_rc" = build-failed ]; then
		tail -n 30 "$build/fuzz-setup.out" "$build/fuzz-build.out" 2>/dev/null
		count FAIL fuzz-build "the clang build of tests/fuzz failed"
	else
		cat "$build/fuzz.out"
		relay_stage fuzz "$build/fuzz.out" "$fuzz_rc" tests/fuzz/smoke.sh
	fi
	timed "fuzz (beside the sanitizers)" "$t_fuzz"
}
t_fuzz=$(date +%s)
[ "$want_fuzz" = 1 ] && fuzz_start

# valgrind memcheck: awr's main commands on a scratch XFS; a memory error or a definite or
# indirect leak fails (tests/memcheck.sh, with its own control that must be caught). It runs in
# the background beside the sanitizer stage too (its own process group) and is counted after it.
memcheck_start() {
	rm -f "$build/memcheck.out" "$build/memcheck.out.rc"
	setsid -w bash -c '"$1" "$2" "$3" "$4" >"$5" 2>&1; echo $? >"$5.rc"' sh \
		"$src/tests/integration/with-scratch-xfs.sh" "$src/tests/memcheck.sh" "$build/cli/awr" \
		"$src/tests/fixtures" "$build/memcheck.out" </dev/null &
	memcheck_pid=$!
	bg+=("$memcheck_pid")
}
memcheck_count() {
	local rc
	echo "== valgrind memcheck (tests/memcheck.sh)"
	wait "$memcheck_pid"
	bg_forget "$memcheck_pid"
	rc=$(cat "$build/memcheck.out.rc" 2>/dev/null) || rc=255
	cat "$build/memcheck.out"
	relay_stage memcheck "$build/memcheck.out" "$rc" tests/memcheck.sh
	timed "memcheck (beside the sanitizers)" "$t_fuzz"
}
[ "$want_memcheck" = 1 ] && memcheck_start

if [ "$want_asan" = 1 ]; then
	t0=$(date +%s)
	echo "== the same tests built with AddressSanitizer and UBSan"
	if prebuilt asan; then
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 meson_stage sanitizers/ "$asan" "$build/asan-test.out" "${asan_sel[@]}"
	else
		tail -n 30 "$build/asan-setup.out" "$build/asan-build.out" 2>/dev/null
		count FAIL sanitizers "the sanitizer build failed"
	fi
	timed sanitizers "$t0"
fi
[ "$want_fuzz" = 1 ] && fuzz_count
[ "$want_memcheck" = 1 ] && memcheck_count

if [ "$want_consumer" = 1 ]; then
	echo "== install and build a consumer through pkg-config"
	if "$src/tests/install-consumer.sh" "$build" >"$build/consumer.out" 2>&1; then
		count PASS install-consumer
	else
		consumer_rc=$?
		cat "$build/consumer.out"
		count FAIL install-consumer "tests/install-consumer.sh exited $consumer_rc (output above)"
	fi
fi

if [ "$want_release" = 1 ]; then
	echo "== release stage (tests/release/run.sh)"
	wait "$release_pid"
	bg_forget "$release_pid"
	release_rc=$(cat "$release_out.rc" 2>/dev/null) || release_rc=255
	cat "$release_out"
	relay_stage release "$release_out" "$release_rc" tests/release/run.sh
	rm -f "$release_out.rc"
	timed "release (beside the others)" "$t_release"
fi

# The guest stage reports "PASS name", "FAIL name: reason", "SKIP name: reason"
# and ends with "vm: N passed, N failed, N skipped". Its exit status, that final
# line and the lines relayed must agree; anything else is a failure of the stage.
if [ "$want_vm" = 1 ]; then
	echo "== QEMU guest stage"
	if [ ! -x "$src/tests/vm/run.sh" ]; then
		count FAIL vm-stage "tests/vm/run.sh is missing"
	else
		[ ${#bg[@]} = 0 ] || wait "${bg[@]}"
		bg=()
		vm_rc=$(cat "$vm_out.rc" 2>/dev/null) || vm_rc=255
		cat "$vm_out"
		relay_stage vm "$vm_out" "${vm_rc:-255}" tests/vm/run.sh vm/
		rm -f "$vm_out.rc"
	fi
	# the kernels the guests booted, in the stage's line of the summary
	vm_kernels=$(sed -n 's/^vm: kernel [^:]*: \([^+ ]*\).*/\1/p' "$vm_out" 2>/dev/null | paste -sd, -)
	timed "vm${vm_kernels:+ (kernels $vm_kernels)}" "$t_vm"
fi
finish
