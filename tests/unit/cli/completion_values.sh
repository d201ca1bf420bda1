#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the bash completion (completion/awr) offers what the command tables say, driven as
# bash drives it (COMP_WORDS, COMP_CWORD, _awr): the values of --for, -o (prometheus only where the
# command takes it), --engine, --mode, --durability; sizes after --unit; directories for a
# DATADIR; files only where an option or operand takes a path; every option once. Negative
# controls: prometheus after probe -o, a file name after --for or after list, a file for a
# DATADIR must not be offered.
#   completion_values.sh AWR COMPLETION
set -u
awr=$1 comp=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/awr-compl-values.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
cd "$dir" || exit 1
mkdir datadir
touch datadir-file innodb-notes

# complete WORDS...: the completions of the last word, sorted, one line
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _awr
		printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$awr" "$@" | sort | tr '\n' ' '
}
expect() {	# expect "WANTED..." WORDS...: exactly these completions
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want " ] && ok "awr $*: $want" || bad "awr $*: got '$got', expected '$want'"
}
absent() {	# absent WORD WORDS...: WORD is not offered
	local no=$1 got
	shift
	got=$(complete_words "$@")
	case " $got" in
	*" $no "*) bad "awr $*: '$no' offered: $got" ;;
	*) ok "awr $*: no '$no'" ;;
	esac
}

has() {	# has "WANTED..." WORDS...: at least these completions
	local w got
	got=" $(complete_words "${@:2}")"
	for w in $1; do
		case $got in
		*" $w "*) ;;
		*) bad "awr ${*:2}: '$w' not offered: $got"; return ;;
		esac
	done
	ok "awr ${*:2}: $1"
}

# --for: the engines (more names of them may join; never a file)
has "innodb postgresql" database datadir --for ""
has "innodb postgresql" qualify datadir --for ""
has "postgresql" database --for=p
expect "json normal prometheus" list -o ""
expect "json normal prometheus" qualify x --output ""
expect "json normal" probe -o ""
expect "nvme scsi sync uring" write x --engine ""
expect "all atomic doublewrite pages plain" bench x --mode ""
expect "dsync fdatasync none" bench x --durability ""
expect "random sequential" bench x --order ""
expect "16k 16m" prepare x --unit 16
expect "datadir" database dat
expect "--require" probe --req
expect "datadir datadir-file" write x --input dat
expect "--files --for" database --f
# negative controls: what must not be offered
absent prometheus probe -o ""
absent innodb-notes database datadir --for ""
absent datadir-file database dat
absent datadir-file list ""
absent datadir-file version ""
absent datadir-file check x --offset ""
# every option of every command once, and -o where the table has it
for cmd in $("$awr" help --complete); do
	[ "$cmd" = help ] && continue
	opts=$(complete_words "$cmd" --)
	n=$(echo "$opts" | wc -w)
	u=$(echo "$opts" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)
	[ "$n" = "$u" ] && [ "$n" -gt 1 ] || bad "awr $cmd --: duplicates or none: $opts"
	for o in $(echo "$opts"); do
		"$awr" "$cmd" --help | grep -q -- "$o" || bad "awr $cmd: $o offered, not in --help"
	done
done
ok "every command's options offered once each"
exit "$fail"
