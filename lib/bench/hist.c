// SPDX-License-Identifier: MIT
/*
 * Page latencies of awr_bench_run(): a log-linear histogram (64 buckets per
 * power of two, ~1.6% wide), its percentiles and its distribution.
 */
#include "bench.h"

static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < AWR__HIST_SUB)
		return (unsigned int)v;
	e = 63U - (unsigned int)__builtin_clzll(v);	/* >= AWR__HIST_SUB_BITS */
	if (e - AWR__HIST_SUB_BITS + 1 >= AWR__HIST_BUCKETS / AWR__HIST_SUB)
		return AWR__HIST_BUCKETS - 1;
	return (e - AWR__HIST_SUB_BITS + 1) * AWR__HIST_SUB +
	       (unsigned int)((v >> (e - AWR__HIST_SUB_BITS)) & (AWR__HIST_SUB - 1));
}

/* The middle of a bucket's range of values. */
static double hist_value(unsigned int i)
{
	unsigned int e;
	uint64_t lo;

	if (i < AWR__HIST_SUB)
		return i;
	e = i / AWR__HIST_SUB + AWR__HIST_SUB_BITS - 1;
	lo = (1ULL << e) + ((uint64_t)(i % AWR__HIST_SUB) << (e - AWR__HIST_SUB_BITS));
	return (double)lo + (double)(1ULL << (e - AWR__HIST_SUB_BITS)) / 2;
}

void awr__hist_add(struct awr__hist *h, uint64_t ns, uint64_t n)
{
	h->b[hist_index(ns)] += n;
	h->count += n;
}

static double hist_percentile_us(const struct awr__hist *h, double pct)
{
	uint64_t want = (uint64_t)((double)h->count * pct / 100.0 + 0.999999), seen = 0;

	if (!h->count)
		return 0;
	for (unsigned int i = 0; i < AWR__HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return hist_value(i) / 1000.0;
	}
	return hist_value(AWR__HIST_BUCKETS - 1) / 1000.0;
}

/* The distribution's points at a grouping of @group buckets; how many it takes. */
static unsigned int hist_points(const struct awr__hist *h, unsigned int group,
				struct awr_bench_mode_result *r)
{
	uint64_t seen = 0;
	unsigned int n = 0, last, end = AWR__HIST_BUCKETS - 1;

	for (unsigned int i = 0; i < AWR__HIST_BUCKETS && n <= AWR_BENCH_CDF_MAX; i += group) {
		uint64_t in = 0;

		for (unsigned int k = i; k < i + group && k < AWR__HIST_BUCKETS; k++)
			in += h->b[k];
		if (!in)
			continue;
		seen += in;
		if (n < AWR_BENCH_CDF_MAX) {
			last = i + group - 1 < end ? i + group - 1 : end;
			r->cdf_us[n] = hist_value(last) / 1000.0;
			r->cdf_share[n] = (double)seen / (double)h->count;
		}
		n++;
	}
	return n;
}

/*
 * The distribution as at most AWR_BENCH_CDF_MAX points (latency in us, share
 * of pages at or below it): the non-empty buckets, grouped by 1/8 of a power
 * of two (coarser while there would be more points than fit).
 */
static void hist_cdf(const struct awr__hist *h, struct awr_bench_mode_result *r)
{
	for (unsigned int group = AWR__HIST_SUB / 8; group <= AWR__HIST_BUCKETS; group *= 2) {
		unsigned int n = hist_points(h, group, r);

		if (n <= AWR_BENCH_CDF_MAX) {
			r->cdf_n = n;
			return;
		}
	}
}

void awr__hist_figures(const struct awr__hist *h, struct awr_bench_mode_result *r)
{
	r->p50_us = hist_percentile_us(h, 50);
	r->p99_us = hist_percentile_us(h, 99);
	r->p999_us = hist_percentile_us(h, 99.9);
	if (h->count)
		hist_cdf(h, r);
}
