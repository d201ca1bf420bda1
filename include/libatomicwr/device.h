/* SPDX-License-Identifier: MIT */
/*
 * libatomicwr/device.h - device views: NVMe Identify and SCSI Block Limits VPD decoding,
 * saved dumps and nvme-cli / sg3_utils output, the limits the Linux drivers
 * and block layer derive from them, a cloud provider's own statement.
 *
 * Included by <libatomicwr.h>; compiles on its own.
 */
#ifndef LIBATOMICWR_DEVICE_H
#define LIBATOMICWR_DEVICE_H

#include <libatomicwr/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The device's own description of its atomic writes (NVMe Identify, SCSI
 * Block Limits VPD), decoded raw, and the limits the Linux driver and block
 * layer derive from it. Dumps saved by `nvme id-ctrl -b`, `nvme id-ns -b`
 * and `sg_vpd -p bl -r` decode the same way as a live device.
 */

#define AWR_NVME_ID_SIZE	4096	/* Identify Controller / Namespace data */
#define AWR_SCSI_VPD_BL_ATOMIC_LEN 0x3C	/* page length carrying the atomic fields */

/* NVMe identify fields that matter for atomic writes, as the device reports them. */
struct awr_nvme_id {
	bool have_ctrl;		/* Identify Controller decoded */
	bool have_ns;		/* Identify Namespace decoded */
	bool have_dn;		/* feature 0Ah (Write Atomicity Normal) was read */
	bool dn;		/* its DN bit: only (N)AWUPF honoured */
	uint8_t mdts;		/* max data transfer size, 2^n min pages; 0 none */
	uint16_t awun;		/* 0's based, logical blocks */
	uint16_t awupf;		/* 0's based */
	uint16_t acwu;		/* 0's based */
	uint32_t nsid;		/* namespace id, 0 when unknown */
	uint64_t nsze;		/* namespace size in logical blocks */
	uint8_t nsfeat;		/* bit 1: NAWUN/NAWUPF/NACWU valid */
	uint8_t nlbaf;		/* number of LBA formats, 0's based */
	uint8_t flbas;		/* formatted LBA size field as reported */
	uint8_t lbaf_index;	/* LBA format in use (FLBAS bits 3:0 and 6:5) */
	uint8_t lbads;		/* log2 of the block size of that format */
	uint16_t lba_ms;	/* metadata bytes per block of that format */
	uint16_t nawun, nawupf, nacwu;	/* 0's based */
	uint16_t nabsn;		/* 0 none, else 0's based */
	uint16_t nabo;		/* LBA of the first boundary, not 0's based */
	uint16_t nabspf;	/* 0 none, else 0's based */
	uint16_t noiob;		/* optimal I/O boundary in blocks, 0 none */
	uint32_t lba_size;	/* 1 << lbads in bytes, 0 when the namespace is unknown */
	uint16_t vid;		/* PCI vendor ID, Identify Controller bytes 1:0 */
	uint8_t model;		/* AWR_NVME_MODEL_*: the model (MN, bytes 63:24) recognised */
	uint8_t vendor_have;	/* AWR_NVME_HAVE_*: which of vid, model, ntwp* were read */
	uint16_t ntwpu, ntwpg;	/* Amazon's namespace vendor bytes 256:257, 258:259, 0's based */
	uint32_t ntwpb;		/* 260:263: 0 no boundary, else 0's based */
	char mn[41];		/* model number (MN, bytes 63:24), blanks cut; "" unknown */
	char sn[21];		/* serial number (SN, bytes 23:4) */
	char fr[9];		/* firmware revision (FR, bytes 71:64) */
	uint32_t reserved[5];
};

/* awr_nvme_id.model: controllers whose provider states a guarantee (awr_device_provider()) */
#define AWR_NVME_MODEL_OTHER		0	/* another model, or not known */
#define AWR_NVME_MODEL_AWS_EBS		1	/* "Amazon Elastic Block Store" */
#define AWR_NVME_MODEL_AWS_INSTANCE	2	/* "Amazon EC2 NVMe Instance Storage" */
/* "MSFT NVMe Accelerator", "Microsoft NVMe Direct" */
#define AWR_NVME_MODEL_AZURE		3
#define AWR_NVME_MODEL_GCP		4	/* "nvme_card", "nvme_card-pd" (Google) */

/**
 * awr_nvme_model_name() - the stable snake_case name of an AWR_NVME_MODEL_* value
 * @model:	awr_nvme_id.model
 *
 * Return: "other", "aws_ebs", "aws_instance_storage", "azure" or "gcp"; "other"
 * for a value it does not know.
 */
const char *awr_nvme_model_name(int model);

/* awr_nvme_id.vendor_have */
#define AWR_NVME_HAVE_VID	(1U << 0)
#define AWR_NVME_HAVE_MODEL	(1U << 1)
#define AWR_NVME_HAVE_NTWP	(1U << 2)	/* the namespace's vendor bytes 256:263 */
#define AWR_NVME_VID_AMAZON	0x1d0f

/* SCSI Block Limits VPD (B0h) atomic fields and block sizes. */
struct awr_scsi_id {
	bool have_vpd;			/* a Block Limits page was decoded */
	bool vpd_has_atomic;		/* page length >= 0x3C: atomic fields present */
	uint16_t vpd_page_length;	/* PAGE LENGTH (bytes 2-3) */
	uint32_t max_transfer_length;	/* bytes 8-11, blocks, 0 none */
	uint32_t max_atomic_transfer_length;		/* bytes 44-47, blocks */
	uint32_t atomic_alignment;			/* bytes 48-51, blocks, 0 none */
	uint32_t atomic_granularity;			/* bytes 52-55, blocks, 0 none */
	uint32_t max_atomic_transfer_length_with_boundary;/* bytes 56-59, blocks */
	uint32_t max_atomic_boundary_size;		/* bytes 60-63, blocks */
	uint32_t logical_block_size;	/* bytes, 0 unknown */
	uint32_t physical_block_size;	/* bytes, 0 unknown */
	bool have_capacity;		/* READ CAPACITY(16) decoded */
	bool prot_en;			/* its PROT_EN bit */
	uint8_t p_type;			/* its P_TYPE (PI type = p_type + 1 when prot_en) */
	uint64_t nr_blocks;		/* logical blocks, 0 unknown */
	int write_atomic16;		/* WRITE ATOMIC(16): 1 supported, 0 not, -1 unknown */
	char vendor[9];			/* INQUIRY: T10 VENDOR IDENTIFICATION; "" unknown */
	char product[17];		/* PRODUCT IDENTIFICATION */
	char revision[5];		/* PRODUCT REVISION LEVEL */
	char serial[64];		/* Unit Serial Number VPD page (80h) */
	uint32_t reserved[8];
};

/* Inputs of the block layer's caps; 0 = unknown (then the caps are skipped). */
struct awr_queue_caps {
	uint32_t max_segments;		/* queue/max_segments */
	uint64_t max_hw_bytes;		/* queue/max_hw_sectors_kb * 1024 */
	uint32_t page_size;		/* 0: the system's page size */
	uint64_t chunk_bytes;		/* queue/chunk_sectors * 512; 0: none (NVMe: from NOIOB) */
};

/* Limits derived the kernel's way, in bytes; 0 = unsupported / none. */
struct awr_device_limits {
	bool supported;		/* the block layer keeps atomic writes on */
	bool capped;		/* the block layer's caps were applied */
	uint32_t hw_max;	/* what the driver sets: atomic_write_hw_max */
	uint32_t hw_unit_min;
	uint32_t hw_unit_max;
	uint32_t hw_boundary;
	uint32_t unit_min;	/* what sysfs should say */
	uint32_t unit_max;
	uint32_t max_bytes;
	uint32_t boundary;
	uint32_t reserved[6];
};

enum awr_device_type {
	AWR_DEVICE_NONE = 0,
	AWR_DEVICE_NVME,
	AWR_DEVICE_SCSI,
};

struct awr_device;

/**
 * awr_dump_parse() - turn a saved dump (binary or hex text) into bytes
 * @data:	the file's content
 * @len:	its length
 * @out:	destination
 * @cap:	size of @out
 *
 * Text made only of printable characters and whitespace is read as hex:
 * plain pairs, optional "0x", offsets such as "0000:" (nvme-cli, xxd),
 * hexdump -C (with "*" for repeated lines) and sg_vpd -H; ASCII columns are
 * ignored. Anything else is taken as binary and copied.
 *
 * Return: the number of bytes, -EINVAL for malformed text (bad digit, odd
 * digit count, offsets out of order), -EOVERFLOW when it exceeds @cap.
 */
ssize_t awr_dump_parse(const void *data, size_t len, void *out, size_t cap);

/**
 * awr_nvme_decode_ctrl() - decode Identify Controller data
 * @buf:	the data (little-endian, as the device returns it)
 * @len:	its length; at least 534 bytes (through ACWU), normally 4096
 * @id:		the controller fields are filled, others kept
 *
 * Return: 0, -EINVAL for a NULL pointer, -EMSGSIZE when @len is too short.
 */
int awr_nvme_decode_ctrl(const void *buf, size_t len, struct awr_nvme_id *id);

/**
 * awr_nvme_decode_ns() - decode Identify Namespace data
 * @buf:	the data
 * @len:	its length; 4096 (a shorter namespace page is an error)
 * @id:		the namespace fields are filled, others kept
 *
 * The LBA format in use is FLBAS bits 3:0, plus bits 6:5 as the high bits
 * when NLBAF >= 16; it must not exceed NLBAF and its LBADS must be 9..31.
 *
 * Return: 0, -EINVAL for a NULL pointer or an invalid LBA format,
 * -EMSGSIZE when @len is below 4096.
 */
int awr_nvme_decode_ns(const void *buf, size_t len, struct awr_nvme_id *id);

/**
 * awr_scsi_decode_bl_vpd() - decode a Block Limits VPD page (B0h)
 * @buf:	the page from byte 0 (peripheral byte, page code, page length)
 * @len:	bytes available
 * @id:		the VPD fields are filled, others kept
 *
 * Fields beyond the page length (or @len) are left 0; a page length below
 * 0x3C leaves ->vpd_has_atomic false.
 *
 * Return: 0, -EINVAL when it is not page B0h or is NULL, -EMSGSIZE when
 * shorter than its 4-byte header.
 */
int awr_scsi_decode_bl_vpd(const void *buf, size_t len, struct awr_scsi_id *id);

/**
 * awr_nvme_id_load() - read a saved Identify page from a file and decode it
 * @path:	the file: one page, binary or hex text as awr_dump_parse() reads it
 * @name:	how an error names the file ("--nvme-ns id-ns.bin"), NULL for @path
 * @ns:		the page is an Identify Namespace page, else Identify Controller
 * @id:		the page's fields are filled, others kept
 *
 * A file over 1 MiB is refused unread: it is no identify page.
 *
 * Return: 0, or -errno with awr_last_error() naming the file, what is wrong
 * and what would be right: the open error, -EFBIG (over 1 MiB), -EOVERFLOW
 * (more than one page), -EINVAL (neither binary nor hex text, or an invalid
 * LBA format), -EMSGSIZE (shorter than the page).
 */
int awr_nvme_id_load(const char *path, const char *name, bool ns, struct awr_nvme_id *id);

/**
 * awr_scsi_id_load() - read a saved Block Limits VPD page from a file and decode it
 * @path:	the file: the page, binary or hex text (sg_vpd -p bl -r, -H)
 * @name:	how an error names the file, NULL for @path
 * @id:		the VPD fields are filled, others kept
 *
 * Return: 0, or -errno as awr_nvme_id_load(); -EINVAL also for a page that
 * is not B0h, -EMSGSIZE for one shorter than its page length promises.
 */
int awr_scsi_id_load(const char *path, const char *name, struct awr_scsi_id *id);

/**
 * awr_nvme_derive() - the limits a kernel release derives from NVMe identify data
 * @id:		decoded identify data (controller and namespace)
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one
 * @caps:	block layer caps' inputs (and chunk_sectors), or NULL when unknown
 * @out:	the result
 *
 * nvme_configure_atomic_write() of that release (AWUPF used before 7.0,
 * ignored from 7.0), chunk_sectors from @caps or else from NOIOB, then the
 * block layer's validation and caps of that release (see awr_kernel_has()).
 * A pure function.
 *
 * Return: 0, -EINVAL without namespace data or a block size, -ENODATA when
 * AWUPF is needed and no controller data was decoded.
 */
int awr_nvme_derive(const struct awr_nvme_id *id, uint32_t kernel,
		    const struct awr_queue_caps *caps, struct awr_device_limits *out);

/**
 * awr_scsi_derive() - the limits a kernel release derives from SCSI Block Limits VPD
 * @id:		decoded VPD and block sizes
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the result
 *
 * The sd driver's rule (sd_config_atomic), then the block layer's validation
 * and caps of that release. A pure function.
 *
 * Return: 0, -EINVAL when the logical block size is unknown.
 */
int awr_scsi_derive(const struct awr_scsi_id *id, uint32_t kernel,
		    const struct awr_queue_caps *caps, struct awr_device_limits *out);

/**
 * awr_device_from_nvme() - a device view from decoded NVMe identify data
 * @id:		the identify fields (copied)
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the new view, freed with awr_device_free()
 *
 * Derives the limits both ways (with and without AWUPF) and the findings.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int awr_device_from_nvme(const struct awr_nvme_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out);

/**
 * awr_device_from_scsi() - a device view from decoded SCSI data
 * @id:		the VPD and block size fields (copied)
 * @caps:	block layer caps' inputs, or NULL when unknown
 * @out:	the new view
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int awr_device_from_scsi(const struct awr_scsi_id *id, const struct awr_queue_caps *caps,
			 struct awr_device **out);

/**
 * awr_device_open() - read the device view of an NVMe or SCSI device
 * @path:	/dev/nvmeX, /dev/nvmeXnY[pZ], /dev/ngXnY, /dev/sdX[N] or /dev/sgN
 * @out:	the new view
 *
 * Identify (libnvme) or INQUIRY VPD B0h, READ CAPACITY(16) and REPORT
 * SUPPORTED OPERATION CODES (libsgutils2). A partition maps to its disk.
 * The block layer caps come from the disk's sysfs when it has one.
 *
 * Return: 0, -ENODEV when @path is neither NVMe nor SCSI, -EIO when the
 * device answered with an error, other negative errno.
 */
int awr_device_open(const char *path, struct awr_device **out);

/**
 * awr_device_free() - free a device view
 * @d:	the view, may be NULL
 */
void awr_device_free(struct awr_device *d);

/**
 * awr_device_type() - which kind of device the view describes
 * @d:	the view
 *
 * Return: AWR_DEVICE_NVME or AWR_DEVICE_SCSI.
 */
enum awr_device_type awr_device_type(const struct awr_device *d);

/**
 * awr_device_name() - the device node the data came from
 * @d:	the view
 *
 * Return: "nvme0n1", "ng0n1", "sg0", ..., or "" for decoded dumps.
 */
const char *awr_device_name(const struct awr_device *d);

/**
 * awr_device_disk() - the block disk of the device (for sysfs and read-back)
 * @d:	the view
 *
 * Return: "nvme0n1", "sda", ..., or "" when it has none or for dumps.
 */
const char *awr_device_disk(const struct awr_device *d);

/**
 * awr_device_nvme() - the NVMe identify fields
 * @d:	the view
 *
 * Return: the fields, or NULL for a SCSI view.
 */
const struct awr_nvme_id *awr_device_nvme(const struct awr_device *d);

/**
 * awr_device_scsi() - the SCSI fields
 * @d:	the view
 *
 * Return: the fields, or NULL for an NVMe view.
 */
const struct awr_scsi_id *awr_device_scsi(const struct awr_device *d);

/**
 * awr_device_derived() - the limits the view's kernel derives
 * @d:	the view
 *
 * The running kernel's answer unless awr_device_set_kernel() chose another
 * release; what any other release derives from the same data is
 * awr_nvme_derive() or awr_scsi_derive() of awr_device_nvme() or
 * awr_device_scsi() with awr_device_caps().
 *
 * Return: the limits (all 0 when the data does not allow a derivation);
 * ->supported false when Linux turns atomics off.
 */
const struct awr_device_limits *awr_device_derived(const struct awr_device *d);

/**
 * awr_device_derive_at() - what another kernel release derives from the view's data
 * @d:		the view
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one
 * @out:	the limits
 *
 * awr_nvme_derive() or awr_scsi_derive() of the view's identify or VPD data
 * with awr_device_caps(): the view itself is left as it is.
 *
 * Return: 0, or the negative errno of that derivation.
 */
int awr_device_derive_at(const struct awr_device *d, uint32_t kernel,
			 struct awr_device_limits *out);

/**
 * awr_device_awupf_answers() - what kernels that use AWUPF and kernels that ignore it derive
 * @d:		the view
 * @with:	receives what kernels that use AWUPF derive (6.18; NVMe only)
 * @without:	receives what kernels that ignore it derive (7.0, "nvme: stop using AWUPF"),
 *		when the answer rests on AWUPF
 *
 * The answer rests on AWUPF when the namespace was read and gives neither a
 * NAWUPF (NSFEAT bit 1 with NAWUPF not 0) nor a NABO other than 0
 * (nvme_configure_atomic_write(), 6.18 and 7.0).
 *
 * Return: true when it rests on AWUPF (@without is set), false otherwise and
 * for a SCSI view (@with is set for every NVMe view).
 */
bool awr_device_awupf_answers(const struct awr_device *d, struct awr_device_limits *with,
			      struct awr_device_limits *without);

/**
 * awr_device_caps() - the block layer caps' inputs used
 * @d:	the view
 *
 * Return: the caps; fields 0 when unknown.
 */
const struct awr_queue_caps *awr_device_caps(const struct awr_device *d);

/**
 * awr_device_nr_findings() - number of findings about the device's data
 * @d:	the view
 *
 * Return: the count.
 */
unsigned int awr_device_nr_findings(const struct awr_device *d);

/**
 * awr_device_finding() - one finding
 * @d:	the view
 * @i:	index below awr_device_nr_findings()
 *
 * Return: the finding, or NULL when @i is out of range.
 */
const struct awr_finding *awr_device_finding(const struct awr_device *d, unsigned int i);

/**
 * awr_device_set_kernel() - answer for another kernel release
 * @d:		the view
 * @kernel:	AWR_KERNEL() of the release, 0 for the running one (the default)
 *
 * Derives the view's limits and findings again for that release.
 *
 * Return: 0, -EINVAL for a release below 2.0.
 */
int awr_device_set_kernel(struct awr_device *d, uint32_t kernel);

/**
 * awr_device_kernel() - the release awr_device_derived() answers for
 * @d:	the view
 *
 * Return: AWR_KERNEL() of it.
 */
uint32_t awr_device_kernel(const struct awr_device *d);

/**
 * awr_device_chunk_bytes() - the chunk_sectors the derivation applied
 * @d:	the view
 *
 * From the disk's sysfs queue/chunk_sectors, or for NVMe without it from
 * NOIOB (in 512-byte sectors, when a power of two: nvme_set_chunk_sectors).
 *
 * Return: bytes, 0 for none.
 */
uint64_t awr_device_chunk_bytes(const struct awr_device *d);

/**
 * awr_device_nr_kernel_ranges() - release ranges whose answer differs
 * @d:	the view
 *
 * Return: how many ranges of awr_kernel_range() derive other limits than
 * awr_device_derived() (neighbours with one answer merged).
 */
unsigned int awr_device_nr_kernel_ranges(const struct awr_device *d);

/**
 * awr_device_kernel_range() - one differing range
 * @d:		the view
 * @i:		index below awr_device_nr_kernel_ranges()
 * @label:	optional; set to the releases, "6.11-6.19", "7.0+"
 *
 * Return: the limits derived there, or NULL out of range.
 */
const struct awr_device_limits *awr_device_kernel_range(const struct awr_device *d, unsigned int i,
							const char **label);

/**
 * awr_device_model() - the model the device reports
 * @d:	the view
 *
 * NVMe: the Identify Controller MN; SCSI: INQUIRY's vendor and product
 * ("ATA      Samsung SSD" as "ATA Samsung SSD"). Trailing blanks are cut.
 *
 * Return: the model, "" when the data did not hold it (a namespace page
 * alone, a Block Limits page).
 */
const char *awr_device_model(const struct awr_device *d);

/**
 * awr_device_serial() - the serial number the device reports
 * @d:	the view
 *
 * Return: NVMe SN, SCSI VPD page 80h; "" when the data did not hold it.
 */
const char *awr_device_serial(const struct awr_device *d);

/**
 * awr_device_firmware() - the firmware revision the device reports
 * @d:	the view
 *
 * Return: NVMe FR, SCSI INQUIRY PRODUCT REVISION LEVEL; "" when unknown.
 */
const char *awr_device_firmware(const struct awr_device *d);

/**
 * awr_device_verdict() - one word for the atomic writes the view's kernel derives
 * @d:	the view
 *
 * The words of awr_blockdev_verdict(), from the same function, applied to
 * awr_device_derived() and the logical block size: "atomic" (more than one
 * block), "single_block", "none" (Linux turns atomic writes off, or the
 * device has none), "unknown" (the data allows no derivation: no namespace
 * data, no block size). A view knows no partitions: never "misaligned".
 *
 * Return: the word.
 */
const char *awr_device_verdict(const struct awr_device *d);

/* --- what users have in hand: nvme-cli and sg3_utils output, dumps ------ */

/*
 * An input record collects the atomic-write facts of one device from any
 * number of pieces: nvme-cli `id-ctrl` / `id-ns` output (normal, -H,
 * -o json), sg3_utils `sg_vpd -p bl` and `sg_readcap` text, and binary or
 * hex Identify / VPD dumps. The format is recognised, never told. Fields the
 * pieces lack stay unknown (->have) and are named by awr_input_device().
 */

/* awr_input.formats: what was recognised */
#define AWR_INPUT_NVME_TEXT	(1U << 0)	/* nvme id-ctrl / id-ns */
#define AWR_INPUT_NVME_HUMAN	(1U << 1)	/* ... -H */
#define AWR_INPUT_NVME_JSON	(1U << 2)	/* ... -o json */
#define AWR_INPUT_SG_VPD	(1U << 3)	/* sg_vpd -p bl */
#define AWR_INPUT_SG_READCAP	(1U << 4)	/* sg_readcap [-l] */
#define AWR_INPUT_DUMP		(1U << 5)	/* binary or hex page (awr_dump_parse) */
#define AWR_INPUT_ELIDED	(1U << 6)	/* "[...]" or "..." lines: parts left out */

/* awr_input.have: bit (1ULL << field) per field read */
enum awr_input_field {
	AWR_IF_MDTS, AWR_IF_AWUN, AWR_IF_AWUPF, AWR_IF_ACWU,
	AWR_IF_NSZE, AWR_IF_NSFEAT, AWR_IF_NLBAF, AWR_IF_FLBAS,
	AWR_IF_NAWUN, AWR_IF_NAWUPF, AWR_IF_NACWU, AWR_IF_NABSN, AWR_IF_NABO, AWR_IF_NABSPF,
	AWR_IF_NOIOB,
	AWR_IF_LBAF,		/* the in-use LBA format's data size */
	AWR_IF_VPD_BL,		/* a Block Limits page */
	AWR_IF_MAX_XFER, AWR_IF_MATL, AWR_IF_ATOMIC_ALIGN, AWR_IF_ATOMIC_GRAN,
	AWR_IF_MATL_BNDRY, AWR_IF_MAX_BNDRY,
	AWR_IF_LBS, AWR_IF_PBS,	/* SCSI block sizes (sg_readcap) */
	AWR_IF_VID, AWR_IF_MODEL,	/* NVMe vid, mn (read, never assumed) */
	AWR_IF_NTWPU, AWR_IF_NTWPG, AWR_IF_NTWPB,	/* Amazon's (nvme id-ns -v, -b) */
	AWR_IF__COUNT
};

struct awr_input {
	unsigned int formats;		/* AWR_INPUT_* seen */
	uint64_t have;			/* fields read */
	struct awr_nvme_id nvme;	/* ->have_ctrl / ->have_ns when complete */
	struct awr_scsi_id scsi;
	uint32_t lbaf_size[64];		/* LBA format data sizes seen (bytes), 0 unknown */
	int lbaf_in_use;		/* index marked "(in use)", -1 none */
	uint32_t line;			/* the text line being read (1-based; 0 in JSON or dumps) */
	/* 1 + the AWR_IF_* field first given twice with two values */
	uint32_t conflict;
	uint32_t conflict_line;		/* the line of its second value, 0 when not text */
	uint32_t conflict_first[2];	/* its first value (low, high 32 bits) */
	uint32_t conflict_second[2];	/* the contradicting value */
	uint32_t sn_hash;		/* the controller serial (sn) read, hashed; 0 none */
};

/**
 * awr_input_init() - an empty input record
 * @in:	the record
 */
void awr_input_init(struct awr_input *in);

/**
 * awr_input_add() - recognise one piece of input and add its fields
 * @buf:	the piece (a file's content), need not be NUL-terminated
 * @len:	its length
 * @in:		the record (awr_input_init() first); fields accumulate
 *
 * Text from nvme-cli (`id-ctrl`, `id-ns`: normal, -H, -o json; several in
 * one piece), `sg_vpd -p bl` and `sg_readcap` is read by its field names;
 * other content goes through awr_dump_parse() and is recognised as an
 * Identify Controller page, an Identify Namespace page or a Block Limits
 * VPD page. A field given twice with different values is an error.
 *
 * Return: 0, -ENOMSG when the piece is none of these, -EINVAL for a
 * malformed value or a conflict, -EMSGSIZE for a page too short.
 */
int awr_input_add(const void *buf, size_t len, struct awr_input *in);

/**
 * awr_input_field_name() - a field's name as the tools print it
 * @f:	the field
 *
 * Return: "AWUPF", "NSFEAT", "Maximum atomic transfer length", ...
 */
const char *awr_input_field_name(enum awr_input_field f);

/**
 * awr_input_device() - the device view of what the record holds
 * @in:		the record
 * @caps:	block layer caps' inputs, or NULL
 * @out:	the view (awr_device_free()), made with the missing fields
 *		assumed as @missing says
 * @missing:	receives "" when nothing needed was missing, else a sentence
 *		naming what is missing, the assumption made and the answer under
 *		it ("NSFEAT and the LBA format are missing: if the namespace uses
 *		the controller's fields and 4 KiB blocks, 256 KiB")
 * @len:	size of @missing
 *
 * Return: 0, -ENODATA when the record holds no NVMe or SCSI atomic field,
 * -EINVAL when it holds both, -ENOMEM.
 */
int awr_input_device(const struct awr_input *in, const struct awr_queue_caps *caps,
		     struct awr_device **out, char *missing, size_t len);

/**
 * awr_device_assumed() - the fields a view assumed instead of reading
 * @d:	the view
 *
 * A view made by awr_input_device() from a partial paste holds a value for
 * every field; those the input did not hold are assumed (0, or as @missing
 * said). No finding of the view states an assumed field as read.
 *
 * Return: a mask of (1 << AWR_IF_*) bits; 0 for a view read from a device or
 * from whole Identify / VPD pages.
 */
uint64_t awr_device_assumed(const struct awr_device *d);

/**
 * awr_input_split() - where the first reading of a transcript ends
 * @buf:	a piece of text (need not be NUL-terminated)
 * @len:	its length
 *
 * A shell transcript may hold readings of one device from before and after
 * `nvme format` (which can change AWUPF and the LBA format). A reading ends
 * with the line that runs `nvme format` or that nvme-cli answers with
 * "Success formatting namespace".
 *
 * Return: the length of the first reading (the piece up to and with that
 * line), @len when the piece holds no such line.
 */
size_t awr_input_split(const void *buf, size_t len);

/**
 * awr_input_update() - a later reading of the same device over an earlier one
 * @in:		the earlier reading; receives every field @later holds
 * @later:	the later reading
 *
 * Return: a mask of (1 << AWR_IF_*) bits: the fields both hold with
 * different values (what changed between the readings).
 */
uint64_t awr_input_update(struct awr_input *in, const struct awr_input *later);

/**
 * awr_input_format_name() - a format's name as users know the tool
 * @format:	one AWR_INPUT_* bit
 *
 * Return: "nvme-cli", "nvme-cli -H", "nvme-cli -o json", "sg_vpd -p bl",
 * "sg_readcap", "dump", "elided"; NULL for no single known bit.
 */
const char *awr_input_format_name(unsigned int format);

/*
 * Readings: saved tool output of one device, as a fleet keeps it or a user
 * pastes it, read into input records and split at `nvme format`
 * (awr_input_split()): the readings before and after a format, the fields
 * that changed between them and what the change means on a kernel, and the
 * device view of the reading picked. `awr decode FILE...` is this.
 */
struct awr_readings;

/* A field whose value changed from one reading to the next. */
struct awr_reading_change {
	enum awr_input_field field;
	unsigned int reading;		/* 1-based: the reading that holds @after */
	uint64_t before, after;		/* the value in the readings up to it, and in it */
};

/**
 * awr_readings_open() - read files of tool output and dumps into readings
 * @paths:	NULL-terminated file names ("-": standard input), or NULL for
 *		none (awr_readings_add() then gives the text)
 * @out:	the readings (awr_readings_free())
 *
 * Each file is read whole (at most 1 MiB) and added as awr_readings_add()
 * adds text; a reading goes on from one file into the next.
 *
 * Return: 0, or -errno with awr_last_error() naming the file, what is wrong
 * with it and what would be right: the open or read error, -EFBIG (over
 * 1 MiB), and those of awr_readings_add(); *@out is NULL then.
 */
int awr_readings_open(const char *const *paths, struct awr_readings **out);

/**
 * awr_readings_add() - add one piece of text or a dump
 * @r:		the readings
 * @buf:	the piece (need not be NUL-terminated)
 * @len:	its length
 * @name:	how an error names the piece ("id-ns.txt"), NULL for "the input"
 *
 * The piece is split at `nvme format` (awr_input_split()): what follows a
 * format starts a new reading, up to 8; each part goes to awr_input_add().
 * Parts without fields ("Success formatting namespace") are skipped.
 *
 * Return: 0, or -errno with awr_last_error() saying why: -ENOMSG when no
 * part is recognised, -EMSGSIZE for a page too short, -EINVAL for a
 * malformed value or a field given twice with two values (the field, both
 * values and the line).
 */
int awr_readings_add(struct awr_readings *r, const void *buf, size_t len, const char *name);

/**
 * awr_readings_count() - how many readings the pieces hold
 * @r:	the readings
 *
 * Return: 1 when no `nvme format` ran between them, 0 when nothing was added.
 */
unsigned int awr_readings_count(const struct awr_readings *r);

/**
 * awr_readings_pick() - the reading the answer uses
 * @r:	the readings
 * @n:	1..awr_readings_count(), 0 for the last
 *
 * Reading 1 with each later one over it (awr_input_update()) up to reading
 * @n becomes the record that awr_readings_input() and awr_readings_device()
 * use; the changes between all readings are found.
 *
 * Return: 0, -ERANGE for @n beyond the readings, -EINVAL when a reading is of
 * a controller with another serial number than reading 1 (two devices'
 * output), with awr_last_error() saying so.
 */
int awr_readings_pick(struct awr_readings *r, unsigned int n);

/**
 * awr_readings_used() - the reading picked
 * @r:	the readings
 *
 * Return: 1-based, 0 before awr_readings_pick() or when there is none.
 */
unsigned int awr_readings_used(const struct awr_readings *r);

/**
 * awr_readings_input() - a reading's input record
 * @r:	the readings
 * @n:	0 for the picked one (readings merged, block sizes given to
 *	awr_readings_device() included), 1..awr_readings_count() for one as read
 *
 * Return: the record (its formats and the fields it holds), NULL for no
 * such reading.
 */
const struct awr_input *awr_readings_input(const struct awr_readings *r, unsigned int n);

/**
 * awr_readings_device() - the device view of the picked reading
 * @r:		the readings, picked
 * @caps:	block layer caps' inputs, or NULL
 * @lbs:	the SCSI logical block size where the text gives none, 0 unknown
 * @pbs:	the physical block size likewise
 * @out:	the view (awr_device_free()), made as awr_input_device() makes it
 *
 * What was missing and assumed is kept for awr_readings_missing().
 *
 * Return: 0, -ENODATA when the readings hold no atomic write field, -EINVAL
 * when they mix an NVMe and a SCSI device, with awr_last_error() saying so;
 * -ENOMEM.
 */
int awr_readings_device(struct awr_readings *r, const struct awr_queue_caps *caps, uint32_t lbs,
			uint32_t pbs, struct awr_device **out);

/**
 * awr_readings_missing() - what the picked reading lacks, and the assumption made
 * @r:	the readings, after awr_readings_device()
 *
 * Return: "" when nothing needed was missing, else the sentence of
 * awr_input_device().
 */
const char *awr_readings_missing(const struct awr_readings *r);

/**
 * awr_readings_nr_changes() - how many field values changed between readings
 * @r:	the readings, picked
 *
 * Return: the number of changes, in reading order, then field order.
 */
unsigned int awr_readings_nr_changes(const struct awr_readings *r);

/**
 * awr_readings_change() - one change between readings
 * @r:	the readings, picked
 * @i:	0..awr_readings_nr_changes() - 1
 *
 * Return: the change, NULL beyond them.
 */
const struct awr_reading_change *awr_readings_change(const struct awr_readings *r,
						      unsigned int i);

/**
 * awr_readings_meaning() - what the changes mean to a kernel
 * @r:		the readings, picked
 * @kernel:	AWR_KERNEL(major, minor, patch), 0 for the running kernel
 *
 * A new LBA format is taken at the rescan after the format. A changed AWUPF
 * is ignored from 7.0; before, the kernel keeps the AWUPF it read when the
 * subsystem was first seen, times the current block size.
 *
 * Return: the sentence, kept in @r until the next call; "" when the changes
 * mean nothing there.
 */
const char *awr_readings_meaning(struct awr_readings *r, uint32_t kernel);

/**
 * awr_readings_free() - free readings
 * @r:	the readings, or NULL
 */
void awr_readings_free(struct awr_readings *r);

/* A guarantee a cloud provider documents for its disks, beside what Linux derives. */
struct awr_provider_atomic {
	char provider[16];		/* "AWS", "Azure", "Google Cloud" */
	char known_by[96];		/* how the controller is known: PCI vendor, model */
	char source[128];		/* where the guarantee is read, or why it cannot be */
	bool readable;			/* the device itself publishes the guarantee */
	bool read;			/* ... and it was read: unit, granularity, boundary */
	uint32_t unit;			/* bytes: no write up to it is torn (NTWPU) */
	uint32_t granularity;		/* bytes: sizes are multiples, offsets aligned (NTWPG) */
	uint32_t boundary;		/* bytes: no guarantee across it (NTWPB), 0 none */
	uint32_t reserved[8];
};

/**
 * awr_device_provider() - the cloud provider's own statement about the device
 * @d:	the view
 *
 * Amazon (PCI vendor 0x1d0f; EBS and EC2 instance storage) publishes its
 * torn write prevention in the Identify Namespace vendor-specific data
 * (NTWPU, NTWPG, NTWPB), which Linux does not read; Azure's NVMe managed
 * disks report NAWUPF/NABSPF, which it does; Google's disks publish none.
 * The guarantee stands beside the kernel's derivation and never changes it.
 *
 * Return: the statement, or NULL when the controller is not known as a
 * cloud provider's.
 */
const struct awr_provider_atomic *awr_device_provider(const struct awr_device *d);

#ifdef __cplusplus
}
#endif

#endif /* LIBATOMICWR_DEVICE_H */
