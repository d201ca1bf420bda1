#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr database --for postgresql against Debian 12's PostgreSQL 15 on scratch XFS, and
# against PostgreSQL's own reading. PostgreSQL 15 writes through the page cache: one decisive "not
# safe" line naming that 15 has no direct I/O, nothing about alignment or mkfs under it, stopped and
# running (its descriptors read); full_page_writes as `postgres -C` reads it (ALTER SYSTEM, an
# include file, the command line over both); data checksums as pg_controldata reads them (initdb
# with and without -k); a tablespace's relation files judged and named, WAL and SLRU directories
# skipped with why. PostgreSQL 16+ cannot run here, so debug_io_direct=data is shown on a copy made
# to say 17 (PG_VERSION), no server: configured, the files get the per-file judgement (not safe on
# the loop device, guaranteed with the preload's configuration and --atomic-writes: statx takes
# 8 KiB atomic writes on XFS); the running state wins over the configuration, the command line over
# the files, and 15 over a debug_io_direct it does not have.
#
#   with-scratch-xfs.sh db_postgres.sh AWR
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
[ -x "$pgbin/initdb" ] || skip "PostgreSQL is not installed (package postgresql)"
id postgres >/dev/null 2>&1 || skip "no postgres user (package postgresql creates it; initdb refuses root)"
[ "$("$pgbin/postgres" -V | sed 's/.* \([0-9]*\)\..*/\1/')" -lt 16 ] ||
	skip "PostgreSQL 16+ installed: this test is written for a 15 (no direct I/O)"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-dbpg.XXXXXX") || exit 2
hold= fake=
cleanup() {
	[ -n "$hold" ] && kill "$hold" 2>/dev/null
	[ -n "$fake" ] && kill "$fake" 2>/dev/null
	[ -f "$pg/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$pg" -m immediate stop >/dev/null 2>&1
	rm -rf "$w"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
# as postgres, from / (the test's own directory may be one postgres cannot enter)
as_pg() { (cd / && su postgres -s /bin/sh -c 'exec "$0" "$@"' -- "$@"); }
db() { local out=$1; shift; "$awr" database "$@" --for postgresql -o json >"$out" 2>"$out.err"; }
# the server runs as postgres, which must reach the scratch mount (its parent is root's, 0700)
run=$w/run	# the server's socket and log
chmod 711 "$w" "$(dirname "$dir")" && mkdir -p "$dir/pg" "$dir/ts" "$run" && chown postgres "$dir/pg" "$dir/ts" "$run" ||
	exit 2
pg=$dir/pg/k
as_pg "$pgbin/initdb" -k -D "$pg" >"$w/initdb.log" 2>&1 || { cat "$w/initdb.log"; exit 1; }
as_pg "$pgbin/initdb" -D "$dir/pg/n" >"$w/initdb.log" 2>&1 || { cat "$w/initdb.log"; exit 1; }
start() {	# start [ARGS]: the server on $pg, its socket in $w
	as_pg "$pgbin/pg_ctl" -D "$pg" -l "$run/server.log" -w -o "-c listen_addresses= -c unix_socket_directories=$run $*" \
		start >/dev/null 2>&1 || { tail -n 5 "$run/server.log"; return 1; }
}
stop() { as_pg "$pgbin/pg_ctl" -D "$pg" -w stop >/dev/null 2>&1; }
sql() { as_pg "$pgbin/psql" -X -h "$run" -d postgres -v ON_ERROR_STOP=1 -Atq "$@"; }
# the one line every file gives when PostgreSQL writes through the page cache
decisive() {	# decisive JSON WORDS: the verdict, one reason per file, the same, naming WORDS, no noise
	json "$1" 'd["verdict"] == "not_safe" and not d["direct_io"] and not d["conditions"] and
		len(set(tuple(f["reasons"]) for f in d["files"])) == 1 and len(d["files"][0]["reasons"]) == 1 and
		"page-cache writeback does not keep a page whole" in d["files"][0]["reasons"][0] and
		"debug_io_direct=data (PostgreSQL 16+) under libatomicwr-preload" in d["files"][0]["reasons"][0] and
		"'"$2"'" in d["files"][0]["reasons"][0] and
		not any(k in r for f in d["files"] for r in f["reasons"] for k in ("mkfs", "aligned", "extent",
			"atomic unit", "stripe", "sysfs", "statx"))' | grep -q True
}

# ---- a stock cluster, stopped: the one decisive line, the skipped directories, checksums
db "$w/k.json" "$pg"
rc=$?
decisive "$w/k.json" "PostgreSQL 15 has no direct I/O for data files" && [ "$rc" = 1 ] &&
	json "$w/k.json" 'd["direct_io_from"]' | grep -q "^PostgreSQL 15 (PG_VERSION) has no direct I/O for data files; 16+ has debug_io_direct=data$" &&
	[ "$(json "$w/k.json" 'd["engine_version"]')" = 15 ] &&
	ok "stock 15, stopped: one line for $(json "$w/k.json" 'len(d["files"])') files: $(json "$w/k.json" 'd["files"][0]["reasons"][0]')" ||
	fail "stock 15, stopped: exit $rc, $(head -c 1200 "$w/k.json")"
"$awr" database "$pg" --for postgresql >"$w/k.txt"
[ "$(sed -n '/^reasons:/,/^[a-z]/p' "$w/k.txt" | grep -c '^  - ')" = 1 ] && ! grep -qi "mkfs\|aligned" "$w/k.txt" &&
	grep -q "^verdict: not safe$" "$w/k.txt" && ok "stock 15 text: one reason line, no alignment or mkfs line" ||
	fail "stock 15 text: $(cat "$w/k.txt")"
for d in pg_wal pg_xact pg_multixact pg_subtrans; do
	json "$w/k.json" '"\n".join(d["skipped"])' | grep -q "^$d/: .*not relation pages" ||
		fail "$d not skipped with why: $(json "$w/k.json" 'd["skipped"]')"
done
json "$w/k.json" '[f["path"] for f in d["files"] if not f["path"].split("/")[-1][0].isdigit()]' | grep -qx '\[\]' &&
	ok "WAL and SLRU skipped with why ($(json "$w/k.json" 'len(d["skipped"])') lines), only relation files judged" ||
	fail "files that are not relation files judged: $(json "$w/k.json" '[f["path"] for f in d["files"]][:20]')"
for c in k n; do
	want=$("$pgbin/pg_controldata" "$dir/pg/$c" | sed -n 's/^Data page checksum version: *//p')
	db "$w/c.json" "$dir/pg/$c"
	got=$(json "$w/c.json" 'd["data_checksum_version"]')
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "initdb $([ $c = k ] && echo -k || echo 'without -k'):" \
		"data_checksum_version $got (pg_controldata: $want)" || fail "checksums of $c: awr $got, pg_controldata $want"
done

# ---- full_page_writes as PostgreSQL itself reads it: postgres -C
fpw_cmp() {	# fpw_cmp WHAT WANT-FROM [-c ...]: awr's protection against postgres -C
	local what=$1 from=$2 pgv awrv
	shift 2
	pgv=$(as_pg "$pgbin/postgres" -C full_page_writes -D "$pg" "$@" 2>"$w/C.err")
	db "$w/f.json" "$pg"
	awrv=$(json "$w/f.json" '{True: "on", False: "off", None: "?"}[d["protection"]]')
	[ "$pgv" = "$awrv" ] && json "$w/f.json" 'd["protection_from"]' | grep -q -- "$from" &&
		ok "full_page_writes $what: awr $awrv, postgres -C $pgv ($(json "$w/f.json" 'd["protection_from"]' | cut -c1-110))" ||
		fail "full_page_writes $what: awr $awrv, postgres -C $pgv ($(head -c 300 "$w/C.err")):" \
			"$(json "$w/f.json" 'd["protection_from"]')"
}
fpw_cmp "by default" "on by default"
start || exit 1
sql -c "ALTER SYSTEM SET full_page_writes = off" -c "SELECT pg_reload_conf()" >/dev/null
stop
fpw_cmp "by ALTER SYSTEM" "postgresql.auto.conf:"
grep -q WARNING "$w/f.json.err" && json "$w/f.json" 'd["warning"]' | grep -q "configuration sets full_page_writes OFF" &&
	ok "configured off where a page can tear: a warning, on stderr too" || fail "no warning: $(cat "$w/f.json.err")"
sed -i '/full_page_writes/d' "$pg/postgresql.auto.conf"
echo "full_page_writes = off" >"$pg/fpw.conf"
echo "include 'fpw.conf'" >>"$pg/postgresql.conf"
fpw_cmp "in an include file" "fpw.conf:1"

# ---- the running server, a tablespace, a session holding its relation files open
start -c full_page_writes=on || exit 1
sql -c "CREATE TABLESPACE ts LOCATION '$dir/ts'" -c "CREATE TABLE t (i int, s text) TABLESPACE ts" \
	-c "INSERT INTO t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g" -c "CHECKPOINT"
tf=$(sql -c "SELECT pg_relation_filepath('t')")
bf=$(sql -c "SELECT pg_relation_filepath('pg_class')")
sql -c "SELECT count(*) FROM t" -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
hold=$!
for _ in $(seq 300); do ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q "$dir/ts/.*/${tf##*/}$" && break; sleep 0.1; done
pm=$(head -n 1 "$pg/postmaster.pid")
db "$w/r.json" "$pg"
rc=$?
decisive "$w/r.json" "PostgreSQL 15 has no direct I/O for data files" && [ "$rc" = 1 ] &&
	[ "$(json "$w/r.json" 'd["server_pid"]')" = "$pm" ] &&
	json "$w/r.json" 'd["direct_io_from"]' | grep -q "^process [0-9]* holds [0-9]* relation files open without O_DIRECT" &&
	ok "running 15 (postmaster $pm): $(json "$w/r.json" 'd["direct_io_from"]')" ||
	fail "running 15: exit $rc, postmaster $pm, $(head -c 1500 "$w/r.json")"
json "$w/r.json" '[f["path"] for f in d["files"]]' | grep -q "'$tf'" && case $tf in pg_tblspc/*/PG_15_*/*/[0-9]*) true ;; *) false ;; esac &&
	ok "the tablespace's relation file $tf judged" ||
	fail "$tf (pg_relation_filepath) not among the files: $(json "$w/r.json" '[f["path"] for f in d["files"] if "tblspc" in f["path"]]')"
# the command line wins over postgresql.conf's include: postgres -C with the same option agrees
fpw_cmp "on the command line over the files" "full_page_writes=on on process $pm's command line" -c full_page_writes=on
kill "$hold" 2>/dev/null
wait "$hold" 2>/dev/null
hold=
stop

# ---- PostgreSQL 16+'s debug_io_direct, configured: a copy that says 17, no server
c=$dir/pg/c17
cp -a "$pg" "$c" && echo 17 >"$c/PG_VERSION" && rm -f "$c/fpw.conf" && sed -i '/fpw.conf/d' "$c/postgresql.conf" || exit 2
conf() { sed -i '/^debug_io_direct/d' "$c/postgresql.conf"; [ -z "$1" ] || echo "debug_io_direct = '$1'" >>"$c/postgresql.conf"; }
pats="$c/base/*/[0-9]*:$c/global/[0-9]*:$c/pg_tblspc/*/PG_*/*/[0-9]*"
conf data
db "$w/d.json" "$c"
rc=$?
[ "$rc" = 1 ] && [ "$(json "$w/d.json" 'd["direct_io"]')" = True ] &&
	json "$w/d.json" 'd["direct_io_from"]' | grep -q "^debug_io_direct = 'data' at $c/postgresql.conf:[0-9]* (as configured" &&
	json "$w/d.json" '"writes nothing atomically" in " ".join(d["files"][0]["reasons"]) and
		not any("page-cache writeback" in r for f in d["files"] for r in f["reasons"]) and
		all(any("writes several pages in one pwritev" in r for r in f["reasons"]) for f in d["files"])' |
	grep -q True &&
	ok "debug_io_direct = 'data' configured (17, no server): per-file judgement, not safe (the loop" \
		"device; 17's multi-page writes without the preload)" ||
	fail "debug_io_direct data: exit $rc, $(head -c 1500 "$w/d.json")"
AWR_PRELOAD_FILES=$pats AWR_PRELOAD_PAGE_SIZE=8k db "$w/g.json" "$c" --atomic-writes
rc=$?
[ "$rc" = 0 ] && [ "$(json "$w/g.json" 'd["verdict"]')" = guaranteed ] &&
	json "$w/g.json" 'd["advice"]' | grep -qF "AWR_PRELOAD_FILES='$pats' AWR_PRELOAD_PAGE_SIZE=8k" &&
	json "$w/g.json" 'any(f["path"].startswith("pg_tblspc/") for f in d["files"])' | grep -q True &&
	ok "... with the preload's configuration and --atomic-writes: guaranteed, the advice's patterns those" ||
	fail "debug_io_direct data + preload: exit $rc, $(head -c 1500 "$w/g.json")"
AWR_PRELOAD_FILES="$c/base/*/[0-9]*:$c/global/[0-9]*" AWR_PRELOAD_PAGE_SIZE=8k db "$w/t.json" "$c" --atomic-writes
[ "$(json "$w/t.json" 'd["verdict"]')" = "not_safe" ] &&
	json "$w/t.json" '[f["reasons"][0] for f in d["files"] if f["path"] == "'"$tf"'"][0]' | grep -q "no pattern of AWR_PRELOAD_FILES" &&
	ok "a tablespace no pattern names: not safe, $tf named" || fail "tablespace not named: $(head -c 1000 "$w/t.json")"
conf 'wal, wal_init'
AWR_PRELOAD_FILES=$pats AWR_PRELOAD_PAGE_SIZE=8k db "$w/x.json" "$c" --atomic-writes
decisive "$w/x.json" "debug_io_direct='wal, wal_init' has no 'data'" &&
	ok "debug_io_direct = 'wal, wal_init': buffered, the one line" || fail "wal only: $(head -c 1200 "$w/x.json")"
conf data
echo 15 >"$c/PG_VERSION"
AWR_PRELOAD_FILES=$pats AWR_PRELOAD_PAGE_SIZE=8k db "$w/v.json" "$c" --atomic-writes
decisive "$w/v.json" "PostgreSQL 15 has no direct I/O" &&
	ok "debug_io_direct = 'data' in a 15's configuration: 15 has none, the one line" || fail "15 with data: $(head -c 1200 "$w/v.json")"
echo 17 >"$c/PG_VERSION"

# the running state wins: a process holding a relation file open, O_DIRECT or not, against the files
holder() {	# holder FLAGS [FILE]: a process holding FILE ($bf, pg_class's) of the copy open with FLAGS
	local f=${2:-$bf}
	python3 -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY | int(sys.argv[2])); time.sleep(60)' \
		"$c/$f" "$1" &
	hold=$!
	for _ in $(seq 300); do ls -l /proc/$hold/fd 2>/dev/null | grep -q " $c/$f$" && break; sleep 0.1; done
}
conf wal
holder "$(python3 -c 'import os; print(os.O_DIRECT)')"
db "$w/h.json" "$c"
[ "$(json "$w/h.json" 'd["direct_io"]')" = True ] &&
	json "$w/h.json" 'd["direct_io_from"]' | grep -q "^process $hold holds 1 relation files open with O_DIRECT" &&
	ok "configured wal, a process holding a relation file O_DIRECT: $(json "$w/h.json" 'd["direct_io_from"]')" ||
	fail "running state O_DIRECT: $(head -c 800 "$w/h.json")"
kill "$hold"; wait "$hold" 2>/dev/null
conf data
holder 0
db "$w/h.json" "$c"
decisive "$w/h.json" "process $hold has its relation files open without O_DIRECT" &&
	ok "configured data, a process holding a relation file without O_DIRECT: the one line" ||
	fail "running state buffered: $(head -c 800 "$w/h.json")"
kill "$hold"; wait "$hold" 2>/dev/null
holder 0 global/pg_control	# not a relation file: no running state, the configuration decides
db "$w/h.json" "$c"
[ "$(json "$w/h.json" 'd["direct_io"]')" = True ] && json "$w/h.json" 'd["direct_io_from"]' | grep -q "^debug_io_direct = 'data'" &&
	ok "configured data, a process holding only global/pg_control: the configuration decides" ||
	fail "pg_control held: $(json "$w/h.json" 'd["direct_io_from"]')"
kill "$hold"; wait "$hold" 2>/dev/null
hold=

# the postmaster's command line wins over the files (postmaster.pid names it, its directory the copy)
postmaster() {	# postmaster ARGS...: a stand-in with ARGS on its command line, in the copy
	bash -c 'cd "$0" && sleep 60; :' "$c" "$@" &
	fake=$!
	echo "$fake" >"$c/postmaster.pid"
	for _ in $(seq 300); do [ "$(readlink /proc/$fake/cwd)" = "$c" ] && break; sleep 0.1; done
}
conf wal
postmaster -c debug_io_direct=data -c full_page_writes=off
db "$w/p.json" "$c"
[ "$(json "$w/p.json" 'd["direct_io"], d["protection"], d["server_pid"]')" = "True False $fake" ] &&
	json "$w/p.json" 'd["direct_io_from"]' | grep -q "debug_io_direct=data on process $fake's command line" &&
	ok "-c debug_io_direct=data on the postmaster's command line over the file's wal" ||
	fail "command line data: $(json "$w/p.json" 'd["direct_io"], d["protection"], d["server_pid"]') (fake $fake)" \
		"$(json "$w/p.json" 'd["direct_io_from"], d["protection_from"]')"
kill "$fake"; wait "$fake" 2>/dev/null
conf data
postmaster --debug-io-direct=wal
db "$w/p.json" "$c"
decisive "$w/p.json" "debug_io_direct='wal' has no 'data'" &&
	ok "--debug-io-direct=wal on the command line over the file's data: the one line" ||
	fail "command line wal: $(head -c 800 "$w/p.json")"
kill "$fake"; wait "$fake" 2>/dev/null
fake=
rm -f "$c/postmaster.pid"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
