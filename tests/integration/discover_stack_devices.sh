#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr probe of real dm-linear, dm-stripe and md raid0/raid1 devices over loop devices: the
# stack type, its legs (sysfs slaves/) and their offsets, each leg's limits equal to its sysfs, and -
# loop legs having no atomic writes - the stacked result off with the leg named (on a kernel that
# stacks the type; before, the kernel is named), equal to the stacked device's own sysfs.
# Everything made is removed, also on failure.
set -u
awr=$1
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for loop, dm and md devices"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

work=$(mktemp -d /tmp/awr-stack.XXXXXX)
loops=() dms=() mds=()
cleanup() {
	for m in "${mds[@]}"; do mdadm --stop "$m" >/dev/null 2>&1; done
	for d in "${dms[@]}"; do dmsetup remove "$d" >/dev/null 2>&1; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM HUP
fail=0
ran=0
FAIL() { echo "FAIL: $*"; fail=1; }

for i in 0 1; do
	truncate -s 64M "$work/leg$i.img"
	l=$(losetup -f --show "$work/leg$i.img") || { echo "SKIP: no free loop device"; exit 77; }
	loops+=("$l")
done

# check JSON CASE TYPE CHUNK: the probe of the stacked device against sysfs
check() {
	local json=$1 name=$2 type=$3 chunk=$4
	python3 - "$json" "$name" "$type" "$chunk" <<'PY' || fail=1
import json, os, sys
j = json.load(open(sys.argv[1])); name, typ, chunk = sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = []
def q(disk, attr):
    with open('/sys/block/%s/queue/%s' % (disk, attr)) as f:
        return int(f.read())
s = j.get('stack') or {}
disk = s.get('disk', '')
if s.get('type') != typ: bad.append('type %s, expected %s' % (s.get('type'), typ))
if s.get('chunk_bytes') != chunk: bad.append('chunk %s, expected %d' % (s.get('chunk_bytes'), chunk))
slaves = sorted(os.listdir('/sys/block/%s/slaves' % disk)) if disk else []
legs = s.get('legs', [])
if [l['name'] for l in legs] != slaves: bad.append('legs %s, sysfs slaves %s' % ([l['name'] for l in legs], slaves))
for l in legs:
    real = (q(l['name'], 'atomic_write_unit_min_bytes'), q(l['name'], 'atomic_write_unit_max_bytes'))
    if (l['unit_min'], l['unit_max']) != real: bad.append('leg %s %s, sysfs %s' % (l['name'], (l['unit_min'], l['unit_max']), real))
d = s.get('derived') or {}
sysfs = tuple(q(disk, a) for a in ('atomic_write_unit_min_bytes', 'atomic_write_unit_max_bytes',
                                   'atomic_write_max_bytes', 'atomic_write_boundary_bytes')) if disk else None
if (d.get('unit_min'), d.get('unit_max'), d.get('max_bytes'), d.get('boundary')) != sysfs:
    bad.append('stacked %s, sysfs of %s %s' % (d, disk, sysfs))
if d.get('this_kernel') is not True: bad.append('derived is not marked this_kernel: %s' % d)
ids = [f['id'] for f in j.get('findings', [])]
want = 'stack_leg_no_atomic' if s.get('kernel_stacks') else 'stack_kernel_too_old'
if want not in ids: bad.append('no %s finding (loop legs have no atomic writes): %s' % (want, ids))
print(('FAIL: %s: ' % name + '; '.join(bad)) if bad else 'ok: %s: %s over %s, stacked %s = sysfs' % (name, typ, slaves, sysfs))
sys.exit(1 if bad else 0)
PY
}

# dm_case NAME TYPE CHUNK TABLE: create, probe, check, remove
dm_case() {
	local name=awr-stack-$1-$$ type=$2 chunk=$3 table=$4
	if ! dmsetup create "$name" --table "$table" 2>"$work/err"; then
		FAIL "dmsetup create $type failed: $(cat "$work/err")"
		return
	fi
	dms+=("$name")
	"$awr" probe "/dev/mapper/$name" -o json >"$work/$1.json" || FAIL "probe of $type exited $?"
	check "$work/$1.json" "$type" "$type" "$chunk"
	dmsetup remove "$name" && dms=()
	ran=1
}

if dmsetup version >/dev/null 2>&1; then
	s0=$(blockdev --getsz "${loops[0]}")
	dm_case lin dm-linear 0 "0 $((s0 - 2048)) linear ${loops[0]} 2048"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stack"]; sys.exit(s["legs"][0]["start"] != 2048*512)' \
		"$work/lin.json" 2>/dev/null || FAIL "dm-linear: the leg's start is not the table offset 2048 sectors"
	dm_case str dm-stripe $((256 * 512)) "0 $(((s0 - 2048) / 256 * 256 * 2)) striped 2 256 ${loops[0]} 0 ${loops[1]} 0"
else
	echo "no device-mapper here: $(dmsetup version 2>&1 | tail -n 1)"
fi

if command -v mdadm >/dev/null && [ -e /proc/mdstat ]; then
	for level in raid1 raid0; do
		md=/dev/md/awr-stack-$level-$$
		chunk_arg=() chunk=0
		[ $level = raid0 ] && chunk_arg=(--chunk=64) chunk=65536
		if mdadm --create "$md" --run --level=$level --raid-devices=2 --metadata=1.2 \
			"${chunk_arg[@]}" "${loops[@]}" >"$work/mdadm" 2>&1; then
			mds+=("$md")
			"$awr" probe "$md" -o json >"$work/$level.json" || FAIL "probe of md $level exited $?"
			check "$work/$level.json" "md-$level" "md-$level" $chunk
			mdadm --stop "$md" >/dev/null 2>&1 && mds=()
			mdadm --zero-superblock "${loops[@]}" >/dev/null 2>&1
			ran=1
		else
			FAIL "mdadm --create $level failed: $(tail -n 2 "$work/mdadm")"
		fi
	done
else
	echo "no md here: $(command -v mdadm >/dev/null || echo 'mdadm not installed; ')$([ -e /proc/mdstat ] || echo 'the kernel has no md (no /proc/mdstat)')"
fi

if [ $ran = 0 ] && [ $fail = 0 ]; then
	echo "SKIP: this kernel has neither device-mapper nor md (the stacking is tested on sysfs fixture trees: unit stack, cli_stack)"
	exit 77
fi
[ $fail = 0 ] && echo "discover_stack_devices: ok"
exit $fail
