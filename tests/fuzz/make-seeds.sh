#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: (re)make the committed seed corpora of the harnesses that have no
# hand-made seeds: tests/fuzz/corpus/{dump-parse,nvme-id,scsi-vpd,journal,stamp,size,sysfs,input}.
#
#   tests/integration/with-scratch-xfs.sh tests/fuzz/make-seeds.sh BUILD/cli/awr
#   tests/fuzz/make-seeds.sh --input        # only the input corpus (no awr, no scratch XFS)
#
# Input seeds are the real nvme-cli and sg_vpd/sg_readcap output in tests/fixtures/tools: each file,
# the files of one device joined by NUL (the harness's separator), and cut or elided copies.
# Identify/VPD seeds come from tests/fixtures; journal and stamp seeds from a real
# `awr stress` run on the scratch XFS (journal on another filesystem), with damaged
# copies; size and sysfs seeds are the texts users and the kernel write.
set -eu
awr=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$src/tests/fuzz/corpus
fix=$src/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

unhex() { grep -v '^#' "$1" | xxd -r -p; }

# input: the text and JSON readers of awr decode
tools=$fix/tools
rm -rf "$corpus/input"
mkdir -p "$corpus/input"
for f in "$tools"/nvme-*.txt "$tools"/nvme-*.json "$tools"/sd-*-vpd-bl*.txt "$tools"/sd-*-readcap*.txt; do
	case "$f" in *-sysfs.txt) continue ;; esac
	cp "$f" "$corpus/input/"
done
# cloud disks (AWS's vendor-specific vs[] block) and a transcript with nvme format in it
cp "$fix"/cloud/aws-ebs-id-ctrl.txt "$fix"/cloud/aws-ebs-id-ns-v.txt "$fix"/cloud/aws-ebs-id-ctrl-ns.json \
	"$fix"/cloud/format-transcript.txt "$corpus/input/"
for d in awrpf15 awr512pf63 awrpf0; do
	for form in .txt -H.txt .json; do
		{ cat "$tools/nvme-$d-id-ctrl$form"; printf '\0'; cat "$tools/nvme-$d-id-ns$form"; } \
			>"$corpus/input/nvme-$d-ctrl-ns$form"
	done
	# the namespace's first half only, and with its middle elided
	f=$tools/nvme-$d-id-ns.txt
	head -c $(( $(stat -c %s "$f") / 2 )) "$f" >"$corpus/input/nvme-$d-ns-cut.txt"
	{ head -n 12 "$f"; echo '[...]'; tail -n 8 "$f"; } >"$corpus/input/nvme-$d-ns-elided.txt"
	f=$tools/nvme-$d-id-ns.json
	head -c $(( $(stat -c %s "$f") / 2 )) "$f" >"$corpus/input/nvme-$d-ns-cut.json"
done
for d in default gran512 bndry; do
	for form in .txt -H.txt; do
		{ cat "$tools/sd-$d-vpd-bl$form"; printf '\0'; cat "$tools/sd-$d-readcap.txt"; printf '\0'
		  cat "$tools/sd-$d-readcap-long.txt"; } >"$corpus/input/sd-$d-vpd-readcap$form"
	done
done
# two devices' output given together (refused), and an NVMe field given twice with two values
{ cat "$tools/nvme-awrpf15-id-ns.txt"; printf '\0'; cat "$tools/sd-default-vpd-bl.txt"; } >"$corpus/input/nvme-and-scsi"
{ cat "$tools/nvme-awrpf15-id-ns.txt"; printf '\0'; cat "$tools/nvme-awr512pf63-id-ns.txt"; } >"$corpus/input/two-namespaces"
# hex dumps pasted as text (an identify page with LBADS 0, a Block Limits page)
grep -v '^#' "$fix/ns-lbads-zero.hex" >"$corpus/input/hex-ns-lbads-zero"
grep -v '^#' "$fix/vpd-bl-granularity-mismatch.hex" >"$corpus/input/hex-vpd-bl-granularity-mismatch"
[ "${1:-}" = --input ] && { echo "seeds made in $corpus/input"; exit 0; }

mkdir -p "$corpus"/{dump-parse,nvme-id,scsi-vpd,journal,stamp,size,sysfs}
for f in "$fix"/*.hex; do
	b=$(basename "$f" .hex)
	cp "$f" "$corpus/dump-parse/$b"
	case "$b" in
	vpd-*) unhex "$f" >"$corpus/scsi-vpd/$b" ;;
	ns-*|ctrl-*) unhex "$f" >"$corpus/nvme-id/$b" ;;
	esac
done

# journal: 8 units of 4 KiB (the harness's target), a real run, then damaged copies
t=$AWR_SCRATCH_DIR/target
"$awr" stress "$t" --unit 4k --size 32k --threads 2 --writes 40 --journal "$tmp/j" >/dev/null
cp "$tmp/j" "$corpus/journal/run-40-writes"
head -c $(( $(stat -c %s "$tmp/j") - 20 )) "$tmp/j" >"$corpus/journal/torn-tail"
head -c 48 "$tmp/j" >"$corpus/journal/run-record-only"
{ head -c 480 "$tmp/j"; head -c 48 /dev/zero; tail -c +529 "$tmp/j"; } >"$corpus/journal/zeroed-record-inside"
"$awr" stress "$t" --unit 4k --size 32k --threads 1 --writes 5 --journal "$tmp/j" --force >/dev/null
cp "$tmp/j" "$corpus/journal/two-runs"
printf 'not a journal\n' >"$corpus/journal/text"

# stamp: an 8-byte unit index, then the unit as read back
for u in 0 3 7; do
	{ printf "\\x$(printf %02x $u)\\0\\0\\0\\0\\0\\0\\0"; dd if="$t" bs=4096 skip=$u count=1 status=none; } \
		>"$corpus/stamp/unit$u-intact"
done
{ printf '\x02\0\0\0\0\0\0\0'; dd if="$t" bs=2048 skip=4 count=1 status=none; dd if="$t" bs=2048 skip=7 count=1 status=none; } \
	>"$corpus/stamp/unit2-halves-of-two"
{ printf '\x01\0\0\0\0\0\0\0'; dd if="$t" bs=4096 skip=2 count=1 status=none; } >"$corpus/stamp/unit1-holds-unit2"
{ printf '\x00\0\0\0\0\0\0\0'; head -c 4096 /dev/zero; } >"$corpus/stamp/never-written"
{ printf '\x00\0\0\0\0\0\0\0'; dd if="$t" bs=512 count=1 status=none; } >"$corpus/stamp/one-sector-of-4k"

# size strings
i=0
for s in 16k 16KiB 1M 1MiB 4096 0 1b 16E 15E 18446744073709551615 18446744073709551616 \
	 ' 64k' 64kb 1.5k -1 0x1000 1e3 16K 2G 3T 1P 12Q ''; do
	printf '%s' "$s" >"$corpus/size/s$((i += 1))"
done

# sysfs: the queue attributes (then size, partition, start, size), NUL-separated, as the kernel prints them
printf '65536\n\0004096\n\00065536\n\00065536\n\000512\n\0004096\n\000128\n\000127\n\0002097152\n\0001\n\0002048\n\000204800\n' \
	>"$corpus/sysfs/nvme-64k"
printf '0\n\0000\n\0000\n\0000\n\000512\n\000512\n\000512\n\000128\n\000204800\n\0001\n\00063\n\0001000\n' \
	>"$corpus/sysfs/no-atomics-misaligned-part"
printf '\0\0\0\0\0\0\0\0\0\0\0' >"$corpus/sysfs/all-empty"
printf '4294967296\n\00018446744073709551616\n\000-1\n\000 12\n\0000x10\n\000abc\n\0009999999999999\n\0001\n\00018446744073709551615\n\0001\n\00018446744073709551615\n\0001\n' \
	>"$corpus/sysfs/out-of-range"
echo "seeds made in $corpus"
