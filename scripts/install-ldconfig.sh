#!/bin/sh
# SPDX-License-Identifier: MIT
# meson install script (meson.build): after `meson install` (`ninja -C build install`) into the
# running system, refresh the dynamic linker's cache so that awr finds libatomicwr.so.0 at once.
# Debian 12's meson (1.0) does not run ldconfig; a later meson that does makes this a second,
# harmless run. A staged install (DESTDIR set: packaging, tests/install-consumer.sh) is left alone.
#   install-ldconfig.sh LIBDIR
libdir=$1
[ -z "${DESTDIR:-}" ] || exit 0
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
if [ "$(id -u)" = 0 ]; then
	echo "Running $ldconfig (the dynamic linker's cache now lists $libdir)"
	"$ldconfig" || exit 1
fi
# A libdir outside the loader's search path (a --prefix of one's own) needs one more step.
if ! "$ldconfig" -p 2>/dev/null | grep -q "libatomicwr\.so\.0 .*=> $libdir/"; then
	echo "note: $libdir is not in the dynamic linker's search path: add it to" \
	     "/etc/ld.so.conf.d/ and run ldconfig as root, or set LD_LIBRARY_PATH=$libdir"
fi
exit 0
