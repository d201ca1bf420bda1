# SPDX-License-Identifier: MIT
# Description: the mutants of awr replay and its dm-log-writes reader (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant replay-fua-not-flush-point "a FUA entry is not counted as a flush point" \
	"replay_log" lib/verify/logwrites.h \
	'	return e->flags & (AWR__LW_FLUSH | AWR__LW_FUA);' \
	'	return e->flags & AWR__LW_FLUSH;'

mutant replay-to-off-by-one "the replay stops before the last entry asked for" \
	"replay_log" lib/verify/replay.c \
	'	while (!err && log->next_index <= r->to && (ret = awr__lw_next(log, &e, &r->why)) > 0) {' \
	'	while (!err && log->next_index < r->to && (ret = awr__lw_next(log, &e, &r->why)) > 0) {'

mutant replay-from-off-by-one "--from-entry M starts after entry M" \
	"replay_log" lib/verify/replay.c \
	$'\t\tif (e.index < r->from)\n\t\t\tcontinue;\n\t\terr = replay_entry' \
	$'\t\tif (e.index <= r->from)\n\t\t\tcontinue;\n\t\terr = replay_entry'

mutant replay-discard-skipped "a discard entry leaves its range as it was" \
	"replay_log" lib/verify/replay.c \
	'		return zero_range(fd, r, e->sector * log->sectorsize, bytes);' \
	'		return 0;'

mutant replay-discard-has-data "a discard entry is taken to carry its sectors in the log" \
	"replay_log" lib/verify/logwrites.c \
	'	data_blocks = (e->flags & AWR__LW_DISCARD) ? 0 : e->nr_sectors;' \
	'	data_blocks = e->nr_sectors;'

mutant replay-512-byte-sectors "an entry's sector read as 512-byte units, not the log's sector size" \
	"replay_log" lib/verify/replay.c \
	'	uint64_t total = awr__lw_bytes(log, e), base = e->sector * log->sectorsize;' \
	'	uint64_t total = awr__lw_bytes(log, e), base = e->sector * 512;'

mutant replay-target-end-unchecked "an entry past the target's end is written" \
	"replay_log" lib/verify/replay.c \
	'		if (e.index < r->from || !e.nr_sectors || end <= r->target_end)' \
	'		if (e.index < r->from || !e.nr_sectors || end <= r->target_end || 1)'

mutant replay-unknown-flag-accepted "an entry with a flag no kernel writes is read as valid" \
	"replay_log" lib/verify/logwrites.c \
	'	if (unknown)' \
	'	if (0)'

mutant replay-force-covers-mounted "--force writes a mounted target" \
	"replay_log" lib/verify/replay.c \
	'	if (awr_target_safety(path, &s) || !(s.reasons & (AWR_UNSAFE_MOUNTED | AWR_UNSAFE_BUSY)))' \
	'	if (awr_target_safety(path, &s) || !(s.reasons & 0))'

mutant replay-list-mark-uncounted "the listing counts no marks" \
	"replay_log" lib/verify/logwrites.c \
	$'\t\tn->marks += !!(e.flags & AWR__LW_MARK);' \
	$'\t\tn->marks += 0;'

mutant replay-force-unwarned "a target written with --force in spite of what it holds, unsaid" \
	"replay_log" lib/verify/replay.c \
	'	r->forced = fd >= 0 && r->safety.reasons;' \
	'	r->forced = false;'
