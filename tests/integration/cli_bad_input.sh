#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: one table of bad input for awr and for the library: every numeric or size option
# given garbage, nothing, a negative number, 2^64 and beyond, a non-power-of-two and a misaligned
# value; every command given a path that does not exist, a directory, a FIFO, a character device
# that is not NVMe, a read-only (immutable) file, a file on a read-only mount, a file it may not
# open (as the unprivileged user nobody), a file on tmpfs and on ext4 without atomic writes.
# Each case must exit 1 or 2 (never a crash: exit >= 128; never a hang) with a message naming what
# was wrong, and change no byte of any target (hashed before and after). The library's half runs
# bad_input_lib on the same paths.
#
#   with-scratch-xfs.sh cli_bad_input.sh AWR BAD_INPUT_LIB FIXTURES_DIR
set -u
awr=$1 lib=$2 fix=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
work=$dir/bad
fails=0 cases=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir -p "$work"
ro= tmpfs= ext4mnt= ext4dev=
cleanup() {
	chattr -i "$work/immutable" 2>/dev/null
	[ -n "$ro" ] && umount "$ro" 2>/dev/null
	[ -n "$tmpfs" ] && umount "$tmpfs" 2>/dev/null
	[ -n "$ext4mnt" ] && umount "$ext4mnt" 2>/dev/null
	[ -n "$ext4dev" ] && losetup -d "$ext4dev" 2>/dev/null
}
trap cleanup EXIT

# The targets, each holding data (1 MiB of random bytes), and the special paths.
f=$work/data
head -c 1M /dev/urandom >"$f"
cp "$f" "$work/immutable"
chattr +i "$work/immutable" || fail "chattr +i on XFS"
mkdir -p "$work/dir" "$work/romnt"
mkfifo "$work/fifo"
cp "$f" "$work/private"
chmod 0600 "$work/private"
# nobody must reach $work/private to be refused by its mode, not by a directory on the way
chmod 0711 "$(dirname "$dir")" "$dir" "$work"
ro=$work/romnt
mount --bind "$work/dir" "$ro" && mount -o remount,bind,ro "$ro" || fail "read-only bind mount"
cp "$f" "$work/dir/on-ro-mount" 2>/dev/null	# visible through the read-only mount
tmpfs=$work/tmpfs
mkdir -p "$tmpfs"
mount -t tmpfs -o size=8m tmpfs "$tmpfs" || fail "tmpfs mount"
cp "$f" "$tmpfs/data"
ext4mnt=$work/ext4
mkdir -p "$ext4mnt"
truncate -s 64M "$work/ext4.img"
if mkfs.ext4 -q -F "$work/ext4.img" 2>/dev/null && ext4dev=$(losetup -f --show "$work/ext4.img") &&
   mount "$ext4dev" "$ext4mnt"; then
	cp "$f" "$ext4mnt/data"
else
	fail "ext4 image (mkfs.ext4, losetup, mount)"
	ext4mnt=
fi

# Every file a case could damage: after each case their size, modification and change times (to the
# nanosecond: any write or truncation moves them) and the entries of $work; their content (sha256)
# once more at the end, against the content they were made with.
victims=("$f" "$work/immutable" "$work/private" "$ro/on-ro-mount" "$tmpfs/data")
[ -n "$ext4mnt" ] && victims+=("$ext4mnt/data")
hashes() { stat -c '%n %s %y %z' "${victims[@]}" 2>&1; stat -c '%n %s' "$work"/* 2>&1; }
hashes >"$work/../hash.before"
sha256sum "${victims[@]}" >"$work/../sha.before" 2>&1

# run NAME REGEX CMD...: exit 1 or 2, output matching REGEX (case-insensitive), no byte changed
run() {
	local name=$1 re=$2 rc out
	shift 2
	cases=$((cases + 1))
	out=$(timeout -k 5 60 "$@" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name: no answer in 60 s (a hang): $*"
	elif [ "$rc" -ge 128 ]; then
		fail "$name: killed by signal $((rc - 128)): $*"
	elif [ "$rc" != 1 ] && [ "$rc" != 2 ]; then
		fail "$name: exit $rc, expected 1 or 2: $* -> ${out:0:300}"
	elif ! grep -qiE -- "$re" <<<"$out"; then
		fail "$name: the message does not name the problem (/$re/): $* -> ${out:0:300}"
	fi
	if ! hashes | cmp -s - "$work/../hash.before"; then
		fail "$name: a target changed: $*"
		hashes | diff "$work/../hash.before" - | head -5
		hashes >"$work/../hash.before"
	fi
}

# run_ok NAME CMD...: a command that only reads (probe, check) on a path it may read: exit 0, no change
run_ok() {
	local name=$1 rc out
	shift
	cases=$((cases + 1))
	out=$(timeout -k 5 60 "$@" 2>&1 </dev/null)
	rc=$?
	[ "$rc" = 0 ] || fail "$name: exit $rc, expected 0 (it only reads): $* -> ${out:0:300}"
	hashes | cmp -s - "$work/../hash.before" || fail "$name: a target changed: $*"
}

# The option table: command, its valid arguments, the options given bad values.
declare -A base opts
row() { base[$1]=$2 opts[$1]=$3; }
row check "check $f --offset 0 --length 16k" "--offset --length"
row write "write $f --offset 0 --length 64k --unit 16k --force" "--offset --length --unit --pattern"
row write-uring "write $f --offset 0 --length 64k --unit 16k --engine uring --force" "--qd"
row stress "stress $f --unit 16k --size 1M --threads 2 --writes 50 --force" "--unit --threads --seconds --writes --size"
row verify "verify $f --unit 16k" "--unit --size --crash-time --show"
row bench "bench $f --unit 16k --size 1M --seconds 1 --mode atomic --force" \
	"--unit --qd --batch --seconds --size --mode --order --durability"
row decode "decode --scsi-vpd $fix/vpd-bl-scsi-debug-default.hex --lbs 512" "--lbs --pbs --max-segments --max-hw-bytes"
# values every option refuses, with what the message must say
bad_values=("abc" "" "-1" "-4k" "18446744073709551616" "16E" "99999999999999999999999999" "0x" "12junk")
for cmd in "${!opts[@]}"; do
	read -ra b <<<"${base[$cmd]}"
	for o in ${opts[$cmd]}; do
		for v in "${bad_values[@]}"; do
			# the option's name, or the value quoted, in the message
			run "$cmd $o '$v'" "(${o#--}|'${v//[\*\?\+\(\)\[\]\{\}\.\^\$\|\\]/.}')" "$awr" "${b[@]}" "$o" "$v"
		done
	done
done
# shapes the kernel refuses: not a power of two, misaligned, zero, past 2^63
for spec in "check --length 12k:power of two|power_of_two" "check --length 0:zero|length" \
	    "check --offset 4096:multiple|misaligned|align" "check --offset 9223372036854775808:2\^63|large|past|range|offset" \
	    "write --unit 12k:power of two|unit" "write --offset 512:multiple|align|offset" \
	    "write --length 24k:multiple|length|unit" "write --offset 9223372036854775808:2\^63|past|large|range|offset" \
	    "stress --unit 12k:power of two|unit" "stress --unit 100:unit|sector|512" "stress --size 20k:unit|multiple|size" \
	    "verify --unit 100:unit|sector|512" \
	    "bench --unit 12k:power of two|unit" "bench --size 20k:size|multiple|unit|small"; do
	c=${spec%%:*} re=${spec#*:}
	read -r cmd o v <<<"$c"
	read -ra b <<<"${base[$cmd]}"
	run "$cmd $o $v" "$re" "$awr" "${b[@]}" "$o" "$v"
done

# The path table: every command that takes a path, each bad path, what the message must say.
paths=(
	"$work/no/such/file:no such|not exist|does not exist"
	"$work/dir:directory"
	"$work/fifo:fifo|not a regular|pipe|type|not support"
	"/dev/null:character device"
	"$work/immutable:immutable|operation not permitted|permission|read-only|not permitted"
	"$ro/on-ro-mount:read-only"
	"$tmpfs/data:atomic|tmpfs|o_direct|direct|not support"
)
[ -n "$ext4mnt" ] && paths+=("$ext4mnt/data:atomic|not support")
for pc in "${paths[@]}"; do
	p=${pc%%:*} re=${pc#*:}
	run "write $p" "$re" "$awr" write "$p" --offset 0 --length 16k --force
	run "write-uring $p" "$re" "$awr" write "$p" --offset 0 --length 64k --unit 16k --engine uring --force
	run "stress $p" "$re" "$awr" stress "$p" --unit 16k --size 1M --writes 20 --force
	run "bench $p" "$re" "$awr" bench "$p" --unit 16k --size 1M --seconds 1 --mode atomic --force
	case "$p" in
	"$work/dir") ;;	# probe, check and qualify take a directory as the place of a new file
	# check predicts a write's shape from the limits and writes nothing: a file it may read is an answer
	"$work/immutable"|"$ro/on-ro-mount") run_ok "check $p" "$awr" check "$p" --offset 0 --length 16k ;;
	*) run "check $p" "$re|not support" "$awr" check "$p" --offset 0 --length 16k ;;
	esac
done
run "write --engine nvme /dev/null" "nvme|character|generic|/dev/ng" "$awr" write /dev/null --offset 0 --length 4k --engine nvme --force
run "write --engine scsi /dev/null" "scsi|sg|character|not a" "$awr" write /dev/null --offset 0 --length 4k --engine scsi --force
run "probe no such path" "no such|not exist" "$awr" probe "$work/no/such/file"
run "verify no such path" "no such|not exist" "$awr" verify "$work/no/such/file" --unit 16k
run "verify directory" "directory" "$awr" verify "$work/dir" --unit 16k
run "verify fifo" "fifo|not a regular|pipe|type" "$awr" verify "$work/fifo" --unit 16k
run "decode no such dump" "no such|not exist" "$awr" decode --scsi-vpd "$work/no/such/file"
run "decode directory" "directory|holds 0 bytes" "$awr" decode --nvme-ns "$work/dir"
run "decode garbage dump" "dump|decode|short|not|invalid" "$awr" decode --nvme-ns "$work/data"
run "qualify fifo" "fifo|not a regular|pipe|type" "$awr" qualify "$work/fifo" --quick --force
run "qualify tmpfs" "$(printf 'atomic|tmpfs|direct|not support')" "$awr" qualify "$tmpfs/data" --quick --force

# As an unprivileged user: a file of root's with mode 0600.
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	for c in "write $work/private --offset 0 --length 16k --force" \
		 "write $work/private --offset 0 --length 64k --unit 16k --engine uring --force" \
		 "stress $work/private --unit 16k --size 1M --writes 20 --force" \
		 "bench $work/private --unit 16k --size 1M --seconds 1 --mode atomic --force" \
		 "verify $work/private --unit 16k" "qualify $work/private --quick --force"; do
		read -ra a <<<"$c"
		run "nobody: ${a[0]}" "permission|not permitted|access" runuser -u nobody -- "$awr" "${a[@]}"
	done
	# probe and check read the file's limits by its path (statx): no permission on the file is needed
	run_ok "nobody: probe" runuser -u nobody -- "$awr" probe "$work/private"
	run_ok "nobody: check" runuser -u nobody -- "$awr" check "$work/private" --offset 0 --length 16k
else
	fail "no user nobody or no runuser: the unprivileged cases cannot run"
fi

# The library: the same paths, and bad sizes and shapes, through the public API.
cases=$((cases + 1))
if ! "$lib" "$work/no/such/file" "$work/dir" "$work/fifo" /dev/null "$work/immutable" "$ro/on-ro-mount" \
	"$tmpfs/data" ${ext4mnt:+"$ext4mnt/data"} -- "$f"; then
	fail "bad_input_lib (its output above)"
fi
if ! hashes | cmp -s - "$work/../hash.before"; then
	fail "bad_input_lib: a target changed"
	hashes | diff "$work/../hash.before" - | head -5
fi
# the content of every target, as made
sha256sum "${victims[@]}" 2>&1 | cmp -s - "$work/../sha.before" || fail "the content of a target changed: $(sha256sum "${victims[@]}" 2>&1 | diff "$work/../sha.before" - | head -3)"

echo "$cases cases, $fails failed"
[ "$fails" = 0 ]
