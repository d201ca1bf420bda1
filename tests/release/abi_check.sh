#!/bin/bash
# SPDX-License-Identifier: MIT
# The ABI kept on purpose (scripts/abi-update.sh records it):
#   release/abi          the built library's exported ABI (abidw) equals abi/libatomicwr.abi:
#                        abidiff reports nothing, not even an addition
#   release/abi-news     the commit that last changed abi/libatomicwr.abi changed NEWS too (and
#                        an uncommitted change of it comes with one of NEWS); a commit that
#                        moved only its source positions is passed over
#   release/abi-control  the negative control: in a scratch copy of the tree, one exported
#                        function removed from lib/libatomicwr.map and a field added to struct
#                        awr_limits; abidiff must report both, as an incompatible change
#   abi_check.sh SRC LIB SCRATCH WORK
# LIB: a library built with debug info from SRC; SCRATCH: a copy of SRC with a meson build of
# its own in SCRATCH/BUILDDIR (the package build's tree: changed here, no longer usable after).
set -u
src=$1 lib=$2 scratch=$3 work=$4
update="scripts/abi-update.sh, then say in NEWS what changed and commit abi/, NEWS and debian/libatomicwr0.symbols together"
status=0

"$src/scripts/abi-update.sh" --dump "$lib" "$work/built.abi" 2>"$work/abidw.err" ||
	{ echo "FAIL release/abi: abidw failed on $lib: $(head -n 3 "$work/abidw.err")"; exit 1; }
abidiff "$src/abi/libatomicwr.abi" "$work/built.abi" >"$work/abidiff.out" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	echo "PASS release/abi"
else
	sed 's/^/    /' "$work/abidiff.out" | head -n 40
	echo "FAIL release/abi: the exported ABI differs from abi/libatomicwr.abi (abidiff exit $rc;" \
	     "8: incompatible, 4: changed or added): if it is meant, run $update"
	status=1
fi

if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP release/abi-news: $src is not a git checkout"
else
	# the last commit that changed the record in substance: one that moved only the source
	# positions (filepath, line, column: abidiff ignores them) has no ABI news
	c=
	for c in $(git -C "$src" log --format=%h -- abi/libatomicwr.abi); do
		abi_at() { git -C "$src" show "$1:abi/libatomicwr.abi" 2>/dev/null |
			   sed -E "s/ (filepath|line|column)='[^']*'//g"; }
		cmp -s <(abi_at "$c^") <(abi_at "$c") || break
	done
	if [ -z "$c" ]; then
		echo "FAIL release/abi-news: abi/libatomicwr.abi is not committed"
		status=1
	elif ! git -C "$src" show --name-only --format= "$c" | grep -qx NEWS; then
		echo "FAIL release/abi-news: commit $c changed abi/libatomicwr.abi but not NEWS: say there what changed in the ABI"
		status=1
	elif ! git -C "$src" diff --quiet HEAD -- abi/ && git -C "$src" diff --quiet HEAD -- NEWS; then
		echo "FAIL release/abi-news: abi/ changed (not yet committed) and NEWS did not"
		status=1
	else
		echo "PASS release/abi-news"
	fi
fi

# The negative control: a removed function and a changed struct must fail the same comparison.
bdir=$(dirname "$(dirname "$lib")")
bdir=$scratch/${bdir##*/}
rel=lib/${lib##*/}
sed -i '/^[[:space:]]*awr_format_size;$/d' "$scratch/lib/libatomicwr.map"
sed -i 's/^struct awr_limits {$/&\n\tuint32_t abi_control_field;/' "$scratch/include/libatomicwr/common.h"
if grep -q 'awr_format_size;' "$scratch/lib/libatomicwr.map" ||
   ! grep -q abi_control_field "$scratch/include/libatomicwr/common.h"; then
	echo "FAIL release/abi-control: the control's edits found nothing to change (awr_format_size in the map, struct awr_limits)"
	exit 1
fi
if ! ninja -C "$bdir" "$rel" >"$work/control-build.log" 2>&1; then
	tail -n 20 "$work/control-build.log" | sed 's/^/    /'
	echo "FAIL release/abi-control: the scratch build of $rel failed"
	exit 1
fi
(cd "$scratch" && scripts/abi-update.sh --dump "$bdir/$rel" "$work/control.abi")
abidiff "$src/abi/libatomicwr.abi" "$work/control.abi" >"$work/control-abidiff.out" 2>&1
rc=$?
if [ $((rc & 8)) = 0 ]; then
	echo "FAIL release/abi-control: a removed function and a changed struct passed abidiff (exit $rc): the check proves nothing"
	status=1
elif ! grep -q 'awr_format_size@' "$work/control-abidiff.out" ||
     ! grep -q "struct awr_limits" "$work/control-abidiff.out"; then
	sed 's/^/    /' "$work/control-abidiff.out" | head -n 30
	echo "FAIL release/abi-control: abidiff failed (exit $rc) but did not name awr_format_size and struct awr_limits"
	status=1
else
	echo "PASS release/abi-control"
fi
exit $status
