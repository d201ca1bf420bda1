#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: Debian's own MariaDB (mariadbd 10.11) with innodb_doublewrite=OFF,
# innodb_flush_method=O_DIRECT and 16 KiB pages, under libatomicwr-preload, on scratch XFS
# (every other start with innodb_use_native_aio=0: the page writes through pwrite, else
# through io_uring)
# (a loop device: XFS's copy-on-write software path). A write workload (multi-row inserts
# and updates in a 8 MiB buffer pool flushed at once, so pages are written all the time),
# then a crash at a random instant: kill -9 of the server, or (every second cycle) an XFS
# shutdown without a log flush, unmount and mount (log recovery); restart (InnoDB crash
# recovery), CHECK TABLE, a clean stop, innochecksum over every tablespace. Must show: no
# corrupt page, and the preload's counters (kept in a shared mapping, so a kill -9 keeps
# them) say every one-page write to a tablespace was made RWF_ATOMIC (none left buffered,
# misaligned or in pieces; none refused). The verdict of awr database on the directory:
# not safe without the preload, guaranteed while the preloaded server runs (found by its
# maps). Negative control: innochecksum must report a page torn by hand (the second half of
# a page overwritten) in a copy of a tablespace.
# What this does not prove: that a plain write would have been torn here (neither a kill -9
# nor a shutdown of XFS on a loop device tears a write sent as one bio); it proves that the
# engine runs, recovers and stays consistent with every page write RWF_ATOMIC.
#
#   with-scratch-xfs.sh mariadb_preload.sh AWR PRELOAD XFS_SHUTDOWN
set -u
awr=$1 preload=$2 shutdown=$3
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
cycles=${AWR_MARIADB_CYCLES:-$([ "${AWR_TEST_LONG:-0}" = 1 ] && echo 10 || echo 2)}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
. "$(dirname "$0")/../integration/scratch_mounts.sh"
fails=0
skip() { echo "SKIP: $*"; exit 77; }
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null ||
	skip "MariaDB is not installed (package mariadb-server)"
command -v innochecksum >/dev/null || skip "innochecksum is not installed (package mariadb-server)"
need_xfs_atomic 16384

w=$(mktemp -d "${TMPDIR:-/tmp}/awr-mariadb.XXXXXX") || exit 2
spid= lpid=
cleanup() {
	[ -n "$lpid" ] && kill "$lpid" 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	exec 8<&-
	rm -rf "$w"
}
trap cleanup EXIT
scratch_hold "$dev" || { echo "cannot open $dev"; exit 2; }
my=$dir/mysql
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

mariadb-install-db --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$my" --user=root --auth-root-authentication-method=normal \
	--skip-test-db --innodb-page-size=16k >"$w/install.log" 2>&1 || { tail -n 20 "$w/install.log"; exit 1; }
"$awr" database "$my" --for innodb -o json >"$w/v.json"
[ "$(json "$w/v.json" 'd["verdict"]')" = "not_safe" ] && ok "verdict without the preload: not safe" ||
	fail "verdict without the preload: $(json "$w/v.json" 'd["verdict"], d["advice"]')"

patterns="$my/*.ibd:$my/ibdata*:$my/undo[0-9]*"
run=0
start() {	# mariadbd under the preload, until its socket answers; its counters in $w/stats.$run
	run=$((run + 1))
	rm -f "$w/sock"
	LD_PRELOAD=$preload_libs AWR_PRELOAD_FILES=$patterns AWR_PRELOAD_PAGE_SIZE=16k AWR_PRELOAD_STATS=$w/stats.$run \
	mariadbd --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$my" --socket="$w/sock" --skip-networking --user=root \
		--innodb-doublewrite=0 --innodb-flush-method=O_DIRECT --innodb-buffer-pool-size=8M \
		--innodb-use-native-aio=$(( (run - 1) / 2 % 2 == 0 )) \
		--innodb-max-dirty-pages-pct=0 --innodb-max-dirty-pages-pct-lwm=0 --innodb-log-file-size=16M \
		>>"$w/server.log" 2>&1 &
	spid=$!
	for _ in $(seq 300); do
		[ -S "$w/sock" ] && mariadb --socket="$w/sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 15 "$w/server.log"
	return 1
}
crash() {	# kill -9 of the server and of any child it started (addr2line, on an I/O error)
	local kids st pid ppid
	kids=$(for st in /proc/[0-9]*/stat; do	# pid (comm) state ppid: comm has no blank here
		read -r pid _ _ ppid _ <"$st" 2>/dev/null && [ "$ppid" = "$spid" ] && echo "$pid"
	done)
	kill -9 "$spid" $kids 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
sql() { mariadb --socket="$w/sock" --batch --skip-column-names "$@"; }
stop() {	# a clean stop: mariadbd exits, the preload's report goes to the server log
	mariadb-admin --socket="$w/sock" shutdown >/dev/null 2>&1 || kill "$spid"
	wait "$spid"
	spid=
}
# the workload: batches of 50-row upserts, until killed
load() {
	python3 - <<'PY' | mariadb --socket="$w/sock" w >/dev/null 2>&1
import random, sys
n = 0
while True:
    rows = ",".join("(%d, REPEAT('%s', 200))" % (random.randrange(20000), chr(65 + random.randrange(26)))
                    for _ in range(50))
    try:
        print("INSERT INTO t (id, v) VALUES %s ON DUPLICATE KEY UPDATE v = VALUES(v), n = n + 1;" % rows, flush=True)
    except BrokenPipeError:
        sys.exit(0)
PY
}
checks() {	# checks WHAT: every tablespace passes innochecksum (the server stopped)
	local f bad=0
	while IFS= read -r -d '' f; do
		innochecksum "$f" >"$w/ic.out" 2>&1 || { fail "$1: innochecksum $f: $(tail -n 3 "$w/ic.out")"; bad=1; }
	done < <(find "$my" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo[0-9]*' \) -print0)
	[ $bad = 0 ] && ok "$1: innochecksum passes every tablespace ($(find "$my" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo[0-9]*' \) | wc -l) files)"
}
counted() {	# counted FILE WHAT: every one-page write made atomic
	"$awr" preload-stats "$1" -o json >"$w/s.json" || { fail "$2: awr preload-stats $1 exited $?"; return; }
	local a p
	a=$(json "$w/s.json" 'd["atomic"]')
	p=$(json "$w/s.json" 'd["plain_buffered"] + d["plain_misaligned"] + d["plain_segments"] + d["plain_position"] + d.get("plain_append", 0) + d["refused"] + d["uring_fixed_files"]')
	echo "$2: counters not zero: $(json "$w/s.json" '" ".join(k + "=" + str(v) for k, v in d.items() if isinstance(v, int) and v and k not in ("pid", "page_size"))')"
	[ "$a" -gt 0 ] && [ "$p" = 0 ] &&
		ok "$2: $a page writes made atomic (pwrite $(json "$w/s.json" 'd["atomic_pwrite"]'), io_uring $(json "$w/s.json" 'd["atomic_uring"]'), libaio $(json "$w/s.json" 'd["atomic_aio"]')), none left as a plain page write; $(json "$w/s.json" 'd["plain_size"]') writes of other sizes" ||
		fail "$2: $a page writes made atomic, $p not (or refused): $("$awr" preload-stats "$1")"
	total_atomic=$((total_atomic + a))
}

total_atomic=0
start || { fail "mariadbd did not start under the preload"; exit 1; }
sql -e "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(255), n INT NOT NULL DEFAULT 0, KEY (v(20))) ENGINE=InnoDB"
sql -e "FLUSH TABLES w.t FOR EXPORT; UNLOCK TABLES"	# the new tablespace's page 0 on disk, for the verdict
"$awr" database "$my" --for innodb -o json >"$w/v.json"
[ "$(json "$w/v.json" 'd["verdict"]')" = guaranteed ] && json "$w/v.json" 'd["atomic_writes_why"]' | grep -q "libatomicwr-preload loaded" &&
	ok "verdict while the preloaded server runs: guaranteed ($(json "$w/v.json" 'd["atomic_writes_why"]'))" ||
	fail "verdict while the preloaded server runs: $(json "$w/v.json" 'd["verdict"], d["atomic_writes_why"]'); $("$awr" database "$my" --for innodb --files)"
for ((c = 1; c <= cycles; c++)); do
	load & lpid=$!
	# InnoDB writes tablespace pages in its own time (the page cleaner): on a loaded machine the
	# random moment below can come before the first one. Wait (up to 60 s) until the server has made
	# a page write atomic (the preload's counters are live in the stats file), then crash at random.
	for ((i = 0; i < 300; i++)); do
		"$awr" preload-stats "$w/stats.$run" -o json >"$w/live.json" 2>/dev/null &&
			[ "$(json "$w/live.json" 'd["atomic"]')" -gt 0 ] && break
		sleep 0.2
	done
	sleep "$(python3 -c 'import random; print(round(random.uniform(1.0, 2.5), 2))')"
	if [ $((c % 2)) = 0 ]; then
		"$shutdown" "$dir" >/dev/null || fail "cycle $c: the XFS shutdown failed"
		crash
		why=$(scratch_remount "$dev" "$dir") || { fail "cycle $c: $why"; break; }
		how="XFS shut down"
	else
		crash
		how="kill -9"
	fi
	kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; lpid=
	counted "$w/stats.$run" "cycle $c (until the $how)"
	start || { fail "cycle $c: mariadbd did not restart after the $how"; break; }
	rows=$(sql -e "SELECT COUNT(*) FROM w.t")
	sql -e "CHECK TABLE w.t EXTENDED" >"$w/check.out"
	grep -q "status	OK" "$w/check.out" && ok "cycle $c ($how): recovered, CHECK TABLE OK, $rows rows" ||
		fail "cycle $c ($how): CHECK TABLE: $(cat "$w/check.out")"
	stop
	counted "$w/stats.$run" "cycle $c (recovery and the clean stop)"
	grep -q "libatomicwr-preload: pid [0-9]*: [0-9]* page writes made atomic" "$w/server.log" ||
		fail "cycle $c: no report at exit in the server log"
	checks "cycle $c ($how)"
	[ $c = "$cycles" ] || start || { fail "cycle $c: mariadbd did not start after the checks"; break; }
done

# negative control: a page torn by hand in a copy is reported
f=$(find "$my/w" -name 't.ibd' 2>/dev/null | head -n 1)
if [ -z "$f" ] || ! cp "$f" "$w/torn.ibd"; then
	fail "control: no tablespace w/t.ibd to tear a page in (${f:-not found})"
	echo "mariadb_preload: $fails failure(s)"; exit 1
fi
python3 - "$w/torn.ibd" <<'PY'
import sys
f = open(sys.argv[1], 'r+b')
f.seek(4 * 16384)
page4 = f.read(16384)
f.seek(3 * 16384 + 8192)
f.write(page4[8192:])	# page 3's second half from page 4: a torn write of page 3
PY
if innochecksum "$w/torn.ibd" >"$w/ic.out" 2>&1; then fail "control: innochecksum passed a page torn by hand"
else ok "control: innochecksum reports the page torn by hand: $(grep -m1 -i 'fail\|corrupt\|mismatch' "$w/ic.out")"; fi
echo "mariadb_preload: $cycles crash cycles, $total_atomic page writes made atomic"
[ "$fails" -eq 0 ] || { echo "mariadb_preload: $fails failure(s)"; exit 1; }
echo "mariadb_preload: all checks passed"
