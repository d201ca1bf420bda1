#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the one target open holds for the whole run and refuses what it must: each case of
# the data-safety review reproduced on scratch loop devices and files, refused with a message, and
# its victim byte-identical (sha256 before and after):
#   - a second O_EXCL open and mkfs.ext4 -F fail for the whole time awr stress writes a device;
#   - awr write/stress/bench of a regular file that backs a mounted loop device;
#   - a symlink planted in place of the target (write, stress, bench);
#   - a mounted device whose mountinfo line is longer than 4096 bytes (named as mounted);
#   - AWR_SYSFS_ROOT pointing at an empty tree does not hide a mount;
#   - a write whose last unit ends past 2^63 or past the device: nothing is written at all;
#   - a file that is an active swap area (where swapon works here);
#   - a character device and a FIFO refused before any open for reading or writing (strace).
#   write_target_open.sh AWR
set -u
awr=$1
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for loop devices and mounts"; exit 77; }
for t in mkfs.ext4 losetup python3; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-target.XXXXXX") || exit 2
devs=() mnts=() pids=() swaps=()
cleanup() {
	local p m d s
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for s in "${swaps[@]}"; do swapoff "$s" 2>/dev/null; done
	# unmount by /proc/mounts, deepest first
	for m in "${mnts[@]}"; do grep -q " $m " /proc/mounts && umount -l "$m" 2>/dev/null; done
	for d in "${devs[@]}"; do losetup -d "$d" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
drop_dev() {	# drop_dev DEV: no longer ours to detach
	local d keep=()
	for d in "${devs[@]}"; do [ "$d" = "$1" ] || keep+=("$d"); done
	devs=("${keep[@]}")
}
trap 'exit 130' INT TERM HUP PIPE

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
hash_of() { sha256sum <"$1" | cut -d' ' -f1; }
new_loop() { # IMG SIZE -> prints the device
	truncate -s "$2" "$1" && losetup -f --show "$1"
}
# expect_refused DESC VICTIM TEXT CMD...: exit 1 or 2, TEXT in the message, VICTIM unchanged
expect_refused() {
	local desc=$1 victim=$2 text=$3 before after out rc
	shift 3
	before=$(hash_of "$victim")
	out=$("$@" 2>&1); rc=$?
	after=$(hash_of "$victim")
	if [ "$rc" != 1 ] && [ "$rc" != 2 ]; then
		fail "$desc: exit $rc, expected a refusal (1 or 2): $out"
	elif [[ "$out" != *"$text"* ]]; then
		fail "$desc: the message lacks '$text': $out"
	elif [ "$before" != "$after" ]; then
		fail "$desc: $victim changed"
	else
		ok "$desc: refused ('$text'), victim unchanged"
	fi
}

# --- 1. the claim holds for the whole run: O_EXCL and mkfs fail while awr stress writes
blank=$(new_loop "$work/blank.img" 64M) || { echo "SKIP: no free loop device"; exit 77; }
devs+=("$blank")
"$awr" stress "$blank" --unit 4k --no-atomic --seconds 20 >"$work/stress.out" 2>&1 &
spid=$!
pids+=("$spid")
sleep 1
excl_ok=0 excl_refused=0 mkfs_ok=0 rounds=0
for _ in 1 2 3; do
	kill -0 "$spid" 2>/dev/null || break
	if python3 -c 'import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))' "$blank" 2>/dev/null; then
		excl_ok=$((excl_ok + 1))
	else
		excl_refused=$((excl_refused + 1))
	fi
	timeout 10 mkfs.ext4 -F -q "$blank" >/dev/null 2>&1 && mkfs_ok=$((mkfs_ok + 1))
	# count the round only when awr was still writing after it
	kill -0 "$spid" 2>/dev/null && rounds=$((rounds + 1))
	sleep 0.3
done
kill -INT "$spid" 2>/dev/null
wait "$spid"; src=$?
pids=()
[ "$rounds" = 3 ] || fail "claim: awr stress ended after $rounds of 3 rounds: $(cat "$work/stress.out")"
[ "$src" = 0 ] || [ "$src" = 130 ] || fail "claim: awr stress exited $src: $(cat "$work/stress.out")"
[ "$excl_ok" = 0 ] && [ "$excl_refused" -ge 1 ] && ok "claim: $excl_refused of $excl_refused O_EXCL opens refused while awr stress ran" ||
	fail "claim: $excl_ok O_EXCL opens succeeded while awr stress wrote $blank"
[ "$mkfs_ok" = 0 ] && ok "claim: mkfs.ext4 -F refused while awr stress ran" ||
	fail "claim: mkfs.ext4 -F succeeded $mkfs_ok times while awr stress wrote $blank"
# negative control: once awr is done, the same O_EXCL open succeeds
python3 -c 'import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))' "$blank" &&
	ok "claim: O_EXCL open succeeds after the run (control)" || fail "claim: O_EXCL still refused after the run"

# --- 2. a regular file that backs a mounted loop device
img=$work/ext4.img
truncate -s 64M "$img" && mkfs.ext4 -F -q "$img" || { echo "mkfs.ext4 failed"; exit 1; }
ldev=$(losetup -f --show "$img") || { echo "SKIP: no free loop device"; exit 77; }
devs+=("$ldev")
mkdir -p "$work/m1" && mount "$ldev" "$work/m1" && mnts+=("$work/m1") || { echo "mount failed"; exit 1; }
echo data >"$work/m1/keep"
sync
expect_refused "loop backing file: write" "$img" "backs the loop device" \
	"$awr" write "$img" --offset 0 --length 4k --pattern 0xee
expect_refused "loop backing file: stress" "$img" "backs the loop device" \
	"$awr" stress "$img" --unit 4k --writes 1 --no-atomic
expect_refused "loop backing file: bench" "$img" "backs the loop device" \
	"$awr" bench "$img" --seconds 0.2 --mode plain
# control: the same file once unmounted and detached is no longer refused as a loop backing file
# (and out of the cleanup's list: detached twice, the number may by then be another test's device)
umount "$work/m1" && losetup -d "$ldev" && { drop_dev "$ldev"; ldev=; }
out=$("$awr" write "$img" --offset 0 --length 4k --pattern 0xee 2>&1)
[[ "$out" != *"backs the loop device"* ]] && ok "loop backing file: refusal gone once detached (control): ${out:-written}" ||
	fail "loop backing file: still refused as a loop backing file after the detach: $out"

# --- 3. a symlink planted in place of the target
echo "precious" >"$work/victim"
ln -s "$work/victim" "$work/link"
for cmd in "write --offset 0 --length 4k" "stress --unit 4k --writes 1 --no-atomic --size 1M" "bench --seconds 0.2 --mode plain"; do
	# shellcheck disable=SC2086
	expect_refused "symlink: ${cmd%% *}" "$work/victim" "symbolic link to a regular file" \
		"$awr" $cmd "$work/link"
done

# --- 4. a mount whose mountinfo line is longer than 4096 bytes is still seen as a mount
# a bind mount of a deep directory, the first mount gone: root and mount point both ~4000 bytes
long=$work/m2
deep=
for i in $(seq 15); do long=$long/$(printf 'd%.0s' $(seq 250)); deep=$deep/$(printf 'r%.0s' $(seq 250)); done
mkdir -p "$long" "$work/m2s" || fail "cannot make a long mount point"
# (no lazy init: ext4lazyinit would write the inode tables in the background and change the digest)
mdev=$(new_loop "$work/long.img" 64M) && devs+=("$mdev")
mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 "$mdev" && mount "$mdev" "$work/m2s" && mnts+=("$work/m2s")
mkdir -p "$work/m2s$deep" && mount --bind "$work/m2s$deep" "$long" && mnts=("$long" "${mnts[@]}")
umount "$work/m2s" || fail "cannot unmount the first mount of $mdev"
len=$(grep -F " $long " /proc/self/mountinfo | head -1 | wc -c)
[ "$len" -gt 4096 ] || fail "long mountinfo line: only $len bytes, the case needs more than 4096"
# the range the refused write names (1 MiB, 4 KiB), after a sync: the mounted ext4 commits its
# own metadata (the mkdir above) in the background, which changed a digest of the first 4 MiB
# in a run under load
digest_dev() { dd if="$1" bs=4k skip=256 count=1 iflag=direct status=none | sha256sum; }
sync
before=$(digest_dev "$mdev")
out=$("$awr" write "$mdev" --offset 1M --length 4k 2>&1); rc=$?
[ "$rc" = 2 ] && [[ "$out" == *"is mounted on $work/m2/"* ]] && ok "long mountinfo line ($len bytes): named as mounted" ||
	fail "long mountinfo line ($len bytes): exit $rc: $out"
# --- 5. AWR_SYSFS_ROOT cannot steer a safety decision
mkdir -p "$work/emptysys"
out=$(AWR_SYSFS_ROOT=$work/emptysys "$awr" write "$mdev" --offset 1M --length 4k 2>&1); rc=$?
[ "$rc" = 2 ] && [[ "$out" == *"is mounted on"* ]] && ok "AWR_SYSFS_ROOT: the mount is still found in the real /sys" ||
	fail "AWR_SYSFS_ROOT: exit $rc: $out"
[ "$before" = "$(digest_dev "$mdev")" ] && ok "mounted device unchanged" || fail "the mounted device changed"

# --- 6. whole-range checks before the first write
printf 'x%.0s' $(seq 8192) >"$work/edge"
f63=$(( (1 << 62) * 2 - 8192 ))	# 2^63 - 8 KiB: the first unit fits, the second ends past 2^63 - 1
expect_refused "offset near 2^63 (the first unit fits, the last does not)" "$work/edge" "2^63" \
	"$awr" write "$work/edge" --offset "$f63" --length 16k --unit 4k --pattern 0x11
expect_refused "offset + length past 2^63" "$work/edge" "2^63" \
	"$awr" write "$work/edge" --offset 9223372036854775807 --length 4k
bdev=$(new_loop "$work/small.img" 1M) && devs+=("$bdev")
cp "$work/small.img" "$work/small.before"
out=$("$awr" write "$bdev" --offset 1016k --length 16k --unit 4k --pattern 0x22 2>&1); rc=$?
cmp -s "$work/small.before" "$work/small.img" && [ "$rc" = 1 ] && ok "a write that straddles the device end: nothing written ($out)" ||
	fail "a write that straddles the device end: exit $rc, device changed or not refused: $out"

# --- 7. an active swap file
truncate -s 0 "$work/swapfile"
if dd if=/dev/zero of="$work/swapfile" bs=1M count=16 status=none && chmod 600 "$work/swapfile" &&
   mkswap "$work/swapfile" >/dev/null 2>&1 && swapon "$work/swapfile" 2>/dev/null; then
	swaps+=("$work/swapfile")
	expect_refused "swap file" "$work/swapfile" "swap" \
		"$awr" write "$work/swapfile" --offset 0 --length 4k
	swapoff "$work/swapfile" && swaps=()
else
	echo "note: swapon is not permitted here; the swap-file case was not run"
fi

# --- 8. never run with borrowed privileges: real uid nobody, effective uid root (as set-user-ID would
# give; the loader is named so that the build tree's library is found in secure mode)
ldso=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1)
libdir=$(dirname "$(dirname "$awr")")/lib
if [ -n "$ldso" ] && command -v setpriv >/dev/null; then
	out=$(env -i PATH="$PATH" setpriv --ruid 65534 -- "$ldso" --library-path "$libdir" "$awr" write "$work/victim" --offset 0 --length 4k 2>&1); rc=$?
	[ "$rc" = 2 ] && [[ "$out" == *"set-user-ID"* ]] && ok "real uid != effective uid: refused" || fail "set-user-ID: exit $rc: $out"
	out=$("$ldso" --library-path "$libdir" "$awr" version 2>&1) && ok "the same invocation without the uid change runs (control)" ||
		fail "the loader invocation itself fails: $out"
else
	echo "note: no dynamic loader path or setpriv here; the set-user-ID case was not run"
fi

# (LeakSanitizer cannot run under ptrace: leaks are off for the traced command in the sanitizer build)
# --- 9. a character device or a FIFO is refused by a look (O_PATH) before any open of it for
# reading or writing: awr prepare /dev/null opened it O_RDWR|O_EXCL first, then refused it
if command -v strace >/dev/null; then
	mkfifo "$work/fifo"
	for t in /dev/null "$work/fifo"; do
		for cmd in "prepare $t --size 1m --unit 16k" "write $t --offset 0 --length 16k" \
			   "stress $t --unit 16k --writes 1" "bench $t --mode atomic --seconds 0.1"; do
			# shellcheck disable=SC2086
			timeout 20 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=openat,open -o "$work/strace.txt" "$awr" $cmd >"$work/out" 2>&1
			rc=$?
			opened=$(grep -F "\"$t\"" "$work/strace.txt" | grep -E 'O_RDWR|O_WRONLY|O_RDONLY' | grep -v O_PATH)
			if [ "$rc" = 2 ] && grep -q "character device\|FIFO" "$work/out" && [ -z "$opened" ]; then
				ok "awr ${cmd%% *} $t: refused by a look, never opened"
			else
				fail "awr ${cmd%% *} $t: exit $rc ($(head -c 200 "$work/out")); opens: ${opened:-none}"
			fi
		done
	done
else
	fail "strace is not installed (scripts/deps.sh installs it)"
fi

echo "write_target_open: $fails failure(s)"
[ "$fails" = 0 ]
