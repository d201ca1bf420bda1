#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: a mount point whose name holds a space, a tab and a backslash (mountinfo writes
# them as \040, \011, \134) is printed and matched as it is by every user of the mountinfo
# reader: awr list (text and JSON), awr probe (the filesystem found by its mount), awr write's
# refusal of the mounted device (its message names the mount point), and the device unchanged.
#   with-scratch-xfs.sh cli_mount_names.sh AWR
set -u
awr=$1
dev=$AWR_SCRATCH_DEV name=$(basename "$AWR_SCRATCH_DEV")
weird="$(dirname "$AWR_SCRATCH_DIR")/a b"$'\t'"c\\d"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# the scratch filesystem moves to the odd name, and back at the end (with-scratch-xfs unmounts it)
back() { umount "$weird" 2>/dev/null && mount "$dev" "$AWR_SCRATCH_DIR"; rmdir "$weird"; }
mkdir "$weird" && umount "$AWR_SCRATCH_DIR" && mount "$dev" "$weird" ||
	{ echo "cannot mount $dev on a name with blanks"; exit 2; }
trap back EXIT
grep -qF '/a\040b\011c\134d ' /proc/self/mountinfo ||
	fail "mountinfo does not escape the name: the case checks nothing"

out=$("$awr" list) || fail "awr list failed"
grep -qF -- "$name:$weird(xfs)" <<<"$out" && ok "awr list prints the mount point as it is" ||
	fail "awr list: $(grep -F "$name " <<<"$out")"
got=$("$awr" list -o json | python3 -c '
import json, sys
for d in json.load(sys.stdin)["devices"]:
    if d["name"] == sys.argv[1]:
        print(json.dumps(d["mounts"]))' "$name")
want=$(python3 -c 'import json, sys; print(json.dumps([{"device": sys.argv[1],
	"mountpoint": sys.argv[2], "fstype": "xfs"}]))' "$name" "$weird")
[ "$got" = "$want" ] && ok "awr list -o json: one mount, its mount point as it is" ||
	fail "awr list -o json mounts: $got, expected $want"

touch "$weird/f"
out=$("$awr" probe "$weird/f") || fail "awr probe failed: $out"
grep -q '^filesystem: xfs,' <<<"$out" && ok "awr probe finds the filesystem by its mount" ||
	fail "awr probe: $(grep '^filesystem' <<<"$out")"

before=$(dd if="$dev" bs=1M count=2 iflag=direct status=none | sha256sum)
out=$("$awr" write "$dev" --offset 1M --length 4k 2>&1); rc=$?
[ "$rc" = 2 ] && grep -qF "is mounted on $weird" <<<"$out" &&
	ok "awr write refuses the mounted device, naming its mount point" ||
	fail "awr write of the mounted device: exit $rc: $out"
[ "$before" = "$(dd if="$dev" bs=1M count=2 iflag=direct status=none | sha256sum)" ] &&
	ok "the mounted device is unchanged" || fail "the mounted device changed"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
