#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/run.sh [SRCDIR]: the VM stage of the test suite.
#
# Builds (once, cached) a Debian trixie tool tree holding QEMU 10 and a 6.12
# kernel, builds awr and the guest test program statically from SRCDIR
# (default: the tree this script lives in), packs them with busybox and the
# needed kernel modules into an initramfs, boots it under QEMU (TCG) with
# scsi_debug atomic writes and NVMe controllers with AWUPF, and reports every
# guest case as
#     PASS name | FAIL name: reason | SKIP name: reason
# ending with "vm: N passed, N failed, N skipped". Exit status 0 only when
# the guest ran, at least one case passed and none failed.
#
# Environment:
#   AWR_VM_CACHE    cache directory (default /var/cache/awr-vm)
#   AWR_VM_OUT      where the serial log and results go (default $AWR_VM_CACHE/out-HASH,
#                   HASH from SRCDIR's path)
#   AWR_VM_ONLY     comma-separated guest case groups (default all; see README)
#   AWR_VM_SHELL=1  boot to an interactive shell in the guest instead
#   AWR_VM_TIMEOUT  seconds the guest may run (default 480)
#   AWR_VM_MIRROR   Debian mirror URI (default: taken from this machine's apt sources)
#   AWR_VM_REBUILD=1  rebuild the cached tool tree
#
# Needs root (debootstrap, chroot), debootstrap, a C compiler, meson, ninja,
# pkg-config and the -dev packages the project builds with.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "${1:-$here/../..}" && pwd) || { echo "FAIL vm.setup: no source tree"; echo "vm: 0 passed, 1 failed, 0 skipped"; exit 1; }
cache=${AWR_VM_CACHE:-/var/cache/awr-vm}
srchash=$(printf '%s' "$src" | md5sum | cut -c1-12)	# one build and output dir per source tree
out=${AWR_VM_OUT:-$cache/out-$srchash}
only=${AWR_VM_ONLY:-}
shell_mode=${AWR_VM_SHELL:-0}
boot_timeout=${AWR_VM_TIMEOUT:-480}
suite=trixie
tool_version=1				# bump when the tool tree's content changes
tree=$cache/toolchain
qpid=
qemu_pidfile=
child=

# NVMe controllers: serial awun awupf (serials are matched in guest/cases.sh)
nvme_ctrls=(
	"awrpf15 31 15"
	"awrpf0 0 0"
	"awrpf7 7 7"
)

# Guest programs of other suites (meson targets, built when their .c exists),
# run by guest/cases.sh per device configuration when present.
extra_guest=(tests/devices/guest-devices tests/integration/uring_engine tests/integration/page_batch)

t_start=$(date +%s)

say() { echo "vm: $*"; }

die() {
	echo "FAIL vm.setup: $*"
	echo "vm: 0 passed, 1 failed, 0 skipped"
	exit 1
}

cleanup() {
	local p
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
	fi
	if [ -n "$qemu_pidfile" ] && [ -s "$qemu_pidfile" ]; then
		p=$(cat "$qemu_pidfile" 2>/dev/null)
		if [ -n "$p" ] && grep -q '^qemu-system' "/proc/$p/comm" 2>/dev/null; then
			kill "$p" 2>/dev/null
			sleep 1
			kill -9 "$p" 2>/dev/null
		fi
	fi
	if [ -n "$qpid" ]; then
		wait "$qpid" 2>/dev/null
	fi
	qpid=
}
trap cleanup EXIT
trap 'echo "FAIL vm.run: interrupted"; echo "vm: 0 passed, 1 failed, 0 skipped"; exit 130' INT TERM HUP

# ---------------------------------------------------------------- checks

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
for c in cc meson ninja pkg-config flock gzip timeout chroot; do
	command -v "$c" >/dev/null 2>&1 || die "'$c' is missing on this machine"
done
[ -f "$src/meson.build" ] || die "$src is not the libatomicwr source tree"
mkdir -p "$cache" "$out" || die "cannot create $cache"

exec 9>"$cache/lock"
if ! flock -n 9; then
	say "waiting for another VM run to finish (lock $cache/lock)"
	flock -w 900 9 || die "another VM run holds $cache/lock"
fi

# Remove a (half-built) tool tree: unmount anything left mounted below it
# first, never crossing into another filesystem.
remove_tree() {
	local d=$1 m
	[ -e "$d" ] || return 0
	for m in $(awk -v d="$d/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$d"
}

mirror_uri() {
	local u
	if [ -n "${AWR_VM_MIRROR:-}" ]; then
		echo "$AWR_VM_MIRROR"
		return
	fi
	u=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
	if [ -z "$u" ]; then
		u=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) { print $i; exit } break } }')
	fi
	echo "$u"
}

# ------------------------------------------------------------ tool tree

build_tree() {
	local tmp=$cache/toolchain.new.$$ mirror kpkg kver log=$out/toolchain.log
	mirror=$(mirror_uri)
	[ -n "$mirror" ] || die "no Debian mirror URI in the apt sources (set AWR_VM_MIRROR)"
	say "building the $suite tool tree (debootstrap, kernel, busybox): log $log"
	remove_tree "$tmp"
	: >"$log"
	debootstrap --variant=minbase --include=qemu-system-x86,kmod,xz-utils,cpio \
		"$suite" "$tmp" "$mirror" >>"$log" 2>&1 &
	child=$!
	wait "$child" || { child=; die "debootstrap $suite from $mirror failed (see $log)"; }
	child=
	chroot "$tmp" apt-get -q update >>"$log" 2>&1 || die "apt-get update in the tool tree failed (see $log)"
	kpkg=${AWR_VM_KERNEL_PKG:-$(chroot "$tmp" apt-cache depends linux-image-amd64 2>>"$log" |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.12\..*-amd64$/ { print $2; exit }')}
	[ -n "$kpkg" ] || die "no linux-image-6.12.*-amd64 package in $suite (see $log)"
	mkdir -p "$tmp/awr/dl" "$tmp/awr/pkg"
	chroot "$tmp" sh -c 'cd /awr/dl && apt-get -q download "$1" busybox-static' sh "$kpkg" >>"$log" 2>&1 ||
		die "apt-get download $kpkg busybox-static failed (see $log)"
	chroot "$tmp" sh -c 'for d in /awr/dl/*.deb; do dpkg -x "$d" /awr/pkg || exit 1; done' >>"$log" 2>&1 ||
		die "dpkg -x failed (see $log)"
	kver=${kpkg#linux-image-}
	# trixie keeps modules under /usr/lib/modules; kmod -b wants lib/modules
	ln -s usr/lib "$tmp/awr/pkg/lib"
	[ -f "$tmp/awr/pkg/boot/vmlinuz-$kver" ] || die "kernel $kver has no vmlinuz"
	[ -x "$tmp/awr/pkg/usr/bin/busybox" ] || die "busybox-static has no /usr/bin/busybox"
	chroot "$tmp" depmod -b /awr/pkg "$kver" >>"$log" 2>&1 || die "depmod failed (see $log)"
	rm -rf "$tmp/awr/dl"
	printf 'version=%s\nkver=%s\nkpkg=%s\n' "$tool_version" "$kver" "$kpkg" >"$tmp/awr/tree.env"
	remove_tree "$tree"
	mv "$tmp" "$tree" || die "cannot move the tool tree into place"
}

t0=$(date +%s)
for d in "$cache"/toolchain.new.*; do
	[ -e "$d" ] && remove_tree "$d"
done
if [ "${AWR_VM_REBUILD:-0}" = 1 ] || [ ! -f "$tree/awr/tree.env" ] ||
   ! grep -qx "version=$tool_version" "$tree/awr/tree.env"; then
	build_tree
	say "tool tree built in $(( $(date +%s) - t0 )) s"
else
	say "tool tree cached ($tree)"
fi
kver=$(sed -n 's/^kver=//p' "$tree/awr/tree.env")
[ -n "$kver" ] || die "tool tree has no kernel version"

# ------------------------------------------------- static awr + guest program

t0=$(date +%s)
bdir=$cache/build-$srchash
blog=$out/build.log
: >"$blog"
if [ ! -f "$bdir/build.ninja" ]; then
	rm -rf "$bdir"
	meson setup "$bdir" "$src" -Dprefer_static=true -Dstatic_tools=true --buildtype=release \
		>>"$blog" 2>&1 || { tail -n 20 "$blog"; die "meson setup of the static build failed (see $blog)"; }
fi
# only the static targets: the shared library cannot link static dependencies.
# Guest programs of other test suites join when the source tree has them.
targets=(cli/awr lib/libatomicwr.a)
extra=()
for t in "${extra_guest[@]}"; do
	[ -f "$src/$t.c" ] && extra+=("$t")
done
ninja -C "$bdir" "${targets[@]}" "${extra[@]}" >>"$blog" 2>&1 ||
	{ tail -n 20 "$blog"; die "static build of awr failed (see $blog)"; }
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/include" \
	-o "$bdir/awr-vmtest" "$here/guest/awr-vmtest.c" -static "$bdir/lib/libatomicwr.a" \
	$(pkg-config --static --libs liburing libnvme json-c blkid libxxhash) -lsgutils2 -pthread \
	>>"$blog" 2>&1 || { tail -n 20 "$blog"; die "building the guest test program failed (see $blog)"; }
for b in "$bdir/cli/awr" "$bdir/awr-vmtest" "${extra[@]/#/$bdir/}"; do
	file_out=$(LC_ALL=C od -An -c -N4 "$b" 2>/dev/null | tr -d ' ')
	[ "$file_out" = '177ELF' ] || die "$b is not an ELF executable"
	if LC_ALL=C readelf -l "$b" 2>/dev/null | grep -q 'INTERP'; then
		die "$b is not statically linked"
	fi
done
say "static awr and guest program built in $(( $(date +%s) - t0 )) s ($bdir)"

# ---------------------------------------------------------------- initramfs

t0=$(date +%s)
run=$tree/awr/run
rm -rf "$run"
ir=$run/initramfs
mkdir -p "$ir/bin" "$ir/awr" "$ir/lib/modules/$kver" || die "cannot create $ir"
cp "$tree/awr/pkg/usr/bin/busybox" "$ir/bin/busybox"
cp "$here/guest/init" "$ir/init"
cp "$here/guest/cases.sh" "$ir/awr/cases.sh"
cp "$bdir/cli/awr" "$ir/awr/awr"
cp "$bdir/awr-vmtest" "$ir/awr/awr-vmtest"
chmod 755 "$ir/init" "$ir/awr/cases.sh" "$ir/awr/awr" "$ir/awr/awr-vmtest"
for t in "${extra[@]}"; do
	install -m 755 "$bdir/$t" "$ir/awr/$(basename "$t")"
done
# the modules and their dependencies, decompressed, with a fresh modules.dep
chroot "$tree" sh -ec '
	kver=$1; shift
	src=/awr/pkg/lib/modules/$kver dst=/awr/run/initramfs/lib/modules/$kver
	for m in "$@"; do modprobe -d /awr/pkg -S "$kver" --show-depends "$m"; done |
	awk "\$1 == \"insmod\" { print \$2 }" | sort -u |
	while read -r f; do
		rel=${f#$src/}; rel=${rel%.xz}
		mkdir -p "$dst/$(dirname "$rel")"
		case "$f" in *.xz) xz -dc "$f" >"$dst/$rel" ;; *) cp "$f" "$dst/$rel" ;; esac
	done
	cp "$src/modules.builtin" "$src/modules.builtin.modinfo" "$src/modules.order" "$dst/"
	depmod -b /awr/run/initramfs "$kver" >&2
	cd /awr/run/initramfs && find . | cpio -o -H newc -R 0:0 --quiet
' sh "$kver" scsi_debug sd_mod sg nvme 2>"$run/initramfs.log" | gzip -1 >"$run/initrd.gz" ||
	die "building the initramfs failed (see $run/initramfs.log)"
[ -f "$ir/lib/modules/$kver/kernel/drivers/scsi/scsi_debug.ko" ] ||
	die "scsi_debug.ko missing from the initramfs (see $run/initramfs.log)"
[ -f "$ir/lib/modules/$kver/kernel/drivers/nvme/host/nvme.ko" ] ||
	die "nvme.ko missing from the initramfs (see $run/initramfs.log)"
say "initramfs built in $(( $(date +%s) - t0 )) s ($(du -k "$run/initrd.gz" | cut -f1) KiB)"

# -------------------------------------------------------------------- boot

qemu=(qemu-system-x86_64 -nodefaults -no-reboot -cpu max -m 1024 -smp 2 -display none
      -kernel "/awr/pkg/boot/vmlinuz-$kver" -initrd /awr/run/initrd.gz
      -pidfile /awr/run/qemu.pid)
append="console=ttyS0 quiet loglevel=1 panic=-1"
[ -n "$only" ] && append="$append awr_only=$only"
[ "$shell_mode" = 1 ] && append="$append awr_shell=1"
info=()
i=0
nvme_conf=
for c in "${nvme_ctrls[@]}"; do
	read -r serial awun awupf <<<"$c"
	nvme_conf=${nvme_conf:+$nvme_conf,}$serial:$awun:$awupf
	truncate -s $((64 * 1024 * 1024 + 12 * 1024)) "$run/nvme$i.img"
	qemu+=(-drive "file=/awr/run/nvme$i.img,if=none,id=nvd$i,format=raw"
	       -device "nvme,serial=$serial,id=nvme$i,atomic.dn=off,atomic.awun=$awun,atomic.awupf=$awupf"
	       -device "nvme-ns,drive=nvd$i,bus=nvme$i,nsid=1,logical_block_size=4096,physical_block_size=4096")
	info+=("INFO qemu nvme serial=$serial atomic.dn=off atomic.awun=$awun atomic.awupf=$awupf logical_block_size=4096 physical_block_size=4096 size=64M")
	i=$((i + 1))
done
qemu_pidfile=$run/qemu.pid
# the guest compares each controller's Identify data with its configuration
qemu+=(-append "$append awr_nvme=$nvme_conf")

if [ "$shell_mode" = 1 ]; then
	say "booting a guest shell (kernel $kver); 'exit' powers the guest off"
	chroot "$tree" "${qemu[@]}" -serial mon:stdio 9>&-
	exit $?
fi

log=$out/serial.log
: >"$log"
t0=$(date +%s)
say "booting the guest (kernel $kver, timeout ${boot_timeout} s); serial log $log"
timeout -k 10 "$boot_timeout" chroot "$tree" "${qemu[@]}" -serial stdio \
	</dev/null >"$log" 2>"$out/qemu.stderr" 9>&- &
qpid=$!
wait "$qpid"
qrc=$?
qpid=
boot_secs=$(( $(date +%s) - t0 ))

# ----------------------------------------------------------------- results

pass=0 fail=0 skip=0
results=$out/results.txt
{
	echo "# libatomicwr VM stage: guest facts (kernel $kver)"
	printf '%s\n' "${info[@]}"
} >"$results"
done_seen=0 booted=0 done_status=
counted=" "
while IFS= read -r line; do
	line=${line%$'\r'}
	case "$line" in
	"AWRVM: PASS "*) pass=$((pass + 1)); echo "${line#AWRVM: }" ;;
	"AWRVM: FAIL "*) fail=$((fail + 1)); echo "${line#AWRVM: }" ;;
	"AWRVM: SKIP "*) skip=$((skip + 1)); echo "${line#AWRVM: }" ;;
	"AWRVM: INFO "*) echo "${line#AWRVM: }" >>"$results" ;;
	"AWRVM: BOOTED"*) booted=1 ;;
	"AWRVM: DONE"*) done_seen=1; done_status=${line#*status=} ;;
	esac
	# the guest's count check of each group (PASS or FAIL GROUP.case_count)
	case "$line" in
	"AWRVM: PASS "*.case_count*|"AWRVM: FAIL "*.case_count*)
		g=${line#AWRVM: * }; counted="$counted${g%%.case_count*} " ;;
	esac
done < <(tr -d '\r' <"$log" | grep -a '^AWRVM: ')

if [ "$done_seen" != 1 ]; then
	fail=$((fail + 1))
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		why="guest did not finish within ${boot_timeout} s (killed)"
	elif [ "$booted" != 1 ]; then
		why="guest did not boot (qemu exit $qrc: $(tail -n 3 "$out/qemu.stderr" | tr '\n' ' '))"
	else
		why="guest stopped before the end (qemu exit $qrc)"
	fi
	echo "FAIL vm.boot: $why; see $log"
	echo "--- last lines of the serial log:"
	tr -d '\r' <"$log" | tail -n 25
	echo "---"
fi
if [ $((pass + fail)) = 0 ]; then
	fail=$((fail + 1))
	echo "FAIL vm.cases: no guest case reported a result"
fi
if [ "$done_seen" = 1 ]; then
	# every group asked for must have run to its count check
	for g in $( [ -n "$only" ] && echo "${only//,/ }" || sh "$here/guest/cases.sh" --list); do
		case "$counted" in
		*" $g "*) ;;
		*) fail=$((fail + 1)); echo "FAIL $g.case_count: the group did not report its case count" ;;
		esac
	done
	if [ "$done_status" != 0 ] && [ "$fail" = 0 ]; then
		fail=$((fail + 1))
		echo "FAIL vm.guest: the guest cases ended with status $done_status without a failed case"
	fi
fi
# one line per device configuration: its parameters and the sysfs result
awk '
	$2 == "params" { p = $0; sub(/^INFO params [^ ]+ /, "", p); params[$3] = p; order[++n] = $3 }
	$2 == "sysfs" && / partition=0 / {
		s = ""
		for (i = 4; i <= NF; i++)
			if ($i ~ /^(dev|unit_min|unit_max|max_bytes|boundary)=/) s = s " " $i
		res[$3] = s
	}
	END { for (i = 1; i <= n; i++) printf "vm: set %s: %s ->%s\n", order[i], params[order[i]], res[order[i]] }
' "$results"
say "guest ran ${boot_secs} s, whole stage $(( $(date +%s) - t_start )) s; facts in $results"
echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
