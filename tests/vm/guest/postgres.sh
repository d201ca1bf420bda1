#!/bin/sh
# SPDX-License-Identifier: MIT
# Description: Debian 13's PostgreSQL 17 (run.sh's /awr/my/pg) with data checksums, 8 KiB pages,
# debug_io_direct=data and full_page_writes=off under libatomicwr-preload, on a device whose
# hardware writes 16 KiB atomically (the NVMe namespace with NAWUPF 16 KiB): XFS with an 8 KiB
# stripe unit and extent size hint, the relation files laid out by awr prepare (aligned extents),
# the hardware path. The cases: the server starts with the preload mapped (/proc/PID/maps) and its
# counters file filling; awr database says guaranteed while it runs; crash cycles at a random
# instant of a write load (pgbench, and a client inserting ids one commit at a time and logging
# each acknowledged commit): an XFS shutdown without a log flush (every odd cycle) and kill -9 of
# the postmaster, unmount and mount (log recovery); restart (WAL recovery), every acknowledged
# commit present, pg_amcheck --heapallindexed over every database, a clean stop, pg_checksums
# --check; the preload's counters (a shared mapping, kept across the kill): relation page writes
# atomic, none left plain, none refused; no relation file block moved on the device (filefrag -v
# before and after each cycle). awr database says not safe, naming why, when the server runs
# without debug_io_direct, and device-implicit (the device's unit covers the page), naming the
# missing preload, when it runs without the preload. Negative control: pg_checksums
# reports a page torn by hand in a copy of a relation file. Before 6.16 XFS takes no 8 KiB
# atomic writes: the preload must refuse to run the server (exit 78, naming a file).
#   postgres.sh DEV UNIT    (DEV: a whole disk of at least 300 MB whose atomic unit_max UNIT
#                            covers the 8 KiB page)
#   postgres.sh --bench DEV UNIT ROUNDS SECONDS CLIENTS   (not a test: bench/guest_postgres.sh)
# --bench: pgbench (the data directory's scale, CLIENTS clients, SECONDS a run) in three
# configurations on the same files, ROUNDS in alternating order, a fresh server per run: stock
# (buffered, full_page_writes=on), direct (debug_io_direct=data, full_page_writes=on), atomic
# (debug_io_direct=data under the preload, full_page_writes=off); shared_buffers 128 MB (the
# working set, loaded by pg_prewarm at the start of each run), checkpoint_timeout=30s.
# INFO bench_postgres.run lines: TPS, p99 latency (the per-transaction log), WAL bytes and
# full-page images per transaction (pg_stat_wal, reset at the start of each run), checkpoints,
# atomic and plain page writes (which were left plain), relation blocks moved.
# Prints PASS/FAIL/SKIP NAME lines and INFO lines; leaves DEV without a filesystem signature.
bench=0
[ "${1:-}" = --bench ] && { bench=1; shift; }
dev=$1 unit=$2
shift 2
AWR=${AWR:-/awr/awr}
pg=/awr/my/pg
pgbin=$pg/usr/lib/postgresql/17/bin
mnt=/mnt/pg
data=$mnt/data
w=/tmp/pg
page=8192
cycles=1	# the test run's short form: the cycle ends in an XFS shutdown and a kill -9
[ "${AWR_TEST_LONG:-0}" = 1 ] && cycles=4
# the relation files (base/DB/REL[_fsm|_vm][.SEG], global/REL, tablespaces'), not pg_control,
# pg_filenode.map, PG_VERSION or base/pgsql_tmp (written buffered, not PostgreSQL's data pages)
files="$data/base/*/[0-9]*:$data/global/[0-9]*:$data/pg_tblspc/*/PG_*/*/[0-9]*"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() {	# check NAME STATUS WHY...: PASS when STATUS is 0, else FAIL with the words of WHY
	cn=$1 cs=$2
	shift 2
	if [ "$cs" = 0 ]; then pass "$cn"; else fail "$cn" "$*"; fi
}
cases() {
	[ $multi = 0 ] && { echo xfs.refused; return; }
	echo xfs.start xfs.preload_mapped xfs.verdict_preloaded
	c=1
	while [ $c -le $cycles ]; do
		echo "xfs.c$c.atomic xfs.c$c.recovered xfs.c$c.committed xfs.c$c.amcheck xfs.c$c.stop_atomic xfs.c$c.checksums"
		c=$((c + 1))
	done
	echo xfs.in_place xfs.verdict_no_direct xfs.verdict_no_preload xfs.torn_control
}
skip_all() {
	for c in $(cases); do echo "SKIP $c: $1"; done
	exit 0
}
kv=$(uname -r)
maj=${kv%%.*} rest=${kv#*.} min=${rest%%[!0-9]*}
multi=1	# XFS takes multi-block atomic writes (8 KiB pages) from 6.16; before, the preload refuses
if [ "$maj" -lt 6 ] || { [ "$maj" = 6 ] && [ "$min" -lt 16 ]; }; then multi=0; fi
if ! [ -x $pgbin/postgres ] || ! [ -d $pg/data ]; then
	[ $bench = 1 ] && { echo "FAIL bench_postgres: no PostgreSQL in the guest (run.sh pg_bundle)"; exit 1; }
	# run.sh packs it whenever nvme_nawupf3 runs: its absence is the rig's failure
	for c in $(cases); do echo "FAIL $c: no PostgreSQL in the guest ($pgbin/postgres, $pg/data: run.sh pg_bundle)"; done
	exit 1
fi
t0=$(date +%s)
tl=$t0
lap() {	# lap WHAT: the seconds since the last lap (the script's time in the serial log)
	echo "INFO postgres.sh time: $1 $(( $(date +%s) - tl )) s"
	tl=$(date +%s)
}
spid= lpid= apid=
owner=$(cat $pg/owner)
cleanup() {
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	pg_gone
	umount "$mnt" 2>/dev/null
}
trap cleanup EXIT
modprobe crc32c_generic 2>/dev/null
modprobe xfs 2>/dev/null
mkdir -p "$mnt" "$w" /etc
chown "$owner" "$w"
# initdb refuses root, and so does the server: the tree's postgres user
grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/root:/bin/sh' >>/etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >>/etc/group
grep -q '^postgres:' /etc/passwd || echo "postgres:x:${owner%:*}:${owner#*:}:PostgreSQL:/tmp/pg:/bin/sh" >>/etc/passwd
grep -q '^postgres:' /etc/group || echo "postgres:x:${owner#*:}:" >>/etc/group

# pgrun PROG ARGS: a program of the tree's PostgreSQL with its libraries; pgsu: as user postgres
pgrun() { p=$1; shift; LD_LIBRARY_PATH=$pg/lib "$pgbin/$p" "$@"; }
pgsu() { p=$1; shift; LD_LIBRARY_PATH=$pg/lib su -p -s /bin/sh -c 'exec "$0" "$@"' -- postgres "$pgbin/$p" "$@"; }
sql() { pgrun psql -X -h $w -U postgres -d postgres -v ON_ERROR_STOP=1 -Atq "$@"; }

# place: a fresh XFS on DEV (stripe unit and extent size hints of the page: every extent the
# files get stays aligned on the device) with the data directory copied in; from 6.16 the relation
# files of 64 KiB and more (pgbench's tables and indexes, the larger catalogs) into files made by
# awr prepare (a process a file takes a fraction of a second under TCG, and the directory holds
# about a thousand files: the small ones get their extents from the hint and the stripe unit)
place() {
	mkfs.xfs -f -q -d su=$page,sw=1,agcount=4 "$dev" >$w/mkfs 2>&1 || return 1
	mount -t xfs "$dev" "$mnt" >>$w/mkfs 2>&1 || return 1
	(cd $pg/data && find . -type d) | while read -r d; do
		mkdir -p "$data/$d"
		xfs_io -c "extsize $page" "$data/$d"
	done
	tar -C $pg/data -cf - . | tar -C "$data" -xf - || return 1
	[ $multi = 1 ] && (cd $pg/data && find ./base ./global -type f -name '[0-9]*' -size +63k) | while read -r f; do
		$AWR prepare "$data/$f.awr" --size "$(stat -c %s "$pg/data/$f")" --unit $page >/dev/null 2>&1 &&
			dd if="$pg/data/$f" of="$data/$f.awr" bs=1M conv=notrunc 2>/dev/null && mv -f "$data/$f.awr" "$data/$f"
		rm -f "$data/$f.awr"
	done
	chown -R "$owner" "$mnt" && chmod 700 "$data" && sync
}
# pg_pids: the processes of user postgres (the postmaster and its children)
pg_pids() {
	awk -v u="${owner%:*}" '$1 == "Uid:" && $2 == u { split(FILENAME, p, "/"); print p[3] }' \
		/proc/[0-9]*/status 2>/dev/null
}
pg_gone() {	# wait (up to 30 s) for every server process to end, then kill what is left
	i=0
	while [ -n "$(pg_pids)" ] && [ $i -lt 150 ]; do usleep 200000; i=$((i + 1)); done
	for p in $(pg_pids); do kill -9 "$p" 2>/dev/null; done
	usleep 200000
}
run=0
# start CFG: the server until psql gets an answer; the preload's counters in $w/stats.$run.
# CFG: crash (the cycles: small shared buffers, a busy background writer), stock, direct and
# atomic (the bench), no_direct and no_preload (the verdict's two negative cases)
start() {
	run=$((run + 1))
	pl=$pg/lib/libatomicwr-preload.so fpw=off dio=data
	case $1 in
	crash|no_direct|no_preload) set -- "$1" -c shared_buffers=2MB -c bgwriter_delay=10ms -c bgwriter_lru_maxpages=1000 \
		-c bgwriter_lru_multiplier=10 -c max_wal_size=32MB ;;
	*) set -- "$1" -c shared_buffers=128MB ;;
	esac
	case $1 in
	stock) pl= fpw=on dio= ;;
	direct) pl= fpw=on ;;
	no_direct) dio= ;;
	no_preload) pl= ;;
	esac
	shift
	LD_PRELOAD=$pl AWR_PRELOAD_FILES="$files" AWR_PRELOAD_PAGE_SIZE=8k AWR_PRELOAD_STATS=$w/stats.$run \
	LD_LIBRARY_PATH=$pg/lib su -p -s /bin/sh -c 'exec "$0" "$@"' -- postgres $pgbin/postgres -D "$data" \
		-c listen_addresses= -c unix_socket_directories=$w -c jit=off \
		-c dynamic_shared_memory_type=sysv -c max_connections=20 -c checkpoint_timeout=30s \
		-c full_page_writes=$fpw -c debug_io_direct=$dio "$@" >>$w/server.log 2>&1 &
	spid=$!
	i=0
	while [ $i -lt 600 ]; do	# up to 120 s: WAL recovery under TCG takes seconds
		sql -c 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$spid" 2>/dev/null || break
		usleep 200000
		i=$((i + 1))
	done
	tail -n 8 $w/server.log | tr '\n' ' '
	return 1
}
crash() {	# kill -9 of the postmaster; its children notice and end (pg_gone)
	kill -9 "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	pg_gone
}
stop() {	# a fast shutdown (SIGINT): a shutdown checkpoint, the preload's report in the server log
	kill -INT "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	pg_gone
}
# verdict NAME WANT NEEDLE: awr database's verdict on the data directory (NEEDLE an extended
# regular expression the report must match, case-insensitive)
verdict() {
	$AWR database "$data" --for postgresql >$w/db.out 2>&1
	got=$(sed -n 's/^verdict: //p' $w/db.out)
	[ "$got" = "$2" ] && { [ -z "$3" ] || grep -qiE -- "$3" $w/db.out; }
	check "$1" $? "verdict '$got', expected '$2'${3:+ naming '$3'}: $(tr '\n' ' ' <$w/db.out | cut -c1-900)"
}
# stat_of FILE KEY: one counter of the preload's counters file (awr preload-stats -o json)
stat_of() { $AWR preload-stats "$1" -o json 2>/dev/null | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" | head -n 1; }
# counted NAME FILE: relation page writes made atomic, none left plain, none refused
counted() {
	$AWR preload-stats "$2" >$w/s.out 2>&1
	a=$(stat_of "$2" atomic) p=$(stat_of "$2" plain) r=$(stat_of "$2" refused)
	[ "${a:-0}" -gt 0 ] && [ "${p:-1}" = 0 ] && [ "${r:-1}" = 0 ]
	check "$1" $? "${a:-?} page writes made atomic, ${p:-?} left plain, ${r:-?} refused: $(tr '\n' ' ' <$w/s.out)"
	echo "INFO $1: $(head -n 1 $w/s.out | sed 's/^[^:]*: //');" \
		"$(awk '/^ / && $2 > 0 { printf "%s %s ", $1, $2 }' $w/s.out)"
}
# blockmap: "FILE LOGICAL PHYSICAL" of every mapped block of every relation file (filefrag -v)
blockmap() {	# one filefrag for every file (a process each would take minutes under TCG)
	find "$data/base" "$data/global" -type f -name '[0-9]*' | xargs filefrag -v 2>/dev/null |
		awk '/^File size of / { f = $4 } /^ *[0-9]+: / { gsub(/\.\./, " "); gsub(/:/, " ");
			for (i = 0; i <= $3 - $2; i++) print f, $2 + i, $4 + i }'
}
moved_of() {	# moved_of NOW PREV: "MOVED COMPARED" blocks
	awk 'NR == FNR { a[$1 " " $2] = $3; next } ($1 " " $2) in a { n++; if (a[$1 " " $2] != $3) m++ }
		END { print m + 0, n + 0 }' "$1" "$2"
}
# the client: one insert a commit, each id printed by psql once the server acknowledged its commit
acked_load() {
	awk -v s="$1" 'BEGIN { for (i = s; ; i++) { print "INSERT INTO acked VALUES (" i ") RETURNING id;"; fflush() } }' |
		sql >>$w/acked 2>/dev/null
}

# p99 (ms) of pgbench's per-transaction logs on stdin (the third field: the latency in us)
p99() { awk '{ print $3 }' | sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < NR * 0.99) i++
	printf "%.1f", v[i] / 1000 }'; }
per_tx() { awk -v a="$1" -v t="$2" -v f="$3" 'BEGIN { printf f, t ? a / t : 0 }'; }
# bench_run ROUND CFG CLIENTS SECONDS: one pgbench run on a fresh server, its INFO line
bench_run() {
	blockmap >$w/map.prev
	start "$2" || { echo "FAIL bench_postgres: the server ($2) did not start"; exit 1; }
	# the working set in shared_buffers before the run, in every configuration: with direct I/O a
	# cold server would read each page from the device, without readahead
	sql -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "SELECT sum(pg_prewarm(oid)) FROM pg_class
		WHERE relname LIKE 'pgbench%' AND relkind IN ('r', 'i')" >/dev/null
	sql -c "SELECT pg_stat_reset_shared('wal'); SELECT pg_stat_reset_shared('checkpointer')" >/dev/null
	rm -f $w/pgl.*
	(cd $w && pgrun pgbench -n -h $w -U postgres -c "$3" -T "$4" --log --log-prefix=pgl postgres) >$w/run.log 2>&1 ||
		{ echo "FAIL bench_postgres: pgbench: $(tail -n 3 $w/run.log | tr '\n' ' ')"; exit 1; }
	set -- "$1" "$2" $(sql -F ' ' -c "SELECT wal_bytes, wal_fpi FROM pg_stat_wal") \
		$(sql -c "SELECT num_timed + num_requested FROM pg_stat_checkpointer")
	stop
	blockmap >$w/map.now
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' $w/run.log)
	atomic=- plain=- why=
	if [ "$2" = atomic ]; then
		atomic=$(stat_of $w/stats.$run atomic) plain=$(stat_of $w/stats.$run plain)
		# which writes were left plain (plain_segments: a pwritev of several pages)
		why=$($AWR preload-stats $w/stats.$run | awk '$1 ~ /^plain_/ && $2 > 0 { printf "%s%s:%s", n++ ? "," : "", $1, $2 }')
	fi
	echo "INFO bench_postgres.run round=$1 config=$2 tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' $w/run.log)" \
		"p99_ms=$(cat $w/pgl.* | p99) tx=$tx wal_bytes_per_tx=$(per_tx "$3" "$tx" %.0f)" \
		"fpi_per_tx=$(per_tx "$4" "$tx" %.3f) checkpoints=$5 atomic_writes=$atomic" \
		"plain_writes=$plain${why:+ plain_why=$why}" \
		"moved_blocks=$(moved_of $w/map.now $w/map.prev | cut -d' ' -f1)"
}
if [ $bench = 1 ]; then
	rounds=$1 seconds=$2 clients=$3
	place || { echo "FAIL bench_postgres: no XFS on $dev: $(head -n 3 $w/mkfs)"; exit 1; }
	start stock || { echo "FAIL bench_postgres: the server did not start"; exit 1; }
	echo "INFO bench_postgres setup kernel=$kv postgres=$(pgrun postgres -V | awk '{ print $3 }') fs=xfs su=$page" \
		"scale=$(sql -c "SELECT count(*) / 100000 FROM pgbench_accounts") clients=$clients seconds=$seconds" \
		"shared_buffers=128MB checkpoint_timeout=30s data=$(du -sm "$data/base" | cut -f1)MiB"
	stop
	r=1
	while [ $r -le "$rounds" ]; do
		# each configuration leads once in three rounds
		case $((r % 3)) in
		1) order="stock direct atomic" ;; 2) order="direct atomic stock" ;; 0) order="atomic stock direct" ;;
		esac
		for cfg in $order; do bench_run $r $cfg "$clients" "$seconds"; done
		r=$((r + 1))
	done
	echo "PASS bench_postgres.rounds"
	umount "$mnt"
	dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
	exit 0
fi

if ! place; then
	for c in $(cases); do fail "$c" "no XFS on $dev: $(head -n 4 $w/mkfs | tr '\n' ' ')"; done
	exit 0
fi
lap place
: >$w/server.log
if [ $multi = 0 ]; then
	# the files cannot take 8 KiB atomic writes here: the preload does not run the server
	start crash >/dev/null
	wait "$spid"
	rc=$? spid=
	pg_gone
	[ $rc = 78 ] && grep -q "libatomicwr-preload: $data/.* cannot take atomic writes of 8192 bytes" $w/server.log
	check xfs.refused $? "postgres under the preload on Linux $kv: exit $rc (78 expected, naming a file of" \
		"$data): $(tail -n 3 $w/server.log | tr '\n' ' ')"
	grep -m 1 'libatomicwr-preload' $w/server.log | sed 's/^/INFO server log: /'
	umount "$mnt"
	dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
	echo "INFO postgres.sh: $(( $(date +%s) - t0 )) s"
	exit 0
fi
if ! start crash; then
	why=$(tail -n 6 $w/server.log | tr '\n' ' ')
	for c in $(cases); do fail "$c" "postgres did not start under the preload: $why"; done
	exit 0
fi
pass xfs.start
sql -c "CREATE TABLE acked (id int PRIMARY KEY)"
# the preload in the postmaster (its children are forks of it) and its counters filling
sql -c "CHECKPOINT"
grep -q 'libatomicwr-preload' /proc/$spid/maps && [ "$(stat_of $w/stats.$run atomic)" -gt 0 ] 2>/dev/null
check xfs.preload_mapped $? "postmaster $spid: preload mapped $(grep -c 'libatomicwr-preload' /proc/$spid/maps)" \
	"times, counters: $($AWR preload-stats $w/stats.$run 2>&1 | head -n 1)"
echo "INFO xfs.preload_mapped: $(grep -m 1 'libatomicwr-preload' /proc/$spid/maps | awk '{ print $NF }')"
verdict xfs.verdict_preloaded guaranteed
echo "INFO xfs.verdict_preloaded: the postmaster is process $spid ($(tr '\0' ' ' </proc/$spid/cmdline | cut -c1-80))"
blockmap >$w/map.prev
lap start
moved=0 compared=0 next=1
: >$w/acked
c=1
while [ $c -le $cycles ]; do
	(cd $w && pgrun pgbench -n -h $w -U postgres -c 2 -T 3600 postgres) >$w/pgbench.log 2>&1 & lpid=$!
	acked_load $next & apid=$!
	# the background writer and the backends write pages as the small buffer pool fills: wait
	# (up to 60 s) for 100 atomic page writes of the load, then crash 1.0-2.5 s later
	base=$(stat_of $w/stats.$run atomic)
	i=0
	while [ $i -lt 300 ] && [ "$(stat_of $w/stats.$run atomic)" -lt $((base + 100)) ]; do usleep 200000; i=$((i + 1)); done
	usleep "$(awk 'BEGIN { srand(); print int(1000000 + rand() * 1500000) }')"
	if [ $((c % 2)) = 1 ]; then
		xfs_io -x -c "shutdown" "$mnt" >/dev/null 2>&1 || fail xfs.c$c.recovered "xfs_io shutdown failed"
		crash
		how="XFS shut down without a log flush, kill -9 of the postmaster"
		umount "$mnt" 2>/dev/null || { sleep 3; umount "$mnt"; }
		mount -t xfs "$dev" "$mnt" || fail xfs.c$c.recovered "the mount after the shutdown failed"
	else
		crash
		how="kill -9 of the postmaster"
	fi
	kill "$lpid" "$apid" 2>/dev/null; wait "$lpid" "$apid" 2>/dev/null; lpid= apid=
	lap "c$c load and crash"
	counted xfs.c$c.atomic $w/stats.$run
	if ! start crash; then
		fail xfs.c$c.recovered "postgres did not restart after the $how: $(tail -n 6 $w/server.log | tr '\n' ' ')"
		break
	fi
	grep -qE 'redo done|database system was not properly shut down|was interrupted' $w/server.log
	check xfs.c$c.recovered $? "no WAL recovery in the server log after the $how: $(tail -n 6 $w/server.log | tr '\n' ' ')"
	# every commit the client saw acknowledged is there
	sql -c "SELECT id FROM acked" >$w/present
	n=$(grep -c '^[0-9]' $w/acked)
	awk 'NR == FNR { p[$1] = 1; next } /^[0-9]+$/ && !($1 in p)' $w/present $w/acked >$w/missing
	[ "$n" -gt 0 ] && ! [ -s $w/missing ]
	check xfs.c$c.committed $? "$n commits acknowledged, $(wc -l <$w/missing) missing after recovery" \
		"(first: $(head -n 3 $w/missing | tr '\n' ' '))"
	next=$(( $(sort -n $w/present | tail -n 1) + 1000 ))
	echo "INFO xfs.c$c: $how; recovered; $n commits acknowledged, all present ($(wc -l <$w/present) rows)"
	lap "c$c recovery"
	pgrun pg_amcheck -h $w -U postgres --install-missing --heapallindexed --all >$w/amcheck.out 2>&1
	check xfs.c$c.amcheck $? "pg_amcheck --heapallindexed --all: $(head -n 6 $w/amcheck.out | tr '\n' ' ')"
	lap "c$c pg_amcheck"
	stop
	counted xfs.c$c.stop_atomic $w/stats.$run
	pgsu pg_checksums --check -D "$data" >$w/ck.out 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q 'Bad checksums: *0' $w/ck.out
	check xfs.c$c.checksums $? "pg_checksums --check exit $rc: $(tr '\n' ' ' <$w/ck.out | cut -c1-600)"
	echo "INFO xfs.c$c.checksums: $(grep -E 'Blocks scanned|Bad checksums' $w/ck.out | tr '\n' ' ')"
	blockmap >$w/map.now
	set -- $(moved_of $w/map.now $w/map.prev)
	moved=$((moved + $1)) compared=$((compared + $2))
	mv $w/map.now $w/map.prev
	lap "c$c stop, pg_checksums, filefrag"
	[ $c = $cycles ] || start crash || { fail xfs.c$c.checksums "postgres did not start after the checks"; break; }
	c=$((c + 1))
done
# the hardware path: every block the relation files had before a cycle is where it was after it
# (the software path, copy-on-write, moves every block it writes)
[ $moved = 0 ] && [ $compared -gt 0 ]
check xfs.in_place $? "$moved of $compared relation file blocks moved on the device during the cycles"
echo "INFO xfs.in_place: $moved of $compared relation file blocks moved (filefrag -v before and after each cycle)"
# the verdict's negative cases: buffered writes (no debug_io_direct), and no preload
for cfg in no_direct no_preload; do
	if start $cfg; then
		case $cfg in
		no_direct) verdict xfs.verdict_no_direct "not safe" 'debug_io_direct|page cache' ;;
		# direct I/O without the preload: PostgreSQL 17 writes runs of pages in one pwritev
		# (smgrwritev()), and the namespace's unit covers one write, not each page of a longer
		# one: not safe, naming it (the preload makes each page one atomic write)
		no_preload) verdict xfs.verdict_no_preload "not safe" 'several pages in one pwritev' ;;
		esac
		stop
	else
		fail xfs.verdict_$cfg "postgres ($cfg) did not start: $(tail -n 4 $w/server.log | tr '\n' ' ')"
	fi
done
lap "verdict cases"
# negative control: a page torn by hand (block 1's second half from block 3) in a copy of
# pgbench_accounts' file, under a relfilenode no relation has
f=$(find "$data/base" -type f -name '[0-9]*' -size +64k | head -n 1)
copy=$(dirname "$f")/999999
if [ -n "$f" ] && cp "$f" "$copy"; then
	dd if="$f" of="$copy" bs=4096 skip=7 seek=3 count=1 conv=notrunc 2>/dev/null
	chown "$owner" "$copy"
	pgsu pg_checksums --check -D "$data" -f 999999 >$w/ck.out 2>&1
	rc=$?
	[ $rc != 0 ] && grep -q 'checksum verification failed in file.*999999", block 1' $w/ck.out
	check xfs.torn_control $? "pg_checksums on a page torn by hand: exit $rc: $(tr '\n' ' ' <$w/ck.out | cut -c1-400)"
	rm -f "$copy"
else
	fail xfs.torn_control "no relation file of 64 KiB or more to tear a page in"
fi
grep 'libatomicwr-preload' $w/server.log | tail -n 2 | sed 's/^/INFO server log: /'
rm -f $w/stats.*
umount "$mnt"
dd if=/dev/zero of="$dev" bs=1M count=1 conv=fsync 2>/dev/null
echo "INFO postgres.sh: $(( $(date +%s) - t0 )) s"
exit 0
