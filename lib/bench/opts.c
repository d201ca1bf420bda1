// SPDX-License-Identifier: MIT
/*
 * The benchmark's options from text, as a command line or a configuration file
 * gives them ("qd" "64", "mode" "atomic"), and their checks: each refusal names
 * the option, what was given and what it takes. The enum spellings live here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "bench/bench.h"

/* What "mode" takes: the four modes one can ask for, then "all" (AWR_BENCH_ALL) */
static const char *mode_word(int v)
{
	return v <= AWR_BENCH_PAGES ? awr_bench_mode_name((enum awr_bench_mode)v) :
	       v == AWR_BENCH_PAGES + 1 ? "all" : NULL;
}

static const char *order_word(int v)
{
	return v <= AWR_BENCH_SEQUENTIAL ? awr_bench_order_name((enum awr_bench_order)v) : NULL;
}

static const char *durability_word(int v)
{
	return v <= AWR_BENCH_NO_SYNC ? awr_bench_durability_name((enum awr_bench_durability)v) :
	       NULL;
}

/* @text as the index of the words @word gives (NULL past the last); the refusal names them all */
static int pick(const char *opt, const char *text, const char *(*word)(int), int *out)
{
	char all[128];
	size_t n = 0;

	for (int i = 0; word(i); i++) {
		if (!strcmp(text, word(i))) {
			*out = i;
			return 0;
		}
		n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", i ? ", " : "", word(i));
	}
	return awr__fail(-EINVAL, "%s '%s' is unknown: use one of %s", opt, text, all);
}

static int count(const char *opt, const char *text, unsigned int max, unsigned int *out)
{
	uint64_t v;

	if (awr_parse_size(text, &v) || !v || v > max)
		return awr__fail(-EINVAL, "%s '%s': give a whole number from 1 to %u", opt, text,
				 max);
	*out = (unsigned int)v;
	return 0;
}

static int seconds(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || end == text || !(v > 0) || v > 86400)
		return awr__fail(-EINVAL, "seconds '%s': give a duration in seconds, more than 0 "
				 "and at most 86400 (0.5 is fine)", text);
	*out = v;
	return 0;
}

/* "mode", "order", "durability": the word's value into the option */
static int set_word(struct awr_bench_opts *o, const char *name, const char *value)
{
	int v, ret;

	if (!strcmp(name, "mode")) {
		ret = pick(name, value, mode_word, &v);
		if (!ret)
			o->modes = v > AWR_BENCH_PAGES ? AWR_BENCH_ALL : 1U << v;
	} else if (!strcmp(name, "order")) {
		ret = pick(name, value, order_word, &v);
		if (!ret)
			o->order = (enum awr_bench_order)v;
	} else if (!strcmp(name, "durability")) {
		ret = pick(name, value, durability_word, &v);
		if (!ret)
			o->durability = (enum awr_bench_durability)v;
	} else {
		ret = awr__fail(-EINVAL, "%s is not an option of the benchmark", name);
	}
	return ret;
}

int awr_bench_opts_set(struct awr_bench_opts *o, const char *name, const char *value)
{
	if (!o || !name || !value)
		return awr__fail(-EINVAL, "no options, option name or value");
	if (!strcmp(name, "qd"))
		return count(name, value, 32768, &o->qd);
	if (!strcmp(name, "batch"))
		return count(name, value, 65536, &o->batch);
	if (!strcmp(name, "jobs"))
		return count(name, value, 64, &o->jobs);
	if (!strcmp(name, "seconds"))
		return seconds(value, &o->seconds);
	return set_word(o, name, value);
}

int awr_bench_opts_check(const struct awr_bench_opts *o)
{
	if (!o)
		return awr__fail(-EINVAL, "no options");
	if (!o->unit || o->unit % 512 || o->unit > (1ULL << 30))
		return awr__fail(-EINVAL, "unit %" PRIu64 " must be a multiple of 512 bytes up to "
				 "1 GiB (a page size such as 16k)", o->unit);
	if (!o->qd || !o->jobs || !(o->seconds > 0) || !o->modes || (o->modes & ~AWR_BENCH_ALL))
		return awr__fail(-EINVAL, "queue depth %u, jobs %u, %g seconds per mode, modes "
				 "0x%x: need non-zero depth and jobs, more than 0 seconds and "
				 "modes of AWR_BENCH_ALL (0x%x)", o->qd, o->jobs, o->seconds,
				 o->modes, AWR_BENCH_ALL);
	return 0;
}
