#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: valgrind memcheck over awr's main commands (probe, check, decode, write, stress,
# verify, qualify --quick and its HTML report, report --html) on a scratch XFS: any memory error
# or a definite or indirect leak fails.
#
#   tests/integration/with-scratch-xfs.sh tests/memcheck.sh BUILD/cli/awr FIXTURES_DIR
#
# One line per command (PASS|FAIL|SKIP memcheck/NAME), then "memcheck: N passed, N failed,
# N skipped". First a control: a small program with a leak and one with an invalid read, built
# here, must each be reported by the same valgrind options, or the stage fails.
set -u
awr=$1 fix=$2
dir=${AWR_SCRATCH_DIR:?run under tests/integration/with-scratch-xfs.sh}
work=$(mktemp -d "${TMPDIR:-/tmp}/awr-memcheck.XXXXXX") || exit 2	# the journal: another filesystem
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
res() { # res PASS|FAIL|SKIP NAME [REASON]
	case "$1" in
	PASS) passed=$((passed + 1)); echo "PASS memcheck/$2" ;;
	SKIP) skipped=$((skipped + 1)); echo "SKIP memcheck/$2: $3" ;;
	*) failed=$((failed + 1)); echo "FAIL memcheck/$2: $3" ;;
	esac
}
finish() { echo "memcheck: $passed passed, $failed failed, $skipped skipped"; [ "$failed" = 0 ]; exit $?; }
if ! command -v valgrind >/dev/null; then
	res SKIP valgrind "valgrind is not installed (Debian: valgrind)"
	finish
fi
vg_rc=99
# vg NAME CMD...: run CMD under memcheck; its exit status, 99 for a memory error or a leak
vg() {
	local name=$1 rc
	shift
	valgrind -q --error-exitcode=$vg_rc --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --log-file="$work/$name.vg" "$@" \
		>"$work/$name.out" 2>&1 </dev/null
	rc=$?
	# an error valgrind reports without counting it still fails
	if grep -qE '== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|.*definitely lost in|.*indirectly lost in)' \
		"$work/$name.vg"; then
		rc=$vg_rc
	fi
	return $rc
}
# mc NAME EXPECTED_EXIT CMD...: one case
mc() {
	local name=$1 want=$2 rc
	shift 2
	vg "$name" "$@"
	rc=$?
	if [ "$rc" = "$vg_rc" ]; then
		res FAIL "$name" "valgrind: $(grep -m1 -E '== [A-Z]' "$work/$name.vg" | sed 's/^==[0-9]*== //') (exit $rc)"
		sed 's/^/    /' "$work/$name.vg" | head -30
	elif [ "$rc" != "$want" ]; then
		res FAIL "$name" "exit $rc, expected $want: $(tail -n 3 "$work/$name.out" | tr '\n' ' ')"
	else
		res PASS "$name"
	fi
}

# The control: memcheck with these options must catch a leak and an invalid read.
printf '#include <stdlib.h>\nint main(void) { char *volatile p = malloc(40); p = 0; return 0; }\n' >"$work/leak.c"
printf '#include <stdlib.h>\nint main(void) { char *p = malloc(8); volatile char c = p[8]; free(p); return c & 0; }\n' \
	>"$work/oob.c"
if cc -g -O0 "$work/leak.c" -o "$work/leak" && cc -g -O0 "$work/oob.c" -o "$work/oob"; then
	for c in leak oob; do
		vg "control-$c" "$work/$c"
		if [ $? = "$vg_rc" ]; then
			res PASS "control-$c"
		else
			res FAIL "control-$c" "memcheck did not report the planted fault: the stage could not fail"
		fi
	done
else
	res FAIL control "cc cannot build the control programs"
fi

f=$dir/data
j=$work/journal
mc probe 0 "$awr" probe "$dir"
mc probe-json 0 "$awr" probe "$dir" -o json
mc decode-nvme 0 "$awr" decode --nvme-ctrl "$fix/ctrl-qemu-awun31-awupf15.hex" --nvme-ns "$fix/ns-qemu-nsfeat34-4k.hex"
mc decode-scsi 0 "$awr" decode --scsi-vpd "$fix/vpd-bl-scsi-debug-default.hex" --lbs 512 -o json
mc write 0 "$awr" write "$f" --offset 0 --length 256k --unit 16k --dsync --verify
mc write-uring 0 "$awr" write "$f" --offset 0 --length 256k --unit 16k --engine uring --qd 8 --verify
mc check 0 "$awr" check "$f" --offset 16384 --length 16k
mc check-refused 1 "$awr" check "$f" --offset 4096 --length 16k
mc stress 0 "$awr" stress "$dir/stress" --unit 16k --size 4M --threads 4 --writes 400 --journal "$j"
mc verify 0 "$awr" verify "$dir/stress" --unit 16k --journal "$j"
mc verify-json 0 "$awr" verify "$dir/stress" --unit 16k -o json
mc qualify-quick 0 "$awr" qualify "$dir/qualify" --quick --create
mc qualify-html 0 "$awr" qualify "$dir/qualify" --quick --create --report "$dir/q.json" --html "$dir/q.html"
mc report-html 0 "$awr" report "$dir/q.json" --html "$dir/r.html"
finish
