#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: in a set-user-ID program (AT_SECURE) libatomicwr-preload does nothing but pass
# calls through: its environment is its unprivileged caller's, so AWR_PRELOAD_STATS naming a
# root-owned file leaves that file untouched, and a configuration it would refuse (a bad page
# size) stops nothing. A set-user-ID root copy of preload_dlopen, run as nobody, loads the
# preload (dlopen: the loader drops LD_PRELOAD paths there) and shows it mapped.
#
#   preload_secure.sh AWR PRELOAD DLOPEN
set -u
preload=$2 dlopen=$3
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok
fails=0
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a set-user-ID root program)"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
command -v setpriv > /dev/null || { echo "SKIP: no setpriv (util-linux)"; exit 77; }
if ldd "$preload" 2>/dev/null | grep -q 'libasan\.so'; then
	echo "SKIP: the sanitizer runtime does not run set-user-ID"; exit 77
fi
w=$(mktemp -d /tmp/awr-secure.XXXXXX) || exit 2
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
if findmnt -n -o OPTIONS -T "$w" | grep -qw nosuid; then echo "SKIP: $w is on a nosuid mount"; exit 77; fi
cp "$dlopen" "$w/dlopen-suid"
cp "$preload" "$w/preload.so"
lib=$(ldd "$preload" | awk '$1 ~ /^libatomicwr\.so/ { print $3 }')
[ -f "$lib" ] || { echo "FAIL: libatomicwr.so not found for $preload"; exit 1; }
cp "$lib" "$w/libatomicwr.so.0"
chmod 4755 "$w/dlopen-suid"
head -c 4096 /dev/urandom > "$w/root-owned"
chmod 600 "$w/root-owned"
cp "$w/root-owned" "$w/root-owned.orig"

# run PAGE: the set-user-ID copy as nobody, the preload's environment pointing at the root file
run() {
	env -i PATH=/usr/bin:/bin AWR_PRELOAD_FILES="$w/*.ibd" AWR_PRELOAD_PAGE_SIZE=$1 \
		AWR_PRELOAD_STATS="$w/root-owned" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$w/dlopen-suid" "$w/preload.so" "$w/libatomicwr.so.0" > "$w/out" 2> "$w/err"
	rc=$?
}
run 16k
[ "$rc" = 0 ] && grep -q "^loaded $w/preload.so, AT_SECURE 1" "$w/out" && ok "the preload loaded in an AT_SECURE process" ||
	fail "the set-user-ID run: exit $rc, $(cat "$w/out" "$w/err")"
cmp -s "$w/root-owned" "$w/root-owned.orig" && ok "the root-owned file AWR_PRELOAD_STATS named is untouched" ||
	fail "the root-owned file was changed: $(stat -c '%s bytes' "$w/root-owned")"
[ ! -s "$w/err" ] && ok "nothing said" || fail "the preload said: $(cat "$w/err")"
run 12k
[ "$rc" = 0 ] && ok "a page size it would refuse stops nothing there" || fail "a bad page size: exit $rc, $(cat "$w/err")"
cmp -s "$w/root-owned" "$w/root-owned.orig" || fail "the root-owned file was changed"

[ "$fails" -eq 0 ] || { echo "preload_secure: $fails failure(s)"; exit 1; }
echo "preload_secure: all checks passed"
