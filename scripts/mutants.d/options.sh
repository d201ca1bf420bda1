# SPDX-License-Identifier: MIT
# Description: the mutants of the option checks a command's library call makes for it (awr stress's
# awr_stress_opts_check() and awr_stamp_unit_check());
# sourced by scripts/mutants.sh.
# shellcheck shell=bash

mutant stress-opts-span "a span that is not whole units taken by the stress check" \
	"stress_opts" lib/verify/stress.c \
	$'\tif (o->span % o->unit)\n' \
	$'\tif (0)\n'

mutant stress-opts-threads "more than 256 stress writers taken" \
	"stress_opts" lib/verify/stress.c \
	'	if (o->threads > 256)' \
	'	if (o->threads > 100000)'

mutant stamp-unit-max "a stamped unit past 1 GiB taken" \
	"stress_opts" lib/verify/stamp.c \
	'unit % AWR_STAMP_SECTOR || unit > AWR_STAMP_UNIT_MAX)' \
	'unit % AWR_STAMP_SECTOR)'
