#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/capture-tool-output.sh [OUTDIR]: capture what operators paste into
# tickets - nvme-cli's id-ctrl / id-ns (normal, -H, -o json, -b) and
# sg3_utils' sg_vpd -p bl (text, -r) and sg_readcap (text) - from the real
# tools of Debian trixie (nvme-cli 2.13, sg3-utils 1.48), run in the QEMU
# guest on its emulated NVMe namespaces (controller-level AWUN/AWUPF and
# namespace-level NAWUN/NAWUPF/NABSN/NABSPF/NABO) and scsi_debug disks,
# together with each disk's sysfs queue attributes; each raw Block Limits page
# decoded again by Debian bullseye's sg_vpd 1.45 (sg_vpd --inhex, on the host
# side: 1.45 still labels ATOMIC TRANSFER LENGTH GRANULARITY by its own name);
# and `awr list` (static, built from this tree) with every guest disk's sysfs
# read beside it, a scsi_debug disk and the NVMe namespace with a 64 KiB
# boundary carrying one misaligned and one aligned partition each. The files
# become the fixtures of the `decode_text` and `list_guest` tests
# (tests/fixtures/tools/, default OUTDIR).
#
# Uses the tool tree of tests/vm/run.sh (AWR_VM_CACHE, default
# /var/cache/awr-vm; run.sh builds it and fetches the kernels) read-only apart
# from a private work folder inside it, removed at the end: its busybox, the
# kernel AWR_CAPTURE_KERNEL (default 6.12: the newest of that series run.sh
# unpacked) and the module archive run.sh keeps with that kernel. Needs root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
outdir=$(realpath -m "${1:-$here/../fixtures/tools}")
cache=${AWR_VM_CACHE:-/var/cache/awr-vm}
tree=$cache/toolchain-v2
series=${AWR_CAPTURE_KERNEL:-6.12}
[ "$(id -u)" = 0 ] || { echo "capture: needs root (chroot)" >&2; exit 2; }
[ -f "$tree/awr/tree.env" ] || { echo "capture: no tool tree in $tree: run tests/vm/run.sh once" >&2; exit 2; }
kdir=$(ls -d "$tree/awr/k/$series".*/ 2>/dev/null | sort -V | tail -n 1)
kdir=${kdir%/}
[ -f "$kdir/kernel.env" ] || { echo "capture: no $series kernel in $tree/awr/k: run tests/vm/run.sh once" >&2; exit 2; }
kver=$(sed -n 's/^kver=//p' "$kdir/kernel.env")
vmlinuz=$(sed -n 's/^vmlinuz=//p' "$kdir/kernel.env")
# run.sh's module archive of that kernel (modules-KEY.gz: its guest modules,
# scsi_debug, sd_mod, sg and nvme among them, decompressed, with modules.dep)
modules=$(ls -t "$kdir"/modules-*.gz 2>/dev/null | head -n 1)
[ -n "$modules" ] && [ "$(gzip -dc "$modules" | cpio -t --quiet | grep -c '/scsi_debug\.ko$')" = 1 ] ||
	{ echo "capture: no module archive with scsi_debug for $kver in $kdir: run tests/vm/run.sh once" >&2; exit 2; }
src=$(cd "$here/../.." && pwd)
bdir=$cache/build-capture-$(printf '%s' "$src" | md5sum | cut -c1-12)
[ -f "$bdir/build.ninja" ] || meson setup "$bdir" "$src" -Dprefer_static=true -Dstatic_tools=true \
	--buildtype=release >/dev/null || { echo "capture: meson setup of the static build failed" >&2; exit 1; }
ninja -C "$bdir" cli/awr >/dev/null || { echo "capture: the static awr did not build" >&2; exit 1; }
rel=awr/capture.$$
work=$tree/$rel
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT
mkdir -p "$work/dl" "$work/root" "$outdir"

# the trixie tools and their libraries
chroot "$tree" sh -ec "cd /$rel/dl && apt-get -q download nvme-cli libnvme1t64 libjson-c5 libkeyutils1 libssl3t64 sg3-utils libsgutils2-1.48 && for d in *.deb; do dpkg -x \$d /$rel/root; done" >"$work/dl.log" 2>&1 ||
	{ cat "$work/dl.log" >&2; exit 1; }
ir=$work/initramfs
mkdir -p "$ir/bin" "$ir/tools"
cp "$tree/awr/bb/usr/bin/busybox" "$ir/bin/busybox"
cp "$work/root/usr/sbin/nvme" "$work/root/usr/bin/sg_vpd" "$work/root/usr/bin/sg_readcap" "$ir/tools/"
cp "$bdir/cli/awr" "$ir/bin/awr"
# an MBR for a 4 KiB-sector disk: partition 1 at block 1 (4096 bytes, off the 8 KiB atomic unit),
# partition 2 at block 2048
python3 -c '
import sys
mbr = bytearray(512)
for i, (start, size) in enumerate(((1, 1000), (2048, 4096))):
    mbr[446 + 16 * i:462 + 16 * i] = bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + start.to_bytes(4, "little") + size.to_bytes(4, "little")
mbr[510:512] = b"\x55\xaa"
sys.stdout.buffer.write(mbr)' >"$ir/mbr.bin"
# one aligned partition only (block 2048): for the namespace with 64 KiB units and boundary (awrnhi)
python3 -c '
import sys
mbr = bytearray(512)
mbr[446:462] = bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + (2048).to_bytes(4, "little") + (4096).to_bytes(4, "little")
mbr[510:512] = b"\x55\xaa"
sys.stdout.buffer.write(mbr)' >"$ir/mbr-aligned.bin"
chroot "$tree" sh -ec "
	export LD_LIBRARY_PATH=/$rel/root/usr/lib/x86_64-linux-gnu
	for b in /$rel/initramfs/tools/*; do ldd \$b; done | awk '\$2 == \"=>\" && \$3 ~ /^\// { print \$3 } \$1 ~ /^\/lib64\// { print \$1 }' | sort -u |
	while read -r f; do mkdir -p /$rel/initramfs/\$(dirname \$f); cp -L \$f /$rel/initramfs/\$f; done
	mkdir -p /$rel/initramfs/lib/x86_64-linux-gnu
	cp -L /$rel/root/usr/lib/x86_64-linux-gnu/*.so* /$rel/initramfs/lib/x86_64-linux-gnu/ 2>/dev/null || true
"
cat >"$ir/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/tools LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
set -o pipefail
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
echo 1 > /proc/sys/kernel/printk
cap() {	# cap NAME CMD...: the output between markers; binary as base64
	local name
	name=$1; shift
	echo "AWRCAP: BEGIN $name"
	case "$name" in
	*.bin) "$@" 2>/tmp/err | base64 ;;
	*) "$@" 2>/tmp/err ;;
	esac
	echo "AWRCAP: END $name rc=$? $(head -c 200 /tmp/err | tr '\n' ' ')"
}
queue() {	# the disk's sysfs queue attributes
	for a in logical_block_size physical_block_size max_segments max_hw_sectors_kb atomic_write_unit_min_bytes atomic_write_unit_max_bytes atomic_write_max_bytes atomic_write_boundary_bytes; do
		echo "$a=$(cat /sys/block/$1/queue/$a 2>/dev/null)"
	done
}
modprobe nvme; modprobe sd_mod; modprobe sg
sleep 2
for c in /sys/class/nvme/nvme*; do
	c=${c##*/}; serial=$(cat /sys/class/nvme/$c/serial | tr -d ' ')
	ns=${c}n1
	cap nvme-$serial-id-ctrl.txt nvme id-ctrl /dev/$c
	cap nvme-$serial-id-ctrl-H.txt nvme id-ctrl -H /dev/$c
	cap nvme-$serial-id-ctrl.json nvme id-ctrl -o json /dev/$c
	cap nvme-$serial-id-ctrl.bin nvme id-ctrl -b /dev/$c
	cap nvme-$serial-id-ns.txt nvme id-ns /dev/$ns
	cap nvme-$serial-id-ns-H.txt nvme id-ns -H /dev/$ns
	cap nvme-$serial-id-ns.json nvme id-ns -o json /dev/$ns
	cap nvme-$serial-id-ns.bin nvme id-ns -b /dev/$ns
	cap nvme-$serial-sysfs.txt queue $ns
done
sysdump() {	# every disk: dev, size, queue attributes, model, serial, transport (the device's subsystem), partitions (start, size, dev), holders
	for d in /sys/block/*; do
		n=${d##*/}
		echo "$n dev=$(cat $d/dev) size=$(cat $d/size)"
		for a in logical_block_size physical_block_size max_segments max_hw_sectors_kb atomic_write_unit_min_bytes atomic_write_unit_max_bytes atomic_write_max_bytes atomic_write_boundary_bytes; do
			echo "$n queue.$a=$(cat $d/queue/$a)"
		done
		echo "$n model=$(cat $d/device/model 2>/dev/null | sed 's/ *$//')"
		echo "$n serial=$(cat $d/device/serial 2>/dev/null | tr -d ' ')"
		echo "$n subsystem=$(basename "$(readlink $d/device/subsystem)" 2>/dev/null)"
		for p in $d/$n*; do
			[ -f $p/partition ] && echo "$n part.${p##*/}=$(cat $p/start) $(cat $p/size) $(cat $p/dev)"
		done
		echo "$n holders=$(ls $d/holders | tr '\n' ' ')"
	done
}
modprobe scsi_debug atomic_wr=1 dev_size_mb=64 sector_size=4096; sleep 2
d=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block | head -n 1)
dd if=/mbr.bin of=/dev/$d bs=4096 conv=sync,notrunc 2>/dev/null; blockdev --rereadpt /dev/$d
# the same table on the namespace with a 64 KiB boundary (awrnwu): partition 1 at 4 KiB is a
# multiple of its unit_min but not of its boundary; and one aligned partition on awrnhi's
for c in /sys/class/nvme/nvme*; do
	case "$(cat $c/serial | tr -d ' ')" in awrnwu) t=/mbr.bin ;; awrnhi) t=/mbr-aligned.bin ;; *) continue ;; esac
	dd if=$t of=/dev/${c##*/}n1 bs=4096 conv=sync,notrunc 2>/dev/null; blockdev --rereadpt /dev/${c##*/}n1
done
sleep 1
cap list.json awr list -o json
cap list-sysfs.txt sysdump
cap list.txt awr list
rmmod scsi_debug
sdcap() {	# sdcap NAME MODULE-PARAMETERS...
	local name d
	name=$1; shift
	modprobe scsi_debug "$@"; sleep 2
	d=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block 2>/dev/null | head -n 1)
	cap sd-$name-vpd-bl.txt sg_vpd -p bl /dev/$d
	cap sd-$name-vpd-bl-H.txt sg_vpd -p bl -H /dev/$d
	cap sd-$name-vpd-bl.bin sg_vpd -p bl -r /dev/$d
	cap sd-$name-readcap.txt sg_readcap /dev/$d
	cap sd-$name-readcap-long.txt sg_readcap -l /dev/$d
	cap sd-$name-sysfs.txt queue $d
	rmmod scsi_debug
}
sdcap default atomic_wr=1 dev_size_mb=64 sector_size=4096
sdcap gran512 atomic_wr=1 dev_size_mb=64 sector_size=512 atomic_wr_gran=8
sdcap bndry atomic_wr=1 dev_size_mb=64 sector_size=4096 atomic_wr_max_length=0 atomic_wr_max_length_bndry=16 atomic_wr_max_bndry=8
echo "AWRCAP: KERNEL $(uname -r)"
echo "AWRCAP: DONE"
sync; poweroff -f
INIT
chmod 755 "$ir/init"
(cd "$ir" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$work/initrd.gz"
cat "$modules" >>"$work/initrd.gz"	# the kernel unpacks both archives

# NVMe controllers: serial awun awupf lbs, the namespace's NAWUN:NAWUPF:NABSN:NABSPF:NABO or "-"
# (tests/vm/run.sh's namespace configurations, and awrnwu with every namespace field different)
qemu=(qemu-system-x86_64 -nodefaults -no-reboot -cpu max -m 1024 -smp 2 -display none
      -kernel "/awr/k/$kver$vmlinuz" -initrd "/$rel/initrd.gz" -serial stdio
      -append "console=ttyS0 quiet loglevel=1 panic=-1")
i=0
for c in "awrpf15 31 15 4096 -" "awr512pf63 63 63 512 -" "awrpf0 0 0 4096 -" \
	 "awrnp7 0 0 4096 7:7:15:0:0" "awrnbs 0 0 4096 7:7:15:15:0" "awrnbo 0 0 4096 7:7:15:15:4" \
	 "awrnhi 7 3 4096 15:15:15:15:0" "awrnwu 0 0 4096 15:7:31:15:0"; do
	read -r serial awun awupf lbs ns <<<"$c"
	nsopt=
	if [ "$ns" != - ]; then
		IFS=: read -r nawun nawupf nabsn nabspf nabo <<<"$ns"
		nsopt=",atomic.nawun=$nawun,atomic.nawupf=$nawupf,atomic.nabsn=$nabsn,atomic.nabspf=$nabspf,atomic.nabo=$nabo"
	fi
	truncate -s 64M "$work/nvme$i.img"
	qemu+=(-drive "file=/$rel/nvme$i.img,if=none,id=nvd$i,format=raw"
	       -device "nvme,serial=$serial,id=nvme$i,atomic.dn=off,atomic.awun=$awun,atomic.awupf=$awupf"
	       -device "nvme-ns,drive=nvd$i,bus=nvme$i,nsid=1,logical_block_size=$lbs,physical_block_size=$lbs$nsopt")
	i=$((i + 1))
done
timeout -k 10 300 chroot "$tree" "${qemu[@]}" </dev/null >"$work/serial.log" 2>"$work/qemu.err" &
qpid=$!
wait "$qpid" || true
qpid=
tr -d '\r' <"$work/serial.log" >"$work/serial.txt"
grep -q '^AWRCAP: DONE' "$work/serial.txt" || { tail -n 30 "$work/serial.txt" "$work/qemu.err" >&2; echo "capture: the guest did not finish" >&2; exit 1; }
# split the serial log into one file per capture; binary ones decoded
awk -v dir="$work/cap" '
	/^AWRCAP: BEGIN / { name = $3; file = dir "/" name; printf "" > file; on = 1; next }
	/^AWRCAP: END / { on = 0; close(file); if ($4 != "rc=0") { print "capture: " name " failed: " $0 > "/dev/stderr"; bad = 1 }; next }
	on { print >> file }
	/^AWRCAP: KERNEL / { print $3 > (dir "/KERNEL") }
	END { exit bad }
' < <(mkdir -p "$work/cap"; cat "$work/serial.txt")
for f in "$work"/cap/*.bin; do
	base64 -d <"$f" >"$f.tmp" && mv "$f.tmp" "$f"
done
# sg_vpd 1.45 (Debian bullseye) on each raw Block Limits page: package lists of its own in the work folder
echo "deb $(sed -n 's/^deb \([^ ]*\) .*/\1/p' "$tree/etc/apt/sources.list.d/backports.list" | head -n 1) bullseye main" >"$work/bullseye.list"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/dl145" "$work/root145"
apt145=(-o "Dir::Etc::SourceList=/$rel/bullseye.list" -o Dir::Etc::SourceParts=/nonexistent
	-o "Dir::State::Lists=/$rel/apt/lists" -o "Dir::Cache=/$rel/apt/cache")
chroot "$tree" sh -ec "apt-get -q $(printf '%q ' "${apt145[@]}") update && cd /$rel/dl145 &&
	apt-get -q $(printf '%q ' "${apt145[@]}") download sg3-utils libsgutils2-2 &&
	for d in *.deb; do dpkg -x \$d /$rel/root145; done" >"$work/dl145.log" 2>&1 ||
	{ cat "$work/dl145.log" >&2; exit 1; }
for f in "$work"/cap/sd-*-vpd-bl.bin; do
	b=$(basename "$f" .bin)
	cp "$f" "$work/root145/page.bin"
	chroot "$tree" env LD_LIBRARY_PATH=/$rel/root145/usr/lib/x86_64-linux-gnu \
		"/$rel/root145/usr/bin/sg_vpd" -p bl --raw --inhex=/$rel/root145/page.bin >"$work/cap/$b-1.45.txt" ||
		{ echo "capture: sg_vpd 1.45 --inhex of $b.bin failed" >&2; exit 1; }
done
cp "$work"/cap/* "$outdir/"
echo "capture: $(ls "$work/cap" | wc -l) files from kernel $(cat "$work/cap/KERNEL") in $outdir"
