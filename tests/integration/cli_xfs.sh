#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the awr CLI on scratch XFS: probe JSON equals statx, check names the
# broken rule, write lands and verifies, sizes are validated, a mounted device is refused.
set -u
awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
file=$dir/cli.dat
fails=0

. "$(dirname "$0")/expect.sh"	# fail, ok, expect_rc, expect_text, kstatx

truncate -s 16M "$file"
read -r reported kmin kmax ksegs < <(kstatx "$file")
if [ "$reported" != 1 ] || [ "$kmin" = 0 ]; then
	echo "SKIP: this kernel's XFS reports no atomic writes for files (needs Linux 6.13+)"
	exit 77
fi

# probe -o json: valid JSON, effective limits equal statx
expect_rc 0 "probe -o json" "$awr" probe -o json "$file"
json=$out
read -r jsup jmin jmax jsegs smin smax ysup < <(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
e, s = d["effective"], d["statx"]
print(e["supported"], e["unit_min"], e["unit_max"], e["segments_max"], s["unit_min"], s["unit_max"],
      d["sysfs"]["unit_max"] if d["sysfs"] else "null")
assert all(k in d["sysfs"] for k in ("unit_min", "unit_max", "max_bytes", "boundary",
           "logical_block_size", "physical_block_size"))
assert all("id" in f and "message" in f for f in d["findings"])
' "$json") || fail "probe JSON is invalid or lacks keys: $json"
[ "$jsup" = True ] && ok "effective.supported" || fail "effective.supported is $jsup"
[ "$jmin" = "$kmin" ] && [ "$smin" = "$kmin" ] && ok "unit_min $jmin equals statx" || fail "unit_min $jmin/$smin, statx $kmin"
[ "$jmax" = "$kmax" ] && [ "$smax" = "$kmax" ] && ok "unit_max $jmax equals statx" || fail "unit_max $jmax/$smax, statx $kmax"
[ "$jsegs" = "$ksegs" ] && ok "segments_max" || fail "segments_max $jsegs, statx $ksegs"
echo "statx on $file: unit_min $kmin unit_max $kmax"

expect_rc 0 "probe normal output" "$awr" probe "$file"
expect_text "atomic writes: supported"
expect_rc 0 "probe --require unit_max" "$awr" probe --require "$kmax" "$file"
expect_rc 1 "probe --require 2*unit_max" "$awr" probe --require $((kmax * 2)) "$file"
expect_text "is not atomic here"
expect_rc 1 "probe --require 12k" "$awr" probe --require 12k "$file"
expect_rc 2 "probe of a missing path" "$awr" probe "$dir/missing"
expect_text "cannot probe"

# check: exit 0 when atomic, 1 with the broken rule and numbers otherwise
expect_rc 0 "check 16k at 16k" "$awr" check "$file" --offset 16k --length 16k
expect_rc 1 "check misaligned" "$awr" check "$file" --offset 4096 --length 16384
expect_text "offset 4096 is not a multiple of the length 16384"
expect_rc 1 "check non power of two" "$awr" check "$file" --offset 0 --length 12k
expect_text "length 12288 is not a power of two"
expect_rc 1 "check too large" "$awr" check "$file" --offset 0 --length $((kmax * 2))
expect_text "exceeds the atomic unit maximum $kmax"
expect_rc 1 "check too small" "$awr" check "$file" --offset 0 --length $((kmin / 2))
expect_text "below the atomic unit minimum $kmin"
expect_rc 1 "check buffered" "$awr" check "$file" --offset 0 --length 4k --buffered
expect_text "O_DIRECT"
expect_rc 1 "check two iovecs" "$awr" check "$file" --offset 0 --length 8k --segments 2
expect_text "2 iovecs"
expect_rc 1 "check -o json" "$awr" check -o json "$file" --offset 4k --length 16k
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["rule"]=="misaligned" and d["errno"]=="EINVAL" and d["atomic"] is False' "$out" \
	&& ok "check JSON names the rule" || fail "check JSON: $out"

# sizes: garbage, negatives, overflow, missing option
expect_rc 2 "garbage offset" "$awr" check "$file" --offset abc --length 4k
expect_text "--offset 'abc' is not a size"
expect_rc 2 "negative length" "$awr" check "$file" --offset 0 --length -4k
expect_text "--length '-4k' is not a size"
expect_rc 2 "overflowing length" "$awr" check "$file" --offset 0 --length 99999999999999999999
expect_text "too large"
expect_rc 2 "missing --length" "$awr" check "$file" --offset 0
expect_text "--length is required"
expect_rc 2 "bad output format" "$awr" probe -o yaml "$file"
expect_text "use -o normal, -o json"
expect_rc 2 "unknown command" "$awr" frobnicate
for cmd in probe check write; do
	expect_rc 0 "$cmd --help" "$awr" "$cmd" --help
done

# write: lands, reads back, data on disk is the pattern
expect_rc 0 "write 64k as 16k units with verify" "$awr" write "$file" --offset 64k --length 64k --unit 16k --pattern 0xa7 --verify --dsync
expect_text "as 4 atomic writes of 16 KiB"
want=$(head -c 65536 /dev/zero | tr '\0' '\247' | sha256sum)
got=$(dd if="$file" bs=64k skip=1 count=1 status=none | sha256sum)
[ "$want" = "$got" ] && ok "pattern on disk" || fail "data on disk is not the pattern"
head -c 16384 /dev/urandom > "$dir/input.bin"
expect_rc 0 "write from --input" "$awr" write "$file" --offset 32k --length 16k --input "$dir/input.bin" --verify -o json
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["verified"] is True and d["writes"]==1' "$out" \
	&& ok "write JSON" || fail "write JSON: $out"
cmp -s <(dd if="$file" bs=16k skip=2 count=1 status=none) "$dir/input.bin" && ok "input on disk" || fail "input data not on disk"
expect_rc 1 "write refused by a rule" "$awr" write "$file" --offset 4k --length 16k
expect_text "rule misaligned"
expect_rc 2 "write with a bad pattern" "$awr" write "$file" --offset 0 --length 4k --pattern 300
expect_text "is not a byte"

# a mounted device is refused and left byte-identical
sync
before=$(dd if="$dev" bs=1M count=2 iflag=direct status=none | sha256sum)
expect_rc 2 "write on the mounted device" "$awr" write "$dev" --offset 0 --length 4k --pattern 0xff
expect_text "refusing to write"
expect_text "mounted on"
expect_rc 2 "write on the mounted device at 1M" "$awr" write "$dev" --offset 1M --length 4k
after=$(dd if="$dev" bs=1M count=2 iflag=direct status=none | sha256sum)
[ "$before" = "$after" ] && ok "mounted device unchanged" || fail "the mounted device changed"

rm -f "$file" "$dir/input.bin"
echo "cli_xfs: $fails failure(s)"
[ "$fails" = 0 ]
