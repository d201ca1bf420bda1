# SPDX-License-Identifier: MIT
# Description: the mutants of the option checks a command's library call makes for it (awr stress's
# awr_stress_opts_check() and awr_stamp_unit_check(), awr probe --require's awr_limits_require());
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

mutant require-power-of-two "probe --require met by a size that is not a power of two" \
	"require" lib/decide/require.c \
	'else if (!awr_is_pow2(size) || size < lim->unit_min' \
	'else if (size < lim->unit_min'

mutant require-unsupported "probe --require met on a target without atomic writes" \
	"require" lib/decide/require.c \
	$'\tif (!lim->supported)\n\t\tret = -EOPNOTSUPP;\n\telse if' \
	$'\tif (0)\n\t\tret = -EOPNOTSUPP;\n\telse if'
