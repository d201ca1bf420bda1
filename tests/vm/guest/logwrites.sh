#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: awr replay against logs the kernel's dm-log-writes target wrote:
#   logwrites.sh        (loads scsi_debug itself: three disks of 4 MiB, 4 KiB blocks)
# A known sequence goes through log-writes over the first disk (data) logging to the second
# (log): plain writes, fsync (an empty FLUSH), marks (dmsetup message), an RWF_DSYNC write (FUA,
# then the FLUSH of generic_write_sync()), a discard, a 16 KiB write. The data disk is copied at
# each mark. Then awr replay -o json of the log disk must list exactly those entries, sectors
# in 4 KiB blocks, flags, flush points and marks; replaying to each mark onto the zeroed third
# disk must equal the data disk's copy there, the whole log the whole data disk, and an
# incremental replay the same. Controls: a copy of the log with its magic flipped, its tail cut
# within entry 2's header, an unknown flag in entry 1: each refused naming what is wrong.
# Prints PASS/FAIL NAME lines; leaves no dm device and scsi_debug unloaded.
AWR=${AWR:-/awr/awr}
W=/tmp/lw
SS=4096

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }

CASES="load record list_entries list_flush_points list_marks replay_one replay_two replay_three replay_whole incremental copy_lists control_magic control_truncated control_flag"

# what the sequence below makes the kernel log (seen on 6.18.15 and 7.3.4)
E1='{"index":1,"sector":0,"nr_sectors":2,"flags":[],"mark":null}'
E2='{"index":2,"sector":16,"nr_sectors":1,"flags":[],"mark":null}'
E3='{"index":3,"sector":0,"nr_sectors":0,"flags":["flush"],"mark":null}'
E4='{"index":4,"sector":0,"nr_sectors":0,"flags":["mark"],"mark":"one"}'
E5='{"index":5,"sector":10,"nr_sectors":1,"flags":["fua"],"mark":null}'
E6='{"index":6,"sector":0,"nr_sectors":0,"flags":["flush"],"mark":null}'
E7='{"index":7,"sector":0,"nr_sectors":1,"flags":["discard"],"mark":null}'
E8='{"index":8,"sector":0,"nr_sectors":0,"flags":["flush"],"mark":null}'
E9='{"index":9,"sector":0,"nr_sectors":0,"flags":["mark"],"mark":"two"}'
E10='{"index":10,"sector":128,"nr_sectors":4,"flags":[],"mark":null}'
E11='{"index":11,"sector":0,"nr_sectors":0,"flags":["flush"],"mark":null}'
E12='{"index":12,"sector":0,"nr_sectors":0,"flags":["mark"],"mark":"three"}'
E13='{"index":13,"sector":0,"nr_sectors":0,"flags":["mark"],"mark":"dm-log-writes-end"}'
FLUSH_POINTS='"flush_points":[3,5,6,8,11]'
MARKS='"marks":[{"name":"one","index":4},{"name":"two","index":9},{"name":"three","index":12},{"name":"dm-log-writes-end","index":13}]'

rest_fail() {	# every case from $1 on fails with reason $2
	local on=0 c
	for c in $CASES; do
		[ "$c" = "$1" ] && on=1
		[ $on = 1 ] && fail "$c" "$2"
	done
}

t0=$(date +%s)
cleanup() {
	dmsetup remove awrlw 2>/dev/null
	[ -d /sys/module/scsi_debug ] && rmmod scsi_debug 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W"
modprobe sd_mod; modprobe dm-mod; modprobe dm-log-writes
[ -d /sys/module/scsi_debug ] && rmmod scsi_debug
# lbpu=1: the data disk takes the discard (reads back zeros, lbprz), as the replay's BLKZEROOUT
if ! modprobe scsi_debug sector_size=$SS dev_size_mb=4 add_host=3 per_host_store=1 lbpu=1 delay=0; then
	rest_fail load "modprobe scsi_debug failed"
	exit 0
fi
i=0
while [ $i -lt 100 ]; do
	set --
	for d in /sys/block/sd*; do
		case "$(cat "$d/device/model" 2>/dev/null)" in scsi_debug*) set -- "$@" "${d##*/}" ;; esac
	done
	[ $# = 3 ] && [ -b "/dev/$3" ] && break
	i=$((i + 1)); sleep 0.1
done
if [ $# != 3 ] || [ ! -d /sys/module/dm_log_writes ]; then
	rest_fail load "three scsi_debug disks ($*) and the module dm-log-writes ($([ -d /sys/module/dm_log_writes ] && echo loaded || echo missing))"
	exit 0
fi
data=/dev/$1 log=/dev/$2 tgt=/dev/$3
pass load
echo "INFO disks data=$data log=$log target=$tgt write_cache=$(cat "/sys/block/$1/queue/write_cache") fua=$(cat "/sys/block/$1/queue/fua" 2>/dev/null)"

# the data disk's first MiB (the sequence writes there), read past the page cache
snap() { dd if="$data" of="$W/data.$1" bs=1M count=1 iflag=direct 2>/dev/null; }
record() {
	local dm
	dmsetup create awrlw --table "0 $(cat "/sys/block/${data#/dev/}/size") log-writes $data $log" || return 1
	dm=
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = awrlw ] && dm=/dev/${d##*/}
	done
	[ -b "$dm" ] || return 1
	xfs_io -d -c "pwrite -q -b 8k -S 0x11 0 8k" -c "pwrite -q -S 0x12 64k 4k" -c fsync "$dm" &&
	dmsetup message awrlw 0 mark one && snap one &&
	xfs_io -d -c "pwrite -q -D -V 1 -S 0x21 40k 4k" "$dm" &&
	blkdiscard -o 0 -l $SS "$dm" && xfs_io -d -c fsync "$dm" &&
	dmsetup message awrlw 0 mark two && snap two &&
	xfs_io -d -c "pwrite -q -b 16k -S 0x31 512k 16k" -c fsync "$dm" &&
	dmsetup message awrlw 0 mark three && snap three &&
	dmsetup remove awrlw
}
if ! record >"$W/record.out" 2>&1; then
	rest_fail record "$(tail -n 3 "$W/record.out" | tr '\n' ' ')"
	exit 0
fi
pass record
echo "INFO logwrites.sh: recorded at $(( $(date +%s) - t0 )) s"

# the listing, flattened (json-c's pretty output without blanks: no name here holds one)
$AWR replay "$log" -o json >"$W/list.json" 2>"$W/list.err"
rc=$?
flat=$(tr -d ' \n' <"$W/list.json")
got=$(echo "$flat" | grep -o '{"index":[^}]*}' | tr '\n' ' ')
want="$E1 $E2 $E3 $E4 $E5 $E6 $E7 $E8 $E9 $E10 $E11 $E12 $E13 "
[ "$rc" = 0 ] && [ "$got" = "$want" ] && echo "$flat" | grep -q '"sector_size":4096,"nr_entries":13,'
check list_entries $? "exit $rc $(cat "$W/list.err"): got $got; want $want"
echo "$flat" | grep -qF "$FLUSH_POINTS"
check list_flush_points $? "$(echo "$flat" | grep -o '"flush_points":[^]]*]'), want $FLUSH_POINTS"
echo "$flat" | grep -qF "$MARKS"
check list_marks $? "$(echo "$flat" | grep -o '"marks":.*'), want $MARKS"

zero_target() { dd if=/dev/zero of="$tgt" bs=1M count=1 oflag=direct 2>/dev/null; }
same_as() {	# same_as COPY: the target's first MiB equals it
	dd if="$tgt" of="$W/tgt" bs=1M count=1 iflag=direct 2>/dev/null && cmp -s "$W/tgt" "$1"
}
for m in one two three; do
	zero_target
	out=$($AWR replay "$log" --target "$tgt" --to-mark $m 2>&1) && same_as "$W/data.$m"
	check replay_$m $? "$out; the target $(cmp "$W/tgt" "$W/data.$m" 2>&1)"
	[ $m = one ] || continue
	# incremental: on from mark one (entry 4) to mark three (12) onto the same target, entries
	# 5..12 alone (two writes, a discard)
	out=$($AWR replay "$log" --target "$tgt" --from-entry 5 --to-mark three -o json 2>&1) &&
		echo "$out" | tr -d ' \n' | grep -q '"from_entry":5,"to_entry":12,"entries_replayed":8,"writes":2,' &&
		same_as "$W/data.three"
	check incremental $? "$out; the target $(cmp "$W/tgt" "$W/data.three" 2>&1)"
done
# the whole log onto the whole target: equal to the whole data disk
dd if=/dev/zero of="$tgt" bs=1M count=4 oflag=direct 2>/dev/null
out=$($AWR replay "$log" --target "$tgt" -o json 2>&1) &&
	dd if="$data" of="$W/data.all" bs=1M iflag=direct 2>/dev/null &&
	dd if="$tgt" of="$W/tgt.all" bs=1M iflag=direct 2>/dev/null && cmp -s "$W/data.all" "$W/tgt.all"
check replay_whole $? "$out; $(cmp "$W/data.all" "$W/tgt.all" 2>&1)"
rm -f "$W/data.all" "$W/tgt.all"

echo "INFO logwrites.sh: replayed at $(( $(date +%s) - t0 )) s"
# controls on a copy of the log (its first MiB holds every entry)
dd if="$log" of="$W/copy.log" bs=1M count=1 iflag=direct 2>/dev/null
out=$($AWR replay "$W/copy.log" -o json 2>&1) && [ "$(echo "$out" | tr -d ' \n' | grep -o '{"index":[^}]*}' | tr '\n' ' ')" = "$want" ]
check copy_lists $? "$out"
control() {	# control NAME TEXT: the damaged copy refused, the message naming what is wrong
	out=$($AWR replay "$W/bad.log" 2>&1)
	rc=$?
	[ "$rc" = 2 ] && case "$out" in *"$2"*) true ;; *) false ;; esac
	check "$1" $? "exit $rc (2 expected), message '$out' (expected to hold '$2')"
}
cp "$W/copy.log" "$W/bad.log"
printf '\163' | dd of="$W/bad.log" bs=1 seek=0 count=1 conv=notrunc 2>/dev/null
control control_magic "super block: bad magic 0x6a736677736873"
head -c $((4 * SS + 100)) "$W/copy.log" >"$W/bad.log"
control control_truncated "entry 2: the log ends at byte $((4 * SS + 100))"
cp "$W/copy.log" "$W/bad.log"
printf '\100' | dd of="$W/bad.log" bs=1 seek=$((SS + 16)) count=1 conv=notrunc 2>/dev/null
control control_flag "entry 1: unknown flag bits 0x40"
echo "INFO logwrites.sh: $(( $(date +%s) - t0 )) s"
exit 0
