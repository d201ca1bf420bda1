#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr database (and awr qualify DATADIR --for ENGINE) on real data directories made by
# Debian's own engines on scratch XFS: a PostgreSQL 15 cluster (initdb) and MariaDB 10.11 InnoDB
# directories (mariadb-install-db, 16 KiB and 8 KiB pages). The page size is read from the engine's
# files and must equal the engine's own reading (pg_controldata's "Database block size", the
# --innodb-page-size given at install); the verdicts: PostgreSQL not safe (buffered writes: one
# line; more in db_postgres.sh), InnoDB not safe without atomic writes (the loop device below has
# none), guaranteed with them (XFS takes RWF_ATOMIC page writes). Negative controls: a tablespace whose page 0 was damaged is named as
# unknown; the same directory copied to tmpfs is not safe even with atomic writes (statx: none); a
# wrong --for and a directory of neither engine are refused. Without --for the engine is the one
# whose files the directory holds (the same report as with it); mariadb, mysql, postgres and pg
# are the engines' names too; a directory with neither engine's files or both is refused, naming
# the --for to give. A not safe or unknown verdict says what to do (text and JSON). The directories are only read: every
# file's size, mtime and inode are the same after, and no file was added.
#
#   with-scratch-xfs.sh db_verdict.sh AWR
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
[ -x "$pgbin/initdb" ] || skip "PostgreSQL is not installed (package postgresql: initdb makes the test's cluster)"
command -v mariadb-install-db >/dev/null || skip "MariaDB is not installed (package mariadb-server: mariadb-install-db)"
id postgres >/dev/null 2>&1 || skip "no postgres user (package postgresql creates it; initdb refuses root)"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-db.XXXXXX") || exit 2
shm=
spid=
cleanup() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$w"
	[ -n "$shm" ] && umount "$shm" 2>/dev/null && rmdir "$shm"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
snapshot() { find "$1" -printf '%P %s %T@ %i\n' | sort; }

# ---- PostgreSQL 15: 8 KiB pages, buffered writes: not safe
# initdb runs as postgres, which cannot reach the scratch mount (under a root-only directory): the
# cluster is made in a directory of its own and copied in (cp -a: the same files, new extents)
pg=$dir/pg
mkdir -p "$pg" "$w/pg" && chown postgres "$w/pg" && chmod 711 "$w"
su postgres -s /bin/sh -c "$pgbin/initdb -D $w/pg/data" >"$w/initdb.log" 2>&1 || { cat "$w/initdb.log"; exit 1; }
cp -a "$w/pg/data" "$pg/data" || exit 2
want=$("$pgbin/pg_controldata" "$pg/data" | sed -n 's/^Database block size: *//p')
snapshot "$pg/data" >"$w/pg.before"
"$awr" database "$pg/data" --for postgresql -o json >"$w/pg.json"
rc=$?
snapshot "$pg/data" >"$w/pg.after"
got=$(json "$w/pg.json" 'd["page_size"]')
[ "$rc" = 1 ] && [ "$got" = "$want" ] && [ "$(json "$w/pg.json" 'd["verdict"]')" = "not_safe" ] &&
	json "$w/pg.json" 'all(f["reasons"] == d["files"][0]["reasons"] for f in d["files"]) and
		len(d["files"][0]["reasons"]) == 1 and "page-cache writeback" in d["files"][0]["reasons"][0]' |
	grep -q True &&
	ok "PostgreSQL: page size $got (pg_controldata: $want), not safe: buffered writes, one line, exit $rc" ||
	fail "PostgreSQL: exit $rc, page size $got (pg_controldata: $want), verdict $(json "$w/pg.json" 'd["verdict"]')"
cmp -s "$w/pg.before" "$w/pg.after" && ok "PostgreSQL: the directory only read" ||
	fail "PostgreSQL: the directory changed: $(diff "$w/pg.before" "$w/pg.after" | head -5)"
"$awr" database "$pg/data" --for postgresql >"$w/pg.txt"
grep -q "^advice: Keep full_page_writes=on" "$w/pg.txt" && grep -q "^verdict: not safe$" "$w/pg.txt" &&
	ok "PostgreSQL text: $(grep '^advice' "$w/pg.txt")" || fail "PostgreSQL text: $(cat "$w/pg.txt")"
# not safe says what would make it safe: one sentence, the report's and each not-safe file's
grep -q "^what to do: Run PostgreSQL 16+ with debug_io_direct=data under libatomicwr-preload" \
	"$w/pg.txt" && json "$w/pg.json" 'd["what_to_do"].endswith(".") and all(f["what_to_do"] ==
		d["what_to_do"] for f in d["files"])' | grep -q True &&
	ok "PostgreSQL not safe: $(grep '^what to do' "$w/pg.txt")" ||
	fail "PostgreSQL: no what to do: $(grep -c what_to_do "$w/pg.json") keys; $(tail -3 "$w/pg.txt")"

# durable_condition DATADIR JSON: the last condition against the scratch loop device's queue/write_cache
wcq=/sys/block/${AWR_SCRATCH_DEV#/dev/}/queue
wc_orig=$(cat "$wcq/write_cache" 2>/dev/null)
trap '[ -n "$wc_orig" ] && echo "$wc_orig" >"$wcq/write_cache"; cleanup' EXIT
durable_condition() {
	local last want other
	last=$(json "$2" 'd["conditions"][-1]')
	want="the engine's fsync/O_DSYNC is still needed: ${AWR_SCRATCH_DEV#/dev/} has a volatile write cache (write back"
	[ "$wc_orig" = "write through" ] && want="the engine's fsync/O_DSYNC is still needed: RWF_ATOMIC only forbids tearing"
	case "$last" in
	"$want"*) ok "guaranteed, with the condition: $last" ;;
	*) fail "the durability condition, $wc_orig: $(json "$2" 'd["conditions"]')" ;;
	esac
	other="write through"
	[ "$wc_orig" = "write through" ] && other="write back"
	echo "$other" >"$wcq/write_cache" 2>/dev/null || { fail "cannot write $wcq/write_cache"; return; }
	"$awr" qualify "$1" --for innodb --atomic-writes -o json >"$w/wc.json"
	echo "$wc_orig" >"$wcq/write_cache"
	last=$(json "$w/wc.json" 'd["conditions"][-1]')
	case "$other: $last" in
	"write through: "*"reports write through (no volatile cache)"|"write back: "*"(write back, FUA "*)
		ok "$other written: the condition follows: $last" ;;
	*) fail "$other written: the condition did not follow: $last" ;;
	esac
}

# ---- MariaDB InnoDB, 16 KiB and 8 KiB pages
for ps in 16384 8192; do
	my=$dir/my$ps
	mariadb-install-db --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$my" --user=root --auth-root-authentication-method=normal \
		--skip-test-db --innodb-page-size=$ps >"$w/install.log" 2>&1 || { tail -n 20 "$w/install.log"; exit 1; }
	snapshot "$my" >"$w/my.before"
	"$awr" database "$my" --for innodb -o json >"$w/my.json"
	rc=$?
	got=$(json "$w/my.json" 'd["page_size"]')
	sizes=$(json "$w/my.json" '" ".join(sorted(set(str(f["page_size"]) for f in d["files"])))')
	[ "$rc" = 1 ] && [ "$got" = "$ps" ] && [ "$sizes" = "$ps" ] &&
		[ "$(json "$w/my.json" 'd["verdict"]')" = "not_safe" ] &&
		json "$w/my.json" '"writes nothing atomically" in " ".join(d["files"][0]["reasons"])' | grep -q True &&
		ok "InnoDB $ps: page size $got in every file, not safe without atomic writes (the loop device has none)" ||
		fail "InnoDB $ps: exit $rc, page size $got (files: $sizes), verdict $(json "$w/my.json" 'd["verdict"]')"
	# the extents a growing file gets: the scratch XFS has no stripe unit (xfs_info: sunit=0)
	su=$(xfs_info "$dir" | sed -n 's/.*sunit=\([0-9]*\).*/\1/p' | head -n 1)
	[ "$su" = 0 ] && [ "$(json "$w/my.json" 'd["files"][0]["grow_align"]')" = None ] &&
		json "$w/my.json" '"at any 4096-byte block (no stripe unit)" in " ".join(d["files"][0]["reasons"])' | grep -q True &&
		ok "InnoDB $ps: no stripe unit (xfs_info sunit=$su), named as a reason" ||
		fail "InnoDB $ps: xfs_info sunit=$su, grow_align $(json "$w/my.json" 'd["files"][0]["grow_align"], d["files"][0]["reasons"]')"
	# the same under atomic writes (the preload): the kernel enforces it, XFS takes the pages
	"$awr" qualify "$my" --for innodb --atomic-writes -o json >"$w/my.json"
	rc=$?
	[ "$rc" = 0 ] && [ "$(json "$w/my.json" 'd["verdict"]')" = "guaranteed" ] &&
		json "$w/my.json" 'all(f["statx_atomic"] and f["unit_min"] <= '"$ps"' <= f["unit_max"] and f["by_provider"] is False for f in d["files"])' |
		grep -q True && ok "InnoDB $ps with atomic writes (awr qualify --for): guaranteed, $(json "$w/my.json" 'd["advice"]' | head -c 120)" ||
		fail "InnoDB $ps with atomic writes: exit $rc, $(head -c 800 "$w/my.json")"
	# safe, and the advice says so (the exit status agrees); whether the copy-on-write path is
	# faster here is a question apart, measured with awr bench on this machine, no figure quoted
	json "$w/my.json" 'd["advice"]' | grep -q "^Turn the doublewrite buffer off: it is safe here" &&
		json "$w/my.json" 'd["speed"]' | grep -q "copy-on-write (software) path.*awr bench .*--unit $ps" &&
		! grep -q '0\.87x\|bench/mariadb' "$w/my.json" &&
		ok "InnoDB $ps: safe on the software path, the speed question apart (awr bench)" ||
		fail "InnoDB $ps: the advice on the software path: $(json "$w/my.json" 'd["advice"], d["speed"]')"
	# untorn is not durable: the conditions end with the engine's fsync/O_DSYNC and the loop
	# device's write cache as its sysfs says; written the other way, the condition follows it
	[ "$ps" = 16384 ] && durable_condition "$my" "$w/my.json"
	json "$w/my.json" 'd["skipped"]' | grep -q "ib_logfile0" && ok "InnoDB $ps: the redo log named and left out" ||
		fail "InnoDB $ps: ib_logfile0 not among the skipped: $(json "$w/my.json" 'd["skipped"]')"
	snapshot "$my" >"$w/my.after"
	cmp -s "$w/my.before" "$w/my.after" && ok "InnoDB $ps: the directory only read" ||
		fail "InnoDB $ps: the directory changed: $(diff "$w/my.before" "$w/my.after" | head -5)"
done

# ---- a running server: its descriptors tell O_DIRECT or not, and whether the preload is loaded
my=$dir/my16384
server() {	# server FLUSH-METHOD: mariadbd on $my until its socket answers
	mariadbd --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$my" --socket="$w/sock" --skip-networking --user=root \
		--innodb-flush-method="$1" --innodb-doublewrite=0 >"$w/server.log" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		[ -S "$w/sock" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 5 "$w/server.log"
	return 1
}
stop_server() { kill -9 "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; rm -f "$w/sock"; }
if server fsync; then
	"$awr" database "$my" --for innodb --atomic-writes -o json >"$w/r.json"
	rc=$?
	[ "$rc" = 1 ] && [ "$(json "$w/r.json" 'd["direct_io"]')" = False ] &&
		[ "$(json "$w/r.json" 'd["verdict"]')" = "not_safe" ] &&
		json "$w/r.json" '" ".join(d["conditions"])' | grep -q "open without O_DIRECT: set innodb_flush_method=O_DIRECT" &&
		ok "a running server with innodb_flush_method=fsync: buffered page writes seen, not safe" ||
		fail "server with fsync: exit $rc, $(head -c 600 "$w/r.json")"
	stop_server
else
	fail "mariadbd did not start with innodb_flush_method=fsync"
fi
if server O_DIRECT; then
	"$awr" database "$my" --for innodb --atomic-writes -o json >"$w/r.json"
	rc=$?
	# --atomic-writes is overruled by the running server: it has no preload, its writes are plain
	[ "$rc" = 1 ] && [ "$(json "$w/r.json" 'd["direct_io"]')" = True ] &&
		[ "$(json "$w/r.json" 'd["atomic_writes"]')" = False ] &&
		json "$w/r.json" 'd["atomic_writes_why"]' | grep -q "has no libatomicwr-preload" &&
		ok "a running server with O_DIRECT: seen; --atomic-writes without the preload loaded: not atomic" ||
		fail "server with O_DIRECT: exit $rc, $(head -c 600 "$w/r.json")"
	stop_server
else
	fail "mariadbd did not start with innodb_flush_method=O_DIRECT"
fi

# ---- negative controls
cp -a "$my" "$dir/damaged"
t=$(find "$dir/damaged" -name '*.ibd' | head -n 1)
printf '\x00\x07' | dd of="$t" bs=1 seek=24 conv=notrunc status=none	# FIL_PAGE_TYPE 7, not 8
"$awr" database "$dir/damaged" --for innodb --atomic-writes -o json >"$w/d.json"
rc=$?
rel=${t#"$dir/damaged/"}
[ "$rc" = 1 ] && [ "$(json "$w/d.json" 'd["verdict"]')" = "unknown" ] &&
	json "$w/d.json" '[f["verdict"] + ": " + f["reasons"][0] for f in d["files"] if f["path"] == "'"$rel"'"][0]' |
	grep -q "^unknown: its page size is unknown: page 0 is of type 7" &&
	ok "a damaged page 0 ($rel): unknown, named" || fail "damaged page 0 of $rel: exit $rc, $(head -c 600 "$w/d.json")"
json "$w/d.json" '"innochecksum" in d["what_to_do"] and [f["what_to_do"] for f in d["files"]
	if f["path"] == "'"$rel"'"][0] == d["what_to_do"]' | grep -q True &&
	ok "unknown: what to do: $(json "$w/d.json" 'd["what_to_do"]')" ||
	fail "unknown: what to do $(json "$w/d.json" 'd.get("what_to_do")')"

shm=$(mktemp -d "${TMPDIR:-/tmp}/awr-dbshm.XXXXXX") && mount -t tmpfs -o size=256m tmpfs "$shm" || exit 2
cp -a "$my" "$shm/my"
"$awr" database "$shm/my" --for innodb --atomic-writes -o json >"$w/s.json"
rc=$?
[ "$rc" = 1 ] && [ "$(json "$w/s.json" 'd["verdict"]')" = "not_safe" ] &&
	json "$w/s.json" '"takes no atomic writes" in d["files"][0]["reasons"][0]' | grep -q True &&
	ok "on tmpfs with atomic writes: not safe (statx: none)" || fail "tmpfs: exit $rc, $(head -c 600 "$w/s.json")"

# ---- the engine: inferred without --for, and the engines' common names
engine_of() {	# DIR [--for NAME]: the engine and verdict the JSON gives
	"$awr" database "$@" -o json 2>/dev/null | python3 -c \
		'import json,sys; d=json.load(sys.stdin); print(d["engine"], d["verdict"], len(d["files"]))'
}
want_my=$(engine_of "$my" --for innodb) want_pg=$(engine_of "$pg/data" --for postgresql)
for args in "$my" "$my --for mariadb" "$my --for mysql" "$my --for MySQL"; do
	# shellcheck disable=SC2086
	got=$(engine_of $args)
	[ "$got" = "$want_my" ] && [ "${got%% *}" = innodb ] && ok "database $args: $got" ||
		fail "database $args: '$got', with --for innodb '$want_my'"
done
for args in "$pg/data" "$pg/data --for postgres" "$pg/data --for pg"; do
	# shellcheck disable=SC2086
	got=$(engine_of $args)
	[ "$got" = "$want_pg" ] && [ "${got%% *}" = postgresql ] && ok "database $args: $got" ||
		fail "database $args: '$got', with --for postgresql '$want_pg'"
done
"$awr" database "$my" --for oracle >"$w/e.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "name the engine whose files DATADIR holds: --for innodb" "$w/e.txt" &&
	ok "--for oracle refused: $(head -n 1 "$w/e.txt")" || fail "--for oracle: exit $rc, $(cat "$w/e.txt")"
mkdir -p "$w/neither" "$w/both/global"
touch "$w/both/ibdata1" "$w/both/global/pg_control" "$w/both/PG_VERSION"
"$awr" database "$w/neither" >"$w/e.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "neither engine.*give --for innodb (MySQL, MariaDB) or --for postgresql" \
	"$w/e.txt" && ok "neither engine's files: $(head -n 1 "$w/e.txt")" ||
	fail "neither: exit $rc, $(cat "$w/e.txt")"
"$awr" database "$w/both" -o json >"$w/e.json" 2>"$w/e.txt"
rc=$?
[ "$rc" = 2 ] && grep -q "both engines.*give --for innodb" "$w/e.txt" &&
	[ "$(json "$w/e.json" 'd["error"] != ""')" = True ] &&
	ok "both engines' files: $(head -n 1 "$w/e.txt")" || fail "both: exit $rc, $(cat "$w/e.txt")"
"$awr" database "$pg/data" --for innodb >"$w/e.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "holds no innodb data file" "$w/e.txt" &&
	ok "a PostgreSQL directory as InnoDB refused: $(head -n 1 "$w/e.txt")" || fail "pg as innodb: exit $rc, $(cat "$w/e.txt")"
"$awr" database "$dir/nope" --for innodb >"$w/e.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "No such file or directory" "$w/e.txt" && ok "a missing directory refused" ||
	fail "missing directory: exit $rc, $(cat "$w/e.txt")"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
