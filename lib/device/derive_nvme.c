// SPDX-License-Identifier: MIT
/*
 * What Linux derives from NVMe identify data (drivers/nvme/host/core.c,
 * nvme_configure_atomic_write), and findings for each case that disables or
 * narrows atomic writes. Pure functions: no I/O.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "device.h"
#include "kernel.h"

#define NSFEAT_NSABP	(1U << 1)	/* NAWUN/NAWUPF/NACWU valid */
#define NSFEAT_MAM	(1U << 6)	/* Multiple Atomicity Mode (NVM Command Set 1.1) */
#define IGNORE_AWUPF	(1U << 0)	/* kernels with "nvme: stop using AWUPF" (7.0) */

static bool ns_atomics(const struct awr_nvme_id *id)
{
	return (id->nsfeat & NSFEAT_NSABP) && id->nawupf;
}

/* The driver's atomic_bs in 64 bits (the kernel computes it in 32). */
static uint64_t atomic_bs64(const struct awr_nvme_id *id, unsigned int flags)
{
	uint64_t bs = id->lba_size;

	if (ns_atomics(id))
		return (id->nawupf + 1ULL) * bs;
	if (flags & IGNORE_AWUPF)
		return bs;
	return (id->awupf + 1ULL) * bs;
}

/*
 * chunk_sectors from NOIOB (drivers/nvme/host/core.c nvme_set_chunk_sectors,
 * the same 6.11 .. 7.x): NOIOB blocks in 512-byte sectors when that is a
 * power of two; another value is ignored with "ignoring unaligned IO boundary".
 */
uint64_t awr__nvme_noiob_chunk(const struct awr_nvme_id *id)
{
	uint64_t sectors = (uint64_t)id->noiob * id->lba_size / 512;

	return awr_is_pow2(sectors) ? sectors * 512 : 0;
}

/*
 * nvme_configure_atomic_write() of @kernel: NABO != 0 sets no limits (6.11+);
 * NSFEAT bit 1 with NAWUPF gives (NAWUPF + 1) blocks and the NABSPF boundary;
 * otherwise the controller's AWUPF before 7.0 and one block from 7.0 ("nvme:
 * stop using AWUPF"). Then the block layer of @kernel, with chunk_sectors
 * from @caps (a live device's sysfs) or else from NOIOB.
 */
static int nvme_derive(const struct awr_nvme_id *id, unsigned int flags, uint32_t kernel,
		       const struct awr_queue_caps *caps, struct awr_device_limits *out)
{
	struct awr_queue_caps c = { 0 };
	uint32_t bs, atomic_bs;

	if (!id || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!id->have_ns || !id->lba_size)
		return -EINVAL;
	if (!ns_atomics(id) && !(flags & IGNORE_AWUPF) && !id->have_ctrl)
		return -ENODATA;
	if (!awr_kernel_has(kernel, AWR_KRULE_ATOMIC_WRITES))
		return 0;	/* before 6.11: no atomic writes */
	if (caps)
		c = *caps;
	if (!c.chunk_bytes)
		c.chunk_bytes = awr__nvme_noiob_chunk(id);
	bs = id->lba_size;
	if (id->nabo) {
		/* no atomic limits set: the block layer keeps atomics off */
		awr__blk_finish(out, caps ? &c : NULL, bs, kernel);
		return 0;
	}
	atomic_bs = (uint32_t)atomic_bs64(id, flags);
	out->hw_max = atomic_bs;
	out->hw_unit_min = bs;
	out->hw_unit_max = (uint32_t)awr__pow2_down(atomic_bs);
	if (ns_atomics(id) && id->nabspf)
		out->hw_boundary = (uint32_t)((uint64_t)(id->nabspf + 1ULL) * bs);
	awr__blk_finish(out, caps || c.chunk_bytes ? &c : NULL, bs, kernel);
	return 0;
}

int awr_nvme_derive(const struct awr_nvme_id *id, uint32_t kernel,
		    const struct awr_queue_caps *caps, struct awr_device_limits *out)
{
	kernel = awr__kernel_or_running(kernel);
	return nvme_derive(id, awr_kernel_has(kernel, AWR_KRULE_NVME_NO_AWUPF) ?
			   IGNORE_AWUPF : 0, kernel, caps, out);
}

static void spec_relations(struct awr_device *d, const struct awr_nvme_id *id)
{
	bool ns = id->have_ns && (id->nsfeat & NSFEAT_NSABP);

	if (id->have_ctrl && id->awun != 0xffff && id->awupf > id->awun)
		awr__dev_finding(d, AWR_FIND(nvme_spec_awupf_above_awun),
				 id->awupf, id->awun);
	if (!ns)
		return;
	if (id->have_ctrl && id->awun != 0xffff && id->nawun < id->awun)
		awr__dev_finding(d, AWR_FIND(nvme_spec_nawun_below_awun),
				 id->nawun, id->awun);
	if (id->have_ctrl && id->nawupf && id->nawupf < id->awupf)
		awr__dev_finding(d, AWR_FIND(nvme_spec_nawupf_below_awupf),
				 id->nawupf, id->awupf);
	if (id->nawupf > id->nawun)
		awr__dev_finding(d, AWR_FIND(nvme_spec_nawupf_above_nawun),
				 id->nawupf, id->nawun);
	if (id->nabsn && id->nabsn < id->nawun)
		awr__dev_finding(d, AWR_FIND(nvme_spec_nabsn_below_nawun),
				 id->nabsn, id->nawun);
	if (id->nabspf && id->nabspf < id->nawupf)
		awr__dev_finding(d, AWR_FIND(nvme_spec_nabspf_below_nawupf),
				 id->nabspf, id->nawupf);
	if ((id->nabsn && id->nabo > id->nabsn) || (id->nabspf && id->nabo > id->nabspf))
		awr__dev_finding(d, AWR_FIND(nvme_spec_nabo_beyond_boundary),
				 id->nabo, id->nabsn, id->nabspf);
}

static void normal_vs_power_fail(struct awr_device *d, const struct awr_nvme_id *id)
{
	uint64_t bs = id->lba_size ? id->lba_size : 0;
	bool ns = id->have_ns && (id->nsfeat & NSFEAT_NSABP);

	if (id->have_ctrl && id->awun != 0xffff && id->awun > id->awupf)
		awr__dev_finding(d, AWR_FIND(nvme_awun_above_awupf), id->awun, id->awupf,
				 id->awun + 1, id->awupf + 1, (id->awupf + 1) * bs);
	if (ns && id->nawun > id->nawupf)
		awr__dev_finding(d, AWR_FIND(nvme_nawun_above_nawupf),
				 id->nawun, id->nawupf, id->nawupf + 1, (id->nawupf + 1) * bs);
	if (id->have_dn && id->dn)
		awr__dev_finding(d, AWR_FIND(nvme_dn_set));
}

static void namespace_findings(struct awr_device *d, const struct awr_nvme_id *id)
{
	uint64_t bs = id->lba_size;
	bool no_awupf = awr_kernel_has(d->kernel, AWR_KRULE_NVME_NO_AWUPF);
	char kv[16];

	awr_kernel_format(d->kernel, kv, sizeof(kv));

	if (id->nsfeat & NSFEAT_MAM)
		awr__dev_finding(d, AWR_FIND(nvme_nsfeat_mam));
	if ((id->flbas & 0x60) && id->nlbaf < 16)
		awr__dev_finding(d, AWR_FIND(nvme_flbas_high_bits),
				 id->flbas, id->nlbaf);
	if (id->nabo) {
		awr__dev_finding(d, AWR_FIND(nvme_nabo_nonzero),
				 id->nabo);
		return;
	}
	if (!(id->nsfeat & NSFEAT_NSABP) && no_awupf)
		awr__dev_finding(d, AWR_FIND(nvme_nsabp_clear),
				 id->nsfeat, kv, id->awupf, bs);
	else if (!(id->nsfeat & NSFEAT_NSABP))
		awr__dev_finding(d, AWR_FIND(nvme_nsabp_clear_2),
				 id->nsfeat, id->awupf, (id->awupf + 1) * bs);
	else if (!id->nawupf && no_awupf)
		awr__dev_finding(d, AWR_FIND(nvme_nawupf_zero),
				 kv, id->awupf, bs);
	else if (!id->nawupf)
		awr__dev_finding(d, AWR_FIND(nvme_nawupf_zero_2),
				 id->awupf, (id->awupf + 1) * bs);
	if (ns_atomics(id) && id->nabspf && !awr_is_pow2((uint64_t)(id->nabspf + 1) * bs))
		awr__dev_finding(d, AWR_FIND(nvme_boundary_not_pow2),
				 id->nabspf, (uint64_t)(id->nabspf + 1ULL) * bs);
	if (atomic_bs64(id, 0) > UINT32_MAX)
		awr__dev_finding(d, AWR_FIND(nvme_atomic_overflow),
				 atomic_bs64(id, 0));
}

static void awupf_interpretations(struct awr_device *d)
{
	const struct awr_nvme_id *id = &d->nvme;

	if (!d->have_alt || d->alt.unit_max == d->derived.unit_max)
		return;
	awr__dev_finding(d, AWR_FIND(nvme_awupf_ignored), id->awupf, d->alt.unit_min,
			 d->alt.unit_max, d->derived.unit_min, d->derived.unit_max);
}

void awr__nvme_findings(struct awr_device *d)
{
	const struct awr_nvme_id *id = &d->nvme;

	spec_relations(d, id);
	normal_vs_power_fail(d, id);
	if (!id->have_ns) {
		awr__dev_finding(d, AWR_FIND(nvme_no_namespace));
		return;
	}
	namespace_findings(d, id);
	if (!ns_atomics(id) && !id->have_ctrl)
		awr__dev_finding(d, AWR_FIND(nvme_no_controller));
	awupf_interpretations(d);
	awr__blk_findings(d, &d->kder, id->lba_size);
	if (d->kder.supported && d->kder.unit_max == id->lba_size)
		awr__dev_finding(d, AWR_FIND(nvme_single_block), id->lba_size);
}
