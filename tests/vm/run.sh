#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/vm/run.sh [SRCDIR]: the VM stage of the test suite.
#
# Builds (once, cached) a Debian trixie tool tree holding QEMU 11 from
# trixie-backports, fetches the kernels to boot (trixie's 6.12, the newest
# 6.18 LTS and the newest 7.x of trixie-backports, found with apt-cache at
# run time), builds awr and the guest test programs statically from SRCDIR
# (default: the tree this script lives in), packs them with busybox, the
# guest tools (mkfs.xfs, xfs_io, mkfs.ext4, filefrag, dmsetup, mdadm) and
# each kernel's modules into an initramfs, boots one guest per kernel under
# QEMU (TCG) with scsi_debug atomic writes, NVMe controllers and namespaces
# with atomic fields and an NVMe multipath subsystem, and reports every
# guest case with its kernel series in its name as
#     PASS 7.3/name | FAIL 7.3/name: reason | SKIP 7.3/name: reason
# ending with "vm: N passed, N failed, N skipped". Exit status 0 only when
# every guest ran, at least one case passed and none failed; a kernel that
# cannot be found, unpacked or booted is a failure.
#
# Environment:
#   AWR_VM_CACHE    cache directory (default /var/cache/awr-vm)
#   AWR_VM_OUT      where the serial logs and results go (default $AWR_VM_CACHE/out-HASH,
#                   HASH from SRCDIR's path)
#   AWR_VM_KERNELS  kernels to boot, space or comma separated: a series ("6.12",
#                   "7": the newest of it) or a release ("7.3.4+deb13-amd64");
#                   default "6.12 6.18 7"
#   AWR_VM_JOBS     guests booted at once (default: all kernels, one vCPU each;
#                   1: one at a time with two vCPUs)
#   AWR_VM_ONLY     comma-separated guest case groups (default all; see README)
#   AWR_TEST_LONG=1 the guests' long soak lengths (write_concurrency 30 s a part instead of 8)
#   AWR_VM_SHELL=1  boot the first kernel to an interactive shell in the guest instead
#   AWR_VM_TIMEOUT  seconds each guest may run (default 900: the stage's whole
#                   budget; three guests share two cores; 3600 with AWR_TEST_LONG=1)
#   AWR_VM_MIRROR   Debian mirror URI (default: taken from this machine's apt sources)
#   AWR_VM_REBUILD=1  rebuild the cached tool tree
#   AWR_VM_UPDATE=1   refresh the tool tree's package lists now (else once a day)
#   AWR_VM_TREE_ONLY=1  build the tool tree and fetch the kernels, then stop
#   AWR_VM_LOCK_WAIT  seconds to wait for another run's lock (default 3600)
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
boot_timeout=${AWR_VM_TIMEOUT:-900}
# long runs replay every flush point of guest/replay_cycles.sh (a quarter of an hour a kernel)
[ "${AWR_TEST_LONG:-0}" = 1 ] && boot_timeout=${AWR_VM_TIMEOUT:-3600}
suite=trixie
tool_version=2				# bump when the tool tree's content changes
tree=$cache/toolchain-v2
# kernel series booted one after the other: trixie's 6.12, the newest 6.18
# LTS and the newest 7.x of trixie-backports (see kernel_resolve)
kernel_specs=${AWR_VM_KERNELS:-6.12 6.18 7}
kernel_specs=${kernel_specs//,/ }
# guests booted at once: by default every kernel's (set once the kernels are
# known). Three one-vCPU guests on two cores end together; two at a time left
# a core idle while the third ran alone (about a third longer).
vm_jobs=${AWR_VM_JOBS:-}
case "$vm_jobs" in '') ;; *[!0-9]*|0) vm_jobs=1 ;; esac
tool_only=${AWR_VM_TREE_ONLY:-0}
# packages of the tool tree whose programs the guest gets, with the shared
# libraries ldd names (guest_tools); postgresql-17 (Debian 13's, with debug_io_direct) for
# guest/postgres.sh, packed apart (pg_bundle). The tree records a hash of this list and is
# rebuilt when it changes.
guest_pkgs=(xfsprogs e2fsprogs dmsetup mdadm postgresql-17)
pkgs_key=$(printf '%s\n' "${guest_pkgs[@]}" | md5sum | cut -c1-12)
guest_tools=(/usr/sbin/mkfs.xfs /usr/sbin/xfs_io /usr/sbin/mkfs.ext4 /usr/sbin/filefrag /usr/sbin/dmsetup /usr/sbin/mdadm)
qpids=()		# background guests (their timeout processes)
child=
locked=0		# this run holds $cache/lock: the guests under $tree/awr/run are its own

# NVMe controllers, one namespace each (4 KiB blocks): serial, controller
# AWUN and AWUPF, the namespace's NAWUN:NAWUPF:NABSN:NABSPF:NABO ("-": no
# namespace atomic fields, NSFEAT bit 1 clear) and its size in MiB. Serials
# are matched in guest/cases.sh (nvme_serial). QEMU takes the controller's
# values only when AWUN >= AWUPF, and the namespace's only when NABSN >=
# NAWUN and NABO <= NABSN, NABSPF.
nvme_ctrls=(
	"awrpf15 31 15 - 64"
	"awrpf0 0 0 - 64"
	"awrpf7 7 7 - 64"
	"awrnp7 0 0 7:7:15:0:0 64"
	"awrnbs 0 0 7:7:15:15:0 64"
	"awrnbo 0 0 7:7:15:15:4 64"
	"awrnhi 7 3 15:15:15:15:0 64"
	"awrn16k 0 0 3:3:3:0:0 320"
)
# modules the guest may load (with their dependencies)
# "?NAME": where the kernel has it (6.12's crc32c_generic, which XFS and ext4 ask the crypto API
# for: the guest's scripts load it, since the kernel finds no /sbin/modprobe)
guest_modules=(scsi_debug sd_mod sg nvme dm-mod dm-crypt crypto_null dm-multipath dm-round-robin raid0 raid1 raid10
	xfs ext4 '?crc32c_generic' virtio_blk dm-log-writes loop dm-snapshot)

# Guest programs of other suites (meson targets, built when their .c exists),
# run by guest/cases.sh per device configuration when present.
extra_guest=(tests/devices/guest-devices tests/integration/write_uring_engine
	tests/integration/write_page_batch tests/integration/write_concurrency examples/dbpages
	tests/integration/pages_crash)

# the SCSI target over an NVMe namespace (guest/lio.sh: tcm_loop, iblock backstore) and the
# short-pin probe of awr qualify as a guest program (tests/integration/qualify_short_pin.c)
guest_modules+=(target_core_mod target_core_iblock tcm_loop)
extra_guest+=(tests/integration/qualify_short_pin)

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
	for p in "${qpids[@]}"; do
		kill -0 "$p" 2>/dev/null && kill "$p" 2>/dev/null
	done
	# only a run that holds the lock started the guests of the run directory:
	# a run that waited for the lock and gave up must not end another's
	for f in "$tree"/awr/run/*/qemu.pid; do
		[ "$locked" = 1 ] && [ -s "$f" ] || continue
		p=$(cat "$f" 2>/dev/null)
		if [ -n "$p" ] && grep -q '^qemu-system' "/proc/$p/comm" 2>/dev/null; then
			kill "$p" 2>/dev/null
			sleep 1
			kill -9 "$p" 2>/dev/null
		fi
	done
	for p in "${qpids[@]}"; do
		wait "$p" 2>/dev/null
	done
	qpids=()
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
	flock -w "${AWR_VM_LOCK_WAIT:-3600}" 9 || die "another VM run holds $cache/lock"
fi
locked=1
t_lock=$(( $(date +%s) - t_start ))
[ "$t_lock" -gt 0 ] && say "waited $t_lock s for the lock (not counted below)"
t_start=$(date +%s)

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

# The tool tree: debootstrap's trixie with QEMU from trixie-backports, kmod,
# the decompressors and the programs copied into the guest. Kernels are not
# part of it: they are resolved at run time (kernel_resolve) and fetched into
# /awr/k/KVER once each (kernel_fetch).
build_tree() {
	local tmp=$cache/toolchain-v2.new.$$ mirror log=$out/toolchain.log
	mirror=$(mirror_uri)
	[ -n "$mirror" ] || die "no Debian mirror URI in the apt sources (set AWR_VM_MIRROR)"
	say "building the $suite tool tree (debootstrap, QEMU from $suite-backports, guest tools): log $log"
	remove_tree "$tmp"
	: >"$log"
	debootstrap --variant=minbase --include=kmod,xz-utils,zstd,cpio \
		"$suite" "$tmp" "$mirror" >>"$log" 2>&1 &
	child=$!
	wait "$child" || { child=; die "debootstrap $suite from $mirror failed (see $log)"; }
	child=
	echo "deb $mirror $suite-backports main" >"$tmp/etc/apt/sources.list.d/backports.list"
	chroot "$tmp" apt-get -q update >>"$log" 2>&1 || die "apt-get update in the tool tree failed (see $log)"
	chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends \
		-t "$suite-backports" install qemu-system-x86 >>"$log" 2>&1 ||
		die "apt-get install -t $suite-backports qemu-system-x86 failed (see $log)"
	# no service started in the tree, no PostgreSQL cluster made (pg_bundle makes its own)
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d" && chmod 755 "$tmp/usr/sbin/policy-rc.d"
	mkdir -p "$tmp/etc/postgresql-common/createcluster.d"
	echo 'create_main_cluster = false' >"$tmp/etc/postgresql-common/createcluster.d/awr.conf"
	chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends \
		install "${guest_pkgs[@]}" >>"$log" 2>&1 ||
		die "apt-get install ${guest_pkgs[*]} failed (see $log)"
	mkdir -p "$tmp/awr/dl" "$tmp/awr/bb" "$tmp/awr/k"
	chroot "$tmp" sh -c 'cd /awr/dl && apt-get -q download busybox-static && dpkg -x busybox-static_*.deb /awr/bb' \
		>>"$log" 2>&1 || die "apt-get download busybox-static failed (see $log)"
	[ -x "$tmp/awr/bb/usr/bin/busybox" ] || die "busybox-static has no /usr/bin/busybox"
	rm -rf "$tmp/awr/dl"
	printf 'version=%s\npkgs=%s\n' "$tool_version" "$pkgs_key" >"$tmp/awr/tree.env"
	remove_tree "$tree"
	mv "$tmp" "$tree" || die "cannot move the tool tree into place"
}

# The package lists are refreshed once a day (or with AWR_VM_UPDATE=1), so
# "the newest 7.x" follows the archive; without network the cached lists do.
refresh_lists() {
	local stamp=$tree/awr/lists.stamp
	if [ "${AWR_VM_UPDATE:-0}" = 1 ] || [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
		if chroot "$tree" apt-get -q update >>"$out/toolchain.log" 2>&1; then
			touch "$stamp"
		else
			say "apt-get update in the tool tree failed; using the cached package lists (see $out/toolchain.log)"
		fi
	fi
}

# kernel_resolve SPEC: the newest amd64 kernel release whose version starts
# with SPEC ("6.12", "7", "6.18.15") in the tool tree's package lists, or SPEC
# itself when it names a release ("7.3.4+deb13-amd64"). Names are never
# written in: apt-cache knows which exist today.
kernel_resolve() {
	local spec=$1 pat
	case "$spec" in
	*-amd64)
		chroot "$tree" apt-cache show --no-all-versions "linux-image-$spec" >/dev/null 2>&1 && echo "$spec"
		return ;;
	esac
	pat=${spec//./\\.}
	chroot "$tree" apt-cache pkgnames linux-image- 2>/dev/null |
		grep -E "^linux-image-$pat(\\.[0-9]+)*(\\+[a-z0-9.~]+)?-amd64\$" |
		sed 's/^linux-image-//' | sort -V | tail -n 1
}

# kernel_fetch KVER: unpack linux-image-KVER (and, from 7.x, the split
# linux-binary-KVER and linux-modules-KVER) into /awr/k/KVER with a fresh
# modules.dep, once.
kernel_fetch() {
	local kv=$1 d=$tree/awr/k/$1 tmp=$tree/awr/k/$1.new log=$out/toolchain.log pkgs p v
	[ -f "$d/kernel.env" ] && return 0
	rm -rf "$tmp"
	mkdir -p "$tmp/dl"
	pkgs="linux-image-$kv"
	for p in linux-binary-$kv linux-modules-$kv; do
		chroot "$tree" apt-cache show --no-all-versions "$p" >/dev/null 2>&1 && pkgs="$pkgs $p"
	done
	say "fetching kernel $kv ($pkgs)"
	chroot "$tree" sh -c 'cd "$1" && shift && apt-get -q download "$@"' sh "/awr/k/$kv.new/dl" $pkgs \
		>>"$log" 2>&1 || { echo "apt-get download $pkgs failed (see $log)"; return 1; }
	for p in "$tmp"/dl/*.deb; do
		dpkg-deb -x "$p" "$tmp" >>"$log" 2>&1 || { echo "dpkg-deb -x $p failed (see $log)"; return 1; }
	done
	rm -rf "$tmp/dl"
	# trixie keeps modules under /usr/lib/modules; kmod -b wants lib/modules
	[ -e "$tmp/lib" ] || ln -s usr/lib "$tmp/lib"
	v=
	for p in "boot/vmlinuz-$kv" "usr/lib/modules/$kv/vmlinuz"; do
		[ -f "$tmp/$p" ] && { v=/$p; break; }
	done
	[ -n "$v" ] || { echo "kernel $kv has no vmlinuz (boot/ or usr/lib/modules/$kv/)"; return 1; }
	[ -d "$tmp/usr/lib/modules/$kv/kernel" ] || { echo "kernel $kv has no modules"; return 1; }
	chroot "$tree" depmod -b "/awr/k/$kv.new" "$kv" >>"$log" 2>&1 || { echo "depmod $kv failed (see $log)"; return 1; }
	printf 'kver=%s\nvmlinuz=%s\npkgs=%s\n' "$kv" "$v" "$pkgs" >"$tmp/kernel.env"
	mv "$tmp" "$d"
}

t0=$(date +%s)
for d in "$cache"/toolchain-v2.new.*; do
	[ -e "$d" ] && remove_tree "$d"
done
if [ "${AWR_VM_REBUILD:-0}" = 1 ] || [ ! -f "$tree/awr/tree.env" ] ||
   ! grep -qx "version=$tool_version" "$tree/awr/tree.env" ||
   ! grep -qx "pkgs=$pkgs_key" "$tree/awr/tree.env"; then
	build_tree
	touch "$tree/awr/lists.stamp"
	say "tool tree built in $(( $(date +%s) - t0 )) s"
else
	say "tool tree cached ($tree)"
	refresh_lists
fi
qemu_ver=$(chroot "$tree" qemu-system-x86_64 --version 2>/dev/null | head -n 1)
[ -n "$qemu_ver" ] || die "qemu-system-x86_64 does not run in the tool tree"
say "$qemu_ver"

# the kernels: each spec of AWR_VM_KERNELS resolved and fetched; one that
# cannot be found or unpacked is a failure of that kernel, never a skip
kernels=() labels=() kfail=()
for spec in $kernel_specs; do
	kv=$(kernel_resolve "$spec")
	if [ -z "$kv" ]; then
		kfail+=("FAIL vm.kernel.$spec: no linux-image-$spec*-amd64 package in $suite or $suite-backports")
		continue
	fi
	if ! why=$(kernel_fetch "$kv" 2>&1); then
		kfail+=("FAIL vm.kernel.$spec: kernel $kv: $why")
		continue
	fi
	label=$(echo "$kv" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	case " ${labels[*]} " in *" $label "*) label=$kv ;; esac
	kernels+=("$kv") labels+=("$label")
	say "kernel $label: $kv"
done
[ "${#kernels[@]}" -gt 0 ] || { printf '%s\n' "${kfail[@]}"; die "no kernel to boot (AWR_VM_KERNELS=$kernel_specs)"; }
[ -n "$vm_jobs" ] || vm_jobs=${#kernels[@]}
smp=2
[ "$vm_jobs" -gt 1 ] && smp=1
[ "$tool_only" = 1 ] && { say "tool tree ready"; exit 0; }

# ------------------------------------------------- static awr + guest program

t0=$(date +%s)
bdir=$cache/build-$srchash
blog=$out/build.log
: >"$blog"
# A cached build is kept when it takes the options; one made before an option existed
# (meson configure: "Unknown options") is made again.
if [ -f "$bdir/build.ninja" ] && ! meson configure "$bdir" -Dtest_hooks=true >>"$blog" 2>&1; then
	echo "the cached build does not take today's options: made again" >>"$blog"
	rm -rf "$bdir"
fi
if [ ! -f "$bdir/build.ninja" ]; then
	rm -rf "$bdir"
	meson setup "$bdir" "$src" -Dprefer_static=true -Dstatic_tools=true -Dtest_hooks=true --buildtype=release \
		>>"$blog" 2>&1 || { tail -n 20 "$blog"; die "meson setup of the static build failed (see $blog)"; }
fi
# only the static targets: the shared library cannot link static dependencies.
# Guest programs of other test suites join when the source tree has them.
targets=(cli/awr lib/libatomicwr.a)
extra=()
for t in "${extra_guest[@]}"; do	# its source: TARGET.c (named after its file: tests/README)
	if [ -f "$src/$t.c" ]; then
		extra+=("$t")
	fi
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

# One common archive (busybox, the guest scripts and programs, the tools with
# their libraries) and one per kernel (its modules); the kernel unpacks the
# concatenation of the two.
t0=$(date +%s)
run=$tree/awr/run
rm -rf "$run"
ir=$run/common
mkdir -p "$ir/bin" "$ir/awr" "$ir/usr/sbin" || die "cannot create $ir"
cp "$tree/awr/bb/usr/bin/busybox" "$ir/bin/busybox"
cp "$here/guest/init" "$ir/init"
cp "$here/guest/cases.sh" "$ir/awr/cases.sh"
cp "$here/guest/fsview.sh" "$ir/awr/fsview.sh"
cp "$here/guest/pages.sh" "$ir/awr/pages.sh"
cp "$here/guest/database.sh" "$ir/awr/database.sh"
cp "$here/guest/mariadb.sh" "$ir/awr/mariadb.sh"
cp "$here/guest/postgres.sh" "$ir/awr/postgres.sh"
cp "$here/guest/xfsopts.sh" "$ir/awr/xfsopts.sh"
cp "$here/guest/replay_cycles.sh" "$ir/awr/replay_cycles.sh"
install -m 755 "$here/guest/logwrites.sh" "$ir/awr/logwrites.sh"	# awr replay of dm-log-writes logs
install -m 755 "$here/guest/lio.sh" "$ir/awr/lio.sh"
# host_programs PROG...: programs of this machine for the guest, in my/bin with every library ldd
# names (theirs, and of the libraries in my/lib they load themselves: libatomicwr-preload,
# libnvme for nvme-dlopen) and the host's own loader in my/lib, run
# through /awr/my/run PROG ARGS: never mixed with the tool tree's libraries. my/ goes to the guest
# as a read-only disk (my.img, virtio: /dev/vda), mounted on /awr/my only by the cases that use
# it (guest/cases.sh my_mount): the initramfs every guest unpacks stays small.
host_programs() {
	local my=$run/my b f
	mkdir -p "$my/bin" "$my/lib" || return 1
	for b in "$@"; do
		[ -x "$b" ] || { echo "$b is missing" >>"$run/my.log"; return 1; }
		cp "$b" "$my/bin/" || return 1
	done
	for b in "$my"/bin/* "$my"/lib/libatomicwr-preload.so "$my"/lib/libnvme.so.1; do
		[ -f "$b" ] && ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | sort -u | while read -r f; do cp -L "$f" "$my/lib/"; done
	[ -f "$my/lib/ld-linux-x86-64.so.2" ] || { echo "no ld-linux-x86-64.so.2 in ldd's list" >>"$run/my.log"; return 1; }
	printf '#!/bin/sh\n# run PROG ARGS: a program of /awr/my/bin with the host libraries beside it\np=$1; shift\nexec /awr/my/lib/ld-linux-x86-64.so.2 --library-path /awr/my/lib "/awr/my/bin/$p" "$@"\n' >"$my/run"
	chmod 755 "$my/run"
}
# The host's MariaDB for mariadb.sh (crash cycles of the real engine on the guest's NVMe):
# mariadbd, the client and innochecksum of Debian 12 (host_programs), the error messages and
# character sets (my/share/mysql, named to mariadbd), libatomicwr-preload built against the
# static build's library, and a data directory made by mariadb-install-db (16 KiB pages, a 16 MiB
# redo log). sysbench and its Lua scripts for the guest group bench_mariadb only.
mariadb_bundle() {
	local my=$run/my progs=(/usr/sbin/mariadbd /usr/bin/mariadb /usr/bin/innochecksum)
	mkdir -p "$my/lib" "$my/share/mysql" || return 1
	# shellcheck disable=SC2046
	cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -U_FILE_OFFSET_BITS -fPIC -shared -I"$src/include" -I"$src/lib" \
		-o "$my/lib/libatomicwr-preload.so" "$src"/preload/*.c "$bdir/lib/libatomicwr.a" \
		$(pkg-config --libs liburing libnvme json-c blkid libxxhash) -lsgutils2 -ldl -pthread -Wl,--no-undefined \
		>>"$run/my.log" 2>&1 || return 1
	case ",$only," in *,bench_mariadb,*)
		[ -x /usr/bin/sysbench ] || { echo "bench_mariadb needs sysbench (apt-get install sysbench)" >>"$run/my.log"; return 1; }
		progs+=(/usr/bin/sysbench)
		cp -r /usr/share/sysbench "$my/share/" || return 1 ;;
	esac
	host_programs "${progs[@]}" || return 1
	cp -r /usr/share/mysql/english /usr/share/mysql/charsets "$my/share/mysql/" || return 1
	mariadb-install-db --no-defaults --datadir="$my/data" --user=root --auth-root-authentication-method=normal \
		--skip-test-db --innodb-page-size=16k --innodb-log-file-size=16M >>"$run/my.log" 2>&1
}
# The host's MariaDB for mariadb.sh (mariadb_bundle), and for database.sh the page files of the same
# data directory cut to 1 MiB in the initramfs (awr database reads page 0 and the extents); without
# mariadb-server the cases skip
if command -v mariadb-install-db >/dev/null; then
	mariadb_bundle || die "packing the host's MariaDB for the guest failed (see $run/my.log)"
	(cd "$run/my/data" && find . -type f \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo[0-9]*' \) -print) |
	while read -r f; do
		mkdir -p "$ir/awr/mydb/$(dirname "$f")"
		head -c 1048576 "$run/my/data/$f" >"$ir/awr/mydb/$f"
	done
fi
# nvme-dlopen (guest/nvme-dlopen.c) for nvme_nawupf3: NVMe Identify through libnvme loaded on first
# use, as the shared library does it (the guest's static awr links libnvme in), built with this
# machine's compiler and run beside this machine's libnvme and its libraries
nvme_dlopen_bundle() {
	local lib
	mkdir -p "$run/my/bin" "$run/my/lib" "$run/my/gen" || return 1
	# the finding catalogue's keys, which lib/private.h includes (meson generates them in a build)
	python3 "$src/lib/gen-findings.py" header "$src/lib/findings.def" "$run/my/gen/findings_gen.h" \
		>>"$run/my.log" 2>&1 || return 1
	cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I"$src/include" -I"$src/lib" -I"$run/my/gen" \
		-o "$run/my/bin/nvme-dlopen" \
		"$src/tests/vm/guest/nvme-dlopen.c" "$src/lib/device/nvme_dev.c" "$src/lib/device/nvme_decode.c" \
		"$src/lib/optlib.c" -ldl -pthread >>"$run/my.log" 2>&1 || return 1
	lib=$(ldconfig -p | awk '$1 == "libnvme.so.1" && /x86-64/ { print $NF; exit }')
	[ -n "$lib" ] || { echo "libnvme.so.1 is not installed (libnvme1)" >>"$run/my.log"; return 1; }
	cp -L "$lib" "$run/my/lib/" || return 1
	host_programs	# no new program: the libraries of my/bin/* and of libnvme, the loader, the run script
}
case ",${only:-nvme_nawupf3}," in *,nvme_nawupf3,*)
	nvme_dlopen_bundle || die "building nvme-dlopen for the guest failed (see $run/my.log)" ;;
esac
# Debian 13's PostgreSQL 17 for postgres.sh (crash cycles with debug_io_direct=data under the
# preload) and bench/guest_postgres.sh, in my/pg: the tool tree's server and client programs
# (usr/lib/postgresql/17/bin, its lib/ and share/ beside it, where the programs find them) with
# every library ldd names in the tree in my/pg/lib (the guest's loader and C library are the
# tree's already: guest_tools), libatomicwr-preload built here against the static build's library
# with this machine's libraries it needs that the tree's do not provide (not the C library: the
# tree's is newer), and a data directory made in the tree by initdb -k (data checksums; 8 KiB
# pages) as the tree's postgres user, with pgbench's tables (scale 1; AWR_BENCH_PG_SCALE, 5 by
# default, for bench_postgres). Its owner's uid:gid in my/pg/owner.
pg_bundle() {
	local pg=$run/my/pg v=17 scale=1 owner l b
	local bins=(postgres psql pgbench pg_amcheck pg_checksums pg_controldata)
	case ",$only," in *,bench_postgres,*) scale=${AWR_BENCH_PG_SCALE:-5} ;; esac
	owner=$(awk -F: '$1 == "postgres" { print $3 ":" $4 }' "$tree/etc/passwd")
	[ -n "$owner" ] && [ -x "$tree/usr/lib/postgresql/$v/bin/postgres" ] ||
		{ echo "no postgresql-$v in the tool tree (guest_pkgs)" >>"$run/my.log"; return 1; }
	l=usr/lib/postgresql/$v
	mkdir -p "$pg/$l/bin" "$pg/$l/lib" "$pg/usr/share/postgresql" "$pg/lib" || return 1
	for b in "${bins[@]}"; do cp "$tree/$l/bin/$b" "$pg/$l/bin/" || return 1; done
	# the server's modules (plpgsql, amcheck, pg_prewarm, ...), not the JIT (jit=off in the guest)
	cp "$tree/$l/lib/"*.so "$pg/$l/lib/" && rm -f "$pg/$l/lib/llvmjit"*
	cp -r "$tree/usr/share/postgresql/$v" "$pg/usr/share/postgresql/" || return 1
	chroot "$tree" sh -c 'for b in "$1"/bin/* "$1"/lib/*.so; do ldd "$b"; done' sh "/awr/run/my/pg/$l" 2>>"$run/my.log" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u | while read -r f; do cp -L "$tree$f" "$pg/lib/"; done
	# shellcheck disable=SC2046
	cc -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -U_FILE_OFFSET_BITS -fPIC -shared -I"$src/include" -I"$src/lib" \
		-o "$pg/lib/libatomicwr-preload.so" "$src"/preload/*.c "$bdir/lib/libatomicwr.a" \
		$(pkg-config --libs liburing libnvme json-c blkid libxxhash) -lsgutils2 -ldl -pthread -Wl,--no-undefined \
		>>"$run/my.log" 2>&1 || return 1
	ldd "$pg/lib/libatomicwr-preload.so" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r b f; do
		case "$b" in libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) continue ;; esac
		[ -e "$pg/lib/$b" ] || cp -L "$f" "$pg/lib/"
	done
	echo "$owner" >"$pg/owner"
	# the data directory, and the server's log and socket directory outside my/ (not packed)
	mkdir -p "$pg/data" "$run/pgsock" && chown "$owner" "$pg/data" "$run/pgsock" && chmod 700 "$pg/data" ||
		return 1
	b=/usr/lib/postgresql/$v/bin
	chroot --userspec="$owner" "$tree" env TZ=GMT LC_ALL=C "$b/initdb" -k -D /awr/run/my/pg/data --locale=C \
		--encoding=UTF8 -A trust -U postgres >>"$run/my.log" 2>&1 || return 1
	chroot --userspec="$owner" "$tree" env LC_ALL=C "$b/pg_ctl" -D /awr/run/my/pg/data -w -l /awr/run/pgsock/log \
		-o "-c listen_addresses= -c unix_socket_directories=/awr/run/pgsock -c min_wal_size=32MB" start \
		>>"$run/my.log" 2>&1 || return 1
	chroot --userspec="$owner" "$tree" env LC_ALL=C "$b/pgbench" -h /awr/run/pgsock -U postgres -i -q \
		-s "$scale" postgres >>"$run/my.log" 2>&1
	l=$?
	chroot --userspec="$owner" "$tree" env LC_ALL=C "$b/pg_ctl" -D /awr/run/my/pg/data -w -m fast stop \
		>>"$run/my.log" 2>&1 && [ "$l" = 0 ]
}
case ",${only:-nvme_nawupf3}," in *,nvme_nawupf3,*|*,bench_postgres,*)
	pg_bundle || die "packing PostgreSQL for the guest failed (see $run/my.log)" ;;
esac
# AWR_VM_FIO=PATH: a fio of this machine (built from source, 3.38+) for the guest group bench
# (bench/guest.sh): its io_uring_cmd engine beside awr's passthrough engines
if [ -n "${AWR_VM_FIO:-}" ]; then
	host_programs "$AWR_VM_FIO" || die "packing $AWR_VM_FIO for the guest failed (see $run/my.log)"
fi
if [ -d "$run/my" ]; then
	mb=$(du -sm "$run/my" | cut -f1)
	mke2fs -q -F -t ext4 -O ^has_journal -L awrmy -d "$run/my" "$run/my.img" "$((mb + mb / 4 + 16))M" \
		>>"$run/my.log" 2>&1 || die "making the guest's disk of host programs failed (see $run/my.log)"
	rm -rf "$run/my"
fi
cp "$bdir/cli/awr" "$ir/awr/awr"
cp "$bdir/awr-vmtest" "$ir/awr/awr-vmtest"
chmod 755 "$ir/init" "$ir/awr/cases.sh" "$ir/awr/fsview.sh" "$ir/awr/pages.sh" "$ir/awr/database.sh" "$ir/awr/mariadb.sh" "$ir/awr/postgres.sh" "$ir/awr/xfsopts.sh" "$ir/awr/replay_cycles.sh" "$ir/awr/awr" "$ir/awr/awr-vmtest"
for t in "${extra[@]}"; do
	install -m 755 "$bdir/$t" "$ir/awr/$(basename "$t")"
done
# the tool tree's programs for the guest (guest_tools) and the shared
# libraries ldd names for them, at the same paths
chroot "$tree" sh -ec '
	for t in "$@"; do
		[ -x "$t" ] || { echo "$t is missing from the tool tree" >&2; exit 1; }
		echo "$t"
		ldd "$t" | awk "\$2 == \"=>\" && \$3 ~ /^\// { print \$3 } \$1 ~ /^\// { print \$1 }"
	done | sort -u | while read -r f; do
		mkdir -p "/awr/run/common$(dirname "$f")"
		cp -L "$f" "/awr/run/common$f"
	done
' sh "${guest_tools[@]}" 2>"$run/tools.log" || die "copying the guest tools failed (see $run/tools.log)"
for t in "${guest_tools[@]}"; do
	[ -x "$ir$t" ] || die "$t missing from the initramfs (see $run/tools.log)"
done
(cd "$ir" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1 >"$run/common.gz") ||
	die "packing the common initramfs failed"

# the modules of kernel $1 and their dependencies, decompressed, with a fresh
# modules.dep, packed into $run/initrd-$1.gz behind the common archive. The
# module archive depends only on the kernel and guest_modules: it is kept
# with the unpacked kernel (modules-KEY.gz, KEY from the module list) and
# reused by later runs.
modules_key=$(printf '%s\n' v1 "${guest_modules[@]}" | md5sum | cut -c1-12)
kernel_initrd() {
	local kv=$1 d=$run/k-$kv kept=$tree/awr/k/$1/modules-$modules_key.gz
	if [ -s "$kept" ]; then
		cat "$run/common.gz" "$kept" >"$run/initrd-$kv.gz"
		return
	fi
	mkdir -p "$d/lib/modules/$kv"
	chroot "$tree" sh -c '
		kv=$1; shift
		root=/awr/k/$kv src=/awr/k/$kv/lib/modules/$kv dst=/awr/run/k-$kv/lib/modules/$kv
		status=0
		for m in "$@"; do
			case "$m" in
			"?"*) modprobe -d "$root" -S "$kv" --show-depends "${m#?}" 2>/dev/null ;;
			*) modprobe -d "$root" -S "$kv" --show-depends "$m" || { echo "module $m: not found" >&2; status=1; } ;;
			esac
		done | awk "\$1 == \"insmod\" { print \$2 }" | sort -u |
		while read -r f; do
			rel=${f#$src/}; rel=${rel%.xz}; rel=${rel%.zst}
			mkdir -p "$dst/$(dirname "$rel")"
			case "$f" in
			*.xz) xz -dc "$f" >"$dst/$rel" ;;
			*.zst) zstd -q -dc "$f" >"$dst/$rel" ;;
			*) cp "$f" "$dst/$rel" ;;
			esac || exit 1
		done || exit 1
		for f in modules.builtin modules.builtin.modinfo modules.order; do
			[ -f "$src/$f" ] && cp "$src/$f" "$dst/"
		done
		depmod -b "/awr/run/k-$kv" "$kv" >&2
		exit $status
	' sh "$kv" "${guest_modules[@]}" >>"$run/initramfs-$kv.log" 2>&1 || return 1
	(cd "$d" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1 >"$run/modules-$kv.gz") || return 1
	cp "$run/modules-$kv.gz" "$kept.new.$$" && mv "$kept.new.$$" "$kept"
	cat "$run/common.gz" "$run/modules-$kv.gz" >"$run/initrd-$kv.gz"
}

ok_kernels=() ok_labels=()
for i in "${!kernels[@]}"; do
	kv=${kernels[$i]}
	if ! kernel_initrd "$kv"; then
		kfail+=("FAIL vm.kernel.${labels[$i]}: the initramfs of $kv could not be built (see $run/initramfs-$kv.log)")
		continue
	fi
	ok_kernels+=("$kv") ok_labels+=("${labels[$i]}")
done
say "initramfs built in $(( $(date +%s) - t0 )) s ($(du -k "$run/common.gz" | cut -f1) KiB common)"

# -------------------------------------------------------------------- boot

# boot_guest KVER LABEL: one guest with its own disk images in $run/LABEL,
# its serial log in $out/serial-LABEL.log, the facts run.sh gave it in
# $out/info-LABEL.txt, QEMU's exit status and its seconds in $out/qrc-LABEL
boot_guest() {
	local kv=$1 label=$2 vmlinuz qemu append i serial awun awupf ns size nsopt info rc t0
	local dir=$run/$label gdir=/awr/run/$label
	vmlinuz=$(sed -n 's/^vmlinuz=//p' "$tree/awr/k/$kv/kernel.env")
	mkdir -p "$dir"
	qemu=(qemu-system-x86_64 -nodefaults -no-reboot -cpu max -m 1024 -smp "$smp" -display none
	      -kernel "/awr/k/$kv$vmlinuz" -initrd "/awr/run/initrd-$kv.gz"
	      -pidfile "$gdir/qemu.pid")
	# the host programs' disk (host_programs), read-only, shared by the guests: /dev/vda
	[ -f "$run/my.img" ] && qemu+=(-drive "file=/awr/run/my.img,if=virtio,format=raw,readonly=on")
	# no_timer_check: under TCG on a loaded host the guest's check of the IO-APIC timer can miss
	# its ticks and panic ("IO-APIC + timer doesn't work!", seen on 7.3 beside the host tests)
	append="console=ttyS0 quiet loglevel=1 panic=-1 no_timer_check"
	[ -n "$only" ] && append="$append awr_only=$only"
	[ "${AWR_TEST_LONG:-0}" = 1 ] && append="$append awr_long=1"
	[ -n "${AWR_BENCH_ROUNDS:-}" ] && append="$append awr_bench=$AWR_BENCH_ROUNDS:${AWR_BENCH_SECONDS:-20}"
	[ "$shell_mode" = 1 ] && append="$append awr_shell=1"
	info=()
	i=0
	nvme_conf=
	for c in "${nvme_ctrls[@]}"; do
		read -r serial awun awupf ns size <<<"$c"
		nvme_conf=${nvme_conf:+$nvme_conf,}$serial:$awun:$awupf:$ns
		rm -f "$dir/nvme$i.img"
		truncate -s $((size * 1024 * 1024)) "$dir/nvme$i.img"
		nsopt=
		if [ "$ns" != - ]; then
			IFS=: read -r nawun nawupf nabsn nabspf nabo <<<"$ns"
			nsopt=",atomic.nawun=$nawun,atomic.nawupf=$nawupf,atomic.nabsn=$nabsn,atomic.nabspf=$nabspf,atomic.nabo=$nabo"
		fi
		qemu+=(-drive "file=$gdir/nvme$i.img,if=none,id=nvd$i,format=raw"
		       -device "nvme,serial=$serial,id=nvme$i,atomic.dn=off,atomic.awun=$awun,atomic.awupf=$awupf"
		       -device "nvme-ns,drive=nvd$i,bus=nvme$i,nsid=1,logical_block_size=4096,physical_block_size=4096$nsopt")
		info+=("INFO qemu nvme serial=$serial atomic.dn=off atomic.awun=$awun atomic.awupf=$awupf logical_block_size=4096 physical_block_size=4096 size=${size}M${nsopt//,/ }")
		i=$((i + 1))
	done
	# NVMe multipath: one subsystem, two controllers with the same serial
	# sharing namespace 1 (NAWUPF 7); the guest sees the head nvmeXn1 and the
	# paths nvmeXcYn1 (guest/cases.sh, nvme_mpath)
	rm -f "$dir/nvmemp.img"
	truncate -s $((64 * 1024 * 1024)) "$dir/nvmemp.img"
	qemu+=(-device "nvme-subsys,id=awrsubsys,nqn=awrmp"
	       -device "nvme,serial=awrmp,id=nvmemp0,subsys=awrsubsys"
	       -device "nvme,serial=awrmp,id=nvmemp1,subsys=awrsubsys"
	       -drive "file=$gdir/nvmemp.img,if=none,id=nvdmp,format=raw"
	       -device "nvme-ns,drive=nvdmp,nsid=1,shared=on,logical_block_size=4096,physical_block_size=4096,atomic.nawun=7,atomic.nawupf=7,atomic.nabsn=7,atomic.nabspf=0,atomic.nabo=0")
	info+=("INFO qemu nvme-subsys nqn=awrmp controllers=2 serial=awrmp namespace shared=on atomic.nawun=7 atomic.nawupf=7 atomic.nabsn=7 size=64M")
	printf '%s\n' "${info[@]}" >"$out/info-$label.txt"
	# the guest compares each controller's Identify data with its configuration
	qemu+=(-append "$append awr_nvme=$nvme_conf")

	if [ "$shell_mode" = 1 ]; then
		say "booting a guest shell (kernel $kv; AWR_VM_KERNELS picks another); 'exit' powers the guest off"
		chroot "$tree" "${qemu[@]}" -serial mon:stdio 9>&-
		return $?
	fi
	log=$out/serial-$label.log
	: >"$log"
	t0=$(date +%s)
	timeout -k 10 "$boot_timeout" chroot "$tree" "${qemu[@]}" -serial stdio \
		</dev/null >"$log" 2>"$out/qemu-$label.stderr" 9>&-
	rc=$?
	echo "$rc $(( $(date +%s) - t0 ))" >"$out/qrc-$label"
	return $rc
}

# ----------------------------------------------------------------- results

pass=0 fail=0 skip=0
results=$out/results.txt
: >"$results"
for l in "${kfail[@]}"; do
	echo "$l"
	fail=$((fail + 1))
done

# report_guest LABEL KVER QEMU-STATUS SECONDS: the guest's cases as
# PASS|FAIL|SKIP LABEL/name, its facts into results.txt
report_guest() {
	local label=$1 kv=$2 qrc=$3 secs=$4 line g why
	local done_seen=0 booted=0 done_status= counted=" " log=$out/serial-$label.log
	{
		echo "# libatomicwr VM stage: guest facts (kernel $kv, $label)"
		cat "$out/info-$label.txt" 2>/dev/null
	} >>"$results"
	while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in
		"AWRVM: PASS "*) pass=$((pass + 1)); echo "PASS $label/${line#AWRVM: PASS }" ;;
		"AWRVM: FAIL "*) fail=$((fail + 1)); echo "FAIL $label/${line#AWRVM: FAIL }" ;;
		"AWRVM: SKIP "*) skip=$((skip + 1)); echo "SKIP $label/${line#AWRVM: SKIP }" ;;
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
			why="guest did not boot (qemu exit $qrc: $(tail -n 3 "$out/qemu-$label.stderr" | tr '\n' ' '))"
		else
			why="guest stopped before the end (qemu exit $qrc)"
		fi
		echo "FAIL $label/vm.boot: $why; see $log"
		echo "--- last lines of the serial log:"
		tr -d '\r' <"$log" | tail -n 25
		echo "---"
	else
		# every group asked for must have run to its count check
		for g in $( [ -n "$only" ] && echo "${only//,/ }" || sh "$here/guest/cases.sh" --list); do
			case "$counted" in
			*" $g "*) ;;
			*) fail=$((fail + 1)); echo "FAIL $label/$g.case_count: the group did not report its case count" ;;
			esac
		done
		if [ "$done_status" != 0 ] && ! tr -d '\r' <"$log" | grep -aq '^AWRVM: FAIL '; then
			fail=$((fail + 1))
			echo "FAIL $label/vm.guest: the guest cases ended with status $done_status without a failed case"
		fi
	fi
	# one line per device configuration: its parameters and the sysfs result
	awk -v label="$label" -v kv="$kv" '
		/^# libatomicwr VM stage/ { cur = index($0, "(kernel " kv ",") > 0 }
		!cur { next }
		$2 == "params" { p = $0; sub(/^INFO params [^ ]+ /, "", p); params[$3] = p; order[++n] = $3 }
		$2 == "sysfs" && / partition=0 / {
			s = ""
			for (i = 4; i <= NF; i++)
				if ($i ~ /^(dev|unit_min|unit_max|max_bytes|boundary)=/) s = s " " $i
			if (!($3 in res)) res[$3] = s
		}
		END { for (i = 1; i <= n; i++) printf "vm: %s set %s: %s ->%s\n", label, order[i], params[order[i]], res[order[i]] }
	' "$results"
	# where the guest's time went: boot to the first group, then each group
	# (the guest's uptime at each "INFO group" line and at "INFO end")
	tr -d '\r' <"$log" | awk -v label="$label" '
		$1 == "AWRVM:" && $2 == "INFO" && ($3 == "group" || $3 == "end") {
			t = $NF; sub(/^uptime=/, "", t)
			if (g == "") s = sprintf("boot %.0f s", t); else s = s sprintf(", %s %.0f s", g, t - last)
			last = t; g = ($3 == "group") ? $4 : ""
		}
		END { if (s != "") printf "vm: %s time: %s\n", label, s }'
	say "$label: guest ran ${secs} s (kernel $kv)"
}

if [ "$shell_mode" = 1 ]; then
	boot_guest "${ok_kernels[0]}" "${ok_labels[0]}"
	exit $?
fi
# AWR_VM_JOBS guests at once (one vCPU each when more than one), reported in
# kernel order once all have ended
for i in "${!ok_kernels[@]}"; do
	kv=${ok_kernels[$i]} label=${ok_labels[$i]}
	while [ "$(jobs -rp | wc -l)" -ge "$vm_jobs" ]; do
		wait -n
	done
	rm -f "$out/qrc-$label"
	say "booting the guest (kernel $kv, timeout ${boot_timeout} s, $smp vCPU); serial log $out/serial-$label.log"
	boot_guest "$kv" "$label" &
	qpids+=($!)
done
for p in "${qpids[@]}"; do
	wait "$p"
done
qpids=()
for i in "${!ok_kernels[@]}"; do
	kv=${ok_kernels[$i]} label=${ok_labels[$i]}
	read -r qrc secs <"$out/qrc-$label" 2>/dev/null || { qrc=255 secs=0; }
	report_guest "$label" "$kv" "${qrc:-255}" "${secs:-0}"
done
if [ $((pass + fail)) = 0 ]; then
	fail=$((fail + 1))
	echo "FAIL vm.cases: no guest case reported a result"
fi
say "whole stage $(( $(date +%s) - t_start )) s on ${#ok_kernels[@]} kernel(s); facts in $results"
echo "vm: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
