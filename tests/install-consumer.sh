#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: meson install into a staging dir, then build and run the example
# through pkg-config against the installed header, library and .pc file.
set -eu
build=$1
src=$(cd "$(dirname "$0")/.." && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/awr-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

DESTDIR=$stage meson install -C "$build" --quiet
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
case "$libdir" in /*) ;; *) libdir=$prefix/$libdir ;; esac
for f in "$prefix/include/libatomicwr.h" "$libdir/pkgconfig/libatomicwr.pc" "$prefix/bin/awr" \
	 "$prefix/share/man/man1/awr.1" "$prefix/share/man/man7/libatomicwr.7" "$libdir/libatomicwr.a" \
	 "$libdir/libatomicwr-preload.so" "$prefix/share/man/man7/libatomicwr-preload.7" \
	 "$prefix/share/man/man3/awr_db_qualify.3"; do
	[ -e "$stage$f" ] || { echo "not installed: $f"; exit 1; }
done
export PKG_CONFIG_PATH=$stage$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
cc -Wall -Werror "$src/examples/page_write.c" $(pkg-config --cflags --libs libatomicwr) -o "$stage/page_write"
# The consumer loads the installed shared library (it prints its usage and exits 2).
set +e
LD_LIBRARY_PATH=$stage$libdir "$stage/page_write" 2>&1 | grep -q usage || { echo "consumer does not run"; exit 1; }
set -e
LD_LIBRARY_PATH=$stage$libdir "$stage$prefix/bin/awr" version
# The installed preload loads into a program and finds the installed library beside it.
out=$(LD_LIBRARY_PATH=$stage$libdir LD_PRELOAD=$stage$libdir/libatomicwr-preload.so /bin/true 2>&1) ||
	{ echo "the installed preload does not load: $out"; exit 1; }
grep -q "AWR_PRELOAD_FILES is not set" <<<"$out" || { echo "the installed preload said: $out"; exit 1; }
# What a database that links the library loads: the core's libraries and nothing else (xxhash is
# header-only, libnvme and libcrypto are loaded on first use). The preload, which needs
# libatomicwr.so.0 itself, is the negative control: the same check must reject it.
only_core_needed() {
	local core='liburing|libsgutils2-[0-9.]+|libblkid|libmount|libc|ld-linux[-a-z0-9_]*|libdl|libpthread'
	local extra
	extra=$(LC_ALL=C readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
		grep -Ev "^($core)\.so\.[0-9]+\$")
	[ -z "$extra" ] || { echo "$1 needs more than the core: $extra"; return 1; }
}
only_core_needed "$stage$libdir/libatomicwr.so.0" || exit 1
if only_core_needed "$stage$libdir/libatomicwr-preload.so" >/dev/null; then
	echo "the NEEDED check passed the preload, which needs libatomicwr.so.0: it checks nothing"
	exit 1
fi
echo "libatomicwr.so.0 needs: $(LC_ALL=C readelf -d "$stage$libdir/libatomicwr.so.0" |
	sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "consumer built and linked through pkg-config"

# A default build (no -Dtest_hooks=true) ships no test seam: awr_set_sysfs_root not exported, no
# AWR_SYSFS_ROOT, AWR_PAGES_FAULT, AWR_STRESS_FAULT or AWR_QUALIFY_CRASH_PAUSE in the library. The negative control: the
# same check finds them in a library built with the seams (the test command's build).
seams() { # seams SOLIB: each seam found in it, one a line
	nm -D --defined-only "$1" |
		awk '$3 ~ /^awr_set_sysfs_root(@|$)/ { print "awr_set_sysfs_root" }'
	strings "$1" | grep -owE 'AWR_(SYSFS_ROOT|PAGES_FAULT|STRESS_FAULT|QUALIFY_CRASH_PAUSE)' | sort -u
}
lib=lib/libatomicwr.so.$(meson introspect "$build" --projectinfo |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
dlog=$stage/default.log
env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR meson setup "$stage/default" "$src" >"$dlog" 2>&1 &&
	ninja -C "$stage/default" "$lib" >>"$dlog" 2>&1 ||
	{ grep -B2 -A8 error "$dlog" | head -40; echo "the default build of the library failed"; exit 1; }
found=$(seams "$stage/default/$lib")
[ -z "$found" ] || { echo "a default build ships test seams:" $found; exit 1; }
hooks=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys
print([o["value"] for o in json.load(sys.stdin) if o["name"] == "test_hooks"][0])')
if [ "$hooks" = True ]; then
	[ "$(seams "$build/$lib" | wc -l)" = 5 ] ||
		{ echo "negative control: not all 5 seams found in $build/$lib:" $(seams "$build/$lib")
		  exit 1; }
	echo "test seams: none in a default build, all 5 found in the test build (negative control)"
else
	echo "test seams: none in a default build (no negative control: $build has no test_hooks)"
fi
