#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: untorn is not durable: awr probe (text and JSON), awr list (text, JSON, Prometheus)
# and qualify's views give the write cache and FUA of the disk the writes go to, read here from
# sysfs independently (queue/write_cache, queue/fua), for a file on the scratch XFS, for its loop
# device and for a partition (added with BLKPG) of another loop device, whose disk's queue is
# read. The value changes the output: the loop device's queue/write_cache is written the other
# way ("write through" over "write back", and back; the value found is put back, also on failure)
# and every output must follow it, the finding write_cache_volatile giving way to
# write_cache_write_through.
#
#   with-scratch-xfs.sh write_cache.sh AWR
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
name=${dev#/dev/}
q=/sys/block/$name/queue
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
[ -r "$q/write_cache" ] && [ -r "$q/fua" ] || skip "$q has no write_cache or fua"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-wc.XXXXXX") || exit 2
orig=$(cat "$q/write_cache")
loop2=
cleanup() {
	echo "$orig" >"$q/write_cache" 2>/dev/null
	if [ -n "$loop2" ]; then
		delpart "$loop2" 1 2>/dev/null
		losetup -d "$loop2" 2>/dev/null
	fi
	rm -rf "$w"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
touch "$dir/f"

# what sysfs says, as JSON would: "write back" -> ['write back', True, False] with fua 0
want() {	# want QUEUE-DIR
	python3 -c "import sys; wc, fua = open(sys.argv[1] + '/write_cache').read().strip(), \
open(sys.argv[1] + '/fua').read().strip(); print([wc, wc == 'write back', fua == '1'])" "$1"
}

# check_all LABEL: every output against sysfs as it is now
check_all() {
	local label=$1 exp wc cell fua vol id
	exp=$(want "$q")
	wc=$(cat "$q/write_cache")
	fua=$(cat "$q/fua")
	vol=$([ "$wc" = "write back" ] && echo 1 || echo 0)
	for p in "$dir/f" "$dev"; do
		"$awr" probe "$p" -o json >"$w/p.json" || fail "$label: awr probe $p exited $?"
		# one python a document: "DISK|[write_cache, volatile, fua]|finding ids"
		read -r got <<EOF_J
$(json "$w/p.json" 'd["sysfs"]["disk"] + "|" + str([d["sysfs"][k] for k in ("write_cache",
	"write_cache_volatile", "fua")]) + "|" + " ".join(f["id"] for f in d["findings"])')
EOF_J
		ids=${got##*|}
		got=${got%|*}
		[ "$got" = "$name|$exp" ] && ok "$label: probe $p JSON $got, sysfs of $name $exp" ||
			fail "$label: probe $p JSON $got, sysfs of $name $exp"
		id=$([ "$vol" = 1 ] && echo write_cache_volatile || echo write_cache_write_through)
		case " $ids " in
		*" $id "*) ok "$label: probe $p finding $id" ;;
		*) fail "$label: probe $p findings [$ids] lack $id" ;;
		esac
		"$awr" probe "$p" >"$w/p.txt"
		grep -q "^  write cache  *$name: $wc, FUA $fua$" "$w/p.txt" &&
			ok "$label: probe $p text: $name: $wc, FUA $fua" ||
			fail "$label: probe $p text: $(grep 'write cache' "$w/p.txt")"
	done
	"$awr" list -o json >"$w/l.json"
	got=$(json "$w/l.json" '[[x[k] for k in ("write_cache", "write_cache_volatile", "fua")]
		for x in d["devices"] if x["name"] == "'"$name"'"][0]')
	[ "$got" = "$exp" ] && ok "$label: list JSON $got" || fail "$label: list JSON $got, sysfs $exp"
	cell=$([ "$vol" = 1 ] && echo back || echo through)
	[ "$fua" = 1 ] && cell=$([ "$vol" = 1 ] && echo back+fua || echo thru+fua)
	# the CACHE column: a word of the row (back, through, back+fua, thru+fua) other than the name
	"$awr" list | awk -v n="$name" -v c="$cell" '$1 == n { for (i = 2; i < NF; i++) if ($i == c) f = 1 }
		END { exit !f }' && ok "$label: list text $cell" ||
		fail "$label: list text: $("$awr" list | grep "^$name ")"
	"$awr" list -o prometheus --all >"$w/l.prom"	# a loop device: virtual
	grep -qx "awr_write_cache_volatile{device=\"$name\"} $vol" "$w/l.prom" &&
		grep -qx "awr_fua{device=\"$name\"} $fua" "$w/l.prom" &&
		ok "$label: prometheus awr_write_cache_volatile $vol, awr_fua $fua" ||
		fail "$label: prometheus: $(grep "$name" "$w/l.prom" | grep 'cache\|fua')"
}

check_all "as found ($orig)"

# a partition: its disk's queue is read (the partition has none of its own)
truncate -s 64M "$w/img" && loop2=$(losetup -f --show "$w/img") || exit 2
addpart "$loop2" 1 2048 65536 2>/dev/null
part=${loop2#/dev/}p1
if [ -b "/dev/$part" ] || [ -d "/sys/block/${loop2#/dev/}/$part" ]; then
	node=/dev/$part
	[ -b "$node" ] || node=$w/$part
	[ -b "$node" ] || mknod "$node" b $(tr ':' ' ' <"/sys/block/${loop2#/dev/}/$part/dev")
	"$awr" probe "$node" -o json >"$w/pp.json"
	got=$(json "$w/pp.json" '[d["sysfs"]["disk"], d["sysfs"]["partition"]] +
		[d["sysfs"][k] for k in ("write_cache", "write_cache_volatile", "fua")]')
	exp=$(python3 -c "import sys; print(['${loop2#/dev/}', '$part'] + $(want "/sys/block/${loop2#/dev/}/queue"))")
	[ "$got" = "$exp" ] && ok "partition $part: $got (its disk's queue)" || fail "partition $part: $got, sysfs $exp"
else
	echo "note: addpart made no partition on $loop2: the partition case is not run"
fi

# the value changes the output: each value written in turn, then the one found put back
for v in "write back" "write through"; do
	[ "$v" = "$orig" ] && continue
	if ! { echo "$v" >"$q/write_cache"; } 2>/dev/null || [ "$(cat "$q/write_cache")" != "$v" ]; then
		fail "$q/write_cache cannot be set to $v (found $orig)"
		continue
	fi
	check_all "written $v"
	ids=$("$awr" probe "$dir/f" -o json | python3 -c 'import json,sys; print(" ".join(f["id"] for f in json.load(sys.stdin)["findings"]))')
	case "$v: $ids " in
	"write through: "*" write_cache_volatile "*|"write through: "*" fua_"*) fail "$v: findings still say volatile: $ids" ;;
	"write back: "*" write_cache_write_through "*) fail "$v: findings still say write through: $ids" ;;
	*) ok "$v: the other value's findings gone ($ids)" ;;
	esac
done
echo "$orig" >"$q/write_cache"
check_all "put back ($orig)"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
