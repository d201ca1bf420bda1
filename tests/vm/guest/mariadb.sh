#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: Debian 12's MariaDB 10.11 (the host's mariadbd, run.sh's /awr/my) with
# innodb_doublewrite=OFF, innodb_flush_method=O_DIRECT and 16 KiB pages, under
# libatomicwr-preload, on a device whose hardware writes 16 KiB atomically (the NVMe namespace
# with NAWUPF 16 KiB): XFS with the data directory's files laid out by awr prepare (aligned
# extents) and ext4 bigalloc with 16 KiB clusters, the hardware path. On each: the verdict of awr
# database before the server runs (device-implicit: the engine asks for nothing), while the
# preloaded server runs (guaranteed: found by its maps, its environment naming every data file
# with its page size, its counters clean), the data directory reached through a symlink
# (/var/lib/mysql, as the preload is configured in the README); then crash cycles at a random instant of
# a write workload (multi-row upserts, an 8 MiB buffer pool flushed at once): kill -9 of the
# server, on XFS every odd cycle after a shutdown of the filesystem without a log flush
# (unmount, mount: log recovery); restart (InnoDB crash recovery), CHECK TABLE, a clean stop,
# innochecksum over every tablespace, and the preload's counters (a shared mapping, kept across
# the kill): every one-page tablespace write made RWF_ATOMIC, none left plain, none refused.
# InnoDB writes its pages through io_uring on XFS and through pwrite on ext4
# (innodb_use_native_aio=0). Before 6.16 the preload must refuse to run the server (exit 78).
# Negative control: innochecksum reports a page torn by hand in a copy of the table.
#   mariadb.sh DEV UNIT [FS...]   (DEV: a whole disk of at least 300 MB, unit_max UNIT = 16384;
#                                  FS: xfs ext4, both by default)
#   mariadb.sh --bench DEV UNIT ROUNDS SECONDS   (not a test: bench/guest_mariadb.sh)
# --bench: what turning the doublewrite buffer off buys on the hardware path: sysbench
# oltp_write_only (the host's, packed by run.sh when AWR_VM_ONLY names bench_mariadb) on XFS,
# innodb_doublewrite=ON against OFF under the preload, the same durability
# (innodb_flush_log_at_trx_commit=1, O_DIRECT), ROUNDS in alternating order, a fresh server per
# run on the same data; INFO bench_mariadb lines with each run's TPS, p99 and atomic page writes.
# Prints PASS/FAIL/SKIP NAME lines and INFO lines; leaves DEV without a filesystem signature.
bench=0
[ "${1:-}" = --bench ] && { bench=1; shift; }
dev=$1 unit=$2
shift 2
fslist=${*:-xfs ext4}
AWR=${AWR:-/awr/awr}
my=/awr/my
mnt=/mnt/my
data=$mnt/data
link=/var/lib/mysql	# the server and awr reach the data directory through a symlink, as is common
w=/tmp/my
cycles=1	# the test run's short form: on XFS the cycle ends in a filesystem shutdown
[ "${AWR_TEST_LONG:-0}" = 1 ] && cycles=6
cfg=crash	# the server's configuration: crash (the cycles), on (doublewrite ON), atomic (OFF + preload)

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
cases() {	# the case names of one filesystem
	echo "$1.verdict_plain"
	[ $multi = 0 ] && { echo "$1.refused"; return; }
	echo "$1.start $1.verdict_preloaded"
	c=1
	while [ $c -le $cycles ]; do
		echo "$1.c$c.atomic $1.c$c.recovered $1.c$c.stop_atomic $1.c$c.innochecksum"
		c=$((c + 1))
	done
	echo "$1.in_place $1.verdict_after $1.torn_control"
}
skip_all() {
	for fs in $fslist; do for c in $(cases $fs); do echo "SKIP $c: $1"; done; done
	exit 0
}
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
multi=1	# XFS and ext4 take multi-block atomic writes (16 KiB) from 6.16; before, the preload refuses
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then multi=0; fi
[ $bench = 1 ] && ! [ -x $my/run ] && { echo "FAIL bench_mariadb: no MariaDB in the guest (package mariadb-server)"; exit 1; }
[ -x $my/run ] && [ -d $my/data ] ||
	skip_all "no MariaDB in the guest (run.sh packs the host's: package mariadb-server)"
t0=$(date +%s)
spid= lpid=
cleanup() {
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	sleep 1
	umount "$mnt" 2>/dev/null
}
trap cleanup EXIT
modprobe crc32c_generic 2>/dev/null	# 6.12: XFS and ext4 ask the crypto API for crc32c
modprobe xfs 2>/dev/null
modprobe ext4 2>/dev/null
mkdir -p "$mnt" "$w" /etc /var/lib
ln -sfn "$data" "$link"
# mariadbd --user=root looks the user up
grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/root:/bin/sh' >>/etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >>/etc/group

# place FS: a fresh filesystem on DEV with the data directory copied in (on XFS into files made
# by awr prepare, every extent aligned to the unit on the device, and an extent size hint of the
# unit on the directories for the files InnoDB makes)
place() {
	if [ "$1" = xfs ]; then mkfs.xfs -f -q -d su=$unit,sw=1,agcount=4 "$dev" >$w/mkfs 2>&1
	else mkfs.ext4 -F -q -b 4096 -C 16384 -O bigalloc "$dev" >$w/mkfs 2>&1; fi || return 1
	mount -t "$1" "$dev" "$mnt" >>$w/mkfs 2>&1 || return 1
	(cd $my/data && find . -type d) | while read -r d; do
		mkdir -p "$data/$d"
		[ "$1" = xfs ] && xfs_io -c "extsize $unit" "$data/$d"
	done
	(cd $my/data && find . -type f) | while read -r f; do
		if [ "$1" = xfs ] && $AWR prepare "$data/$f" --size "$(stat -c %s "$my/data/$f")" --unit "$unit" >/dev/null 2>&1; then
			dd if="$my/data/$f" of="$data/$f" bs=1M conv=notrunc 2>/dev/null
		else
			cp "$my/data/$f" "$data/$f"
		fi
	done
	sync
}
# verdict NAME WANT [NEEDLE]: awr database's verdict on the data directory
verdict() {
	$AWR database "$link" --for innodb >$w/db.out 2>&1
	got=$(sed -n 's/^verdict: //p' $w/db.out)
	[ "$got" = "$2" ] && { [ -z "$3" ] || grep -q -- "$3" $w/db.out; }
	check "$1" $? "verdict '$got', expected '$2'${3:+ naming '$3'}: $(tr '\n' ' ' <$w/db.out | cut -c1-900)"
}
run=0
start() {	# mariadbd ($cfg) until the client gets an answer; the preload's counters in $w/stats.$run
	run=$((run + 1))
	rm -f $w/sock
	case $cfg in
	crash) set -- --innodb-doublewrite=0 --innodb-buffer-pool-size=8M --innodb-max-dirty-pages-pct=0 \
		--innodb-max-dirty-pages-pct-lwm=0 ;;
	on) set -- --innodb-doublewrite=1 --innodb-buffer-pool-size=16M --innodb-flush-log-at-trx-commit=1 ;;
	atomic) set -- --innodb-doublewrite=0 --innodb-buffer-pool-size=16M --innodb-flush-log-at-trx-commit=1 ;;
	esac
	# the preload for OFF (crash, atomic); ON runs without it (LD_PRELOAD empty)
	pl=$my/lib/libatomicwr-preload.so
	[ $cfg = on ] && pl=
	LD_PRELOAD=$pl AWR_PRELOAD_FILES="$link/*.ibd:$link/*/*.ibd:$link/ibdata*:$link/undo[0-9]*" \
	AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.$run \
	$my/run mariadbd --no-defaults --datadir="$link" --socket=$w/sock --skip-networking --user=root \
		--tmpdir=/tmp --lc-messages-dir=$my/share/mysql --character-sets-dir=$my/share/mysql/charsets \
		--innodb-flush-method=O_DIRECT --innodb-log-file-size=16M --innodb-use-native-aio=$aio \
		--performance-schema=0 --skip-log-bin "$@" >>$w/server.log 2>&1 &
	spid=$!
	i=0
	while [ $i -lt 600 ]; do	# up to 120 s: a TCG guest starts mariadbd in seconds, recovery takes longer
		[ -S $w/sock ] && sql -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$spid" 2>/dev/null || break
		usleep 200000
		i=$((i + 1))
	done
	tail -n 8 $w/server.log | tr '\n' ' '
	return 1
}
sql() { $my/run mariadb --socket=$w/sock --batch --skip-column-names "$@"; }
crash() {	# kill -9 of the server
	kill -9 "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
stop() {	# a clean stop (SIGTERM): the preload's report at exit goes to the server log
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
# the workload: batches of 50-row upserts until the server goes away
load() {
	awk 'BEGIN { srand(); for (;;) { s = "INSERT INTO t (id, v) VALUES ";
		for (i = 0; i < 50; i++) { s = s (i ? "," : "") sprintf("(%d, REPEAT(\x27%c\x27, 200))", int(rand() * 20000), 65 + int(rand() * 26)) }
		print s " ON DUPLICATE KEY UPDATE v = VALUES(v), n = n + 1;"; fflush() } }' |
		sql w >/dev/null 2>&1
}
stat_of() { $AWR preload-stats "$1" 2>/dev/null | awk -v k="$2" '$1 == k { print $2 }'; }
# counted NAME FILE: every one-page write to a named file made atomic, none left plain or refused
counted() {
	$AWR preload-stats "$2" >$w/s.out 2>&1
	a=$(sed -n 's/.* \([0-9]*\) page writes made atomic.*/\1/p' $w/s.out)
	p=$(awk '$1 ~ /^(plain_buffered|plain_misaligned|plain_segments|plain_position|refused|uring_fixed_files|files_refused)$/ { n += $2 }
		END { print n + 0 }' $w/s.out)
	[ "${a:-0}" -gt 0 ] && [ "$p" = 0 ]
	check "$1" $? "$a page writes made atomic, $p not (or refused): $(tr '\n' ' ' <$w/s.out)"
	[ "${a:-0}" -gt 0 ] && [ "$p" = 0 ] && echo "INFO $1: $a page writes made atomic (pwrite $(stat_of "$2" atomic_pwrite), io_uring $(stat_of "$2" atomic_uring), libaio $(stat_of "$2" atomic_aio)), $(stat_of "$2" plain_size) writes of other sizes"
}
# blockmap: "FILE LOGICAL PHYSICAL" of every mapped block of every tablespace (filefrag -v)
blockmap() {
	for f in $(find "$data" -name '*.ibd' -o -name 'ibdata*' -o -name 'undo[0-9]*'); do
		filefrag -v "$f" 2>/dev/null | awk -v f="$f" '/^ *[0-9]+: / { gsub(/\.\./, " "); gsub(/:/, " ");
			for (i = 0; i <= $3 - $2; i++) print f, $2 + i, $4 + i }'
	done
}
innocheck() {	# innocheck NAME: innochecksum passes every tablespace (the server stopped)
	n=0 bad=
	for f in $(find "$data" -name '*.ibd' -o -name 'ibdata*' -o -name 'undo[0-9]*'); do
		n=$((n + 1))
		$my/run innochecksum "$f" >$w/ic.out 2>&1 || bad="$bad $f: $(tail -n 2 $w/ic.out | tr '\n' ' ')"
	done
	[ -z "$bad" ] && [ $n -gt 0 ]
	check "$1" $? "innochecksum over $n files:$bad"
}

if [ $bench = 1 ]; then
	rounds=$1 seconds=$2
	aio=1
	sb() { LUA_PATH="$my/share/sysbench/?.lua" $my/run sysbench $my/share/sysbench/oltp_write_only.lua --db-driver=mysql --mysql-socket=$w/sock --mysql-user=root \
		--mysql-db=sb --tables=4 --table-size=20000 --threads=4 "$@"; }
	[ -x $my/bin/sysbench ] || { echo "FAIL bench_mariadb: no sysbench in the guest (run.sh packs the host's: package sysbench)"; exit 1; }
	place xfs || { echo "FAIL bench_mariadb: no XFS on $dev: $(head -n 3 $w/mkfs)"; exit 1; }
	cfg=on
	start || { echo "FAIL bench_mariadb: mariadbd did not start"; exit 1; }
	sql -e 'CREATE DATABASE sb'
	sb prepare >$w/prepare.log 2>&1 || { echo "FAIL bench_mariadb: sysbench prepare: $(tail -n 3 $w/prepare.log)"; exit 1; }
	stop
	echo "INFO bench_mariadb setup kernel=$(uname -r) mariadb=$($my/run mariadbd --version | awk '{ print $3 }') $($my/run sysbench --version) fs=xfs su=$unit tables=4x20000 threads=4 seconds=$seconds buffer_pool=16M"
	r=1
	while [ $r -le "$rounds" ]; do
		order="on atomic"
		[ $((r % 2)) = 0 ] && order="atomic on"
		for cfg in $order; do
			blockmap >$w/map.prev
			start || { echo "FAIL bench_mariadb: mariadbd ($cfg) did not start"; exit 1; }
			sb run --time="$seconds" --percentile=99 >$w/run.log 2>&1 || { echo "FAIL bench_mariadb: sysbench run: $(tail -n 3 $w/run.log)"; exit 1; }
			stop
			blockmap >$w/map.now
			atomic=-
			[ $cfg = atomic ] && atomic=$(stat_of $w/stats.$run atomic_uring)
			echo "INFO bench_mariadb.run round=$r config=$cfg tps=$(awk '/transactions:/ { gsub(/\(/, "", $3); print $3 }' $w/run.log) p99_ms=$(awk '/99th percentile:/ { print $3 }' $w/run.log) atomic_writes=$atomic moved_blocks=$(awk 'NR == FNR { a[$1 " " $2] = $3; next } ($1 " " $2) in a && a[$1 " " $2] != $3 { m++ } END { print m + 0 }' $w/map.now $w/map.prev)"
		done
		r=$((r + 1))
	done
	echo "PASS bench_mariadb.rounds"
	umount "$mnt"
	exit 0
fi

for fs in $fslist; do
	aio=1	# InnoDB's page writes through io_uring on XFS, through pwrite on ext4
	[ $fs = ext4 ] && aio=0
	if ! place $fs; then
		for c in $(cases $fs); do fail "$c" "no $fs on $dev: $(head -n 4 $w/mkfs | tr '\n' ' ')"; done
		umount "$mnt" 2>/dev/null
		continue
	fi
	verdict $fs.verdict_plain device-implicit "writes 16384-byte pages atomically"
	: >$w/server.log
	if [ $multi = 0 ]; then
		# the files cannot take 16 KiB atomic writes here: the preload does not run the server
		start >/dev/null
		wait "$spid"
		rc=$? spid=
		[ $rc = 78 ] && grep -q "libatomicwr-preload: .*cannot take atomic writes of 16384 bytes" $w/server.log
		check $fs.refused $? "mariadbd under the preload on Linux $kv: exit $rc (78 expected): $(tail -n 3 $w/server.log | tr '\n' ' ')"
		grep -m 1 'libatomicwr-preload' $w/server.log | sed 's/^/INFO server log: /'
		umount "$mnt"
		continue
	fi
	if ! start; then
		for c in $(cases $fs); do [ $c = $fs.verdict_plain ] || fail "$c" "mariadbd did not start under the preload: $(tail -n 6 $w/server.log | tr '\n' ' ')"; done
		umount "$mnt" 2>/dev/null
		continue
	fi
	pass $fs.start
	sql -e "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(255), n INT NOT NULL DEFAULT 0, KEY (v(20))) ENGINE=InnoDB; FLUSH TABLES w.t FOR EXPORT; UNLOCK TABLES"
	verdict $fs.verdict_preloaded guaranteed "libatomicwr-preload loaded"
	blockmap >$w/map.prev
	moved=0 compared=0
	c=1
	while [ $c -le $cycles ]; do
		load & lpid=$!
		# the page cleaner writes in its own time: wait (up to 60 s) for a first atomic page
		# write, then crash 1.0-2.5 s later
		i=0
		while [ $i -lt 300 ] && [ "$(stat_of $w/stats.$run atomic_uring)$(stat_of $w/stats.$run atomic_pwrite)" = 00 ]; do
			usleep 200000; i=$((i + 1))
		done
		usleep "$(awk 'BEGIN { srand(); print int(1000000 + rand() * 1500000) }')"
		if [ $fs = xfs ] && [ $((c % 2)) = 1 ]; then
			xfs_io -x -c "shutdown" "$mnt" >/dev/null 2>&1 || fail $fs.c$c.recovered "xfs_io shutdown failed"
			crash
			how="XFS shut down"
			sleep 1
			umount "$mnt" 2>/dev/null || { sleep 3; umount "$mnt"; }
			mount -t xfs "$dev" "$mnt" || fail $fs.c$c.recovered "the mount after the shutdown failed"
		else
			crash
			how="kill -9"
		fi
		kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; lpid=
		counted $fs.c$c.atomic $w/stats.$run
		if ! start; then
			fail $fs.c$c.recovered "mariadbd did not restart after the $how: $(tail -n 6 $w/server.log | tr '\n' ' ')"
			break
		fi
		rows=$(sql -e "SELECT COUNT(*) FROM w.t")
		sql -e "CHECK TABLE w.t EXTENDED" >$w/check.out 2>&1
		grep -q "status	OK" $w/check.out
		check $fs.c$c.recovered $? "CHECK TABLE after the $how: $(cat $w/check.out)"
		echo "INFO $fs.c$c: $how, recovered with $rows rows"
		stop
		counted $fs.c$c.stop_atomic $w/stats.$run
		innocheck $fs.c$c.innochecksum
		# the blocks the tablespaces had before the cycle, after it (the file grows between)
		blockmap >$w/map.now
		set -- $(awk 'NR == FNR { a[$1 " " $2] = $3; next } ($1 " " $2) in a { n++; if (a[$1 " " $2] != $3) m++ }
			END { print m + 0, n + 0 }' $w/map.now $w/map.prev)
		moved=$((moved + $1)) compared=$((compared + $2))
		mv $w/map.now $w/map.prev
		[ $c = $cycles ] || start || { fail $fs.c$c.innochecksum "mariadbd did not start after the checks"; break; }
		c=$((c + 1))
	done
	# the hardware path: every block the tablespaces had before a cycle is where it was after it
	# (the software path, copy-on-write, moves every block it writes: fsview.sh shows one move)
	[ $moved = 0 ] && [ $compared -gt 0 ]
	check $fs.in_place $? "$moved of $compared tablespace blocks moved on the device during the cycles"
	echo "INFO $fs.in_place: $moved of $compared tablespace blocks moved (filefrag -v before and after each cycle)"
	# the files InnoDB wrote stay aligned on the device: the engine's plain writes would still be whole
	verdict $fs.verdict_after device-implicit "writes 16384-byte pages atomically"
	# negative control: a page torn by hand (page 3's second half from page 4) in a copy
	f=$data/w/t.ibd
	if [ -f "$f" ] && cp "$f" $w/torn.ibd; then
		dd if="$f" of=$w/torn.ibd bs=8192 skip=9 seek=7 count=1 conv=notrunc 2>/dev/null
		$my/run innochecksum $w/torn.ibd >$w/ic.out 2>&1
		[ $? != 0 ]
		check $fs.torn_control $? "innochecksum passed a page torn by hand"
	else
		fail $fs.torn_control "no tablespace w/t.ibd to tear a page in"
	fi
	grep -m 3 'libatomicwr-preload' $w/server.log | sed 's/^/INFO server log: /'
	rm -f $w/stats.* $w/torn.ibd
	umount "$mnt"
done
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
echo "INFO mariadb.sh: $(( $(date +%s) - t0 )) s"
exit 0
