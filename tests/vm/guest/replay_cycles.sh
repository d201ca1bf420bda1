#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: power cuts replayed from a dm-log-writes log: three workloads run at once on an XFS
# over dm-log-writes (every write of the device logged with its FLUSH/FUA marks, writes held until
# a flush covers them, as a disk with a volatile write cache may lose them), each with marks of its
# own (dmsetup message ... mark NAME) after each step that returned; the log is then replayed with
# awr replay, incrementally, to the chosen points of the run (20 flush points spread over it, a few
# marks, a few points halfway between two flush points; AWR_TEST_LONG=1: every flush point and
# every mark), each state mounted on a snapshot (XFS log recovery) and checked by each workload's
# own recovery and checker (a workload from its first mark on):
#   pages_doublewrite, pages_software  the page store through pages_crash replay-write (64 pages of
#       16 KiB, 10 batches of 15, a mark dw-bG / sw-bG after batch G returned); replay-check opens the
#       store (its recovery) and needs every page whole, holding the last batch that returned
#       before the point or a later one
#   stress  awr stress with the writers of awr qualify --crash (4 threads, 16 KiB units over 4 MiB,
#       a journal), the journal on the guest's tmpfs, off the logged device (the journal that
#       survives the power cut, as awr journal-serve keeps it on another machine: a journal on the
#       same device is made durable by the same flushes as the data, so it could never show a
#       data write acknowledged before it was durable); marks st-jK with the time of the journal's
#       last record before each; awr verify with the journal and that time as the crash instant:
#       no torn unit, no acknowledged write lost
# The negative control: the three again, each under its fault point (AWR_PAGES_FAULT=nosync:0,
# AWR_STRESS_FAULT=nosync:0: acknowledged without being made durable; 4 batches, 40 writes) and
# one after the other, so that no other's flush covers them, replayed to each mark in turn: each
# check must fail at some replay point, named by its entry; its control case passes when it does. (A flush point cannot catch it: a flush covers every write that completed before
# it, so the writes a batch acknowledged are in the log before any flush after its mark.)
#   replay_cycles.sh        prints PASS/FAIL/SKIP NAME lines (tests/vm/guest/cases.sh relays them)
# Devices: loop devices over sparse files on the guest's tmpfs (a loop device has a write cache,
# so flushes reach dm-log-writes); the XFS is 320 MiB with a 16 MiB log (mkfs.xfs takes a log under
# 64 MiB with fstests' TEST_DIR/TEST_DEV/QA_CHECK_FS set, as fstests makes its small test
# filesystems; the default 64 MiB log would be written, logged and replayed for every workload).
AWR=${AWR:-/awr/awr}
PC=${PAGES_CRASH:-/awr/pages_crash}
W=/tmp/replay
MNT=/mnt/replay-w
RMNT=/mnt/replay-r
LW=awrlw
RS=awrrs
long=${AWR_TEST_LONG:-0}
FLUSH_SAMPLE=20		# flush points checked (every one with AWR_TEST_LONG=1)
MARK_SAMPLE=2		# marks checked besides (every one with AWR_TEST_LONG=1)
BETWEEN=3		# points halfway between two flush points
BATCHES=10		# page-store batches (each marked; the control's: 4)
WORKLOADS="pages_doublewrite pages_software stress"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
info() { echo "AWRVM: INFO replay $*"; }
up() { cut -d' ' -f1 /proc/uptime; }
secs() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.0f", b - a }'; }

kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then
	for w in $WORKLOADS; do
		for c in record replay control; do
			echo "SKIP $w.$c: Linux $kv: XFS has no copy-on-write atomic writes before 6.16 (the page store's software mode and awr stress's atomic units on a device without atomic writes: dm-log-writes stacks none)"
		done
	done
	exit 0
fi

cleanup() {
	umount "$RMNT" 2>/dev/null
	umount "$MNT" 2>/dev/null
	dmsetup remove "$RS" 2>/dev/null
	dmsetup remove "$LW" 2>/dev/null
	for d in $data $logd $rdev $cowd; do losetup -d "$d" 2>/dev/null; done
	data= logd= rdev= cowd=
	rm -rf "$W"
}
trap 'cleanup; rm -f "$W.rec.out"' EXIT

attach() {	# attach FILE: a free loop device over FILE, its name on stdout
	local d
	d=$(losetup -f) && losetup "$d" "$1" && echo "$d"
}

# dm NAME TABLE: a device-mapper device and its node (no udev in the guest)
dm() { dmsetup create "$1" --table "$2" && dmsetup mknodes "$1" && [ -b "/dev/mapper/$1" ]; }

# devs_up: fresh sparse images and their loop devices: $data (the logged XFS), $logd (the log),
# $rdev (the replay target), $cowd (the snapshot's exceptions); $sz sectors
devs_up() {
	cleanup
	mkdir -p "$W" "$MNT" "$RMNT"
	truncate -s 320M "$W/data.img" && truncate -s 256M "$W/log.img" &&
		truncate -s 320M "$W/replay.img" && truncate -s 64M "$W/cow.img" || return 1
	data=$(attach "$W/data.img") && logd=$(attach "$W/log.img") && rdev=$(attach "$W/replay.img") &&
		cowd=$(attach "$W/cow.img") || return 1
	sz=$(blockdev --getsz "$data")
}

mark() { dmsetup message "$LW" 0 mark "$1"; }

# --- the workloads: run on $MNT with the log running; $1 the fault point of the control, or empty

work_pages() {	# work_pages MODE PREFIX SEED FAULT
	if [ -n "$4" ]; then
		AWR_PAGES_FAULT=$4 "$PC" replay-write "$MNT/$2.db" "$1" "$3" 4 "dmsetup message $LW 0 mark $2-"
	else
		"$PC" replay-write "$MNT/$2.db" "$1" "$3" $BATCHES "dmsetup message $LW 0 mark $2-"
	fi >"$W/$2.out" 2>&1
	echo $? >"$W/$2.rc"
}

# the time (CLOCK_REALTIME ns) of the journal's last whole record: every acknowledgement made before
# it was made before the mark that follows (1 when there is none: no acknowledgement counts)
journal_time() {
	local n
	n=$(( $(stat -c %s "$W/journal" 2>/dev/null || echo 0) / 48 ))
	if [ "$n" -lt 1 ]; then echo 1; return; fi
	od -An -t u8 -j $(( (n - 1) * 48 + 32 )) -N 8 "$W/journal" | tr -d ' '
}

# awr stress with qualify --crash's writers; marks st-start, st-jK (the journal's time before
# each) while it runs, st-done after; "NAME CRASH-TIME" lines in $W/jtimes (0: every ack counts)
work_stress() {	# work_stress FAULT
	local k=0 t
	rm -f "$W/journal" "$W/st.rc"
	mark st-start && echo "st-start 1" >"$W/jtimes"
	( if [ -n "$1" ]; then export AWR_STRESS_FAULT=$1; fi
	  "$AWR" stress "$MNT/st" --unit 16k --threads 4 --writes "$stress_writes" --size 4m \
		--journal "$W/journal" --force >"$W/st.out" 2>&1
	  echo $? >"$W/st.rc" ) &
	while [ ! -s "$W/st.rc" ]; do
		sleep 0.3
		t=$(journal_time)
		k=$((k + 1))
		mark "st-j$k" && echo "st-j$k $t" >>"$W/jtimes"
	done
	wait
	mark st-done && echo "st-done 0" >>"$W/jtimes"
}

# record FAULTS: the three at once over dm-log-writes, from mkfs on; the listing's flush points
# in $W/flushes, its marks ("INDEX NAME") in $W/marks. FAULTS: "PAGES-FAULT STRESS-FAULT" or ""
record() {
	local pf=${1%% *} sf=${1#* } w
	devs_up || { echo "loop devices: $(losetup -a 2>&1 | head -n 3)"; return 1; }
	dm "$LW" "0 $sz log-writes $data $logd" || return 1
	TEST_DIR=$W TEST_DEV=/dev/mapper/$LW QA_CHECK_FS=1 mkfs.xfs -f -q -K -l size=16m "/dev/mapper/$LW" ||
		return 1
	mark mkfs && mount -t xfs "/dev/mapper/$LW" "$MNT" || return 1
	head -c 4194304 /dev/zero >"$MNT/st" && sync || return 1	# stress's file, durable before st-start
	if [ -n "$1" ]; then
		# the control: one after the other, so that no other workload's flush (a store's
		# creation, its close) covers the writes a workload acknowledged without a flush
		work_stress "$sf"
		work_pages doublewrite dw 41 "$pf"
		work_pages software sw 43 "$pf"
	else
		work_pages doublewrite dw 41 "$pf" &
		work_pages software sw 43 "$pf" &
		work_stress "$sf"
		wait
	fi
	for w in dw sw st; do cat "$W/$w.out"; done
	umount "$MNT" && dmsetup remove "$LW" || return 1
	"$AWR" replay "$logd" -o json | tr -d ' \n\t' >"$W/list" || return 1
	grep -o '"flush_points":\[[0-9,]*\]' "$W/list" | grep -o '[0-9][0-9]*' >"$W/flushes"
	grep -o '"marks":\[[^]]*\]' "$W/list" | grep -o '{[^}]*}' |
		sed -n 's/.*"name":"\([^"]*\)".*"index":\([0-9]*\).*/\2 \1/p; s/.*"index":\([0-9]*\).*"name":"\([^"]*\)".*/\1 \2/p' \
		>"$W/marks"
}

wl_prefix() { case "$1" in pages_doublewrite) echo dw ;; pages_software) echo sw ;; stress) echo st ;; esac; }
wl_first() { case "$1" in stress) echo st-start ;; *) echo "$(wl_prefix "$1")-created" ;; esac; }
mark_index() { awk -v n="$1" '$2 == n { print $1; exit }' "$W/marks"; }

# the points of the clean run, ascending, from the last workload's first mark: FLUSH_SAMPLE flush
# points spread over the run, MARK_SAMPLE marks, BETWEEN points halfway between two flush points
# (AWR_TEST_LONG=1: every flush point and every mark)
choose_points() {
	local lo=$1
	awk -v lo="$lo" '$1 > lo' "$W/flushes" >"$W/fl"
	awk -v lo="$lo" '$1 >= lo { print $1 }' "$W/marks" >"$W/mk"
	{
		for f in fl mk; do
			n=$FLUSH_SAMPLE; [ $f = mk ] && n=$MARK_SAMPLE
			awk -v n=$n -v all="$long" '{ f[NR] = $1 }
				END { if (all == 1 || NR <= n) { for (i = 1; i <= NR; i++) print f[i]; exit }
					for (i = 0; i < n; i++) print f[1 + int(i * (NR - 1) / (n - 1))] }' "$W/$f"
		done
		awk -v n=$BETWEEN '{ f[NR] = $1 } END { for (i = 1; i <= n; i++) { j = 1 + int(i * (NR - 1) / (n + 1))
			if (j < NR && f[j + 1] - f[j] > 1) print int((f[j] + f[j + 1]) / 2) } }' "$W/fl"
	} | sort -n -u
}

# last_mark P PREFIX: the last mark of the workload at or before entry P
last_mark() { awk -v p="$1" -v x="$2-" '$1 <= p && substr($2, 1, length(x)) == x { m = $2 } END { print m }' "$W/marks"; }

# check_at WORKLOAD P: the state at entry P (mounted on the snapshot) checked; 0 good
check_at() {
	local x m acked
	x=$(wl_prefix "$1")
	m=$(last_mark "$2" "$x")
	case "$1" in
	pages_*)
		acked=1
		case "$m" in "$x"-b*) acked=${m#"$x"-b} ;; esac
		"$PC" replay-check "$RMNT/$x.db" "${1#pages_}" "$([ "$x" = dw ] && echo 41 || echo 43)" "$acked" \
			$((1 + BATCHES)) ;;
	stress) "$AWR" verify "$RMNT/st" --unit 16k --size 4m --journal "$W/journal" \
			--crash-time "$(awk -v m="$m" '$1 == m { print $2 }' "$W/jtimes")" ;;
	esac
}

# replay_points STOP: replay to each point of $W/points in turn onto $rdev, mount a snapshot of it
# (log recovery), check each workload from its first mark on; STOP=1: a workload is checked until
# it first fails. Per workload W: $tried_W, $bad_W, $W/first.W (the first failure: entry, mark,
# what); $why: a failure of the replay itself
replay_points() {
	local p w lo prev=0
	why=
	for w in $WORKLOADS; do eval "tried_$w=0 bad_$w=0"; rm -f "$W/first.$w"; done
	for p in $(cat "$W/points"); do
		ta=$(up)
		if ! "$AWR" replay "$logd" --target "$rdev" --from-entry $((prev + 1)) --to-entry "$p" --force \
			>"$W/replay.out" 2>&1; then
			why="awr replay to entry $p: $(head -c 300 "$W/replay.out" | tr '\n' ' ')"
			return
		fi
		prev=$p
		dm "$RS" "0 $sz snapshot $rdev $cowd N 8" || { why="dm-snapshot at entry $p"; return; }
		tb=$(up)
		mount -t xfs "/dev/mapper/$RS" "$RMNT" 2>"$W/mount.err" || : >"$W/unmounted"
		tc=$(up)
		for w in $WORKLOADS; do
			lo=$(mark_index "$(wl_first "$w")")
			[ -n "$lo" ] && [ "$p" -ge "$lo" ] || continue
			[ "$1" = 1 ] && [ "$(eval echo "\$bad_$w")" -gt 0 ] && continue
			eval "tried_$w=\$((tried_$w + 1))"
			if [ -e "$W/unmounted" ]; then
				r="the XFS does not mount (log recovery): $(head -c 200 "$W/mount.err")"
			elif check_at "$w" "$p" >"$W/check.out" 2>&1; then
				continue
			else
				r=$(grep -v '^  ' "$W/check.out" | grep -m 3 -iE 'fail|lost|torn|error|bad' | tr '\n' ' ')
				sed -n '1,8p' "$W/check.out"
			fi
			eval "bad_$w=\$((bad_$w + 1))"
			[ -s "$W/first.$w" ] ||
				echo "entry $p (after mark $(last_mark "$p" "$(wl_prefix "$w")")): $r" >"$W/first.$w"
		done
		rm -f "$W/unmounted"
		td=$(up)
		umount "$RMNT" 2>/dev/null
		dmsetup remove "$RS" || { why="dmsetup remove $RS at entry $p"; return; }
		echo "$ta $tb $tc $td $(up)" >>"$W/times"
		if [ "$1" = 1 ] && [ "$bad_pages_doublewrite" -gt 0 ] && [ "$bad_pages_software" -gt 0 ] &&
			[ "$bad_stress" -gt 0 ]; then
			return
		fi
	done
}

# first_mark_index [last]: where the first (last) workload's checks begin
first_mark_index() {
	for w in $WORKLOADS; do mark_index "$(wl_first "$w")"; done | sort -n |
		if [ "$1" = last ]; then tail -n 1; else head -n 1; fi
}

# --- main

t0=$(up)
for m in loop dm-log-writes dm-snapshot xfs; do modprobe "$m" 2>/dev/null; done
stress_writes=120	# in long runs too: every flush point of it is replayed then (about 250)

# the clean run
if ! record "" >"$W.rec.out" 2>&1; then
	for w in $WORKLOADS; do
		fail "$w.record" "$(tail -n 4 "$W.rec.out" | tr '\n' ' ')"
		fail "$w.replay" "no log"
	done
	ok=0
else
	cat "$W.rec.out"
	ne=$(grep -o '"nr_entries":[0-9]*' "$W/list" | grep -o '[0-9]*$')
	nf=$(wc -l <"$W/flushes")
	info "recorded entries=$ne flush_points=$nf marks=$(wc -l <"$W/marks") seconds=$(secs "$t0")"
	for w in $WORKLOADS; do
		x=$(wl_prefix "$w") rc=$(cat "$W/$(wl_prefix "$w").rc" 2>/dev/null)
		[ "$w" = stress ] && rc=$(cat "$W/st.rc" 2>/dev/null)
		nm=$(grep -c " $x-" "$W/marks")
		if [ "$rc" = 0 ] && [ "$nm" -ge 3 ] && [ "$nf" -ge $FLUSH_SAMPLE ]; then
			pass "$w.record"
		else
			fail "$w.record" "exit ${rc:-none}, $nm marks of its own, $nf flush points in $ne entries ($FLUSH_SAMPLE needed): $(tail -n 2 "$W/$x.out" | tr '\n' ' ')"
		fi
	done
	# every workload checked at each point (long runs: every point from the first one's start)
	choose_points "$(first_mark_index "$([ "$long" = 1 ] && echo first || echo last)")" >"$W/points"
	t1=$(up)
	replay_points 0
	info "replayed points=$(wc -l <"$W/points") seconds=$(secs "$t1") $(awk '{ r += $2 - $1; m += $3 - $2
		c += $4 - $3; u += $5 - $4 } END { printf "replay=%.0f snapshot_mount=%.0f checks=%.0f umount=%.0f", r, m, c, u }' \
		"$W/times")"
	for w in $WORKLOADS; do
		eval "tried=\$tried_$w bad=\$bad_$w"
		first=$(cat "$W/first.$w" 2>/dev/null)
		info "$w points=$tried failures=$bad"
		if [ -n "$why" ]; then
			fail "$w.replay" "$why (after $tried points)"
		elif [ "$bad" = 0 ] && [ "$tried" -ge $FLUSH_SAMPLE ]; then
			pass "$w.replay"
		else
			fail "$w.replay" "$bad of $tried replay points failed ($FLUSH_SAMPLE needed); first: $first"
		fi
	done
fi

# the negative control: acknowledged without being durable, each workload caught at some mark
t2=$(up)
stress_writes=40
if ! record "nosync:0 nosync:0" >"$W.rec.out" 2>&1; then
	for w in $WORKLOADS; do
		fail "$w.control" "the workloads under nosync:0 failed: $(tail -n 4 "$W.rec.out" | tr '\n' ' ')"
	done
else
	lo=$(first_mark_index)
	awk -v lo="$lo" '$1 >= lo { print $1 }' "$W/marks" >"$W/points"
	replay_points 1
	for w in $WORKLOADS; do
		eval "tried=\$tried_$w bad=\$bad_$w"
		first=$(cat "$W/first.$w" 2>/dev/null)
		info "$w.control fault=nosync:0 points=$tried caught=\"$first\""
		if [ -n "$why" ]; then
			fail "$w.control" "$why"
		elif [ "$bad" -gt 0 ]; then
			pass "$w.control"
		else
			fail "$w.control" "under nosync:0 none of $tried replay points failed: the check cannot see an acknowledged write that was never made durable"
		fi
	done
	info "control seconds=$(secs "$t2")"
fi
cleanup
info "group seconds=$(secs "$t0") kernel=$kv"
exit 0
