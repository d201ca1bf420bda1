#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: tests/meson-results.py against real `meson test` runs of a small
# throw-away project (tests that pass, skip, fail, crash), then against the same
# run's testlog.json damaged: every damage must turn into a FAIL line and exit 1.
#   meson-results-check.sh PATH/TO/meson-results.py
set -u
parser=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-meson-results.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# project: two passing tests and one skip in suite a; suite b holds the test that
# the sabotaged cases make fail or crash (MODE in the environment)
mkdir "$work/src"
cat >"$work/src/meson.build" <<'EOF'
project('results', meson_version: '>= 0.57')
sh = find_program('sh')
test('one', sh, args: ['-c', 'echo one: ok'], suite: 'a')
test('two', sh, args: ['-c', 'echo two: ok'], suite: 'a')
test('skipper', sh, args: ['-c', 'echo "SKIP: nothing to do here"; exit 77'], suite: 'a')
test('moody', sh, args: ['-c', '
case "$MODE" in
fail) echo "FAIL moody: wrong"; exit 1 ;;
crash) kill -SEGV $$ ;;
skip-after-fail) echo "FAIL moody: wrong"; echo "SKIP: no device"; exit 77 ;;
esac
echo moody: ok'], suite: 'b')
EOF
meson setup "$work/b" "$work/src" >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; echo "FAIL: meson setup"; exit 1; }
log=$work/b/meson-logs/testlog.json

run() { # MODE: run meson test with the moody test in MODE (from the environment meson test passes on; no
	# reconfigure, which costs more than the run), keep its exit in $mrc
	rm -f "$log"
	MODE=$1 meson test -C "$work/b" >/dev/null 2>&1
	mrc=$?
}
parse() { # [ARGS...]: the parser on the run (expected names from meson test --list); output in $out, exit in $rc
	out=$(python3 "$parser" "$work/b" "$mrc" "$@" 2>&1)
	rc=$?
}
parse_fast() { # the same with the list taken once (meson is slow to start)
	out=$(python3 "$parser" --expected "$work/list" "$work/b" "$mrc" 2>&1)
	rc=$?
}
expect() { # DESC RC PATTERN: the last parse exited RC and printed a line matching PATTERN
	if [ "$rc" = "$2" ] && grep -qE "$3" <<<"$out"; then
		ok "$1"
	else
		fail "$1: exit $rc (expected $2), no line matching '$3' in:"
		echo "$out"
	fi
}

run pass
parse
expect "clean run: exit 0" 0 '^PASS	results:a / one	$'
[ "$(grep -c '^PASS' <<<"$out") $(grep -c '^SKIP' <<<"$out") $(grep -c '^FAIL' <<<"$out")" = "3 1 0" ] &&
	ok "clean run: 3 PASS, 1 SKIP" || fail "clean run: $out"
expect "clean run: skip reason from its output" 0 '^SKIP	results:a / skipper	nothing to do here$'
parse --suite a
expect "same selection as meson test --list (--suite a)" 1 '^FAIL	results:b / moody	a result in testlog.json for a test meson test --list does not select'

cp "$log" "$work/good.json"
meson test -C "$work/b" --list --no-rebuild >"$work/list" 2>/dev/null
[ "$(wc -l <"$work/list")" = 4 ] || fail "meson test --list: $(cat "$work/list")"
rm "$log"
parse
expect "missing testlog.json" 1 '^FAIL	meson-test	.*testlog.json is missing'

head -c -15 "$work/good.json" >"$log"
parse_fast
expect "truncated last line" 1 '^FAIL	meson-test	testlog.json: line 4 is truncated'

head -n 3 "$work/good.json" >"$log"
parse_fast
expect "a result dropped at a line boundary" 1 '^FAIL	.* / [a-z]+	no result in testlog.json, but meson test --list selects it'

cp "$work/good.json" "$log"
mrc=1 parse_fast
expect "meson test exit 1 with no failing result" 1 '^FAIL	meson-test	meson test exited 1, yet no test result failed'

cat "$work/good.json" "$work/good.json" >"$log"
parse_fast
expect "the same result twice" 1 'FAIL	results:a / one	2 results in testlog.json for 1 test'

run fail
parse_fast
expect "a failing test" 1 '^FAIL	results:b / moody	fail$'
# a malformed line in front of the failing result must not hide it
moody=$(grep -n '"results:b / moody"' "$log" | cut -d: -f1)
[ -n "$moody" ] && [ "$moody" -gt 1 ] || { fail "moody's line not found in the log"; moody=2; }
awk -v n=$((moody - 1)) 'NR == n { print "{\"name\": \"results:a / broken"; next } 1' "$log" >"$work/bad.json"
cp "$work/bad.json" "$log"
parse_fast
expect "malformed line: named" 1 "^FAIL	meson-test	testlog.json: line $((moody - 1)) is not a JSON result"
expect "malformed line: the failure after it still counted" 1 '^FAIL	results:b / moody	fail$'

run crash
parse_fast
expect "a crashing test" 1 '^FAIL	results:b / moody	fail \(killed by signal 11\)$'

run skip-after-fail
parse_fast
expect "a skip after a FAIL line" 1 '^FAIL	results:b / moody	skipped after reporting a failure: FAIL moody: wrong$'

out=$(python3 "$parser" "$work/nonexistent" 0 2>&1); rc=$?
expect "not a build directory" 1 '^FAIL	meson-test	`test -C .* --list --no-rebuild` exited'

[ "$fails" = 0 ] || { echo "meson-results-check: $fails failure(s)"; exit 1; }
echo "meson-results-check: ok"
