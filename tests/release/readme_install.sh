#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's install lines, pasted as they stand, on a clean Debian 12: the one ```sh block
# under "## Install" runs as root in a clean bookworm chroot (tests/release/chroot.sh) at the
# top of a copy of the source tree; then, in a fresh shell, `awr --version` and `awr probe` on a
# file must run. And the install step alone makes the library found: with the loader's cache
# removed awr must fail (the control), and after `ninja -C BUILD install` run again (meson's
# install script runs ldconfig) it must run. Then the block under "### From the Debian
# packages" runs in the same chroot: the packages it builds must be installed and run.
#   readme_install.sh SRC LOGDIR
# Prints "PASS name" / "FAIL name: reason" lines (release/readme-install, release/install-ldconfig,
# release/readme-debs).
set -u
src=$1 logs=$2
. "$src/tests/release/chroot.sh"
log=$logs/readme-install.log
: >"$log"
trap 'chroot_down readme' EXIT

# block HEADING: the lines of the first ```sh block under the line HEADING, up to the next heading
# of any level
block() {
	awk -v h="$1" '
		b { if ($0 ~ /^```/) { done = 1; exit } print; next }
		$0 == h { s = 1; next }
		s && /^#/ { exit }
		s && /^```sh[[:space:]]*$/ { b = 1 }
		END { if (!done) exit 1 }' "$src/README.md"
}
block=$(block "## Install") || block=
if [ -z "$block" ]; then
	echo "FAIL release/readme-install: README.md has no \`\`\`sh block under \"## Install\""
	echo "SKIP release/install-ldconfig: no install block to run first"
	echo "SKIP release/readme-debs: no install block to run first"
	exit 1
fi
bdir=$(sed -n 's/.*meson setup \([^ &;]*\).*/\1/p' <<<"$block" | head -n 1)

chroot_up readme "$log" || { echo "FAIL release/readme-install: no chroot (log: $log)"; exit 1; }
tree=$root/root/libatomicwr
mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$tree")
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -C "$tree" -xf -
fi
printf '%s\n' "$block" >"$root/root/install-block.sh"
{ echo "== the README's install block:"; cat "$root/root/install-block.sh"; } >>"$log"
t0=$(date +%s)
if ! in_chroot bash -c 'cd /root/libatomicwr && bash -e -x /root/install-block.sh' >>"$log" 2>&1; then
	tail -n 25 "$log" | sed 's/^/    /'
	echo "FAIL release/readme-install: the README's install block failed in a clean bookworm chroot (log: $log)"
	echo "SKIP release/install-ldconfig: the install block failed"
	echo "SKIP release/readme-debs: the install block failed"
	exit 1
fi
echo "== the block took $(( $(date +%s) - t0 )) s" >>"$log"
fail=0
# what a reader runs next, in a new shell
truncate -s 16M "$root/root/datafile"
ver=$(in_chroot awr --version 2>&1)
probe=$(in_chroot awr probe /root/datafile 2>&1)
prc=$?
echo "== awr --version: $ver" >>"$log"
printf '== awr probe /root/datafile (exit %s):\n%s\n' "$prc" "$probe" >>"$log"
want=$(sed -n "s/^  version: '\(.*\)',\$/\1/p" "$src/meson.build" | head -n 1)
if ! grep -q "$want" <<<"$ver"; then
	echo "FAIL release/readme-install: after the README's block, awr --version says: $ver"
	fail=1
elif [ "$prc" != 0 ] || ! grep -q datafile <<<"$probe"; then
	echo "FAIL release/readme-install: awr probe on a file exited $prc: $(head -n 3 <<<"$probe")"
	fail=1
else
	echo "PASS release/readme-install"
fi

# The install step's ldconfig: without the cache the library is not found (the control), the
# install step alone brings it back.
rm -f "$root/etc/ld.so.cache"
ctl=$(in_chroot awr --version 2>&1)
if [ -z "$bdir" ] || [ ! -f "$root/root/libatomicwr/$bdir/build.ninja" ]; then
	echo "FAIL release/install-ldconfig: no build directory (meson setup DIR) in the README's block"
	fail=1
elif ! grep -q "libatomicwr.so.0: cannot open shared object" <<<"$ctl"; then
	echo "FAIL release/install-ldconfig: control: with no loader cache awr still ran ($ctl): the check proves nothing"
	fail=1
elif ! in_chroot ninja -C "/root/libatomicwr/$bdir" install >>"$log" 2>&1; then
	echo "FAIL release/install-ldconfig: ninja -C $bdir install failed (log: $log)"
	fail=1
elif ! ver=$(in_chroot awr --version 2>&1); then
	echo "FAIL release/install-ldconfig: after ninja -C $bdir install, awr --version: $ver"
	fail=1
else
	echo "PASS release/install-ldconfig"
fi

# The second way, "### From the Debian packages": its block, run next in the same chroot (it
# builds on the build dependencies the first block installed); then the packages are installed
# and their awr (/usr/bin, behind /usr/local/bin in PATH) runs.
debs=$(block "### From the Debian packages") || debs=
if [ -z "$debs" ]; then
	echo "SKIP release/readme-debs: README.md has no \`\`\`sh block under \"### From the Debian packages\""
	exit $fail
fi
printf '%s\n' "$debs" >"$root/root/debs-block.sh"
{ echo "== the README's packages block:"; cat "$root/root/debs-block.sh"; } >>"$log"
t0=$(date +%s)
if ! in_chroot bash -c 'cd /root/libatomicwr && bash -e -x /root/debs-block.sh' >>"$log" 2>&1; then
	tail -n 25 "$log" | sed 's/^/    /'
	echo "FAIL release/readme-debs: the README's packages block failed after the install block (log: $log)"
	exit 1
fi
echo "== the packages block took $(( $(date +%s) - t0 )) s" >>"$log"
for p in libatomicwr0 libatomicwr-dev awr libatomicwr-preload; do
	v=$(in_chroot dpkg-query -W -f='${Status} ${Version}' "$p" 2>&1)
	[ "$v" = "install ok installed $want" ] ||
		{ echo "FAIL release/readme-debs: after the packages block, $p: $v"; exit 1; }
done
ver=$(in_chroot /usr/bin/awr --version 2>&1) && grep -q "$want" <<<"$ver" ||
	{ echo "FAIL release/readme-debs: the packaged /usr/bin/awr --version says: $ver"; exit 1; }
echo "PASS release/readme-debs"
exit $fail
