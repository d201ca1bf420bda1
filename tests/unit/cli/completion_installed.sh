#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: from an installed tree (meson install into a staging dir): the bash completion is where bash-completion looks, sourcing it defines _awr, which completes commands, options, option values, sizes and device paths on a few prefixes with the installed awr; awr --version prints the tool, library and running kernel, and its JSON carries schema_version.
set -u
build=$1
stage=$(mktemp -d "${TMPDIR:-/tmp}/awr-compl.XXXXXX")
trap 'rm -rf "$stage"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

DESTDIR=$stage meson install -C "$build" --no-rebuild --quiet >"$stage.log" 2>&1 || { cat "$stage.log"; rm -f "$stage.log"; echo "FAIL: meson install"; exit 1; }
rm -f "$stage.log"
awr=$(find "$stage" -path '*/bin/awr' -type f | head -n 1)
comp=$(find "$stage" -path '*/bash-completion/completions/awr' -type f | head -n 1)
lib=$(dirname "$(find "$stage" -name 'libatomicwr.so*' -type f | head -n 1)")
[ -x "$awr" ] || { echo "FAIL: awr is not installed"; exit 1; }
[ -f "$comp" ] || { echo "FAIL: the completion is not installed under share/bash-completion/completions"; exit 1; }
export LD_LIBRARY_PATH=$lib

# complete WORDS...: the completions of the last word, one per line
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _awr; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$comp" "$@"
}
expect() {	# expect "WANTED..." WORDS...: exactly these completions
	local want=$1 got
	shift
	got=$(complete_words "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want " ] || bad "completing '$*': got '$got', expected '$want'"
}

bash -c 'source "$1"; complete -p awr' sh "$comp" | grep -q -- '-F _awr awr' || bad "sourcing it does not register _awr for awr"
expect "preload-stats prepare probe" "$awr" pr
expect "list" "$awr" li
expect "replay report" "$awr" rep
expect "--to-entry --to-flush --to-mark" "$awr" replay --to
expect "--html" "$awr" report --ht
expect "decode" "$awr" help de
expect "--help --version" "$awr" --
expect "" "$awr" zz
expect "--engine" "$awr" write --en
expect "uring" "$awr" write --engine u
expect "--nvme-ctrl --nvme-ns" "$awr" decode --nvme
expect "json" "$awr" probe -o j
expect "16k 16m" "$awr" check /dev/null --length 16
expect "--require" "$awr" probe --req
# a PATH operand offers every block device of this machine (and files)
offered=$(complete_words "$awr" probe /dev/)
for d in /sys/class/block/*; do
	[ -e "$d" ] || continue
	echo "$offered" | grep -qx "/dev/${d##*/}" || bad "/dev/${d##*/} is not offered for 'awr probe /dev/'"
done
expect "" "$awr" list /dev/

# --version from the installed tree
out=$("$awr" --version) || bad "awr --version exited $?"
echo "$out" | grep -qx "awr 0\.[0-9.]*" || bad "no tool version: $out"
echo "$out" | grep -qx "libatomicwr 0\.[0-9.]*" || bad "no library version: $out"
echo "$out" | grep -qx "kernel $(uname -r)" || bad "no kernel release: $out"
json=$("$awr" version -o json) || bad "awr version -o json exited $?"
python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert j["schema_version"] == 2 and j["kernel"]["release"] == sys.argv[2], j' \
	"$json" "$(uname -r)" || bad "awr version -o json: $json"
# what the running kernel supports: one line per rule in both forms, and the
# atomic_writes rule agrees with sysfs (6.11+ disks have queue/atomic_write_max_bytes)
python3 -c '
import json, sys, glob
j = json.loads(sys.argv[1]); text = sys.argv[2]
rules = j["kernel"]["rules"]
assert len(rules) >= 12, rules
for name, r in rules.items():
    line = [l for l in text.splitlines() if l.split()[1:2] == [name]]
    assert len(line) == 1 and line[0].split()[0] == ("yes" if r["applies"] else "no"), (name, line)
has = any(glob.glob("/sys/block/*/queue/atomic_write_max_bytes"))
assert rules["atomic_writes"]["applies"] == has, ("atomic_writes", rules["atomic_writes"], has)
' "$json" "$out" || bad "awr version: the kernel rules do not match (text and JSON, or sysfs)"
[ "$fail" = 0 ] && echo "completion_installed: all checks passed"
exit "$fail"
