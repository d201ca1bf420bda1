/* SPDX-License-Identifier: MIT */
/* Private declarations of the device views (lib/device/): NVMe / SCSI data, device I/O. */
#ifndef AWR_DEVICE_H
#define AWR_DEVICE_H

#include <string.h>

#include "private.h"

struct awr_device {
	enum awr_device_type type;
	char name[64];			/* device node the data came from */
	char disk[64];			/* block disk whose sysfs gave the caps, or "" */
	struct awr_nvme_id nvme;
	struct awr_scsi_id scsi;
	struct awr_queue_caps caps;
	struct awr_device_limits derived;	/* 6.18's answer (NVMe: with AWUPF) */
	struct awr_device_limits alt;		/* NVMe: 7.0's, without AWUPF, when have_alt */
	bool have_alt;				/* NVMe: the answer rests on AWUPF */
	bool mpath_head;		/* an NVMe multipath head node (sysfs multipath/) */
	bool scsi_kernel_no_vpd; /* the kernel's SCSI layer holds no Block Limits page of disk */
	uint32_t kernel_asked;		/* awr_device_set_kernel(), 0 the running one */
	uint32_t kernel;		/* the release kder follows */
	uint64_t chunk_bytes;		/* chunk_sectors the derivation used (sysfs or NOIOB) */
	struct awr_device_limits kder;	/* what that kernel derives */
	unsigned int nr_ranges;		/* other release ranges whose answer differs */
	struct {
		char label[24];
		uint32_t first;
		struct awr_device_limits l;
	} ranges[8];
	uint64_t assumed; /* AWR_IF_* fields not read but assumed (awr_input_device) */
	bool have_provider;		/* a cloud provider's statement (provider.c) */
	struct awr_provider_atomic provider;
	unsigned int nr_findings;
	struct awr_finding findings[AWR_MAX_FINDINGS];
	char scsi_model[32];		/* "VENDOR PRODUCT" of scsi, blanks cut */
};

/* Where a path's device data is read from. */
enum awr_devnode_kind {
	AWR_NODE_NONE = 0,
	AWR_NODE_NVME_NS,		/* /dev/nvmeXnY (block) or /dev/ngXnY (char) */
	AWR_NODE_NVME_CTRL,		/* /dev/nvmeX: controller only */
	AWR_NODE_SCSI,			/* /dev/sdX or /dev/sgN */
};

struct awr_devnode {
	enum awr_devnode_kind kind;
	char node[80];			/* "/dev/nvme0n1", "/dev/ng0n1", "/dev/sg0" */
	char disk[64];			/* block disk for sysfs caps, "" when none */
	char generic[64];		/* "ng0n1" / "sg0" when known */
};

/* little/big endian field access with bounds known by the caller */
static inline uint16_t awr__le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t awr__be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t awr__be64(const uint8_t *p)
{
	return (uint64_t)awr__be32(p) << 32 | awr__be32(p + 4);
}

static inline uint64_t awr__pow2_down(uint64_t v)
{
	return v ? 1ULL << (63 - __builtin_clzll(v)) : 0;
}

/* device.c */
/* The input fields (AWR_IF_* bits) a finding states a fact about (input.c): a finding is not
 * raised on a view whose ->assumed covers any of them. */
uint64_t awr__finding_reads(const char *id);
/*
 * One word for atomic writes of @unit_max bytes on @lbs-byte blocks (awr list's VERDICT,
 * decode's verdict): "unknown" when the limits are not @known, "none", "single_block",
 * "misaligned", "atomic".
 */
const char *awr__atomic_verdict(bool known, uint32_t unit_max, uint32_t lbs, bool misaligned);
/* A finding of the catalogue (lib/findings.def): awr__dev_finding(d, AWR_FIND(key), args...) */
void awr__dev_finding(struct awr_device *d, enum awr__finding_key key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* derive_blk.c: the block layer's validation and caps on the driver's hw limits */
const char *awr__blk_finish(struct awr_device_limits *l, const struct awr_queue_caps *caps,
			    uint32_t lbs, uint32_t kernel);
void awr__blk_findings(struct awr_device *d, const struct awr_device_limits *l, uint32_t lbs);

/* derive_nvme.c / derive_scsi.c: findings from decoded data */
uint64_t awr__nvme_noiob_chunk(const struct awr_nvme_id *id);
void awr__kernel_findings(struct awr_device *d);
void awr__device_derive_kernel(struct awr_device *d);
void awr__nvme_findings(struct awr_device *d);
void awr__scsi_findings(struct awr_device *d);

/* provider.c: a cloud provider's statement beside the kernel's derivation */
uint8_t awr__nvme_model_kind(const char *mn, size_t len);
void awr__provider_derive(struct awr_device *d);
void awr__provider_findings(struct awr_device *d);
/* Does the provider's statement cover a plain @page-byte write, aligned to @page? @why says. */
bool awr__provider_covers(const struct awr_device *d, uint32_t page, char *why, size_t len);
/* Is @disk an Amazon volume by sysfs alone (model, PCI vendor)? @known_by says how it is known. */
bool awr__provider_sysfs(const char *disk, char *known_by, size_t len);

/* scsi_decode.c */
int awr__scsi_decode_readcap16(const uint8_t *buf, size_t len, struct awr_scsi_id *id);
int awr__scsi_decode_rsoc(const uint8_t *buf, size_t len, struct awr_scsi_id *id);

/* device.c */
/* @n bytes of an identity field (MN, SN, FR, INQUIRY) into @dst: blanks, NULs, quotes cut */
void awr__ident_copy(char *dst, size_t cap, const char *src, size_t n);
struct awr_device *awr__device_new(enum awr_device_type type);
void awr__device_derive(struct awr_device *d);
int awr__caps_from_sysfs(const char *disk, struct awr_queue_caps *caps);

/* devnode.c: map a path or device number to the node to query */
int awr__devnode_from_mode(uint32_t mode, uint32_t maj, uint32_t min, const char *path,
			   struct awr_devnode *out);
int awr__devnode_from_disk(const char *disk, struct awr_devnode *out);

/* nvme_dev.c / scsi_dev.c: device I/O */
int awr__nvme_read(int fd, bool want_ns, struct awr_nvme_id *id, char *err, size_t errlen);
/* Identify Namespace @nsid into @ns (AWR_NVME_ID_SIZE bytes): 0, -EIO on an NVMe status, -errno. */
int awr__nvme_identify_ns(int fd, uint32_t nsid, void *ns, size_t len);
int awr__scsi_read(int fd, struct awr_scsi_id *id, char *err, size_t errlen);
/* device_io.c: a real SCSI disk whose kernel-cached Block Limits page (vpd_pgb0) is missing */
bool awr__scsi_kernel_lacks_vpd(const char *disk);
int awr__device_read(const struct awr_devnode *n, struct awr_device **out, char *err,
		     size_t errlen);

/* scsi_pt.c: one CDB through sg_pt; sense decoded into @msg on CHECK CONDITION */
void awr__scsi_sense_sentence(const uint8_t *sense, int len, char *msg, size_t msglen);
int awr__scsi_cdb(int fd, const uint8_t *cdb, int cdb_len, void *buf, int len, bool data_out,
		  int *resid, char *msg, size_t msglen);

#endif /* AWR_DEVICE_H */
