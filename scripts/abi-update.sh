#!/bin/bash
# SPDX-License-Identifier: MIT
# Record the library's exported ABI as the one kept on purpose:
#   abi/libatomicwr.abi             abidw's description (functions, variables, the types they
#                                   reach in include/), from a default build with debug info
#   debian/libatomicwr0.symbols     the symbols file: each symbol with the version that added it
# The release stage of scripts/run-tests.sh compares the build with both (abidiff,
# dpkg-gensymbols -c4) and fails on any difference, and when abi/ changed in a commit that
# did not change NEWS. After an intended change of the API: run this, say in NEWS what changed
# and the number of functions it prints (tests/check-symbols.py compares that figure with the
# version map; a removal or an incompatible change also needs a new soname), commit all three
# together.
#
#   scripts/abi-update.sh [BUILDDIR]      build the library (default: build-abi) and record
#   scripts/abi-update.sh --dump LIB OUT  only write LIB's description to OUT (the check's dump)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)

# abi_dump LIB OUT: the public part only (types of include/), no path of this machine in it
abi_dump() {
	abidw --headers-dir "$src/include" --drop-private-types --no-corpus-path \
		--no-comp-dir-path --short-locs --type-id-style hash --out-file "$2" "$1"
}

if [ "${1:-}" = --dump ]; then
	[ $# = 3 ] || { echo "usage: $0 --dump LIB OUT" >&2; exit 2; }
	abi_dump "$2" "$3"
	exit
fi
command -v abidw >/dev/null || { echo "$0: abidw is missing (apt-get install abigail-tools)" >&2; exit 2; }
build=${1:-$src/build-abi}
version=$(sed -n "s/^  version: '\(.*\)',\$/\1/p" "$src/meson.build" | head -n 1)
lib=$build/lib/libatomicwr.so.$version
[ -f "$build/build.ninja" ] || meson setup "$build" "$src" >/dev/null
meson configure "$build" -Dtest_hooks=false -Dstatic_tools=false >/dev/null
ninja -C "$build" "lib/libatomicwr.so.$version" >/dev/null
abi_dump "$lib" "$src/abi/libatomicwr.abi"

# The symbols file: a symbol already listed keeps the version that added it, a new one gets
# this version; one gone is left out (NEWS says so).
symbols=$src/debian/libatomicwr0.symbols
{
	echo "libatomicwr.so.0 libatomicwr0 #MINVER#"
	echo "* Build-Depends-Package: libatomicwr-dev"
	LC_ALL=C nm -D --defined-only "$lib" | awk '
		$3 ~ /@/ { sub(/@@/, "@", $3); print $3 }
		$2 == "A" && $3 !~ /@/ { print $3 "@" $3 }		# the version node itself' |
		LC_ALL=C sort -u | awk -v v="$version" -v old="$symbols" '
		BEGIN { while ((getline l < old) > 0) if (l ~ /^ /) { split(l, f, " "); had[f[1]] = f[2] } }
		{ print " " $1 " " ($1 in had ? had[$1] : v) }'
} >"$symbols.new"
mv "$symbols.new" "$symbols"
n=$(grep -c '^ ' "$symbols")
echo "recorded: abi/libatomicwr.abi and debian/libatomicwr0.symbols ($n symbols, from $lib)"
nf=$(grep -c '^ awr_' "$symbols")
echo "now say in NEWS what changed (\"its $nf functions in version node\": check_symbols compares"
echo "it with lib/libatomicwr.map) and commit abi/, debian/libatomicwr0.symbols and NEWS together"
