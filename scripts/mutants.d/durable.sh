# SPDX-License-Identifier: MIT
# Description: the mutants of the write cache and FUA reading and of the verdict's durability
# condition (untorn is not durable; sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant durable-wc-swapped "queue/write_cache \"write back\" read as write through" \
	"write_cache" lib/discover/sysfs.c \
	$'\t\tif (!strcmp(buf, "write back"))' \
	$'\t\tif (!strcmp(buf, "write through"))'

mutant durable-fua-inverted "queue/fua 0 read as FUA and 1 as none" \
	"write_cache" lib/discover/sysfs.c \
	'v ? AWR_FUA_YES : AWR_FUA_NO;' \
	'v ? AWR_FUA_NO : AWR_FUA_YES;'

mutant durable-part-own-queue "a partition's queue read from its own directory (it has none)" \
	"write_cache" lib/discover/sysfs.c \
	$'\tawr__sysfs_read_queue(disk, out);' \
	$'\tawr__sysfs_read_queue(real, out);'

mutant durable-no-findings "the probe says nothing of the write cache" \
	"write_cache" lib/discover/findings.c \
	$'\tawr__durability_findings(p);' \
	''

mutant durable-condition-dropped "a guaranteed verdict without the durability condition" \
	"db_verdict" lib/database/db.c \
	$'\t\t\t  "reports the writes it could not make atomic at exit)");\n\t\tdurable_condition(r, f);' \
	$'\t\t\t  "reports the writes it could not make atomic at exit)");'

mutant durable-condition-any-cache "the durability condition calls every cache volatile" \
	"db_verdict" lib/discover/durability.c \
	$'\tif (wc == AWR_WRITE_CACHE_WRITE_BACK)\n\t\tt = D_COND_VOLATILE;' \
	$'\tif (wc != AWR_WRITE_CACHE_UNKNOWN)\n\t\tt = D_COND_VOLATILE;'

mutant durable-prom-inverted "awr_write_cache_volatile 1 for a write-through disk" \
	"write_cache" cli/cmd_list.c \
	'.is = AWR_WRITE_CACHE_WRITE_BACK, .help' \
	'.is = AWR_WRITE_CACHE_WRITE_THROUGH, .help'
