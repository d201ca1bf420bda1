# SPDX-License-Identifier: MIT
# Debian 12 packages the project needs; sourced by the set-up scripts.
# shellcheck shell=bash
BUILD_DEPS=(
	build-essential meson ninja-build pkg-config
	liburing-dev libnvme-dev libsgutils2-dev libpopt-dev
	libjson-c-dev libblkid-dev libxxhash-dev
	libmount-dev	# util-linux's libmount: mountinfo (lib/platform/mountinfo.c)
	libssl-dev	# libcrypto: HMAC-SHA256 of the remote journal
)
# The main job's scratch XFS image.
RUN_DEPS=(xfsprogs util-linux python3)
# Tests: the VM rig's guest toolchain (debootstrap: also the release stage's clean chroots), fio
# for benchmarks, libssl for static libnvme, clang and its sanitizer runtimes for the fuzz smoke,
# valgrind for the memcheck stage.
TEST_DEPS=(
	"${RUN_DEPS[@]}" fio debootstrap busybox-static cpio xz-utils kmod
	libssl-dev zstd
	dmsetup mdadm
	strace		# journal_remote counts the server's accept4 calls
	postgresql mariadb-server	# awr database on real data directories (db_verdict)
	libaio-dev	# the preload tests' writer submits through libaio as MariaDB does
	python3-prometheus-client	# -o prometheus read by a real parser (tests/prom_check.py)
	chromium chromium-driver python3-selenium	# the HTML report in a real browser (tests/report_check.py)
	clang libclang-rt-14-dev valgrind
	debhelper dpkg-dev lintian abigail-tools	# the release stage: packages, lintian, the ABI
)

install_packages() {
	export DEBIAN_FRONTEND=noninteractive
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "== installing: ${missing[*]}"
	apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$0: run as root (it installs packages and uses loop devices): sudo $0 $*" >&2
		exit 2
	fi
}
