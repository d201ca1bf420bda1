#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr database on the data files themselves, with real MariaDB 10.11 and PostgreSQL 15
# directories on real XFS: the directory's verdict is its worst file's, the file that sorts last
# included; a stripe unit smaller than the page (mkfs.xfs -d su=4k) is named, su=16k is not; a page
# above statx's unit_max (mount -o max_atomic_write=8k) is not safe, the default mount guaranteed;
# the older InnoDB flags (innodb_checksum_algorithm=crc32) and a ROW_FORMAT=COMPRESSED table read at
# the page size innochecksum counts; a table just created (page 0 not written yet, server running)
# takes ibdata1's page size, not "damaged"; hostile entries never block and are listed as skipped
# with why: ibdata1 and global/pg_control as FIFOs, FIFOs and symlinks named *.ibd, a symlinked
# ibdata1 (judged), a subdirectory that cannot be read (awr run without CAP_DAC_OVERRIDE).
#
#   with-scratch-xfs.sh db_files.sh AWR
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
skip() { echo "SKIP: $*"; exit 77; }
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON)"
command -v mariadb-install-db >/dev/null || skip "MariaDB is not installed (package mariadb-server)"
command -v innochecksum >/dev/null || skip "innochecksum not installed (package mariadb-server)"
[ -x "$pgbin/initdb" ] || skip "PostgreSQL is not installed (package postgresql: initdb)"
id postgres >/dev/null 2>&1 || skip "no postgres user (package postgresql creates it; initdb refuses root)"
command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
w=$(mktemp -d "${TMPDIR:-/tmp}/awr-dbf.XXXXXX") || exit 2
spid= mounts=() loops=()
cleanup() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}"; done
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$w"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
# fv JSON REL EXPR: EXPR of file REL's entry f, as a list (empty: no such file)
fv() { json "$1" "[$3 for f in d['files'] if f['path'] == '$2']"; }
# db JSON DATADIR ARGS...: awr database -o json, never waiting on a hang (124: it blocked)
db() {
	local out=$1
	shift
	timeout 20 "$awr" database "$@" -o json >"$out" 2>"$out.err"
}
file_of() { json "$1" "[f['verdict'] + ' | ' + ' | '.join(f['reasons']) for f in d['files'] if f['path'] == '$2']"; }
# xfs IMG MNT MKFS-OPTS [MOUNT-OPTS]: a 1 GiB XFS of its own on a loop device
xfs() {
	local dev
	truncate -s 1G "$1" && mkfs.xfs -f -q $3 "$1" || return 1
	dev=$(losetup -f --show "$1") || return 1
	loops+=("$dev")
	mkdir -p "$2"
	mount ${4:+-o "$4"} "$dev" "$2" || return 1
	mounts+=("$2")
}

# ---- the engines' directories: MariaDB with the older FSP flags (crc32), 16 KiB and 8 KiB pages,
# and a PostgreSQL cluster, made at the same time
install() {
	mariadb-install-db --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$1" --user=root --auth-root-authentication-method=normal \
		--skip-test-db --innodb-checksum-algorithm=crc32 --innodb-page-size="$2" >"$1.log" 2>&1
}
mkdir -p "$w/pg" && chown postgres "$w/pg" && chmod 711 "$w"
install "$dir/old16" 16k & i16=$!
install "$dir/old8" 8k & i8=$!
su postgres -s /bin/sh -c "$pgbin/initdb -D $w/pg/data" >"$w/initdb.log" 2>&1 || { cat "$w/initdb.log"; exit 1; }
wait $i16 || { tail -n 20 "$dir/old16.log"; exit 1; }
wait $i8 || { grep -v "^$" "$dir/old8.log" | head -n 30; exit 1; }
my=$dir/old16

# ---- a running server: a compressed table (KEY_BLOCK_SIZE=8) flushed, and a table just created
server() {
	mariadbd --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$my" --socket="$w/sock" --skip-networking --skip-grant-tables \
		--user=root --innodb-checksum-algorithm=crc32 >"$w/server.log" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		[ -S "$w/sock" ] && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 5 "$w/server.log"
	return 1
}
server || { fail "mariadbd did not start"; exit 1; }
mariadb -S "$w/sock" -e "CREATE DATABASE t; CREATE TABLE t.c (x INT PRIMARY KEY, y VARCHAR(99)) \
	ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8; INSERT INTO t.c VALUES (1, 'a'); FLUSH TABLES t.c FOR EXPORT; \
	UNLOCK TABLES; CREATE TABLE t.fresh (x INT)" || { fail "the server refused the tables"; exit 1; }
head0=$(od -v -A n -t x1 -N 64 "$my/t/fresh.ibd" | tr -d ' \n')
db "$w/new.json" "$my" --for innodb --atomic-writes
rc=$?
if [ -n "${head0//0/}" ]; then
	echo "note: the server wrote page 0 of t/fresh.ibd before awr read it: the case did not arise"
else
	got=$(file_of "$w/new.json" t/fresh.ibd)
	v=$(fv "$w/new.json" t/fresh.ibd "f['verdict'] + ' ' + str(f['page_size'])")
	ref=$(fv "$w/new.json" mysql/innodb_index_stats.ibd "f['verdict'] + ' ' + str(f['page_size'])")
	[ "$v" = "$ref" ] && [ "${v#*unknown}" = "$v" ] && [ "${v%16384\']}" != "$v" ] &&
		echo "$got" | grep -q "page size is ibdata1's: page 0 is not written yet" &&
		ok "a table just created (page 0 zeros, server running): $v like its neighbour: $got" ||
		fail "a table just created (page 0 zeros, server running): $v (its neighbour: $ref): $got"
fi
[ "$rc" != 124 ] || fail "awr database blocked on the running server's directory"
mariadb -S "$w/sock" -e "SHUTDOWN" && wait "$spid"
spid=

# ---- the older FSP flags and the compressed table, against innochecksum's count of pages
for d in "$dir/old16" "$dir/old8"; do
	db "$w/old.json" "$d" --for innodb --atomic-writes
	rc=$?
	for rel in $(json "$w/old.json" "' '.join(f['path'] for f in d['files'])"); do
		n=$(innochecksum -c "$d/$rel" 2>/dev/null | sed -n 's/^Number of pages: *//p')
		size=$(stat -c %s "$d/$rel")
		got=$(fv "$w/old.json" "$rel" "f['page_size']")
		got=${got//[\[\]]/}
		flags=$(od -A n -t x1 -j 54 -N 4 "$d/$rel" | tr -d ' ')
		if [ -n "$n" ] && [ "$n" -gt 0 ] && [ $((size / n)) = "$got" ]; then
			ok "${d##*/}/$rel: FSP flags 0x$flags, $got-byte pages (innochecksum: $n pages of $size bytes)"
		else
			fail "${d##*/}/$rel: FSP flags 0x$flags, awr $got-byte pages, innochecksum $n pages of $size bytes"
		fi
	done
	[ "$rc" = 0 ] && [ "$(json "$w/old.json" 'd["verdict"]')" = guaranteed ] ||
		fail "${d##*/}: exit $rc, $(json "$w/old.json" 'd["verdict"], d["page_size_from"]')"
done
json "$w/old.json" 'd["page_size_from"]' | grep -q "ibdata1 page 0: FSP flags 0x100: 8192-byte pages" &&
	ok "old8: $(json "$w/old.json" 'd["page_size_from"]')" ||
	fail "old8: ibdata1 not read in the older layout: $(json "$w/old.json" 'd["page_size_from"]')"
compressed=$(fv "$w/new.json" t/c.ibd "f['page_size']")
db "$w/c.json" "$my" --for innodb --atomic-writes
[ "$(fv "$w/c.json" t/c.ibd "f['page_size']")" = "[8192]" ] &&
	ok "t/c.ibd ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8: 8192-byte pages (while the server ran: $compressed)" ||
	fail "t/c.ibd: $(file_of "$w/c.json" t/c.ibd), page size $(fv "$w/c.json" t/c.ibd "f['page_size']")"

# ---- the worst file decides, the one that sorts last too: a copy of a table on tmpfs
shm=$w/shm
mkdir -p "$shm" && mount -t tmpfs -o size=64m tmpfs "$shm" && mounts+=("$shm") || exit 2
last() {	# last HOW: $dir/last with zzzz.ibd (sorting last) on tmpfs, by a bind mount or a symlink
	rm -rf "$dir/last" "${shm:?}"/* && cp -a "$my" "$dir/last" && mkdir "$shm/zzzz" || return 1
	cp "$my/mysql/innodb_index_stats.ibd" "$shm/zzzz/zzzz.ibd" || return 1
	if [ "$1" = bind ]; then
		mkdir "$dir/last/zzzz" && mount --bind "$shm/zzzz" "$dir/last/zzzz" && mounts+=("$dir/last/zzzz")
	else
		ln -s "$shm/zzzz/zzzz.ibd" "$dir/last/zzzz.ibd"
	fi
}
for how in bind symlink; do
	last $how || { fail "$how: could not place the last file"; continue; }
	db "$w/last.json" "$dir/last" --for innodb --atomic-writes
	rc=$?
	rel=$([ $how = bind ] && echo zzzz/zzzz.ibd || echo zzzz.ibd)
	[ "$rc" = 1 ] && [ "$(json "$w/last.json" 'd["verdict"]')" = "not_safe" ] &&
		[ "$(json "$w/last.json" 'd["files"][-1]["path"]')" = "$rel" ] &&
		[ "$(json "$w/last.json" '[f["path"] for f in d["files"] if f["verdict"] != "guaranteed"]')" = "['$rel']" ] &&
		ok "$how: the last file $rel alone on tmpfs: the directory not safe ($(file_of "$w/last.json" "$rel"))" ||
		fail "$how: exit $rc, verdict $(json "$w/last.json" 'd["verdict"]'):" \
			"$(json "$w/last.json" '[(f["path"], f["verdict"]) for f in d["files"]][-3:], d["skipped"]')"
	if [ $how = symlink ]; then
		file_of "$w/last.json" "$rel" | grep -q "reached through a symlink to $shm/zzzz/zzzz.ibd" &&
			ok "symlink: named as reached through its target" ||
			fail "symlink: no word of the symlink: $(file_of "$w/last.json" "$rel")"
	else
		umount "$dir/last/zzzz" && unset 'mounts[-1]'
	fi
done

# ---- the extents a growing file gets: XFS stripe unit 4 KiB and 16 KiB under 16 KiB pages
for su in 4k 16k; do
	xfs "$w/su$su.img" "$w/su$su" "-d su=$su,sw=1" || { fail "mkfs.xfs -d su=$su,sw=1 and mount"; continue; }
	cp -a "$my" "$w/su$su/my"
	db "$w/su.json" "$w/su$su/my" --for innodb
	why=$(file_of "$w/su.json" ibdata1)
	ga=$(json "$w/su.json" 'd["files"][0]["grow_align"]')
	if [ $su = 4k ]; then
		[ "$(json "$w/su.json" 'd["verdict"]')" = "not_safe" ] && [ "$ga" = 4096 ] &&
			echo "$why" | grep -q "stripe unit of 4096 bytes (sunit), not a multiple of the 16384-byte page" &&
			ok "su=4k: not safe, the stripe unit named: $(echo "$why" | grep -o 'xfs aligns[^|]*')" ||
			fail "su=4k: grow_align $ga, $why"
	else
		[ "$ga" = 16384 ] && ! echo "$why" | grep -q "stripe unit\|growing file" &&
			ok "su=16k: grow_align $ga, no word of the extents a growing file gets" ||
			fail "su=16k: grow_align $ga, $why"
	fi
done

# ---- statx's unit_max below the page: XFS mounted with max_atomic_write=8k
if xfs "$w/maw.img" "$w/maw" "" max_atomic_write=8k; then
	cp -a "$my" "$w/maw/my"
	db "$w/maw.json" "$w/maw/my" --for innodb --atomic-writes
	rc=$?
	why=$(file_of "$w/maw.json" ibdata1)
	[ "$rc" = 1 ] && [ "$(json "$w/maw.json" 'd["verdict"]')" = "not_safe" ] &&
		echo "$why" | grep -q "statx: atomic writes of [0-9]*..8192 bytes, and the page is 16384 bytes" &&
		ok "max_atomic_write=8k: not safe, $why" || fail "max_atomic_write=8k: exit $rc, $why"
	umount "$w/maw" && mount "${loops[-1]}" "$w/maw" || exit 2
	db "$w/maw.json" "$w/maw/my" --for innodb --atomic-writes
	rc=$?
	[ "$rc" = 0 ] && [ "$(json "$w/maw.json" 'd["verdict"]')" = guaranteed ] &&
		ok "the same directory, default mount: guaranteed (unit_max $(json "$w/maw.json" 'd["files"][0]["unit_max"]'))" ||
		fail "default mount: exit $rc, $(file_of "$w/maw.json" ibdata1)"
else
	echo "note: mount -o max_atomic_write=8k refused (kernel before 6.16?): that case not run"
fi

# ---- hostile entries
h=$dir/hostile
cp -a "$my" "$h" && rm "$h/ibdata1" && mkfifo "$h/ibdata1" "$h/t/fifo.ibd" && ln -s nowhere "$h/t/dangling.ibd" &&
	ln -s "$h/mysql" "$h/t/dir.ibd" || exit 2
db "$w/h.json" "$h" --for innodb
rc=$?
skipped=$(json "$w/h.json" '"\n".join(d["skipped"])')
[ "$rc" != 124 ] && [ "$(json "$w/h.json" 'd["page_size"]')" = None ] &&
	json "$w/h.json" 'd["page_size_from"]' | grep -q "ibdata1 cannot be read: not a regular file" &&
	ok "ibdata1 a FIFO: not opened to block, $(json "$w/h.json" 'd["page_size_from"]')" ||
	fail "ibdata1 a FIFO: exit $rc ($( [ $rc = 124 ] && echo 'blocked: killed by timeout 20'))" \
		"$(json "$w/h.json" 'd["page_size_from"]' 2>/dev/null)"
for want in "ibdata1: a FIFO, not a regular file" "t/fifo.ibd: a FIFO, not a regular file" \
	"t/dangling.ibd: a dangling symlink (to nowhere" "t/dir.ibd: a symlink to a directory ($h/mysql)"; do
	echo "$skipped" | grep -qF "$want" && ok "skipped: $want" || fail "not among the skipped: $want (skipped: ${skipped//$'\n'/; })"
done
# more skipped entries than the report has lines for: the last line counts the rest
for i in 01 02 03 04 05 06 07 08 09 10; do mkfifo "$h/t/more$i.ibd"; done
db "$w/h2.json" "$h" --for innodb
n=$(json "$w/h2.json" 'len(d["skipped"])') last=$(json "$w/h2.json" 'd["skipped"][-1]')
[ "$n" = 8 ] && case "$last" in *"; and "*" more entries after it, not listed"*) true ;; *) false ;; esac &&
	ok "more entries skipped than room: $n lines, the last counts the rest: $last" || fail "skipped beyond the report's room: $n lines, last: $last"

s=$dir/symlinked
cp -a "$my" "$s" && mkdir "$dir/elsewhere" && mv "$s/ibdata1" "$dir/elsewhere/ibdata1" &&
	ln -s "$dir/elsewhere/ibdata1" "$s/ibdata1" || exit 2
db "$w/s.json" "$s" --for innodb --atomic-writes
rc=$?
[ "$rc" = 0 ] && [ "$(json "$w/s.json" 'd["page_size"]')" = 16384 ] &&
	file_of "$w/s.json" ibdata1 | grep -q "^\['guaranteed | reached through a symlink to $dir/elsewhere/ibdata1" &&
	ok "ibdata1 a symlink: judged, $(json "$w/s.json" 'd["page_size_from"]')" ||
	fail "ibdata1 a symlink: exit $rc, $(json "$w/s.json" 'd["page_size_from"]'), $(file_of "$w/s.json" ibdata1)" \
		"$(cat "$w/s.json.err")"

u=$dir/unreadable
cp -a "$my" "$u" && chmod 000 "$u/t" || exit 2
# root reads a mode 000 directory (CAP_DAC_OVERRIDE): awr runs without it and its neighbour
nodac="setpriv --inh-caps=-dac_override,-dac_read_search --bounding-set=-dac_override,-dac_read_search"
$nodac ls "$u/t" >/dev/null 2>&1 && skip "setpriv did not drop CAP_DAC_OVERRIDE"
timeout 20 $nodac "$awr" database "$u" --for innodb --atomic-writes -o json >"$w/u.json" 2>"$w/u.err"
rc=$?
t=$(json "$w/u.json" '[s for s in d["skipped"] if s.startswith("t:")]')
[ "$rc" = 0 ] && [ "${t#"['t: a directory that cannot be read (Permission denied)"}" != "$t" ] &&
	[ "$(json "$w/u.json" 'len([f for f in d["files"] if f["path"].startswith("mysql/")]) > 0')" = True ] &&
	ok "an unreadable subdirectory named, the rest judged: $t" ||
	fail "an unreadable subdirectory: exit $rc, $(cat "$w/u.err") $(head -c 300 "$w/u.json")"

# PostgreSQL: global/pg_control and a relation named file as FIFOs
pg=$dir/pg
cp -a "$w/pg/data" "$pg" && rm "$pg/global/pg_control" && mkfifo "$pg/global/pg_control" "$pg/base/1/99999" || exit 2
db "$w/pg.json" "$pg" --for postgresql
rc=$?
[ "$rc" != 124 ] && json "$w/pg.json" 'd["page_size_from"]' | grep -q "global/pg_control cannot be read: not a regular file" &&
	json "$w/pg.json" '"\n".join(d["skipped"])' | grep -qF "base/1/99999: a FIFO, not a regular file" &&
	ok "pg_control and base/1/99999 FIFOs: not blocked, $(json "$w/pg.json" 'd["page_size_from"]')" ||
	fail "pg_control a FIFO: exit $rc ($( [ $rc = 124 ] && echo 'blocked: killed by timeout 20'))" \
		"$(head -c 300 "$w/pg.json")"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "PASS"
