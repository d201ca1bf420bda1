#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest cases, grouped by device configuration. Runs inside the guest.
#   cases.sh              every group
#   cases.sh GROUP...     only these groups (see --list)
# Results go to stdout as "AWRVM: PASS|FAIL|SKIP name[: reason]" and
# "AWRVM: INFO ..." lines (see awr-vmtest.c).
export AWR=/awr/awr
T=/awr/awr-vmtest
SD_BASE="atomic_wr=1 sector_size=4096 dev_size_mb=64"
SD_PARAMS="atomic_wr atomic_wr_max_length atomic_wr_align atomic_wr_gran atomic_wr_max_length_bndry atomic_wr_max_bndry sector_size physblk_exp dev_size_mb"

GROUPS_ALL="sd_default sd_maxlen sd_bndry sd_gran sd_fsview nvme_awupf15 nvme_awupf0 nvme_awupf7 nvme_nawupf7 nvme_nabspf nvme_nabo nvme_nawupf_hi nvme_nawupf3 stack_sd stack_nvme nvme_mpath write_concurrency logwrites replay"

# The kernel series this guest runs ("6.12", "7.3"), for counts and known
# behaviour that differ between kernels.
KSERIES=$(uname -r | sed -E 's/^([0-9]+)\.([0-9]+).*/\1.\2/')
kernel_at_least() {	# kernel_at_least MAJOR.MINOR
	local kmaj=${KSERIES%%.*} kmin=${KSERIES#*.} wmaj=${1%%.*} wmin=${1#*.}
	[ "$kmaj" -gt "$wmaj" ] || { [ "$kmaj" -eq "$wmaj" ] && [ "$kmin" -ge "$wmin" ]; }
}

# The number of cases (PASS, FAIL and SKIP lines) each group reports, kept
# with the group list. A group that reports another number fails as
# GROUP.case_count: a program that crashed, a device that went missing or a
# check that stopped running cannot shrink a group unseen. Adding or removing
# a case means changing its group's number here.
# Where a kernel changes what a group reports, the number depends on the
# kernel series ($KSERIES, see kernel_at_least) with the reason beside it.
expected_cases() {
	case "$1" in
	# every scsi_debug group: the device cases of guest-devices (3 of them the sg driver's queue)
	sd_default) kernel_at_least 7.0 && echo 121 || echo 96 ;;	# with awr_list, awr_list_verdict, awr_list_device (awr-vmtest list) while its partitions exist; 7.x: the engine programs (25); qualify's short_pin (1)
	sd_maxlen) echo 85 ;;
	sd_bndry) echo 86 ;;
	sd_gran) echo 85 ;;
	sd_fsview) echo 37 ;;	# 2 loads + the filesystem path cases of fsview.sh (30: its ext4 data=journal cases run on NVMe only; --software-only 5)
	# Every NVMe group but nvme_nabo has nvme_cli_write_queued (the nvme engine's queue).
	# 7.0+ ignores AWUPF: the AWUPF-only namespaces write one block, so the
	# three misaligned cli cases of the disk and of each partition are not
	# asked (9 fewer) and qualify notes the one-block unit (1 more)
	# (qualify's short_pin: 1 more where qualify runs)
	nvme_awupf15) kernel_at_least 7.0 && echo 96 || echo 104 ;;
	nvme_awupf0) kernel_at_least 7.0 && echo 87 || echo 96 ;;	# 7.0+: no qualify (9 cases), as nvme_awupf15's
	nvme_awupf7) kernel_at_least 7.0 && echo 87 || echo 96 ;;
	# with the io_uring engine and page-batch programs (25), the short-pin probe (2) and lio.sh:
	# 7.x 19 with awr-vmtest disk's 12 (qualify 8 with it), before 6.19 4 (the target without atomic
	# limits)
	nvme_nawupf7) kernel_at_least 7.0 && echo $((121 + 2 + 19 + 8)) || echo $((121 + 2 + 4)) ;;
	nvme_nabspf) echo 84 ;;	# the partition one block past 1 MiB crosses the 64 KiB boundary: refused; awr list's 3 cases
	nvme_nabo) echo 41 ;;	# no atomic writes: fewer cases, no passthrough ones
	nvme_nawupf_hi) echo 81 ;;	# 64 KiB boundary, as nvme_nabspf
	# nvme_nawupf3: with the filesystem path cases of fsview.sh (35), the page store's of pages.sh (9),
	# awr database's of database.sh (10 on 7.x, 7 before: the XFS growth and misaligned-file cases run
	# on 7.x), max_atomic_write's of xfsopts.sh (7.x 6, 6.12 4, not on 6.18) and MariaDB's of
	# mariadb.sh (7.x: XFS, 6 + 4 a crash cycle, one cycle or six long; 6.18: ext4 in long runs
	# only; before 6.16 the verdict and the preload's refusal, 2), nvme_dlopen (1) and PostgreSQL's
	# of postgres.sh (7.x: 7 + 6 a crash cycle, one cycle or four long; 6.18: in long runs only;
	# before 6.16 the preload's refusal, 1)
	nvme_nawupf3) m=10 p=13; [ "${AWR_TEST_LONG:-0}" = 1 ] && m=30 p=31
		if kernel_at_least 7.0; then echo $((157 + m + p)); elif kernel_at_least 6.16; then
			[ "${AWR_TEST_LONG:-0}" = 1 ] && echo $((148 + m + p)) || echo 148; else echo 155; fi ;;
	stack_sd) echo 48 ;;	# load + 7 stacked devices x (statx, probe, json, stack_derived, sweep, stack_rule) + awr list's 3 + write_cache of dm_linear and md_raid1
	stack_nvme) echo 48 ;;	# as stack_sd
	nvme_mpath) echo 10 ;;	# load + 2 paths + the head (statx, probe, json, stack_derived, sweep, write_cache, stack_rule)
	write_concurrency) kernel_at_least 7.0 && echo 3 || echo 0 ;;	# load + 2 devices; 7.x only
	replay) echo 9 ;;	# replay_cycles.sh: 3 workloads x (record, replay, control); SKIPs before 6.16
	logwrites) kernel_at_least 6.18 && echo 14 || echo 0 ;;	# logwrites.sh: awr replay of the kernel's logs; 6.18, 7.x
	bench) echo 2 ;;	# not in GROUPS_ALL: bench/guest.sh; the mount, every round exited 0
	bench_mariadb) echo 1 ;;	# not in GROUPS_ALL: bench/guest_mariadb.sh; every round ran
	bench_postgres) echo 1 ;;	# not in GROUPS_ALL: bench/guest_postgres.sh; every round ran
	*) echo 0 ;;
	esac
}

say() { echo "AWRVM: $*"; }

# check_exit GROUP WHAT RC OUTFILE ERRFILE: a guest program's exit status. 0, or 1
# with a failed case among its lines, is its own report; anything else (a
# signal, an abort, a usage error, 1 without a failed case) fails the group.
check_exit() {
	local g=$1 what=$2 rc=$3 out=$4 err=$5 why
	case "$rc" in
	0) return 0 ;;
	1) grep -qE '^(AWRVM: )?FAIL ' "$out" && return 0
	   why="exited 1 without a failed case" ;;
	*) if [ "$rc" -gt 128 ]; then why="killed by signal $((rc - 128))"; else why="exited $rc"; fi ;;
	esac
	say "FAIL $g.$what: $why: $(head -n 2 "$err" | tr '\n' ' ')"
}

# run_prog GROUP WHAT CMD...: run a guest program that prints AWRVM: lines,
# its output on the console as it comes, its exit status checked.
run_prog() {
	local g=$1 what=$2
	shift 2
	{ "$@" 2>/tmp/prog.err; echo $? >/tmp/prog.rc; } | tee /tmp/prog.out
	cat /tmp/prog.err
	check_exit "$g" "$what" "$(cat /tmp/prog.rc)" /tmp/prog.out /tmp/prog.err
}

# scsi_debug parameter sets: group name -> extra module parameters
sd_params() {
	case "$1" in
	sd_default) echo "" ;;
	sd_maxlen) echo "atomic_wr_max_length=16" ;;
	sd_bndry) echo "atomic_wr_max_length=0 atomic_wr_max_length_bndry=64 atomic_wr_max_bndry=32" ;;
	sd_gran) echo "atomic_wr_gran=4 atomic_wr_align=4" ;;
	esac
}

# The configured AWUN and AWUPF of the controller with serial $1, from the
# kernel command line run.sh writes (awr_nvme=SERIAL:AWUN:AWUPF:NS,..., NS
# the namespace's NAWUN:NAWUPF:NABSN:NABSPF:NABO or "-").
nvme_conf() {
	for a in $(cat /proc/cmdline); do
		case "$a" in awr_nvme=*) echo "${a#awr_nvme=}" | tr ',' '\n' | awk -F: -v s="$1" '$1 == s { print $2, $3 }' ;; esac
	done
}

# NVMe controller serial per group (set on the QEMU command line by run.sh)
nvme_serial() {
	case "$1" in
	nvme_awupf15) echo awrpf15 ;;
	nvme_awupf0) echo awrpf0 ;;
	nvme_awupf7) echo awrpf7 ;;
	nvme_nawupf7) echo awrnp7 ;;	# NAWUPF 7, no NABSPF
	nvme_nabspf) echo awrnbs ;;	# NAWUPF 7, NABSPF 15 (64 KiB boundary)
	nvme_nabo) echo awrnbo ;;	# NABO 4: Linux turns atomic writes off
	nvme_nawupf_hi) echo awrnhi ;;	# NAWUPF 15 above the controller's AWUPF 3
	nvme_nawupf3) echo awrn16k ;;	# NAWUPF 3 (16 KiB), 320 MiB: room for XFS/ext4
	esac
}

# Run another suite's guest program (PASS/FAIL/SKIP lines) and relay its
# cases as GROUP.NAME.CASE; its exit status is checked as run_prog does
# (a skip, exit 77, fails too: the rig's devices are configured for it).
relay() {
	local g=$1 name=$2
	shift 2
	if [ ! -x "$1" ]; then
		say "FAIL $g.$name: $1 is missing from the guest"
		return
	fi
	"$@" >/tmp/relay.out 2>/tmp/relay.err
	rc=$?
	while IFS= read -r l; do
		case "$l" in
		PASS\ *|FAIL\ *|SKIP\ *) say "${l%% *} $g.$name.${l#* }" ;;
		*) echo "$l" ;;
		esac
	done </tmp/relay.out
	cat /tmp/relay.err
	if [ "$rc" = 77 ]; then
		say "FAIL $g.$name: skipped on a device the rig configured for it: $(grep -m 1 '^SKIP' /tmp/relay.out)"
	else
		check_exit "$g" "$name" "$rc" /tmp/relay.out /tmp/relay.err
	fi
}

# my_mount / my_umount: the host programs' disk (run.sh host_programs: /dev/vda, read-only) on
# /awr/my while a case uses it; the driver is unloaded after, so no other case sees the disk
my_mount() {
	modprobe virtio_blk 2>/dev/null || return 1
	wait_for '[ -b /dev/vda ]' || return 1
	modprobe ext4 2>/dev/null
	mkdir -p /awr/my
	mount -t ext4 -o ro /dev/vda /awr/my
}
my_umount() {
	umount /awr/my 2>/dev/null
	rmmod virtio_blk 2>/dev/null
}

wait_for() {	# wait_for TEST-EXPR... : up to 10 s
	i=0
	while ! eval "$*"; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
	return 0
}

sd_disk() {	# the scsi_debug disk's name
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case "$(cat "$d/device/model")" in scsi_debug*) echo "${d##*/}"; return 0 ;; esac
	done
	return 1
}

# sd_load GROUP PARAMS...: scsi_debug (re)loaded with PARAMS, $disk its disk
sd_load() {
	g=$1
	shift
	modprobe sd_mod; modprobe sg
	if [ -d /sys/module/scsi_debug ]; then
		rmmod scsi_debug || { say "FAIL $g.load: rmmod scsi_debug failed"; return 1; }
	fi
	if ! modprobe scsi_debug "$@"; then
		say "FAIL $g.load: modprobe scsi_debug $* failed"
		return 1
	fi
	if ! wait_for 'sd_disk >/dev/null && [ -b /dev/$(sd_disk) ]'; then
		say "FAIL $g.load: no scsi_debug disk appeared"
		return 1
	fi
	disk=$(sd_disk)
}

run_sd() {
	g=$1
	params="$SD_BASE $(sd_params "$g")"
	# shellcheck disable=SC2086
	sd_load "$g" $params || return
	sg=$(ls /sys/block/$disk/device/scsi_generic/ 2>/dev/null | head -n 1)
	if [ -z "$sg" ] || ! wait_for "[ -c /dev/$sg ]"; then
		say "FAIL $g.load: the scsi_debug disk $disk has no sg node (sg loaded: $([ -d /sys/module/sg ] && echo yes || echo no))"
		return
	fi
	say "PASS $g.load"
	line="params $g module=scsi_debug"
	for p in $SD_PARAMS; do
		line="$line $p=$(cat /sys/module/scsi_debug/parameters/$p 2>/dev/null)"
	done
	say "INFO $line"
	run_prog "$g" "$sg.vpd" $T vpd "$g" "/dev/$sg" "/dev/$disk"
	if [ "$g" = sd_bndry ]; then
		merged_atomic_writes "$g" "$disk"
		# keep the other cases deterministic: see merged_atomic_writes
		echo 2 > "/sys/block/$disk/queue/nomerges"
		say "INFO nomerges $g dev=$disk nomerges=2 (request merging off for the remaining cases)"
	fi
	run_prog "$g" "$disk.disk" $T disk "$g" "/dev/$disk"
	# the io_uring engine and page-batch programs on the SCSI disk on the newest kernel; every kernel
	# runs them on the NVMe namespace (nvme_nawupf7), which keeps the kernel dimension of the matrix
	[ "$g" = sd_default ] && kernel_at_least 7.0 && engine_cases "$g" "$disk"
	[ "$g" = sd_default ] && qualify_case "$g" "$disk"
	run_prog "$g" "$sg.chardev" $T chardev "$g" "/dev/$sg"
	relay "$g" devices /awr/guest-devices --scsi "/dev/$disk" --sg "/dev/$sg" --awr "$AWR"
	run_parts "$g" "$disk"
}

# sd_fsview: the filesystem path cases of fsview.sh on a scsi_debug disk with
# room for XFS (320 MiB) and atomic writes of 4 KiB..16 KiB (granularity and
# alignment one block, MAXIMUM ATOMIC TRANSFER LENGTH 4 blocks). One block as
# unit_min matters: XFS ignores a device whose atomic unit_min exceeds its
# block (xfs_configure_buftarg_atomic_writes(), fs/xfs/xfs_buf.c, 6.16), so
# the default 8 KiB leaves it the software path only, which the second load
# (granularity and alignment 2 blocks) shows (fsview.sh --software-only).
# delay=0: no jiffy of delay per command (mkfs and the writes are many).
SD_FSVIEW="atomic_wr=1 sector_size=4096 dev_size_mb=320 atomic_wr_max_length=4 delay=0"
run_sd_fsview() {
	g=$1
	# shellcheck disable=SC2086
	sd_load "$g" $SD_FSVIEW atomic_wr_gran=1 atomic_wr_align=1 || return
	say "PASS $g.load"
	say "INFO params $g module=scsi_debug $SD_FSVIEW atomic_wr_gran=1 atomic_wr_align=1"
	say "INFO sysfs $g dev=$disk partition=0 $(lim "$disk" | awk '{ printf "unit_min=%s unit_max=%s max_bytes=%s boundary=%s", $1, $2, $3, $4 }')"
	relay "$g" fsview /awr/fsview.sh "/dev/$disk" 16384
	# shellcheck disable=SC2086
	sd_load "$g" $SD_FSVIEW atomic_wr_gran=2 atomic_wr_align=2 || return
	say "PASS $g.load_unit_min_8k"
	say "INFO sysfs $g.unit_min_8k dev=$disk partition=0 $(lim "$disk" | awk '{ printf "unit_min=%s unit_max=%s max_bytes=%s boundary=%s", $1, $2, $3, $4 }')"
	relay "$g" unit_min_8k /awr/fsview.sh --software-only "/dev/$disk" 16384
	rmmod scsi_debug
}

# In SCSI boundary mode (MAXIMUM ATOMIC TRANSFER LENGTH 0) the block layer
# merges atomic writes up to atomic_write_max_bytes (from MAXIMUM ATOMIC
# TRANSFER LENGTH WITH ATOMIC BOUNDARY), and sd sends WRITE ATOMIC(16) with
# ATOMIC BOUNDARY = the whole transfer length, which can exceed MAXIMUM ATOMIC
# BOUNDARY SIZE: the device refuses (ILLEGAL REQUEST, invalid field in CDB)
# and the writes fail with EREMOTEIO. Seen on 6.12.117, 6.18.15 and 7.3.4
# (scsi_debug takes the same VPD on each). A batch of unit_max writes through
# io_uring provokes the merge.
merged_atomic_writes() {
	g=$1 disk=$2
	um=$(cat "/sys/block/$disk/queue/atomic_write_unit_max_bytes")
	echo 0 > "/sys/block/$disk/queue/nomerges"
	out=$(awr write "/dev/$disk" --offset 0 --length $((8 * um)) --unit "$um" --engine uring --qd 8 --force 2>&1)
	rc=$?
	say "INFO merged_atomic_writes $g dev=$disk unit=$um count=8 exit=$rc output=$(echo "$out" | head -n 1)"
	# The known case only: this group (boundary mode: MAXIMUM ATOMIC TRANSFER
	# LENGTH 0 in the module parameters the VPD page carries) and the writes
	# refused with EREMOTEIO. Anything else is a failure; a kernel that
	# fixes it passes.
	if [ $rc = 0 ]; then
		say "PASS $g.$disk.merged_atomic_writes"
	elif [ "$g" = sd_bndry ] && [ "$(cat /sys/module/scsi_debug/parameters/atomic_wr_max_length)" = 0 ] &&
	     echo "$out" | grep -q 'Remote I/O error'; then
		say "SKIP $g.$disk.merged_atomic_writes: known kernel issue (sd boundary mode, seen on 6.12, 6.18 and 7.3): merged atomic writes are sent with ATOMIC BOUNDARY above the device maximum and fail with EREMOTEIO"
	else
		say "FAIL $g.$disk.merged_atomic_writes: awr write --engine uring exited $rc: $(echo "$out" | head -n 1)"
	fi
}

# The io_uring engine and page-batch tests of the host suite, on the raw device.
engine_cases() {
	g=$1 disk=$2
	for t in write_uring_engine write_page_batch; do
		relay "$g" "$disk.$t" "/awr/$t" "/dev/$disk"
	done
}

# awr qualify --quick on the raw device: every check relayed as a case, the
# verdict must be PASS with the scope hardware; on a one-block atomic unit it must say so plainly.
qualify_case() {
	g=$1 disk=$2
	$AWR qualify --quick --force "/dev/$disk" >/tmp/qualify.out 2>&1
	rc=$?
	# every check is a case; the performance check is measured, never judged,
	# so it must read INFO (its case says whether it did)
	while read -r res name reason; do
		case "$res:$name" in
		INFO:performance) say "PASS $g.$disk.qualify.performance: INFO, as speed is never judged" ;;
		PASS:performance) say "FAIL $g.$disk.qualify.performance: PASS, expected INFO (speed is measured, never judged): $reason" ;;
		*:short_pin) short_pin_case "$g" "$disk" "$res" "$reason" ;;
		PASS:*|FAIL:*|SKIP:*) say "$res $g.$disk.qualify.$name${reason:+: $reason}" ;;
		esac
	done </tmp/qualify.out
	verdict=$(grep '^verdict:' /tmp/qualify.out)
	say "INFO qualify $g dev=$disk exit=$rc $verdict"
	case "$rc:$verdict" in
	# the verdict's scope: the device writes atomically itself (not a filesystem's software path)
	"0:verdict: PASS"*) if grep -q '^scope: atomic writes by the device itself' /tmp/qualify.out
		then say "PASS $g.$disk.qualify: scope hardware"
		else say "FAIL $g.$disk.qualify: PASS, scope not hardware: $(grep '^scope:' /tmp/qualify.out)"
		fi ;;
	"1:verdict: FAIL ("*" 1 failed,"*) [ "$(cat /tmp/pin_tore 2>/dev/null)" = 1 ] &&
		say "PASS $g.$disk.qualify: FAIL from short_pin alone, a tear this guest saw on the device" ;;
	*) say "FAIL $g.$disk.qualify: exit $rc, $(echo "${verdict:-no verdict line}"; tail -n 3 /tmp/qualify.out)" ;;
	esac
	um=$(cat "/sys/block/$disk/queue/atomic_write_unit_max_bytes")
	lbs=$(cat "/sys/block/$disk/queue/logical_block_size")
	if [ "$um" = "$lbs" ]; then
		if grep -q 'one block' /tmp/qualify.out; then
			say "PASS $g.$disk.qualify_one_block_note"
		else
			say "FAIL $g.$disk.qualify_one_block_note: the atomic unit is one block but qualify does not say so"
		fi
	fi
}

# short_pin_case GROUP DISK RESULT REASON: qualify's short_pin check against the range read here
# (O_DIRECT, page by page): qualify writes 'o' over [unit, 2 * unit), then 'n' atomically from a
# buffer whose last page is PROT_NONE, and runs last. A tear seen here must be its FAIL; a range
# left old its PASS. /tmp/pin_tore says whether the kernel tore (for the verdict).
short_pin_case() {
	local g=$1 disk=$2 res=$3 reason=$4 u=16384 i new=0 old=0 n
	echo 0 >/tmp/pin_tore
	if [ "$res" = SKIP ]; then
		say "SKIP $g.$disk.qualify.short_pin: $reason"
		return
	fi
	n=$(cat "/sys/block/$disk/queue/atomic_write_unit_min_bytes")
	[ "$n" -gt "$u" ] && u=$n
	n=$(cat "/sys/block/$disk/queue/atomic_write_unit_max_bytes")
	[ "$n" -lt "$u" ] && u=$n
	for i in $(seq 0 $((u / 4096 - 1))); do
		pg() { dd if="/dev/$disk" bs=4096 skip=$((u / 4096 + i)) count=1 iflag=direct 2>/dev/null; }
		if [ "$(pg | tr -d n | wc -c)" = 0 ]; then new=$((new + 1))
		elif [ "$(pg | tr -d o | wc -c)" = 0 ]; then old=$((old + 1)); fi
	done
	say "INFO short_pin $g dev=$disk kernel=$(uname -r) unit=$u qualify=$res pages_new=$new pages_old=$old"
	if [ "$new" -gt 0 ] && [ "$new" -lt $((u / 4096)) ] && [ "$res" = FAIL ] &&
	   echo "$reason" | grep -q 'the write tore'; then
		echo 1 >/tmp/pin_tore
		say "PASS $g.$disk.qualify.short_pin: the kernel tore the write ($new of $((u / 4096)) pages new, read here), qualify: $reason"
	elif [ "$new" = 0 ] && [ "$old" = $((u / 4096)) ] && [ "$res" = PASS ]; then
		say "PASS $g.$disk.qualify.short_pin: the range kept its data (read here), qualify: $reason"
	else
		say "FAIL $g.$disk.qualify.short_pin: qualify says $res ($reason); read here: $new pages new, $old old of $((u / 4096))"
	fi
}

run_parts() {	# MBR with an aligned and a misaligned partition, then both
	g=$1 disk=$2
	case "$disk" in *[0-9]) p=${disk}p ;; *) p=$disk ;; esac
	$T mbr "/dev/$disk"
	rc=$?
	if [ "$rc" != 0 ]; then
		say "FAIL $g.$disk.partition_table: could not write or re-read the MBR (awr-vmtest mbr exited $rc)"
		return
	fi
	if ! wait_for '[ -b /dev/${p}1 ] && [ -b /dev/${p}2 ]'; then
		say "FAIL $g.$disk.partition_table: partitions did not appear"
		return
	fi
	say "PASS $g.$disk.partition_table"
	run_prog "$g" "${p}1.part" $T part "$g" "/dev/${p}1"
	run_prog "$g" "${p}2.part" $T part "$g" "/dev/${p}2"
	# awr list against sysfs, Identify / VPD read here and the configuration (awr-vmtest list) with
	# the two partitions in place: on the scsi_debug disk with every NVMe namespace run.sh configures
	# beside it (each verdict but unknown among them, one namespace partitioned with both starts
	# aligned), and on the 64 KiB-boundary namespace, whose second partition is on its 4 KiB unit but
	# off its boundary
	case "$g" in
	sd_default|nvme_nabspf)
		say "INFO awr_list $g start uptime=$(cut -d' ' -f1 /proc/uptime)"
		if [ "$g" = sd_default ] && nvme_all "$g"; then
			# and a disk whose partitions are all aligned: awr-vmtest mbr's table on the NAWUPF 7
			# namespace (4 KiB unit_min, no boundary), removed again after
			np=$(nvme_ns awrnp7)
			if $T mbr "/dev/$np" && wait_for "[ -b /dev/${np}p1 ] && [ -b /dev/${np}p2 ]"; then
				run_prog "$g" awr_list $T list "$g" atomic,single_block,none,misaligned,aligned-partitions
			else
				say "FAIL $g.awr_list: the partition table on /dev/$np (awrnp7) did not appear"
			fi
			dd if=/dev/zero of="/dev/$np" bs=4096 count=1 conv=fsync 2>/dev/null
			blockdev --rereadpt "/dev/$np" 2>/dev/null
		elif [ "$g" = nvme_nabspf ]; then
			run_prog "$g" awr_list $T list "$g" misaligned
		fi
		say "INFO awr_list $g end uptime=$(cut -d' ' -f1 /proc/uptime)" ;;
	esac
	# drop the table again so the next user sees a bare disk
	dd if=/dev/zero of="/dev/$disk" bs=4096 count=1 conv=fsync 2>/dev/null
	blockdev --rereadpt "/dev/$disk" 2>/dev/null
}

# nvme_heads_ready N: at least N NVMe namespace disks (heads, not the hidden paths nvmeXcYnZ), each
# with its device node
nvme_heads_ready() {
	local b n=0
	for b in /sys/block/nvme*; do
		[ -e "$b" ] || continue
		case "${b##*/}" in *c*) continue ;; esac
		[ -b "/dev/${b##*/}" ] || return 1
		n=$((n + 1))
	done
	[ "$n" -ge "$1" ]
}

# nvme_all GROUP: the NVMe driver loaded and a namespace of every controller run.sh configures
# (awr_nvme on the kernel command line, and the multipath head)
nvme_all() {
	local want i=0
	want=$(( $(tr ' ' '\n' </proc/cmdline | sed -n 's/^awr_nvme=//p' | tr ',' '\n' | grep -c .) + 1 ))
	modprobe nvme
	while ! wait_for "nvme_heads_ready $want"; do
		i=$((i + 1))
		if [ $i -ge 3 ]; then
			say "FAIL $1.nvme_all: $want NVMe namespaces expected (run.sh configures them), found: $(ls /sys/block | grep '^nvme' | tr '\n' ' ')"
			return 1
		fi
	done
}

run_nvme() {
	g=$1
	serial=$(nvme_serial "$g")
	modprobe nvme
	ctrl=
	wait_for 'for c in /sys/class/nvme/nvme*; do [ "$(cat $c/serial 2>/dev/null | tr -d " ")" = "$serial" ] && ctrl=${c##*/}; done; [ -n "$ctrl" ]'
	if [ -z "$ctrl" ]; then
		say "FAIL $g.load: no NVMe controller with serial $serial (run.sh configures it)"
		return
	fi
	if ! wait_for "ls -d /sys/class/nvme/$ctrl/${ctrl}*n1 >/dev/null 2>&1"; then
		say "FAIL $g.load: controller $ctrl has no namespace"
		return
	fi
	ns=$(basename "$(ls -d /sys/class/nvme/$ctrl/${ctrl}*n1 | head -n 1)")
	if ! wait_for "[ -b /dev/$ns ]"; then
		say "FAIL $g.load: /dev/$ns did not appear"
		return
	fi
	say "PASS $g.load"
	say "INFO params $g module=nvme controller=$ctrl namespace=$ns serial=$serial"
	run_prog "$g" "$ctrl.nvmeid" $T nvmeid "$g" "/dev/$ctrl" "/dev/$ns" $(nvme_conf "$serial")
	run_prog "$g" "$ns.disk" $T disk "$g" "/dev/$ns"
	# the engine programs want 16 KiB units: NAWUPF 7 gives 32 KiB on every kernel
	[ "$g" = nvme_nawupf7 ] && engine_cases "$g" "$ns"
	# the short-pin probe on the raw namespace and the SCSI target over it (lio.sh), every kernel;
	# qualify (its short_pin) on 7.x, where nvme_awupf15's namespace writes one block
	if [ "$g" = nvme_nawupf7 ]; then
		relay "$g" qualify_short_pin /awr/qualify_short_pin "/dev/$ns"
		relay "$g" lio /awr/lio.sh "$g" "/dev/$ns"
		kernel_at_least 7.0 && qualify_case "$g" "$ns"
	fi
	# qualify on a multi-block and a one-block namespace: 7.0+ ignores AWUPF, so there both give
	# one block and nvme_awupf0's run would repeat nvme_awupf15's
	case "$g" in
	nvme_awupf15) qualify_case "$g" "$ns" ;;
	nvme_awupf0) kernel_at_least 7.0 || qualify_case "$g" "$ns" ;;
	esac
	ng=ng${ns#nvme}
	if ! wait_for "[ -c /dev/$ng ]"; then
		say "FAIL $g.$ng.json: /dev/$ng (the namespace's generic char device) does not exist"
		return
	fi
	run_prog "$g" "$ng.chardev" $T chardev "$g" "/dev/$ng"
	if [ "$g" = nvme_nabo ]; then
		relay "$g" devices /awr/guest-devices --nvme "/dev/$ns" --ng "/dev/$ng" --awr "$AWR" --no-atomic
	else
		relay "$g" devices /awr/guest-devices --nvme "/dev/$ns" --ng "/dev/$ng" --awr "$AWR"
	fi
	run_parts "$g" "$ns"
	# XFS and ext4 bigalloc on the 16 KiB namespace: which path each write takes (fsview.sh)
	[ "$g" = nvme_nawupf3 ] && relay "$g" fsview /awr/fsview.sh "/dev/$ns" 16384
	# the page store's example in hardware mode on a prepared XFS file, and after a crash (pages.sh)
	[ "$g" = nvme_nawupf3 ] && relay "$g" pages /awr/pages.sh "/dev/$ns" 16384
	# awr database on an InnoDB directory on XFS, ext4 bigalloc, a misaligned partition and dm-linear
	[ "$g" = nvme_nawupf3 ] && relay "$g" database /awr/database.sh "/dev/$ns" 16384
	# XFS's max_atomic_write= against the rules table (xfsopts.sh): before the option (6.12) and on
	# 7.x (6.18 answers as 7.x: both after the 6.17 refusal)
	[ "$g" = nvme_nawupf3 ] && { kernel_at_least 7.0 || ! kernel_at_least 6.16; } &&
		relay "$g" xfsopts /awr/xfsopts.sh "/dev/$ns" 16384
	# Debian's MariaDB under the preload on XFS and ext4 bigalloc: crash cycles (mariadb.sh)
	if [ "$g" = nvme_nawupf3 ]; then
		# the guests' time: XFS on 7.x, the preload's refusal before 6.16 (ext4), ext4 bigalloc on
		# 6.18 in the long runs only (mariadb.sh DEV 16384 xfs ext4 runs both anywhere)
		my_mount
		nvme_dlopen "$g" "$ns"
		if kernel_at_least 7.0; then relay "$g" mariadb /awr/mariadb.sh "/dev/$ns" 16384 xfs
		elif ! kernel_at_least 6.16 || [ "${AWR_TEST_LONG:-0}" = 1 ]; then
			relay "$g" mariadb /awr/mariadb.sh "/dev/$ns" 16384 ext4
		fi
		# Debian 13's PostgreSQL 17 with debug_io_direct=data under the preload, full_page_writes=off:
		# crash cycles (postgres.sh); as MariaDB's, 6.18 in the long runs only
		if kernel_at_least 7.0 || ! kernel_at_least 6.16 || [ "${AWR_TEST_LONG:-0}" = 1 ]; then
			relay "$g" postgres /awr/postgres.sh "/dev/$ns" 16384
		fi
		my_umount
	fi
}

# nvme_dlopen GROUP NS: NVMe Identify with libnvme loaded on first use (lib/optlib.c), the shared
# library's way (run.sh's nvme-dlopen, the host's libnvme), on the namespace: libnvme not mapped
# before the Identify and mapped after, and NAWUPF in logical blocks equal to the kernel's reading
# of it (sysfs atomic_write_unit_max_bytes, NSFEAT bit 1 set)
nvme_dlopen() {
	local g=$1 ns=$2 out unit_max nawupf lba
	if [ ! -x /awr/my/bin/nvme-dlopen ]; then
		say "FAIL $g.nvme_dlopen: /awr/my/bin/nvme-dlopen is missing (run.sh nvme_dlopen_bundle)"
		return
	fi
	out=$(/awr/my/run nvme-dlopen "/dev/$ns" 2>&1)
	say "INFO $g.nvme_dlopen $out"
	unit_max=$(cat "/sys/block/$ns/queue/atomic_write_unit_max_bytes")
	nawupf=$(echo "$out" | sed -n 's/.* nawupf=\([0-9]*\).*/\1/p')
	lba=$(echo "$out" | sed -n 's/.* lba=\([0-9]*\).*/\1/p')
	case "$out" in
	"before=0 after=1 ret=0 "*nsfeat=0x?[2367abef]*)
		if [ -n "$nawupf" ] && [ -n "$lba" ] && [ $(((nawupf + 1) * lba)) = "$unit_max" ]; then
			say "PASS $g.nvme_dlopen"
		else
			say "FAIL $g.nvme_dlopen: NAWUPF $nawupf of $lba-byte blocks read through the loaded libnvme, the kernel's atomic_write_unit_max_bytes $unit_max"
		fi ;;
	*) say "FAIL $g.nvme_dlopen: expected libnvme loaded by the Identify (before=0 after=1 ret=0, NSFEAT bit 1): $out" ;;
	esac
}

# ------------------------------------------------------------ stacked devices
#
# dm-linear, dm-stripe and md raid0/1/10 over scsi_debug disks (stack_sd) and
# over NVMe namespaces (stack_nvme), and the head node of an NVMe multipath
# subsystem (nvme_mpath). For each stacked device: its sysfs and its legs'
# (INFO sysfs and INFO stack lines), awr-vmtest stack (statx, probe and JSON
# equal to sysfs, a sweep of real atomic writes) and the stacking rule of this
# kernel against its legs (GROUP.NAME.stack_rule).

export DM_DISABLE_UDEV=1	# no udev in the guest: libdevmapper makes the nodes

# lim DEV: unit_min unit_max max_bytes boundary of a block device (sda, dm-0,
# nvme0c0n1) from sysfs
lim() {
	local q=/sys/block/$1/queue
	echo "$(cat $q/atomic_write_unit_min_bytes) $(cat $q/atomic_write_unit_max_bytes) $(cat $q/atomic_write_max_bytes) $(cat $q/atomic_write_boundary_bytes)"
}

# largest power of two dividing $1 (0 for 0)
pow2_factor() { [ "$1" -gt 0 ] && echo $(( $1 & -$1 )) || echo 0; }

# stack_rule GROUP NAME DEV SINCE CHUNK LEG...: the stacked limits against the
# legs' under this kernel's rule. The block layer stacks atomic limits
# (blk_stack_atomic_writes_limits(), block/blk-settings.c) for md raid0/1/10
# from 6.13, dm-linear/stripe from 6.14, dm-crypt from 6.19 and dm-multipath
# from 7.0 (targets flagged DM_TARGET_ATOMIC_WRITES); before that the stacked
# device has none. From
# then: none if a leg has none or the legs' boundaries differ; else unit_min
# is the largest leg unit_min, unit_max at most the smallest leg unit_max and,
# with a stripe chunk (CHUNK bytes, 0 for none), at most the largest power of
# two dividing the chunk.
stack_rule() {
	local g=$1 name=$2 dev=$3 since=$4 chunk=$5 l umin umax mb bnd
	local lmin=0 lmax= lbnd= none=0 diff=0 want
	shift 5
	read -r umin umax mb bnd <<EOF_LIM
$(lim "$dev")
EOF_LIM
	for l in "$@"; do
		set -- $(lim "$l")
		[ "$2" = 0 ] && none=1
		[ "$1" -gt "$lmin" ] && lmin=$1
		{ [ -z "$lmax" ] || [ "$2" -lt "$lmax" ]; } && lmax=$2
		{ [ -n "$lbnd" ] && [ "$lbnd" != "$4" ]; } && diff=1
		lbnd=$4
	done
	say "INFO stack $g name=$name dev=$dev since=$since chunk=$chunk legs_unit_min=$lmin legs_unit_max=$lmax legs_boundary=$lbnd unit_min=$umin unit_max=$umax max_bytes=$mb boundary=$bnd"
	if ! kernel_at_least "$since" || [ "$none" = 1 ] || [ "$diff" = 1 ]; then
		if [ "$umax" = 0 ] && [ "$umin" = 0 ]; then
			say "PASS $g.$name.stack_rule: none, as $KSERIES derives (stacking since $since, a leg without atomics $none, boundaries differ $diff)"
		else
			say "FAIL $g.$name.stack_rule: $umin/$umax, expected none (kernel $KSERIES, stacking since $since, a leg without atomics $none, boundaries differ $diff)"
		fi
		return
	fi
	want=$lmax
	if [ "$chunk" -gt 0 ] && [ "$(pow2_factor "$chunk")" -lt "$want" ]; then
		want=$(pow2_factor "$chunk")
	fi
	if [ "$umin" = "$lmin" ] && [ "$umax" -gt 0 ] && [ "$umax" -le "$want" ] && [ "$bnd" = "$lbnd" ]; then
		say "PASS $g.$name.stack_rule: $umin/$umax boundary $bnd (legs: unit_min $lmin, unit_max <= $want)"
	else
		say "FAIL $g.$name.stack_rule: $umin/$umax boundary $bnd, expected unit_min $lmin, 0 < unit_max <= $want, boundary $lbnd"
	fi
}

# write_cache_check GROUP NAME DEV LEG...: untorn is not durable: awr probe's JSON names DEV's own
# queue (a dm or md device has one, stacked from its legs) and gives its queue/write_cache and
# queue/fua as sysfs does
write_cache_check() {
	local g=$1 name=$2 dev=$3 q=/sys/block/$3/queue j got want legs= l
	shift 3
	for l in "$@"; do legs="$legs $l: $(cat /sys/block/$l/queue/write_cache)"; done
	j=$($AWR probe "/dev/$dev" -o json 2>/dev/null)
	got="$(echo "$j" | sed -n -E 's/^ *"disk": "(.*)",?$/\1/p' | head -n 1)"
	got="$got $(echo "$j" | sed -n -E 's/^ *"write_cache": "(.*)",?$/\1/p' | head -n 1)"
	got="$got $(echo "$j" | sed -n -E 's/^ *"fua": (true|false),?$/\1/p' | head -n 1)"
	want="$dev $(cat $q/write_cache) $([ "$(cat $q/fua)" = 1 ] && echo true || echo false)"
	if [ "$got" = "$want" ]; then
		say "PASS $g.$name.write_cache: $got (legs:$legs)"
	else
		say "FAIL $g.$name.write_cache: awr probe /dev/$dev: $got, sysfs: $want"
	fi
}

# stack_check GROUP NAME DEVNAME SINCE CHUNK LEG...: the cases of one stacked device
stack_check() {
	local g=$1 name=$2 dev=$3
	if ! wait_for "[ -b /dev/$dev ]"; then
		say "FAIL $g.$name.create: /dev/$dev did not appear"
		return
	fi
	run_prog "$g" "$name.stack" $T stack "$g.$name" "/dev/$dev"
	# one dm and one md device and the multipath head (0.35 s each in a loaded 7.3 guest)
	case "$name" in
	dm_linear|md_raid1|head) write_cache_check "$g" "$name" "$dev" $(shift 5; echo "$@") ;;
	esac
	stack_rule "$@"
}

# dm_name NAME: the dm-N block device of a device-mapper device
dm_name() {
	local d
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

sectors() { cat "/sys/block/$1/size"; }

# dm_stack GROUP CASE DMNAME TABLE SINCE CHUNK LEG...: a dm device made from TABLE, its cases, removed
dm_stack() {
	local g=$1 name=$2 dm=$3 table=$4 out
	shift 4
	if out=$(dmsetup create "$dm" --table "$table" 2>&1); then
		stack_check "$g" "$name" "$(dm_name "$dm")" "$@"
		dmsetup remove "$dm" || say "FAIL $g.$name.remove: dmsetup remove $dm failed"
	else
		say "FAIL $g.$name.create: dmsetup create: $out"
	fi
}

# stack_all GROUP LEG1 LEG2: dm-linear over LEG1, dm-stripe (64 KiB chunk) over both, dm-crypt
# and dm-multipath over LEG1, md raid0 (64 KiB chunk), raid1, raid10 over both, one after the other
stack_all() {
	local g=$1 a=$2 b=$3 n out lvl chunk
	modprobe dm-mod; modprobe raid0; modprobe raid1; modprobe raid10
	n=$(sectors "$a")
	[ "$(sectors "$b")" -lt "$n" ] && n=$(sectors "$b")
	n=$((n / 256 * 256))
	dm_stack "$g" dm_linear awrlin "0 $n linear /dev/$a 0" 6.14 0 "$a"
	dm_stack "$g" dm_stripe awrstr "0 $((2 * n)) striped 2 128 /dev/$a 0 /dev/$b 0" 6.14 65536 "$a" "$b"
	# dm-crypt (the null cipher: no key, nothing to set up) over LEG1: its target stacks from 6.19
	# ("dm-crypt: enable DM_TARGET_ATOMIC_WRITES"); dm-multipath, one path LEG1: from 7.0
	# ("dm mpath: enable DM_TARGET_ATOMIC_WRITES", merged after the 6.19 dm pull)
	modprobe dm-crypt; modprobe crypto_null; modprobe dm-multipath; modprobe dm-round-robin
	dm_stack "$g" dm_crypt awrcrypt "0 $n crypt cipher_null-ecb - 0 /dev/$a 0" 6.19 0 "$a"
	dm_stack "$g" dm_multipath awrmpath "0 $n multipath 0 0 1 1 round-robin 0 1 1 /dev/$a 1" 7.0 0 "$a"
	for lvl in 0 1 10; do
		chunk=0
		[ "$lvl" = 1 ] || chunk=65536
		if out=$(mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level="$lvl" \
			$([ "$lvl" = 1 ] || echo --chunk=64) --raid-devices=2 "/dev/$a" "/dev/$b" 2>&1); then
			stack_check "$g" "md_raid$lvl" md0 6.13 "$chunk" "$a" "$b"
			# awr list against sysfs while md0 holds both legs
			[ "$lvl" = 1 ] && run_prog "$g" awr_list $T list "$g"
			mdadm --stop /dev/md0 >/dev/null 2>&1 || say "FAIL $g.md_raid$lvl.remove: mdadm --stop /dev/md0 failed"
		else
			say "FAIL $g.md_raid$lvl.create: mdadm --create: $(echo "$out" | tail -n 1)"
		fi
		mdadm --zero-superblock "/dev/$a" "/dev/$b" >/dev/null 2>&1
	done
}

# stack_sd: two scsi_debug disks with a store each (num_tgts=2 would share one
# store and md would find the same superblock twice)
run_stack_sd() {
	g=$1
	modprobe sd_mod; modprobe sg
	if [ -d /sys/module/scsi_debug ]; then
		rmmod scsi_debug || { say "FAIL $g.load: rmmod scsi_debug failed"; return; }
	fi
	# shellcheck disable=SC2086
	if ! modprobe scsi_debug $SD_BASE add_host=2 per_host_store=1; then
		say "FAIL $g.load: modprobe scsi_debug $SD_BASE add_host=2 per_host_store=1 failed"
		return
	fi
	if ! wait_for '[ $(sd_disks | wc -w) = 2 ]'; then
		say "FAIL $g.load: expected two scsi_debug disks, found: $(sd_disks)"
		return
	fi
	set -- $(sd_disks)
	say "PASS $g.load"
	say "INFO params $g module=scsi_debug legs=$1,$2 $SD_BASE add_host=2 per_host_store=1"
	stack_all "$g" "$1" "$2"
	rmmod scsi_debug
}

sd_disks() {	# every scsi_debug disk's name
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		case "$(cat "$d/device/model")" in scsi_debug*) echo "${d##*/}" ;; esac
	done
}

# nvme_ns SERIAL: the namespace block device of the controller with this serial
nvme_ns() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "$1" ] || continue
		ls -d "$c/${c##*/}"n1 2>/dev/null | head -n 1 | sed 's,.*/,,'
		return 0
	done
}

# stack_nvme: the legs are the namespaces of nvme_nawupf7 (NAWUPF 7) and
# nvme_awupf7 (AWUPF 7: 32 KiB before 7.0, one block from 7.0)
run_stack_nvme() {
	local g=$1 a b
	modprobe nvme
	wait_for '[ -n "$(nvme_ns awrnp7)" ] && [ -n "$(nvme_ns awrpf7)" ]'
	a=$(nvme_ns awrnp7) b=$(nvme_ns awrpf7)
	if [ -z "$a" ] || [ -z "$b" ] || ! wait_for "[ -b /dev/$a ] && [ -b /dev/$b ]"; then
		say "FAIL $g.load: the namespaces of awrnp7 and awrpf7 (run.sh configures them): '$a' '$b'"
		return
	fi
	say "PASS $g.load"
	say "INFO params $g module=nvme legs=$a,$b"
	stack_all "$g" "$a" "$b"
}

# nvme_mpath: two controllers (serial awrmp) of one subsystem share namespace
# 1 (run.sh). The head /dev/nvmeXn1 is the stacked device, its paths
# nvmeXcYn1 (sysfs only) the legs. nvme_update_ns_info() (drivers/nvme/host/
# core.c) stacks each path's limits into the head (queue_limits_stack_bdev());
# the head takes atomic writes only from 6.15 ("nvme: multipath: enable
# BLK_FEAT_ATOMIC_WRITES for multipathing", also 6.14.10): before, the head
# reads none while the paths have them.
run_nvme_mpath() {
	local g=$1 paths= c p head
	modprobe nvme
	wait_for '[ $(ls -d /sys/class/nvme/nvme*/nvme*c*n1 2>/dev/null | wc -l) -ge 2 ]'
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = awrmp ] || continue
		for p in "$c"/nvme*c*n1; do
			[ -e "$p" ] && paths="$paths ${p##*/}"
		done
	done
	set -- $paths
	if [ $# != 2 ]; then
		say "FAIL $g.load: expected two paths of the awrmp subsystem (run.sh configures it), found:$paths"
		return
	fi
	head=$(echo "$1" | sed -E 's/c[0-9]+n/n/')
	if ! wait_for "[ -b /dev/$head ]"; then
		say "FAIL $g.load: the multipath head /dev/$head did not appear"
		return
	fi
	say "PASS $g.load"
	say "INFO params $g module=nvme head=$head paths=$1,$2"
	for p in "$@"; do
		say "INFO sysfs $g dev=$p partition=0 $(lim "$p" | awk '{ printf "unit_min=%s unit_max=%s max_bytes=%s boundary=%s", $1, $2, $3, $4 }')"
		if [ "$(lim "$p" | cut -d' ' -f2)" -gt 0 ]; then
			say "PASS $g.$p.path_limits"
		else
			say "FAIL $g.$p.path_limits: the path has no atomic limits (NAWUPF 7)"
		fi
	done
	stack_check "$g" head "$head" 6.15 0 "$@"
}

# write_concurrency: 8 threads sharing one awr_file, then 4 processes, overlapping 16 KiB atomic writes on
# the first 256 KiB of the scsi_debug disk (sd_default's parameters) and of the NAWUPF 7 namespace
# (awrnp7), both devices at once, 30 s per run; zero torn, corrupt or misplaced units, a planted torn
# unit found (tests/integration/write_concurrency.c). On the 7.x guest only, to keep the stage
# short: on the other kernels an INFO line and no case.
run_concurrency() {
	local g=$1 disk ns d rc
	if ! kernel_at_least 7.0; then
		say "INFO $g: runs on the 7.x guest only (stage time; tests/vm/README)"
		return
	fi
	modprobe sd_mod; modprobe nvme
	[ -d /sys/module/scsi_debug ] && rmmod scsi_debug
	# shellcheck disable=SC2086
	modprobe scsi_debug $SD_BASE || { say "FAIL $g.load: modprobe scsi_debug $SD_BASE failed"; return; }
	wait_for 'sd_disk >/dev/null && [ -b /dev/$(sd_disk) ]'
	wait_for '[ -n "$(nvme_ns awrnp7)" ] && [ -b /dev/$(nvme_ns awrnp7) ]'
	disk=$(sd_disk) ns=$(nvme_ns awrnp7)
	if [ -z "$disk" ] || [ -z "$ns" ] || [ ! -x /awr/write_concurrency ]; then
		say "FAIL $g.load: scsi_debug disk '$disk', awrnp7 namespace '$ns' (run.sh configures it), /awr/write_concurrency $([ -x /awr/write_concurrency ] && echo present || echo missing)"
		rmmod scsi_debug
		return
	fi
	say "PASS $g.load"
	for d in "$disk" "$ns"; do
		# 5 s a part (30 s with AWR_TEST_LONG=1, awr_long=1 on the kernel command line)
		( AWR_CONCURRENCY_SECONDS=$([ "${AWR_TEST_LONG:-0}" = 1 ] && echo 30 || echo 5) /awr/write_concurrency "/dev/$d" >"/tmp/conc.$d" 2>&1
		  echo $? >"/tmp/conc.$d.rc" ) &
	done
	wait
	for d in "$disk" "$ns"; do
		rc=$(cat "/tmp/conc.$d.rc")
		while IFS= read -r l; do say "INFO $g.$d $l"; done <"/tmp/conc.$d"
		if [ "$rc" = 0 ]; then
			say "PASS $g.$d.untorn"
		else
			say "FAIL $g.$d.untorn: exit $rc: $(grep -m 2 -E 'FAIL|SKIP' "/tmp/conc.$d" | tr '\n' ' ')"
		fi
	done
	rmmod scsi_debug
}

# bench: not a test (not in GROUPS_ALL): bench/guest.sh asks for it (AWR_VM_ONLY=bench). awr bench
# on XFS over the NAWUPF 16 KiB namespace (hardware path for 16 KiB pages): one --mode all run (its
# text relayed as INFO bench.1), then paired rounds (6, or AWR_BENCH_ROUNDS of AWR_BENCH_SECONDS a mode:
# bench/guest.sh -r -s), each mode a process of its own on the same prepared file, alternating which of
# atomic/plain and doublewrite/pages goes first (INFO bench.pair).
run_bench() {
	g=$1
	modprobe nvme
	modprobe xfs
	wait_for '[ -n "$(nvme_ns awrn16k)" ] && [ -b /dev/$(nvme_ns awrn16k) ]'
	ns=$(nvme_ns awrn16k)
	mkdir -p /mnt/bench
	if [ -z "$ns" ] || ! mkfs.xfs -f -q "/dev/$ns" || ! mount "/dev/$ns" /mnt/bench; then
		say "FAIL $g.mount: the awrn16k namespace '$ns' (run.sh configures it) could not be made XFS and mounted"
		return
	fi
	say "PASS $g.mount"
	say "INFO $g dev=$ns $(lim "$ns" | awk '{ printf "unit_min=%s unit_max=%s", $1, $2 }') kernel=$(uname -r)"
	fails=0
	secs=${AWR_BENCH_SECONDS:-3}
	$AWR bench /mnt/bench/db --mode all --unit 16k --qd 32 --seconds "$secs" --size 32M >/tmp/bench.out 2>&1 ||
		fails=$((fails + 1))
	while IFS= read -r l; do say "INFO $g.1 $l"; done </tmp/bench.out
	r=0
	while [ $r -lt "${AWR_BENCH_ROUNDS:-6}" ]; do
		r=$((r + 1))
		order="atomic plain doublewrite pages"
		[ $((r % 2)) = 0 ] && order="plain atomic pages doublewrite"
		for m in $order; do
			$AWR bench /mnt/bench/db --mode "$m" --unit 16k --qd 32 --seconds "$secs" --size 32M --force -o json \
				>/tmp/bench.json 2>&1 || fails=$((fails + 1))
			say "INFO $g.pair round=$r mode=$m pages_per_s=$(sed -n 's/.*"pages_per_s": \([0-9.]*\).*/\1/p' /tmp/bench.json | head -n 1) moved_pages=$(sed -n 's/.*"moved_pages": \([0-9a-z]*\).*/\1/p' /tmp/bench.json | head -n 1)"
		done
	done
	umount /mnt/bench
	# The passthrough engines beside RWF_ATOMIC (--engine uring) on the same whole device: awr write of
	# 8 MiB in 16 KiB units, whole-process time, QD 1 and 32 (16 for SCSI: the sg driver's queue), three
	# rounds in alternating order: the NVMe namespace, then a scsi_debug disk (sd_default's parameters;
	# scsi_debug delays each command by a jiffy, so QD 1 is bound by it)
	my_mount	# fio, when run.sh packed one (AWR_VM_FIO)
	pt_round "$g" "$ns" "/dev/$ns" uring "/dev/ng${ns#nvme}" nvme 32 fio_uring fio_uring_cmd
	my_umount
	# shellcheck disable=SC2086
	if sd_load "$g" $SD_BASE; then
		sg=$(ls /sys/block/$disk/device/scsi_generic/ 2>/dev/null | head -n 1)
		wait_for "[ -c /dev/$sg ]"
		pt_round "$g" "$disk" "/dev/$disk" uring "/dev/$sg" scsi 16
		rmmod scsi_debug
	else
		fails=$((fails + 1))
	fi
	if [ "$fails" = 0 ]; then say "PASS $g.runs"; else say "FAIL $g.runs: $fails runs exited non-zero"; fi
}

# pt_round GROUP NAME DEV-A ENGINE-A DEV-B ENGINE-B MAXQD [FIO-ENGINE...]: three rounds of awr write
# at QD 1 and MAXQD through both engines, alternating which goes first; with fio in the guest
# (run.sh AWR_VM_FIO) also fio's engines (fio_uring: io_uring --atomic=1 on DEV-A, RWF_ATOMIC as awr's
# uring engine; fio_uring_cmd: NVMe passthrough on DEV-B, as awr's nvme engine) in the same rotation,
# writing the same 8 MiB in 16 KiB units; INFO GROUP.pt lines (whole-process milliseconds, the
# writes' own milliseconds, MB/s)
pt_round() {
	local g=$1 name=$2 qd r order e dev t0 t1 ms engines="$4 $6"
	[ -x /awr/my/run ] && [ -x /awr/my/bin/fio ] && [ $# -gt 7 ] && engines="$engines $(shift 7; echo "$@")"
	for r in 1 2 3; do
		for qd in 1 "$7"; do
			# rotate the order each round: every engine leads once
			order=$(echo $engines | awk -v r=$r '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r - 1) % NF + 1) }')
			for e in $order; do
				dev=$3
				[ "$e" = "$6" ] || [ "$e" = fio_uring_cmd ] && dev=$5
				t0=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)	# ms (the guest's date has no %N)
				case "$e" in
				fio_uring) /awr/my/run fio --name=w --thread --filename="$dev" --ioengine=io_uring --direct=1 \
					--atomic=1 --rw=write --bs=16k --size=8m --iodepth="$qd" --output=/tmp/pt.out ;;
				fio_uring_cmd) /awr/my/run fio --name=w --thread --filename="$dev" --ioengine=io_uring_cmd \
					--cmd_type=nvme --rw=write --bs=16k --size=8m --iodepth="$qd" --output=/tmp/pt.out ;;
				*) $AWR write "$dev" --offset 0 --length 8m --unit 16k --engine "$e" --qd "$qd" --force -o json >/tmp/pt.out 2>&1 ;;
				esac || { fails=$((fails + 1)); say "INFO $g.pt $name $e qd=$qd failed: $(head -c 300 /tmp/pt.out | tr '\n' ' ')"; }
				t1=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
				ms=$((t1 - t0))
				# the writes' own time, without the process's start: fio's run=, awr's "seconds"
				io=$(sed -n 's/.*run=\([0-9]*\)-.*/\1/p; s/.*"seconds": \([0-9.]*\).*/\1 s/p' /tmp/pt.out | head -n 1 |
					awk '{ if ($2 == "s") printf "%d", $1 * 1000 + 0.5; else print $1 }')
				say "INFO $g.pt dev=$name engine=$e qd=$qd round=$r ms=$ms io_ms=${io:-?} mb_s=$(( 8 * 1000 / (ms ? ms : 1) ))"
			done
		done
	done
}

# bench_mariadb: not a test (not in GROUPS_ALL): bench/guest_mariadb.sh asks for it. sysbench
# oltp_write_only against Debian's MariaDB with the doublewrite buffer ON and OFF under the preload,
# on XFS over the NAWUPF 16 KiB namespace (mariadb.sh --bench: 4 rounds of 20 s a configuration)
run_bench_mariadb() {
	g=$1
	modprobe nvme
	modprobe xfs
	wait_for '[ -n "$(nvme_ns awrn16k)" ] && [ -b /dev/$(nvme_ns awrn16k) ]'
	ns=$(nvme_ns awrn16k)
	my_mount
	/awr/mariadb.sh --bench "/dev/$ns" 16384 "${AWR_BENCH_ROUNDS:-4}" "${AWR_BENCH_SECONDS:-20}" 2>&1 |
	while IFS= read -r l; do
		case "$l" in PASS\ *|FAIL\ *|INFO\ *) say "$l" ;; *) echo "$l" ;; esac
	done
	my_umount
}

# bench_postgres: not a test (not in GROUPS_ALL): bench/guest_postgres.sh asks for it. pgbench
# against Debian 13's PostgreSQL 17 stock, with debug_io_direct=data, and with it under the preload
# with full_page_writes=off, on XFS over the NAWUPF 16 KiB namespace (postgres.sh --bench: 6 rounds
# of 60 s a configuration, 4 clients)
run_bench_postgres() {
	g=$1
	modprobe nvme
	modprobe xfs
	wait_for '[ -n "$(nvme_ns awrn16k)" ] && [ -b /dev/$(nvme_ns awrn16k) ]'
	ns=$(nvme_ns awrn16k)
	my_mount
	/awr/postgres.sh --bench "/dev/$ns" 16384 "${AWR_BENCH_ROUNDS:-6}" "${AWR_BENCH_SECONDS:-60}" 4 2>&1 |
	while IFS= read -r l; do
		case "$l" in PASS\ *|FAIL\ *|INFO\ *) say "$l" ;; *) echo "$l" ;; esac
	done
	my_umount
}

# run_group GROUP: one group's cases
run_group() {
	case "$1" in
	bench) run_bench "$1" ;;
	bench_mariadb) run_bench_mariadb "$1" ;;
	bench_postgres) run_bench_postgres "$1" ;;
	write_concurrency) run_concurrency "$1" ;;
	replay) relay "$1" cycles /awr/replay_cycles.sh ;;	# power cuts replayed from dm-log-writes logs
	logwrites) if kernel_at_least 6.18; then relay "$1" log /awr/logwrites.sh
		else say "INFO $1: runs on the 6.18 and 7.x guests only (stage time; tests/vm/README)"; fi ;;
	stack_sd) run_stack_sd "$1" ;;
	stack_nvme) run_stack_nvme "$1" ;;
	nvme_mpath) run_nvme_mpath "$1" ;;
	sd_fsview) run_sd_fsview "$1" ;;
	sd_*) run_sd "$1" ;;
	nvme_*) run_nvme "$1" ;;
	*) say "FAIL $1: unknown group (known: $GROUPS_ALL)" ;;
	esac
}

if [ "$1" = --list ]; then
	echo "$GROUPS_ALL"
	exit 0
fi
if [ "$1" = --expected ]; then	# --expected GROUP: its number of cases
	expected_cases "$2"
	exit 0
fi
groups=${*:-$GROUPS_ALL}
status=0
for g in $groups; do
	say "INFO group $g uptime=$(cut -d' ' -f1 /proc/uptime)"
	run_group "$g" 2>&1 | tee /tmp/group.out
	n=$(grep -cE '^AWRVM: (PASS|FAIL|SKIP) ' /tmp/group.out)
	want=$(expected_cases "$g")
	if [ "$n" = "$want" ]; then
		say "PASS $g.case_count: $n cases"
	else
		say "FAIL $g.case_count: $n cases reported, expected $want (tests/vm/guest/cases.sh)"
	fi
	grep -qE '^AWRVM: FAIL ' /tmp/group.out && status=1
	[ "$n" = "$want" ] || status=1
done
say "INFO end uptime=$(cut -d' ' -f1 /proc/uptime)"
[ -d /sys/module/scsi_debug ] && rmmod scsi_debug
exit $status
