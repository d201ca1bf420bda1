#!/bin/bash
# SPDX-License-Identifier: MIT
# Install what awr needs, build it, and run the main job on PATH:
#   awr probe PATH, then awr qualify --quick PATH.
# Without PATH, on a scratch XFS image (1 GiB, loop device) that is created
# and removed again.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${AWR_BUILD_DIR:-$src/build}
. "$src/scripts/deps.sh"
require_root "$@"

install_packages "${BUILD_DEPS[@]}" "${RUN_DEPS[@]}"
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$src" --buildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
awr=$build/cli/awr

main_job() {	# main_job PROBE_PATH QUALIFY_PATH
	echo "== awr probe $1"
	"$awr" probe "$1"
	echo
	echo "== awr qualify --quick $2"
	"$awr" qualify --quick "$2"
}

if [ $# -ge 1 ]; then
	main_job "$1" "$1"
else
	echo "== no PATH given: a scratch XFS image on a loop device"
	export -f main_job
	export awr
	"$src/tests/integration/with-scratch-xfs.sh" bash -c 'touch "$AWR_SCRATCH_DIR/datafile" && main_job "$AWR_SCRATCH_DIR/datafile" "$AWR_SCRATCH_DIR"'
fi
