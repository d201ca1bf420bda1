// SPDX-License-Identifier: MIT
/*
 * Description: the bench's latency histogram: percentiles within a bucket's width of the truth,
 * small values exact, huge ones clamped, a distribution of at most AWR_BENCH_CDF_MAX ordered
 * points.
 */
#include <stdint.h>

#include "helpers.h"
#include "bench/bench.h"

static struct awr__hist h;

/* Within the width of a bucket (1/64 of a power of two) of @want. */
static int near(double got, double want)
{
	return got >= want * (1 - 1.0 / 64) && got <= want * (1 + 1.0 / 64);
}

static void check_cdf(const struct awr_bench_mode_result *r, const char *what)
{
	T_EXPECT(r->cdf_n > 0 && r->cdf_n <= AWR_BENCH_CDF_MAX, "%s: %u points", what, r->cdf_n);
	for (unsigned int i = 1; i < r->cdf_n; i++)
		T_EXPECT(r->cdf_us[i] > r->cdf_us[i - 1] && r->cdf_share[i] > r->cdf_share[i - 1],
			 "%s: point %u (%.3f us, %.5f) after (%.3f us, %.5f)", what, i,
			 r->cdf_us[i], r->cdf_share[i], r->cdf_us[i - 1], r->cdf_share[i - 1]);
	T_EXPECT(r->cdf_n && r->cdf_share[r->cdf_n - 1] == 1.0, "%s: ends at %.5f", what,
		 r->cdf_n ? r->cdf_share[r->cdf_n - 1] : 0);
}

static void empty(void)
{
	struct awr_bench_mode_result r = { 0 };

	memset(&h, 0, sizeof(h));
	awr__hist_figures(&h, &r);
	T_EXPECT(r.p50_us == 0 && r.p99_us == 0 && r.p999_us == 0 && r.cdf_n == 0,
		 "empty: p50 %.3f p99 %.3f p99.9 %.3f, %u points", r.p50_us, r.p99_us, r.p999_us,
		 r.cdf_n);
}

/* 1 to 100 us in 1 ns steps: each percentile where it lies. */
static void uniform(void)
{
	struct awr_bench_mode_result r = { 0 };

	memset(&h, 0, sizeof(h));
	for (uint64_t ns = 1000; ns < 101000; ns++)
		awr__hist_add(&h, ns, 1);
	awr__hist_figures(&h, &r);
	T_EXPECT(near(r.p50_us, 51.0) && near(r.p99_us, 100.0) && near(r.p999_us, 100.9),
		 "uniform: p50 %.3f p99 %.3f p99.9 %.3f us", r.p50_us, r.p99_us, r.p999_us);
	check_cdf(&r, "uniform");
}

/* A batch's pages share its time: one add of n counts n. */
static void weighted(void)
{
	struct awr_bench_mode_result r = { 0 };

	memset(&h, 0, sizeof(h));
	awr__hist_add(&h, 16384, 999);
	awr__hist_add(&h, 5000000, 1);
	awr__hist_figures(&h, &r);
	T_EXPECT_EQ(h.count, 1000, "weighted count");
	T_EXPECT(near(r.p50_us, 16.384) && near(r.p99_us, 16.384) && near(r.p999_us, 16.384),
		 "weighted: p50 %.3f p99 %.3f p99.9 %.3f us", r.p50_us, r.p99_us, r.p999_us);
	/* a point is the top of its group of buckets: an eighth of a power of two */
	T_EXPECT(r.cdf_n == 2 && r.cdf_us[1] >= 5000 && r.cdf_us[1] <= 5000 * 1.13 &&
		 r.cdf_share[0] == 0.999,
		 "weighted: %u points, (%.3f us, %.4f)", r.cdf_n, r.cdf_us[1], r.cdf_share[0]);
}

/* Below 64 ns a bucket is one ns; past 2^45 ns everything falls in the last bucket. */
static void ends(void)
{
	struct awr_bench_mode_result r = { 0 };

	memset(&h, 0, sizeof(h));
	awr__hist_add(&h, 5, 1);
	awr__hist_figures(&h, &r);
	T_EXPECT(r.p50_us == 0.005, "5 ns read back as %.6f us", r.p50_us);
	memset(&h, 0, sizeof(h));
	awr__hist_add(&h, UINT64_MAX, 3);
	awr__hist_figures(&h, &r);
	/* 2^45 ns, about 35,000 s */
	T_EXPECT(r.p50_us > 3.4e10 && r.p50_us < 3.6e10, "a huge value clamped to %.0f us",
		 r.p50_us);
	/* the first value past the last power of two lands in the last bucket, not past it */
	memset(&h, 0, sizeof(h));
	awr__hist_add(&h, 1ULL << 45, 1);
	awr__hist_add(&h, (1ULL << 46) - 1, 1);
	T_EXPECT_EQ(h.b[AWR__HIST_BUCKETS - 1], 2, "2^45 and 2^46 - 1 ns in the last bucket");
}

/* Values over 44 powers of two: the distribution is grouped coarser until it fits. */
static void wide(void)
{
	struct awr_bench_mode_result r = { 0 };

	memset(&h, 0, sizeof(h));
	for (uint64_t ns = 1; ns < (1ULL << 44); ns = ns * 21 / 20 + 1)
		awr__hist_add(&h, ns, 1);
	awr__hist_figures(&h, &r);
	check_cdf(&r, "wide");
	T_EXPECT(r.p50_us < r.p99_us && r.p99_us <= r.p999_us,
		 "wide: p50 %.3f p99 %.3f p99.9 %.3f", r.p50_us, r.p99_us, r.p999_us);
}

int main(void)
{
	empty();
	uniform();
	weighted();
	ends();
	wide();
	return t_done("hist");
}
