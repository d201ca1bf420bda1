# SPDX-License-Identifier: MIT
# Description: the mutants of the replayed power cuts' fault points and of the durability they drop
# (issue 41; sourced by scripts/mutants.sh). The guest's replay group (tests/vm/guest/replay_cycles.sh)
# is their end-to-end check; these are the parts a host test can catch. The durability the page
# store's fault drops is scripts/mutants.sh's pages-area-no-dsync (caught by pages_crash_cache).
# shellcheck shell=bash disable=SC2016

mutant pages-nosync-late "nosync:N takes effect one in-place write late" \
	"pages_args" lib/pages/fault.c \
	'	return s->fault.kind == AWR_PAGES_FAULT_NOSYNC && s->issued >= s->fault.n;' \
	'	return s->fault.kind == AWR_PAGES_FAULT_NOSYNC && s->issued > s->fault.n;'

mutant pages-nosync-unknown "the fault table lacks nosync: AWR_PAGES_FAULT=nosync:N is refused" \
	"pages_args" lib/pages/fault.c \
	$'\t{ "nosync", AWR_PAGES_FAULT_NOSYNC },\n' \
	''

mutant stress-fault-negative "AWR_STRESS_FAULT=nosync:-1 parses (strtoull wraps it)" \
	"stress_fault" lib/verify/stress.c \
	"	if (strncmp(spec, \"nosync:\", 7) || !spec[7] || spec[7] == '-')" \
	'	if (strncmp(spec, "nosync:", 7) || !spec[7])'

mutant stress-fault-ignored-bad "a malformed AWR_STRESS_FAULT is ignored and the run writes" \
	"stress_fault" lib/verify/stress.c \
	$'\tret = awr__stress_fault_parse(awr__test_env("AWR_STRESS_FAULT"), &s.nosync_from);\n\tif (!ret)\n' \
	$'\t(void)awr__stress_fault_parse(awr__test_env("AWR_STRESS_FAULT"), &s.nosync_from);\n\tif (1)\n'
