#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: the SCSI target (LIO) in the guest: an NVMe namespace exported through a loopback
# target (tcm_loop, iblock backstore, configured through configfs) appears as a SCSI disk on the
# initiator side; awr's SCSI view, its derivation, sysfs and statx of that disk agree
# (awr-vmtest disk), the limits are the namespace's, and awr write (sync, --engine scsi, --engine
# scsi --qd 8) lands on the namespace below. Before 6.19 (the kernel rule lio_atomic) the target
# reports no atomic limits: the disk must have none, and awr must say so. See atomic_cases for
# what 7.3.4's SCSI midlayer does with the target's page.
#
#   lio.sh GROUP /dev/nvmeXnY
#
# Cases: "PASS|FAIL|SKIP NAME[: reason]" (relayed by cases.sh as GROUP.lio.NAME) and the AWRVM
# lines of awr-vmtest (GROUP.lio.sdX.CHECK). The target is removed at the end, also on failure.
AWR=${AWR:-/awr/awr}
T=/awr/awr-vmtest
g=$1 dev=$2
ns=${dev#/dev/}
CFG=/sys/kernel/config/target
BS=$CFG/core/iblock_0/awr_lio
WWN=naa.50014050a7700001
INIT=naa.50014050a7700002
TPG=$CFG/loopback/$WWN/tpgt_1
fails=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
info() { echo "AWRVM: INFO lio $*"; }

wait_for() {	# up to 10 s
	i=0
	while [ $i -lt 100 ]; do
		eval "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# the initiator's disk: the SCSI disk whose vendor is LIO-ORG
lio_disk() {
	for v in /sys/block/sd*/device/vendor; do
		[ -f "$v" ] || continue
		case "$(cat "$v")" in LIO-ORG*) d=${v#/sys/block/}; echo "${d%%/*}"; return 0 ;; esac
	done
	return 1
}

teardown() {
	[ -d "$TPG" ] || [ -d "$BS" ] || return 0
	rm -f "$TPG/lun/lun_0/awr_lio" 2>/dev/null
	rmdir "$TPG/lun/lun_0" 2>/dev/null
	echo NULL >"$TPG/nexus" 2>/dev/null
	rmdir "$TPG" "$CFG/loopback/$WWN" "$CFG/loopback" 2>/dev/null
	rmdir "$BS" "$CFG/core/iblock_0" 2>/dev/null
	[ -d "$BS" ] && echo "AWRVM: INFO lio teardown left $BS"
	return 0
}
trap teardown EXIT

setup() {
	# sd_mod and sg: the initiator's disk and its sg node (the NVMe groups load neither)
	for m in sd_mod sg target_core_mod target_core_iblock tcm_loop; do
		modprobe "$m" || { fail "load: modprobe $m failed"; return 1; }
	done
	[ -d "$CFG" ] || mount -t configfs configfs /sys/kernel/config 2>/dev/null
	[ -d "$CFG" ] || { fail "load: no $CFG (configfs)"; return 1; }
	mkdir -p "$BS" &&
		echo "udev_path=$dev" >"$BS/control" &&
		echo 1 >"$BS/enable" || { fail "load: iblock backstore over $dev: $(dmesg | tail -n 2)"; return 1; }
	mkdir -p "$TPG/lun/lun_0" &&
		echo "$INIT" >"$TPG/nexus" &&
		ln -s "$BS" "$TPG/lun/lun_0/awr_lio" || { fail "load: tcm_loop $WWN: $(dmesg | tail -n 2)"; return 1; }
	if ! wait_for 'sd=$(lio_disk) && [ -b /dev/$sd ]'; then
		fail "load: no LIO-ORG disk appeared on the initiator side"
		return 1
	fi
	sg=$(ls "/sys/block/$sd/device/scsi_generic/" 2>/dev/null | head -n 1)
	wait_for "[ -c /dev/$sg ]" || { fail "load: $sd has no sg node"; return 1; }
	pass "load: $sd ($sg) exports $dev"
}

q() { cat "/sys/block/$1/queue/$2"; }
lim() { echo "$(q "$1" atomic_write_unit_min_bytes)/$(q "$1" atomic_write_unit_max_bytes)/$(q "$1" atomic_write_max_bytes)/$(q "$1" atomic_write_boundary_bytes)"; }

# "KEY": NUMBER of the first such key in awr probe -o json of $1 (squeezed)
jnum() { tr -d ' \n' <"$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | cut -d: -f2; }

# the rules table of this awr: does lio_atomic apply to the running kernel?
rule_applies() {
	$AWR version -o json | tr -d ' \n' | grep -o '"lio_atomic":{"applies":[a-z]*' | cut -d: -f3
}

# limits: the initiator's disk has the namespace's atomic limits (target_configure_write_atomic_
# from_bdev(): MAXIMUM ATOMIC TRANSFER LENGTH = max_bytes, granularity = alignment = unit_min, in
# blocks; sd_config_atomic() on the initiator gives them back), boundary 0 (SCSI has none)
limits_case() {
	l_ns=$(lim "$ns") l_sd=$(lim "$sd")
	info "limits $ns=$l_ns $sd=$l_sd (unit_min/unit_max/max_bytes/boundary) kernel=$(uname -r) lio_atomic=$applies"
	if [ "$applies" = true ]; then
		if [ "${l_ns%/*}/0" = "$l_sd" ]; then
			pass "limits: $sd $l_sd as $ns"
		elif [ "$l_sd" = 0/0/0/0 ] && [ ! -f "/sys/block/$sd/device/vpd_pgb0" ]; then
			echo "SKIP limits: known kernel behaviour (seen on 7.3.4): the SCSI midlayer read no VPD page of the tcm_loop LUN, so sd set no atomic limits ($sd $l_sd; the target's page gives $ns's)"
		else
			fail "limits: $sd $l_sd, $ns $l_ns (expected the namespace's, boundary 0)"
		fi
	elif [ "$l_sd" = 0/0/0/0 ]; then
		pass "limits: none before 6.19 (lio_atomic), as the rules table says"
	else
		fail "limits: $sd $l_sd on a kernel the rules table says has no LIO atomics"
	fi
}

# vpd: the SCSI view of awr probe -o json against the namespace's sysfs, in logical blocks
vpd_case() {
	$AWR probe -o json "/dev/$sd" >/tmp/lio.json 2>/tmp/lio.err
	lbs=$(q "$sd" logical_block_size)
	matl=$(jnum /tmp/lio.json max_atomic_transfer_length)
	gran=$(jnum /tmp/lio.json atomic_granularity)
	align=$(jnum /tmp/lio.json atomic_alignment)
	plen=$(jnum /tmp/lio.json vpd_page_length)
	info "vpd $sd vpd_page_length=$plen max_atomic_transfer_length=$matl atomic_granularity=$gran atomic_alignment=$align lbs=$lbs"
	if [ "$applies" = true ]; then
		want="$(($(q "$ns" atomic_write_max_bytes) / lbs)) $(($(q "$ns" atomic_write_unit_min_bytes) / lbs))"
		if [ "$matl $gran $align" = "$want ${want#* }" ]; then
			pass "vpd: MATL $matl, granularity and alignment $gran blocks: the namespace's limits"
		else
			fail "vpd: awr probe -o json MATL $matl granularity $gran alignment $align, expected $want ${want#* }"
		fi
	elif [ "${matl:-0}" = 0 ] && grep -q '"supported": false' /tmp/lio.json; then
		# before 6.19 the page has no atomic fields (null in JSON) or zeros in them
		pass "vpd: no atomic transfer length (page length $plen, MATL ${matl:-absent}) and no atomic writes (before 6.19)"
	else
		fail "vpd: MATL '$matl' before 6.19, or atomic writes reported: $(head -c 300 /tmp/lio.json)"
	fi
}

# read_is OFF LEN BYTE: the namespace below holds BYTE there (read with O_DIRECT)
read_is() {
	left=$(dd if="$dev" bs=4096 skip=$(($1 / 4096)) count=$(($2 / 4096)) iflag=direct 2>/dev/null | tr -d "$3" | wc -c)
	got=$(dd if="$dev" bs=4096 skip=$(($1 / 4096)) count=$(($2 / 4096)) iflag=direct 2>/dev/null | wc -c)
	[ "$got" = "$2" ] && [ "$left" = 0 ]
}

# write NAME OFF BYTE CHAR ARGS...: awr write through the initiator, read back through the namespace
write_case() {
	name=$1 off=$2 byte=$3 char=$4
	shift 4
	out=$($AWR write "$@" --offset "$off" --length 131072 --unit "$unit" --pattern "$byte" --force 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		fail "$name: awr write $* exited $rc: $(echo "$out" | head -n 2 | tr '\n' ' ')"
	elif ! read_is "$off" 131072 "$char"; then
		fail "$name: awr write $* exited 0, but $dev does not hold $byte at $off"
	else
		pass "$name: 128 KiB in units of $unit at $off through $*, read back from $dev"
	fi
}

# awr-vmtest's disk cases on the initiator's disk: statx, awr_probe_path(), awr probe -o json and
# scsi.derived for this kernel equal sysfs, sweeps, errnos, awr_pwrite, io_uring, stress (skipped
# where the disk has no atomic limits). Its AWRVM lines pass through as GROUP.lio.DISK.CHECK.
disk_cases() {
	$T disk "$g.lio" "/dev/$sd" 2>/tmp/lio-t.err
	rc=$?
	case $rc in 0|1) ;; *) fail "disk: awr-vmtest disk exited $rc: $(head -n 2 /tmp/lio-t.err)" ;; esac
}

# Where sd of this kernel read the disk's Block Limits page, the disk has the namespace's limits and
# awr write (sync) lands on the namespace. Seen on 7.3.4 instead: the SCSI midlayer holds no VPD
# page of the tcm_loop LUN at all (no vpd_pg* in sysfs; a scsi_debug disk in the same guest has
# them, and a delete and rescan of the LUN changes nothing), so sd sets no atomic limits although
# the target answers VPD B0h with them and executes WRITE ATOMIC(16). awr's derivation for this
# kernel must then be none too, naming the missing page (scsi_kernel_no_vpd), atomic writes
# through the block layer are refused, and the passthrough engine (which asks the device) writes
# through the target to the namespace.
atomic_cases() {
	unit=$(($(jnum /tmp/lio.json max_atomic_transfer_length) * lbs))
	unit=$((unit & -unit))	# MATL's largest power-of-two divisor: 8 blocks here
	disk_cases
	if [ -f "/sys/block/$sd/device/vpd_pgb0" ]; then
		write_case write_sync 1048576 0x71 q "/dev/$sd"
	else
		info "midlayer $sd: no vpd_pg* in /sys/block/$sd/device ($(ls "/sys/block/$sd/device" | grep -c vpd_pg) pages): sd read no Block Limits page"
		if grep -q '"scsi_kernel_no_vpd"' /tmp/lio.json && ! grep -q '"device_sysfs_mismatch"' /tmp/lio.json; then
			pass "derived_none: awr derives no limits for this kernel and names the missing page (scsi_kernel_no_vpd)"
		else
			fail "derived_none: sd read no Block Limits page of $sd, but awr probe -o json names no scsi_kernel_no_vpd or still a device_sysfs_mismatch"
		fi
		out=$($AWR write "/dev/$sd" --offset 1048576 --length "$unit" --pattern 0x71 --force 2>&1)
		rc=$?
		if [ $rc != 0 ] && echo "$out" | grep -qi 'atomic'; then
			pass "write_sync_refused: exit $rc: $(echo "$out" | head -n 1)"
		else
			fail "write_sync_refused: awr write (sync) on a disk without atomic limits exited $rc: $(echo "$out" | head -n 1)"
		fi
	fi
	write_case write_scsi 2097152 0x72 r "/dev/$sg" --engine scsi
	write_case write_scsi_queued 3145728 0x73 s "/dev/$sg" --engine scsi --qd 8
}

setup || exit 1
applies=$(rule_applies)
limits_case
vpd_case
if [ "$applies" = true ]; then
	atomic_cases
else
	# awr write to a disk without atomic writes: refused, and the namespace untouched
	dd if=/dev/zero of="$dev" bs=4096 seek=256 count=4 oflag=direct 2>/dev/null
	out=$($AWR write "/dev/$sd" --offset 1048576 --length 16384 --pattern 0x71 --force 2>&1)
	rc=$?
	if [ $rc != 0 ] && read_is 1048576 16384 '\000'; then
		pass "write_refused: exit $rc: $(echo "$out" | head -n 1)"
	else
		fail "write_refused: awr write exited $rc on a disk without atomic writes: $(echo "$out" | head -n 1)"
	fi
fi
teardown
[ "$fails" = 0 ]
