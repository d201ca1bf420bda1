# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Clean Debian 12 (bookworm) chroots for the release stage (tests/release/run.sh), sourced.
#
# The base tree is debootstrap's bookworm (minbase, with sudo as a fresh install has it), made
# once and kept in $AWR_RELEASE_CACHE (default /var/cache/awr-vm/release, beside the guest
# stage's trees); rebuilt when base_version below changes or the tree is missing. Each chroot
# is an overlay on it (the base stays clean), with /proc, /sys, /dev and /dev/pts mounted and
# apt's package lists and downloaded packages kept in the cache (apt-NAME/: each chroot its own,
# as two apt-get runs cannot share one), so a warm run downloads nothing. chroot_up NAME gives
# the root in $root; chroot_down NAME removes it.
release_cache=${AWR_RELEASE_CACHE:-/var/cache/awr-vm/release}
base_version=1
base_tree=$release_cache/bookworm-v$base_version

# the mirror that serves this machine its bookworm packages (AWR_VM_MIRROR as the guest stage)
release_mirror() {
	local u=${AWR_VM_MIRROR:-}
	[ -n "$u" ] || u=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		'Identifier: Packages' 2>/dev/null | awk '$2 == "bookworm" { print $1; exit }')
	echo "${u:-http://deb.debian.org/debian/}"
}

# base_tree_ready LOG: make the base tree unless it is there (debootstrap's downloads are kept);
# one maker at a time, the others wait for it
base_tree_ready() {
	local log=$1 tmp=$base_tree.new.$$
	mkdir -p "$release_cache/debootstrap" || return 1
	exec 7>"$release_cache/base.lock"
	flock -w 900 7 || { echo "no base tree: $release_cache/base.lock is held"; return 1; }
	[ -f "$base_tree/.awr-base-done" ] && { exec 7>&-; return 0; }
	rm -rf --one-file-system "$tmp"
	debootstrap --variant=minbase --include=sudo --cache-dir="$release_cache/debootstrap" \
		bookworm "$tmp" "$(release_mirror)" >>"$log" 2>&1 ||
		{ echo "debootstrap bookworm failed (log: $log)"; rm -rf --one-file-system "$tmp"
		  exec 7>&-; return 1; }
	# no service started by a package's maintainer scripts inside the chroot
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d" && chmod 755 "$tmp/usr/sbin/policy-rc.d"
	touch "$tmp/.awr-base-done"
	rm -rf --one-file-system "$base_tree"
	mv "$tmp" "$base_tree"
	exec 7>&-
}

# chroot_up NAME LOG: an overlay root on the base tree in $root
chroot_up() {
	local name=$1 log=$2 run=$release_cache/run-$1
	base_tree_ready "$log" || return 1
	chroot_down "$name"
	mkdir -p "$run/upper" "$run/work" "$run/root" "$release_cache/apt-$name/archives/partial" \
		"$release_cache/apt-$name/lists/partial" || return 1
	root=$run/root
	mount -t overlay "awr-release-$name" \
		-o "lowerdir=$base_tree,upperdir=$run/upper,workdir=$run/work" "$root" || return 1
	# a scratch root: dpkg need not sync each file it unpacks (the commands run are the same)
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/awr-scratch-unsafe-io"
	mount -t proc proc "$root/proc" &&
		mount -o bind,ro /sys "$root/sys" &&
		mount -o bind /dev "$root/dev" &&
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" &&
		mount -o bind "$release_cache/apt-$name/archives" "$root/var/cache/apt/archives" &&
		mount -o bind "$release_cache/apt-$name/lists" "$root/var/lib/apt/lists" || return 1
}

# chroot_down NAME: unmount everything below the chroot's root, deepest first; remove it
chroot_down() {
	local run=$release_cache/run-$1 m
	[ -e "$run" ] || return 0
	for m in $(awk -v d="$run/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	rm -rf --one-file-system "$run"
}

# in_chroot CMD...: run CMD in the chroot as a fresh root login shell would, no terminal
in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"$@" </dev/null
}
