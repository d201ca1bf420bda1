# SPDX-License-Identifier: MIT
# Description: the mutants of what the library computes for awr's device rendering (sourced by
# scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant list-parts-aligned-all "awr list counts every partition of a disk as aligned" \
	"list_guest cli_list_tree" lib/discover/blockdevs.c \
	'		b->nr_parts_aligned += v.part_aligned;' \
	'		b->nr_parts_aligned += 1;'

mutant awupf-answers-inverted "the answer without AWUPF is given where NAWUPF decides, not where AWUPF does" \
	"cli_decode" lib/device/device.c \
	$'\tif (!d->have_alt)\n\t\treturn false;' \
	$'\tif (d->have_alt)\n\t\treturn false;'

mutant probe-kind-block-char "awr probe calls a block device a character device" \
	"cli_contract" lib/discover/probe.c \
	'S_ISBLK(m) ? "block"' \
	'S_ISBLK(m) ? "char"'
