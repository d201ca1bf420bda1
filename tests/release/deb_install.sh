#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages installed into a clean Debian 12 chroot (tests/release/chroot.sh) as a
# user installs local packages: dpkg -i, then apt-get -f install for their dependencies. Then
# there: awr --version, awr probe on a file, a consumer built through
# `pkg-config --cflags --libs libatomicwr` runs, the preload loads by its name alone, and
# bash-completion finds awr's completion.
#   deb_install.sh SRC DEBDIR LOGDIR      (DEBDIR holds the .deb files of dpkg-buildpackage)
# Prints "PASS release/deb-install" or "FAIL release/deb-install: reason".
set -u
src=$1 debdir=$2 logs=$3
. "$src/tests/release/chroot.sh"
log=$logs/deb-install.log
: >"$log"
trap 'chroot_down debs' EXIT
fail() {
	echo "FAIL release/deb-install: $* (log: $log)"
	exit 1
}
# run CMD...: in the chroot, output to the log
run() {
	echo "== $*" >>"$log"
	in_chroot env DEBIAN_FRONTEND=noninteractive "$@" >>"$log" 2>&1
}

chroot_up debs "$log" || fail "no chroot"
mkdir -p "$root/root/debs"
debs=()
for p in libatomicwr0 libatomicwr-dev awr libatomicwr-preload; do
	f=$(ls "$debdir/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || fail "no ${p}_*.deb in $debdir"
	cp "$f" "$root/root/debs/"
	debs+=("/root/debs/${f##*/}")
done
# dpkg -i fails on the missing dependencies; apt-get -f install brings them
run dpkg -i "${debs[@]}"
run apt-get -q update || fail "apt-get update failed"
run apt-get -q -y -f install || fail "apt-get -f install failed"
for p in libatomicwr0 libatomicwr-dev awr libatomicwr-preload; do
	in_chroot dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		fail "$p is not installed after dpkg -i and apt-get -f install"
done

want=$(sed -n "s/^  version: '\(.*\)',\$/\1/p" "$src/meson.build" | head -n 1)
out=$(in_chroot awr --version 2>&1) && grep -q "$want" <<<"$out" || fail "awr --version: $out"
truncate -s 16M "$root/root/datafile"
out=$(in_chroot awr probe /root/datafile 2>&1) || fail "awr probe on a file exited $?: $out"
grep -q "atomic writes" <<<"$out" || fail "awr probe on a file said: $out"

# A consumer through pkg-config (the README's library example) needs a compiler; apt-get -f
# install brings Depends only, so awr's Recommends (bash-completion) comes here too.
run apt-get -q -y install gcc libc6-dev pkg-config bash-completion ||
	fail "apt-get install gcc libc6-dev pkg-config bash-completion failed"
cp "$src/examples/page_write.c" "$root/root/"
run sh -c 'cd /root && cc -Wall -Werror page_write.c $(pkg-config --cflags --libs libatomicwr) -o page_write' ||
	fail "the consumer does not build through pkg-config"
out=$(in_chroot /root/page_write /root/datafile 2>&1)
grep -q "^atomic writes \(supported\|unsupported\)" <<<"$out" || fail "the consumer said: $out"
in_chroot ldd /root/page_write | grep -Eq "libatomicwr.so.0 => (/usr)?/lib/" ||
	fail "the consumer does not load the packaged libatomicwr.so.0"

# The preload, named alone (its SONAME and the package's ldconfig trigger)
out=$(in_chroot env LD_PRELOAD=libatomicwr-preload.so /bin/true 2>&1)
grep -q "AWR_PRELOAD_FILES is not set" <<<"$out" || fail "LD_PRELOAD=libatomicwr-preload.so said: $out"

# bash-completion (awr recommends it) loads awr's completion
out=$(in_chroot bash -c '. /usr/share/bash-completion/bash_completion
	__load_completion awr && complete -p awr' 2>&1) || fail "bash-completion does not load awr's completion: $out"
echo "== $(printf '%s ' "${debs[@]##*/}")installed; consumer: $(in_chroot /root/page_write /root/datafile 2>&1 | head -n 1)" >>"$log"
echo "PASS release/deb-install"
