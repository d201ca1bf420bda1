#!/bin/bash
# SPDX-License-Identifier: MIT
# The release stage of scripts/run-tests.sh: what a user installs, built and installed as a user
# does, and the ABI kept on purpose.
#   release/deb-build        dpkg-buildpackage -b -us -uc in a copy of the tree (DEB_BUILD_OPTIONS=
#                            nocheck: the test command runs the tests)
#   release/symbols          debian/libatomicwr0.symbols lists exactly the library's symbols
#                            (dpkg-gensymbols -c4, as debian/rules has it; the build here runs with
#                            level 0 so that the other cases still run)
#   release/lintian          lintian on the packages: no error and no warning that
#                            debian/*.lintian-overrides does not give a reason for
#   release/version          one version in meson.build, debian/changelog, NEWS, awr --version and
#                            the pkg-config file
#   release/abi, abi-news, abi-control     tests/release/abi_check.sh
#   release/deb-install      tests/release/deb_install.sh (a clean Debian 12 chroot)
#   release/readme-install, install-ldconfig, readme-debs   tests/release/readme_install.sh (the
#                            README's two install blocks in another one, beside the package build)
# Prints "PASS name", "FAIL name: reason", "SKIP name: reason" and ends with
# "release: N passed, N failed, N skipped".
#   run.sh WORKDIR     (removed and made again; the chroots' cache: tests/release/chroot.sh)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$1 logs=$1/logs
passed=0 failed=0 skipped=0
result() { # result PASS|FAIL|SKIP NAME [REASON]
	echo "$1 $2${3:+: $3}"
	case "$1" in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}
relay() { # relay OUTPUT: count a helper's result lines (all its lines printed as they are)
	local line
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		"PASS "*) passed=$((passed + 1)) ;;
		"FAIL "*) failed=$((failed + 1)) ;;
		"SKIP "*) skipped=$((skipped + 1)) ;;
		esac
	done <<<"$1"
}
finish() {
	echo "release: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}
version=$(sed -n "s/^  version: '\(.*\)',\$/\1/p" "$src/meson.build" | head -n 1)
. "$src/tests/release/chroot.sh"
mkdir -p "$release_cache"
exec 8>"$release_cache/lock"
flock -w 1800 8 || { result FAIL release/lock "another release stage holds $release_cache/lock"; finish; }
rm -rf --one-file-system "$work"
mkdir -p "$logs"
t_stage=$(date +%s)

# The README's install block in a chroot of its own, beside the package build
"$src/tests/release/readme_install.sh" "$src" "$logs" >"$work/readme.out" 2>&1 &
readme_pid=$!

# The packages, from a copy of the tree as a checkout has it
t0=$(date +%s)
tree=$work/libatomicwr-$version
mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$tree")
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -C "$tree" -xf -
fi
if (cd "$tree" && DEB_BUILD_OPTIONS=nocheck DPKG_GENSYMBOLS_CHECK_LEVEL=0 \
	dpkg-buildpackage -b -us -uc) >"$logs/deb-build.log" 2>&1; then
	result PASS release/deb-build
	built=1
else
	tail -n 30 "$logs/deb-build.log" | sed 's/^/    /'
	result FAIL release/deb-build "dpkg-buildpackage failed (log: $logs/deb-build.log)"
	built=0
fi
echo "release: package build $(( $(date +%s) - t0 )) s"
if [ "$built" = 1 ]; then
	echo "release: packages: $(cd "$work" && for f in *.deb; do
		printf '%s %s KiB; ' "$f" $(( $(stat -c %s "$f") / 1024 )); done)"
	if (cd "$tree" && dpkg-gensymbols -plibatomicwr0 -Pdebian/libatomicwr0 -c4 \
		-O"$work/symbols.out") >"$logs/symbols.log" 2>&1; then
		result PASS release/symbols
	else
		grep -E '^[-+][ #]' "$logs/symbols.log" | head -n 20 | sed 's/^/    /'
		why="debian/libatomicwr0.symbols differs from the library's symbols (+ new, MISSING gone)"
		result FAIL release/symbols "$why: if it is meant, run scripts/abi-update.sh, say it in NEWS"
	fi
	lintian --fail-on error,warning "$work/libatomicwr_${version}_"*.changes >"$logs/lintian.log" 2>&1
	rc=$?
	tags=$(grep -E '^[EW]: ' "$logs/lintian.log")
	if [ "$rc" = 0 ] && [ -z "$tags" ]; then
		result PASS release/lintian
	else
		printf '%s\n' "$tags" | head -n 20 | sed 's/^/    /'
		result FAIL release/lintian "lintian exited $rc: fix each tag, or override a warning with its reason in debian/PACKAGE.lintian-overrides"
	fi
	bdir=$(ls -d "$tree"/obj-* | head -n 1)
	# one version everywhere
	got="meson.build $version"
	got="$got; debian/changelog $(cd "$tree" && dpkg-parsechangelog -S Version)"
	got="$got; NEWS $(sed -n '1s/^libatomicwr \([^ ]*\).*/\1/p' "$src/NEWS" 2>/dev/null)"
	got="$got; awr $("$bdir/cli/awr" --version 2>&1 | head -n 1 | grep -o '[0-9][0-9.]*' | head -n 1)"
	got="$got; pkg-config $(PKG_CONFIG_PATH=$bdir/pkgconfig pkg-config --modversion libatomicwr 2>&1)"
	if [ "$(tr ';' '\n' <<<"$got" | awk '{ print $NF }' | sort -u | wc -l)" = 1 ]; then
		result PASS release/version
	else
		result FAIL release/version "the versions differ: $got"
	fi
	relay "$("$src/tests/release/abi_check.sh" "$src" "$bdir/lib/libatomicwr.so.$version" "$tree" "$work" 2>&1)"
	t0=$(date +%s)
	relay "$("$src/tests/release/deb_install.sh" "$src" "$work" "$logs" 2>&1)"
	echo "release: package install in a clean chroot $(( $(date +%s) - t0 )) s"
else
	for n in symbols lintian version abi abi-news abi-control deb-install; do
		result SKIP "release/$n" "no packages (release/deb-build failed)"
	done
fi
wait "$readme_pid"
relay "$(cat "$work/readme.out")"
echo "release: the README's install blocks in a clean chroot: from source" \
	"$(sed -n 's/^== the block took //p' "$logs/readme-install.log"), the packages" \
	"$(sed -n 's/^== the packages block took //p' "$logs/readme-install.log")"
echo "release: stage $(( $(date +%s) - t_stage )) s"
finish
