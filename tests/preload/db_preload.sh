#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr database on a MariaDB data directory reached through a symlink (as
# /var/lib/mysql -> /srv/mysql often is), with Debian's mariadbd running under libatomicwr-preload
# configured as the README says: guaranteed (the server's environment read, every data file
# named, the page size equal, the live counters clean), with the speed question apart from the
# verdict. Each misconfiguration must not be guaranteed, naming what does not match:
# AWR_PRELOAD_PAGE_SIZE=4k over 16 KiB pages, AWR_PRELOAD_FILES naming another directory, and
# unset; --atomic-writes while the server runs without the preload; a configuration given in
# awr's own environment that names 8k. A server with --innodb-doublewrite=0 and no preload on this
# loop device (no atomic unit): not safe, a warning first, on stderr too, with the commands that
# restore the buffer; the buffer's setting is read from the command line (ON, OFF, unknown).
#
#   with-scratch-xfs.sh db_preload.sh AWR PRELOAD
set -u
awr=$1 preload=$2
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
. "$(dirname "$0")/preload_env.sh"	# $preload_libs
. "$(dirname "$0")/../integration/expect.sh"	# fail, ok, kstatx
fails=0
skip() { echo "SKIP: $*"; exit 77; }
command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null ||
	skip "MariaDB is not installed (package mariadb-server)"
need_xfs_atomic 16384

w=$(mktemp -d "${TMPDIR:-/tmp}/awr-dbpre.XXXXXX") || exit 2
spid=
stop() {
	[ -n "$spid" ] || return 0
	mariadb-admin --socket="$w/sock" shutdown >/dev/null 2>&1 || kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
cleanup() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$w"
}
trap cleanup EXIT
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

real=$dir/srv-mysql link=$dir/mysql
mariadb-install-db --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$real" --user=root --auth-root-authentication-method=normal \
	--skip-test-db --innodb-page-size=16k >"$w/install.log" 2>&1 || { tail -n 20 "$w/install.log"; exit 1; }
ln -s "$real" "$link"
good="$link/*.ibd:$link/ibdata*:$link/undo[0-9]*"

# start ENV... -- ARGS...: mariadbd on the directory through the link, until its socket answers
start() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -f "$w/sock"
	env "${envs[@]}" mariadbd --no-defaults --tmpdir="$(mktemp -d "$w/tmp.XXXXXX")" --datadir="$link" --socket="$w/sock" --skip-networking \
		--user=root --innodb-flush-method=O_DIRECT --innodb-buffer-pool-size=8M "$@" >>"$w/server.log" 2>&1 &
	spid=$!
	for _ in $(seq 300); do
		[ -S "$w/sock" ] && mariadb --socket="$w/sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 15 "$w/server.log"
	spid=
	return 1
}
# verdict NAME ARGS...: awr database on the link, JSON in $w/NAME.json, text in $w/NAME.txt
verdict() {
	local n=$1; shift
	"$awr" database "$link" --for innodb "$@" -o json >"$w/$n.json" 2>"$w/$n.err"
	rc=$?
	"$awr" database "$link" --for innodb "$@" >"$w/$n.txt" 2>/dev/null
	v=$(json "$w/$n.json" 'd["verdict"]')
	reasons=$(json "$w/$n.json" '" | ".join(sorted(set(r for f in d["files"] for r in f["reasons"])))')
}

# ---- the README's configuration, through the symlink: guaranteed
mkdir -p "$w/run"
env_good=(LD_PRELOAD="$preload_libs" AWR_PRELOAD_FILES="$good" AWR_PRELOAD_PAGE_SIZE=16k
	  AWR_PRELOAD_STATS="$w/run/stats")
if start "${env_good[@]}" -- --innodb-doublewrite=0; then
	mariadb --socket="$w/sock" -e 'CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT);
		INSERT INTO w.t VALUES (1, REPEAT("a", 5000)); FLUSH TABLES;' >/dev/null 2>&1
	verdict good
	[ "$rc" = 0 ] && [ "$v" = guaranteed ] && ok "through a symlink, as the README says: guaranteed, exit 0" ||
		fail "through a symlink, as the README says: exit $rc, $v: $reasons"
	[ "$(json "$w/good.json" 'd["protection"]')" = False ] &&
		json "$w/good.json" 'd["protection_from"]' | grep -q -- '--innodb-doublewrite=0' &&
		ok "the buffer read as OFF from the command line" ||
		fail "protection: $(json "$w/good.json" 'd["protection"], d["protection_from"]')"
	# safe on the copy-on-write path: the advice says safe, the speed apart names awr bench
	adv=$(json "$w/good.json" 'd["advice"]') sp=$(json "$w/good.json" 'd["speed"]')
	case "$adv" in *Keep*|*keep*doublewrite*ON*) fail "guaranteed but the advice keeps the buffer: $adv" ;;
		*) ok "advice: $adv" ;; esac
	case "$sp" in *"awr bench"*) ok "speed apart: awr bench named" ;; *) fail "speed: $sp" ;; esac
	grep -q '0\.87x\|1\.45x\|bench/mariadb' "$w/good.json" && fail "a benchmark figure from elsewhere quoted"
	[ -s "$w/good.err" ] && fail "stderr without a warning: $(cat "$w/good.err")"
	# the same directory named by its real path: the patterns name the link, and match resolved
	"$awr" database "$real" --for innodb -o json >"$w/real.json"
	[ "$(json "$w/real.json" 'd["verdict"]')" = guaranteed ] && ok "named by its real path: guaranteed" ||
		fail "named by its real path: $(json "$w/real.json" 'd["verdict"], [f["reasons"] for f in d["files"]][:2]')"
	# the live counters decide too: a page write left plain, or refused by the kernel, in the
	# server's counters (set here in its counters file, the shared mapping it keeps them in)
	for c in 80:plain_misaligned:"went down plain" 112:refused:"the kernel refused"; do
		off=${c%%:*} rest=${c#*:} name=${rest%%:*} text=${rest#*:}
		python3 -c "import os,struct,sys; fd=os.open(sys.argv[1], os.O_RDWR); os.pwrite(fd, struct.pack('<Q', int(sys.argv[3])), int(sys.argv[2]))" \
			"$w/run/stats" "$off" 5
		verdict "counters_$name"
		python3 -c "import os,struct,sys; fd=os.open(sys.argv[1], os.O_RDWR); os.pwrite(fd, struct.pack('<Q', 0), int(sys.argv[2]))" \
			"$w/run/stats" "$off"
		[ "$rc" = 1 ] && [ "$v" = "not_safe" ] && case "$reasons" in *"$text"*) true ;; *) false ;; esac &&
			ok "counters with $name 5: not safe, '$text'" || fail "counters with $name 5: exit $rc, $v: $reasons"
	done
	stop
else
	fail "mariadbd did not start under the preload through the symlink"
fi

# ---- misconfigurations: never guaranteed, naming what does not match
# case NAME WANT TEXT ENV...: a server under the preload with ENV, the verdict WANT naming TEXT
misconf() {
	local n=$1 want=$2 text=$3; shift 3
	if ! start LD_PRELOAD="$preload_libs" AWR_PRELOAD_STATS="$w/run/stats.$n" "$@" -- --innodb-doublewrite=0; then
		fail "$n: mariadbd did not start"
		return
	fi
	verdict "$n"
	stop
	if [ "$rc" = 1 ] && [ "$v" = "$want" ] && case "$reasons" in *"$text"*) true ;; *) false ;; esac; then
		ok "$n: $v, naming '$text'"
	else
		fail "$n: exit $rc, $v (want $want naming '$text'): $reasons"
	fi
	# the warning: the buffer is off where the directory is not safe
	head -n 1 "$w/$n.txt" | grep -q '^WARNING: .*doublewrite buffer OFF' && grep -q 'WARNING' "$w/$n.err" &&
		ok "$n: the warning first, on stderr too" || fail "$n: no warning first: $(head -n 2 "$w/$n.txt")"
}
misconf page4k "not_safe" "AWR_PRELOAD_PAGE_SIZE=4k" AWR_PRELOAD_FILES="$good" AWR_PRELOAD_PAGE_SIZE=4k
misconf elsewhere "not_safe" "no pattern of AWR_PRELOAD_FILES" AWR_PRELOAD_FILES="/var/lib/nothing/*.ibd" \
	AWR_PRELOAD_PAGE_SIZE=16k
misconf unset "not_safe" "names no file" AWR_PRELOAD_PAGE_SIZE=16k

# ---- the preload named everything, but the server writes buffered (innodb_flush_method=fsync; no
# counters file, so only the descriptors' flags can tell): not safe
if start LD_PRELOAD="$preload_libs" AWR_PRELOAD_FILES="$good" AWR_PRELOAD_PAGE_SIZE=16k -- \
	--innodb-doublewrite=0 --innodb-flush-method=fsync; then
	verdict buffered
	stop
	[ "$rc" = 1 ] && [ "$v" = "not_safe" ] && [ "$(json "$w/buffered.json" 'd["direct_io"]')" = False ] &&
		case "$reasons" in *"page cache"*) true ;; *) false ;; esac &&
		ok "preloaded but buffered: not safe, the page cache named" ||
		fail "preloaded but buffered: exit $rc, $v: $reasons"
else
	fail "mariadbd did not start with innodb_flush_method=fsync"
fi

# ---- --atomic-writes while the server runs without the preload: its writes are plain
if start -- --skip-innodb-doublewrite; then
	verdict noload --atomic-writes
	stop
	[ "$rc" = 1 ] && [ "$v" = "not_safe" ] &&
		json "$w/noload.json" 'd["atomic_writes_why"]' | grep -q 'has no libatomicwr-preload' &&
		ok "--atomic-writes with a plain server: not safe, says why" || fail "--atomic-writes with a plain server: exit $rc, $v"
	head -n 1 "$w/noload.txt" | grep -q '^WARNING: .*--skip-innodb-doublewrite' &&
		grep -q 'systemctl restart mariadb' "$w/noload.txt" &&
		ok "buffer OFF and not safe: the warning names the restart" || fail "no warning: $(head -n 3 "$w/noload.txt")"
else
	fail "mariadbd did not start without the preload"
fi
# the default (ON, not on the command line) and ON given: never a warning
if start -- --innodb-doublewrite=1; then
	verdict on
	stop
	[ "$(json "$w/on.json" 'd["protection"]')" = True ] && ! grep -q WARNING "$w/on.txt" "$w/on.err" &&
		ok "buffer ON: read, no warning" || fail "buffer ON: $(json "$w/on.json" 'd["protection"], d["warning"]')"
fi

# ---- no server: the configuration about to be used, from awr's own environment
AWR_PRELOAD_FILES="$good" AWR_PRELOAD_PAGE_SIZE=8k verdict env8k --atomic-writes
[ "$rc" = 1 ] && [ "$v" = "not_safe" ] && case "$reasons" in *"AWR_PRELOAD_PAGE_SIZE=8k"*) true ;; *) false ;; esac &&
	ok "awr's environment names 8k: not safe" || fail "awr's environment names 8k: exit $rc, $v: $reasons"
AWR_PRELOAD_FILES="$good" AWR_PRELOAD_PAGE_SIZE=16k verdict env16k --atomic-writes
[ "$rc" = 0 ] && [ "$v" = guaranteed ] && ok "awr's environment as the README says: guaranteed" ||
	fail "awr's environment as the README says: exit $rc, $v: $reasons"
# patterns naming the real directory, the directory given through the link: matched as resolved
AWR_PRELOAD_FILES="$real/*.ibd:$real/ibdata*:$real/undo[0-9]*" AWR_PRELOAD_PAGE_SIZE=16k verdict envreal --atomic-writes
[ "$rc" = 0 ] && [ "$v" = guaranteed ] && ok "patterns on the real path, the link given: guaranteed" ||
	fail "patterns on the real path, the link given: exit $rc, $v: $reasons"
[ "$fails" = 0 ]
