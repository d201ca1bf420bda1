#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the CLI contract scripts rely on, on scratch XFS: a missing target is refused
# (exit 2, nothing created) unless --create; with -o json every refusal and error prints one
# error document (schema_version, error, errno, command, target, outcome) and every report says
# in "outcome" what its exit status means; --require writes its requirement into the JSON;
# usage lines name the tool, the command and its operands; probe's header names the kind of
# target and why its device column is empty.
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
fails=0

. "$(dirname "$0")/expect.sh"	# fail, ok, expect_rc, expect_text, kstatx

file=$dir/contract.dat
truncate -s 16M "$file"
read -r reported kmin kmax _ < <(kstatx "$file")
if [ "$reported" != 1 ] || [ "$kmin" = 0 ]; then
	echo "SKIP: this kernel's XFS reports no atomic writes for files (needs Linux 6.13+)"
	exit 77
fi

# jdoc DESC PY: $out must be one JSON document for which the Python expression PY (over d) is true
jdoc() {
	if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d.get("schema_version") == 2, "no schema_version"
sys.exit(0 if eval(sys.argv[2]) else 1)' "$out" "$2" 2>/dev/null; then
		ok "$1"
	else
		fail "$1: JSON does not satisfy $2: $out"
	fi
}
# run_json RC DESC CMD...: like expect_rc, with stdout alone in $out (stderr is the message)
run_json() {
	local want=$1 desc=$2; shift 2
	out=$("$@" 2>/dev/null); local rc=$?
	if [ "$rc" = "$want" ]; then ok "$desc: exit $rc"; else fail "$desc: exit $rc, expected $want: $out"; fi
}

# 1. a missing target is refused, and nothing is created in its place
expect_rc 2 "qualify on a missing path is refused" "$awr" qualify "$dir/nope" --quick
expect_text "does not exist"
expect_text "--create"
[ -e "$dir/nope" ] && fail "qualify created $dir/nope" || ok "nothing created at the missing path"
run_json 2 "qualify on a missing path, -o json" "$awr" qualify "$dir/nope" --quick -o json
jdoc "its error document" \
	'd["errno"] == "ENOENT" and d["command"] == "qualify" and d["target"].endswith("/nope") and d["outcome"] == "error" and "does not exist" in d["error"]'
[ -e "$dir/nope" ] && fail "qualify -o json created $dir/nope" || ok "still nothing created"

# --create: the file is made for the run, qualified, and removed at the end
run_json 0 "qualify --create on a new path" "$awr" qualify "$dir/made" --quick --create -o json
jdoc "its report: verdict pass, outcome ok" 'd["verdict"] == "pass" and d["outcome"] == "ok"'
[ -e "$dir/made" ] && fail "qualify --create left $dir/made behind" || ok "the created file is removed at the end"

# 2. errors in JSON: a missing probe target, a bad option, a refused write to a mounted device
run_json 2 "probe of a missing path, -o json" "$awr" probe /nonexistent/awr -o json
jdoc "its error document" \
	'd["errno"] == "ENOENT" and d["command"] == "probe" and d["target"] == "/nonexistent/awr" and d["outcome"] == "error"'
run_json 2 "probe with an unknown option, -o json after it" "$awr" probe --bogus -o json "$file"
jdoc "its error document names the option" '"--bogus" in d["error"] and d["command"] == "probe" and d["outcome"] == "error"'
run_json 2 "qualify of the mounted scratch device, -o json" "$awr" qualify "$dev" --quick -o json
jdoc "its error document says mounted" \
	'"mounted" in d["error"] and "Nothing was written" in d["error"] and d["outcome"] == "error"'
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(d["target"] != sys.argv[2])' "$out" "$dev" &&
	ok "its target is $dev" || fail "error document target is not $dev: $out"
# the text mode prints no document: stdout stays empty on an error
out=$("$awr" qualify "$dir/nope" --quick 2>/dev/null)
[ -z "$out" ] && ok "no document on stdout without -o json" || fail "text mode printed on stdout: $out"

# outcome says what exit 0 and 1 mean
run_json 0 "check of an aligned unit, -o json" "$awr" check "$file" --offset 16384 --length 16k -o json
jdoc "outcome ok" 'd["outcome"] == "ok"'
run_json 1 "check of a misaligned unit, -o json" "$awr" check "$file" --offset 4096 --length 16k -o json
jdoc "outcome not_atomic" 'd["outcome"] == "not_atomic"'
run_json 0 "probe --require ${kmin} (met), -o json" "$awr" probe "$file" --require "$kmin" -o json
jdoc "require met, outcome ok" \
	'd["require"]["size"] == '"$kmin"' and d["require"]["met"] is True and d["require"]["reason"] is None and d["outcome"] == "ok"'
big=$((kmax * 2))
run_json 1 "probe --require $big (over unit_max $kmax), -o json" "$awr" probe "$file" --require "$big" -o json
jdoc "require not met with its reason, outcome requirement_not_met" \
	'd["require"]["size"] == '"$big"' and d["require"]["met"] is False and "not atomic here" in d["require"]["reason"] and d["outcome"] == "requirement_not_met"'
expect_rc 1 "probe --require $big in text" "$awr" probe "$file" --require "$big"
expect_text "is not atomic here"

# 4. usage lines name the tool, the command and its operands
for c in "decode:[FILE...]" "probe:PATH" "check:PATH" "qualify:PATH" "write:PATH"; do
	cmd=${c%%:*} operand=${c#*:}
	first=$("$awr" "$cmd" --help 2>&1 | head -1)
	[ "$first" = "Usage: awr $cmd [OPTION...] $operand" ] && ok "awr $cmd --help: $first" ||
		fail "awr $cmd --help begins '$first', expected 'Usage: awr $cmd [OPTION...] $operand'"
done
expect_rc 2 "an unknown option" "$awr" check --bogus "$file"
expect_text "Usage: awr check [OPTION...] PATH"
expect_text "Try 'awr check --help'"

# 5. probe names what it looked at: the loop device is a "block device", and its device column,
# empty because a loop device has no NVMe identify or SCSI VPD, says so
expect_rc 0 "probe of the scratch loop device" "$awr" probe "$dev"
expect_text "$dev: block device on ${dev#/dev/}"
expect_text "device(none)"
expect_text "no NVMe identify or SCSI VPD could be read for ${dev#/dev/}"
run_json 0 "probe of the scratch loop device, -o json" "$awr" probe "$dev" -o json
jdoc "its JSON type stays block" 'd["type"] == "block"'

# 6. probe of a directory answers for a new file made there (what statx gives a file on this XFS)
run_json 0 "probe of the scratch directory, -o json" "$awr" probe "$dir" -o json
jdoc "a directory answered for a new file: unit_max $kmax as a file's" \
	"d['type'] == 'directory' and d['new_file'] and d['effective']['unit_max'] == $kmax and d['effective']['unit_min'] == $kmin and not any(f['id'] == 'not_file_or_block' for f in d['findings'])"
expect_rc 0 "probe of the scratch directory" "$awr" probe "$dir"
expect_text "the answer is for a new file made in it"
expect_text "atomic writes: supported"

# 7. --version is the version command: the same document with -o json (it printed nothing before)
run_json 0 "--version -o json" "$awr" --version -o json
jdoc "the version document" 'd["awr"] and d["libatomicwr"] and d["kernel"]'
ver=$out
run_json 0 "version -o json" "$awr" version -o json
[ "$out" = "$ver" ] && ok "--version and version give one document" || fail "--version -o json differs: $ver"

rm -f "$file"
[ "$fails" = 0 ]
