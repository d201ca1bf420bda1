# SPDX-License-Identifier: MIT
# Description: the mutants of the cloud providers' statements, their database verdict, NSFEAT bit 6 and
# the nvme format transcript (issue 40 items 1, 4, 5; sourced by scripts/mutants.sh). No cloud disk is
# reachable here: the tests that catch them read fixtures built to AWS's published layout.
# shellcheck shell=bash disable=SC2016

mutant cloud-vid-ignored "any controller's vendor bytes read as AWS's (the PCI vendor not checked)" \
	"provider_cloud db_provider cli_decode" lib/device/provider.c \
	$'\t\treturn id->vid == AWR_NVME_VID_AMAZON;' \
	$'\t\treturn true;'

mutant cloud-unit-unchecked "a page larger than NTWPU covered" \
	"provider_cloud db_provider" lib/device/provider.c \
	'	if (page > p->unit) {' \
	'	if (0) {'

mutant cloud-granularity-unchecked "a page not a multiple of NTWPG covered" \
	"provider_cloud db_provider" lib/device/provider.c \
	'	if (page % p->granularity) {' \
	'	if (0) {'

mutant cloud-boundary-unchecked "an NTWPB boundary that a page can cross accepted" \
	"provider_cloud db_provider" lib/device/provider.c \
	'	if (p->boundary && p->boundary % page) {' \
	'	if (0) {'

mutant cloud-zero-read "NTWPU/NTWPG/NTWPB all 0 read as a one-block statement" \
	"provider_cloud db_provider" lib/device/provider.c \
	$'\tif (!ntwp_nonzero(id)) {\n\t\tsnprintf(p->source' \
	$'\tif (0) {\n\t\tsnprintf(p->source'

mutant cloud-ntwp-offset "NTWPU read at vendor-specific offset 254 instead of 256" \
	"provider_cloud cli_decode" lib/device/nvme_decode.c \
	'#define NS_NTWPU	(NS_VS + 256)' \
	'#define NS_NTWPU	(NS_VS + 254)'

mutant cloud-ntwp-zeros-based "NTWPU taken as a count of blocks, not 0's based" \
	"provider_cloud db_provider cli_decode" lib/device/provider.c \
	'	p->unit = bytes32(blocks0(id->ntwpu, lbs));' \
	'	p->unit = bytes32((uint64_t)id->ntwpu * lbs);'

mutant cloud-db-provider-skipped "the database verdict ignores the provider's statement" \
	"db_provider" lib/database/db.c \
	'	if (!st && judge_provider(f, dev, fs)) {' \
	'	if (0) {'

mutant cloud-db-provider-overrides-checks "the provider's statement skips the partition start check" \
	"db_provider" lib/database/db.c \
	'	if (f->device_offset_align && f->device_offset_align < P)' \
	'	if (!judge_provider(f, dev, fs) && f->device_offset_align && f->device_offset_align < P)'

mutant cloud-mam-bit "NSFEAT bit 5 taken for Multiple Atomicity Mode" \
	"provider_cloud cli_decode" lib/device/derive_nvme.c \
	'#define NSFEAT_MAM	(1U << 6)' \
	'#define NSFEAT_MAM	(1U << 5)'

mutant cloud-split-none "a transcript is never split at nvme format: before/after refused as two devices" \
	"provider_cloud cli_decode" lib/device/input.c \
	'		if (has_word(p, l.end, "nvme format") ||' \
	'		if (0 ||'

mutant cloud-serial-unchecked "readings of two controllers (serials differ) taken as one" \
	"readings cli_decode" lib/device/readings.c \
	'		    r->readings[i].sn_hash != r->readings[0].sn_hash)' \
	'		    0)'

mutant cloud-update-no-change "awr_input_update reports no change" \
	"provider_cloud cli_decode" lib/device/input.c \
	$'\t\tif (HAVE(in, f) && field_get(p, bits) != v)\n\t\t\tchanged |= 1ULL << f;' \
	$'\t\tif (0)\n\t\t\tchanged |= 1ULL << f;'

mutant cloud-sysfs-model-only "without identify, an Amazon model under another PCI vendor taken as Amazon's" \
	"probe_cloud_sysfs" lib/device/provider.c \
	'	if (vid ? vid != AWR_NVME_VID_AMAZON : !aws_model(kind))' \
	'	if (!aws_model(kind))'

mutant cloud-sysfs-unsaid "a probe whose identify failed says nothing of an Amazon volume" \
	"probe_cloud_sysfs" lib/discover/device_probe.c \
	'		if (n.kind != AWR_NODE_SCSI && awr__provider_sysfs(n.disk, err, sizeof(err)))' \
	'		if (0)'

mutant cloud-db-condition-kernel "a device-implicit verdict on the provider's word states the kernel's unit as its condition" \
	"db_provider" lib/database/db.c \
	'	if (f->by_provider)' \
	'	if (0)'

mutant transcript-awupf-kept "a transcript's AWUPF change before 7.0: the kernel keeps the new AWUPF" \
	"readings cli_decode" lib/device/readings.c \
	'	uint64_t kept = (first->awupf + 1ULL) * last->lba_size;' \
	'	uint64_t kept = (last->awupf + 1ULL) * last->lba_size;'
