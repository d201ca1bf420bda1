# SPDX-License-Identifier: MIT
# Description: the mutants of the bench's latency histogram (lib/bench/hist.c), its options
# from text (lib/bench/opts.c), their check in the run and its streaming modes
# (lib/bench/bench.c); sourced by scripts/mutants.sh.
# shellcheck shell=bash disable=SC2016

mutant bench-hist-clamp "the histogram clamps the last power of two one bucket too late" \
	"hist" lib/bench/hist.c \
	$'\tif (e - AWR__HIST_SUB_BITS + 1 >= AWR__HIST_BUCKETS / AWR__HIST_SUB)' \
	$'\tif (e - AWR__HIST_SUB_BITS + 1 > AWR__HIST_BUCKETS / AWR__HIST_SUB)'

mutant bench-hist-p99 "p99 read at the median" \
	"hist bench_run" lib/bench/hist.c \
	$'\tr->p99_us = hist_percentile_us(h, 99);' \
	$'\tr->p99_us = hist_percentile_us(h, 50);'

mutant bench-opts-zero-count "awr_bench_opts_set() takes a count of 0 (qd, batch, jobs)" \
	"bench_run bench_cli" lib/bench/opts.c \
	$'\tif (awr_parse_size(text, &v) || !v || v > max)' \
	$'\tif (awr_parse_size(text, &v) || v > max)'

mutant bench-run-unchecked "awr_bench_run() starts without awr_bench_opts_check() (a unit of 1000 bytes)" \
	"bench_run" lib/bench/bench.c \
	$'\telse if ((ret = awr_bench_opts_check(o)))' \
	$'\telse if (0 && (ret = awr_bench_opts_check(o)))'

mutant bench-stream-deadline-failed "the streaming modes (durability none, dsync) fail at their deadline" \
	"bench_run" lib/bench/bench.c \
	$'\tif (ret && ret != -ECANCELED)' \
	$'\tif (ret)'
