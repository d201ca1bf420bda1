# SPDX-License-Identifier: MIT
# Description: the mutants of opening what awr writes: awr_target_open()'s refusal said once, in
# the library, for awr and for a C caller alike (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant target-refusal-unsaid "awr_target_open() refuses without a sentence in awr_last_error()" \
	"safety" lib/decide/safety.c \
	'	return fd < 0 ? awr_target_refusal(s, fd, path, oflags, NULL) : fd;' \
	'	return fd;'

mutant target-refusal-verb-dropped "a refusal names no awr command: (awr VERB) left out" \
	"safety write_target_open" lib/decide/safety.c \
	$'\tif (verb)\n\t\tsnprintf(who, sizeof(who), " (awr %.32s)", verb);\n' \
	''
