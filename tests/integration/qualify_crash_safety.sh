#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr qualify --crash never shuts down a filesystem it did not make: on a bind mount of
# a subdirectory, on a filesystem holding other files, and with the device also mounted in another
# mount namespace (unshare -m), it crashes only its own scratch XFS and the victim stays mounted,
# alive and byte for byte unchanged; and before each shutdown it refuses its own scratch XFS, naming
# what it found, when that is mounted a second time (another namespace), bind-mounted from a
# subdirectory, or holds a file it did not make.
#
#   qualify_crash_safety.sh AWR   (run under with-scratch-xfs.sh: the scratch XFS is the victim)
set -u

awr=$(realpath "$1") || exit 2
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
command -v unshare >/dev/null && command -v nsenter >/dev/null ||
	skip "unshare/nsenter not installed (util-linux)"

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-crash-safety.XXXXXX") || exit 2
ns_pid= q_pid=
# mount points in our namespace, by /proc/self/mountinfo (stat would fail on a shut-down XFS)
mounts_of() { # mounts_of DEV: "point root" per mount of DEV
	local mm
	mm=$(printf '%d:%d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")")
	awk -v mm="$mm" '$3 == mm { print $5, $4 }' "${2:-/proc/self/mountinfo}"
}
cleanup() {
	[ -n "$q_pid" ] && kill -CONT "$q_pid" 2>/dev/null
	[ -n "$q_pid" ] && kill "$q_pid" 2>/dev/null && wait "$q_pid" 2>/dev/null
	for p in $ns_pid ${intruder_pid:-}; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for m in "$work/intruder" "$work/bind"; do
		grep -q " $m " /proc/self/mountinfo &&
			{ umount "$m" 2>/dev/null || umount -l "$m"; }
	done
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 2

# ---- the victim: a filesystem holding other files, a bind mount of its subdirectory, and the
# device mounted in another mount namespace
mkdir -p "$dir/data/sub" "$work/bind" "$work/ns" "$work/intruder"
for f in a b sub/c; do head -c $((RANDOM * 16 + 4096)) /dev/urandom >"$dir/data/$f" || exit 2; done
mount --bind "$dir/data/sub" "$work/bind" || fail "cannot bind-mount $dir/data/sub"
# ns_mount DEV POINT: mount DEV at POINT in a new mount namespace (unshare -m) kept by a process
# whose pid ends up in ns_mount_pid. The new namespace first drops its copies of loop-device mounts
# (other tests' scratch filesystems): a copy would keep such a filesystem alive after its unmount.
ns_mount() {
	rm -f "$work/ns-ready"
	unshare -m --propagation private sh -c '
		findmnt -rn -o TARGET,SOURCE | awk "\$2 ~ /^\/dev\/loop/ { print \$1 }" | sort -r |
			while read -r m; do umount -l "$m"; done
		mount "$1" "$2" && touch "$3" && exec sleep 600' sh "$1" "$2" "$work/ns-ready" &
	ns_mount_pid=$!
	for ((i = 0; i < 500; i++)); do [ -e "$work/ns-ready" ] && return 0; sleep 0.01; done
	fail "cannot mount $1 in another mount namespace"
}
ns_mount "$dev" "$work/ns"
ns_pid=$ns_mount_pid
hashes() { (cd "$dir" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
hashes >"$work/before" || fail "cannot hash the victim's files"

# Everything the victim should still be: the same files, mounted at $dir and $work/bind in our
# namespace and at $work/ns in the other one, and alive (not shut down: reads and writes work).
victim_intact() { # victim_intact CASE
	hashes >"$work/after" 2>&1 && cmp -s "$work/before" "$work/after" ||
		{ diff "$work/before" "$work/after"; fail "$1: the victim's files changed"; }
	mounts_of "$dev" | grep -qx "$dir /" || fail "$1: $dev is no longer mounted at $dir"
	mounts_of "$dev" | grep -qx "$work/bind /data/sub" ||
		fail "$1: the bind mount $work/bind is gone"
	nsenter -t "$ns_pid" -m awk -v p="$work/ns" '$5 == p { found = 1 } END { exit !found }' \
		/proc/self/mountinfo ||
		fail "$1: $dev is no longer mounted in the other namespace"
	nsenter -t "$ns_pid" -m cat "$work/ns/data/a" | cmp -s - "$dir/data/a" ||
		fail "$1: the other namespace's mount cannot be read"
	cmp -s "$work/bind/c" "$dir/data/sub/c" || fail "$1: the bind mount cannot be read"
	echo alive >"$dir/alive" && sync -f "$dir/alive" && rm "$dir/alive" ||
		fail "$1: the victim cannot be written (shut down?)"
	xfs_io_ok=$(stat -f -c %T "$dir" 2>&1)
	[ "$xfs_io_ok" = xfs ] || fail "$1: statfs of $dir: $xfs_io_ok"
}

crash_check() { # crash_check JSON: the crash check's result and reason, and its scratch device
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d['checks'] if c['name'] == 'crash'][0]
print(c['result'], c['figures'].get('scratch', {}).get('device'), c['reason'], sep='\t')" "$1"
}

for case in "bind mount of a subdirectory:$work/bind" "filesystem holding other files:$dir"; do
	what=${case%%:*} target=${case#*:}
	"$awr" qualify "$target" --quick --crash -o json >"$work/q.json" 2>"$work/q.err"
	IFS=$'\t' read -r result qdev reason < <(crash_check "$work/q.json") ||
		{ cat "$work/q.err"; fail "$what: no JSON report"; }
	[ "$result" = pass ] || fail "$what: crash check $result: $reason"
	[ "$qdev" != "$dev" ] && [[ "$qdev" == /dev/loop* ]] ||
		fail "$what: the crash check used $qdev"
	[[ "$reason" == *"its own scratch XFS ($qdev"* ]] ||
		fail "$what: the reason does not name its own scratch XFS: $reason"
	victim_intact "$what"
	echo "$what ($target), $dev also mounted in another namespace: crashed only its own" \
		"$qdev; the victim is unchanged and alive"
done

# ---- before each shutdown qualify refuses its own scratch XFS when it is not exactly its own.
# qualify stops itself before its first check (AWR_QUALIFY_CRASH_PAUSE=1); we intrude and let it
# go on. The target is $work (no atomic writes there: only the crash check matters).
# intrude NAME: run qualify, call intrude_NAME MNT DEV while it is stopped before its first check
intrude() {
	local mnt= qdev= i line= state=
	AWR_QUALIFY_CRASH_PAUSE=1 "$awr" qualify "$work" --quick --crash -o json >"$work/q.json" \
		2>"$work/q.err" &
	q_pid=$!
	# qualify stops itself (SIGSTOP) just before it checks its scratch XFS the first time
	for ((i = 0; i < 12000; i++)); do
		state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$q_pid/stat" 2>/dev/null) ||
			break
		[ "$state" = T ] && break
		sleep 0.005
	done
	[ "$state" = T ] ||
		fail "$1: qualify never reached its check of the scratch XFS (state ${state:-gone})"
	line=$(awk '{ for (i = 7; $i != "-"; i++); }
		$(i + 1) == "xfs" && $5 ~ /\/\.awr-crash\.[^\/]*\/mnt$/ { print $5, $(i + 2) }' \
		"/proc/$q_pid/mountinfo")
	[ -n "$line" ] || fail "$1: qualify's scratch mount is not there when it stops"
	read -r mnt qdev <<<"$line"
	"intrude_$1" "$mnt" "$qdev"
	kill -CONT "$q_pid"
	wait "$q_pid"
	q_pid=
	IFS=$'\t' read -r result qdev2 reason < <(crash_check "$work/q.json") ||
		{ cat "$work/q.err"; fail "$1: no JSON report"; }
	[ "$result" = fail ] && [[ "$reason" == *refusing* ]] ||
		fail "$1: crash check $result, expected a refusal: $reason"
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d['checks'] if c['name'] == 'crash'][0]
assert all('crash_ns' not in y for y in c['figures']['cycles']), \\
    'a shutdown happened: %s' % c" "$work/q.json" ||
		fail "$1: qualify shut the filesystem down before refusing"
	ls -A "$work" | grep -q '^\.awr-crash' && fail "$1: qualify left its scratch directory"
	echo "$1: refused: $reason"
}

# its device mounted a second time, in another mount namespace
intrude_other_namespace() {
	ns_mount "$2" "$work/intruder"
	intruder_pid=$ns_mount_pid intruder_dev=$2
}
intrude other_namespace
[[ "$reason" == *"$work/intruder (root /) in the mount namespace of pid"* ]] ||
	fail "other_namespace: the refusal does not name $work/intruder: $reason"
nsenter -t "$intruder_pid" -m sh -c "stat '$work/intruder' >/dev/null &&
	echo alive >'$work/intruder/x' && rm '$work/intruder/x'" ||
	fail "other_namespace: the second mount was shut down"
kill "$intruder_pid" && wait "$intruder_pid" 2>/dev/null	# its namespace and mount go with it
intruder_pid=
# then the loop device detaches itself (autoclear; it may be taken by someone else right after)
ours() { grep -qsF "$work/.awr-crash." "/sys/block/${intruder_dev#/dev/}/loop/backing_file"; }
for ((i = 0; i < 200; i++)); do ours || break; sleep 0.05; done
! ours || fail "qualify's loop device $intruder_dev stays attached to its image"

# a bind mount of a subdirectory of its scratch XFS
intrude_bind_subdir() {
	nsenter -t "$q_pid" -m sh -c "mkdir '$1/sub' && mount --bind '$1/sub' '$work/intruder'" ||
		fail "cannot bind-mount in qualify's namespace"
}
intrude bind_subdir
[[ "$reason" == *"$work/intruder (root /sub)"* ]] ||
	fail "bind_subdir: the refusal does not name the bind mount: $reason"

# a file it did not make
intrude_foreign_file() {
	nsenter -t "$q_pid" -m sh -c "echo x >'$1/not-qualifys'" ||
		fail "cannot write in qualify's namespace"
}
intrude foreign_file
[[ "$reason" == *"holds files qualify did not make: not-qualifys"* ]] ||
	fail "foreign_file: the refusal does not name the file: $reason"
echo "qualify_crash_safety: ok"
