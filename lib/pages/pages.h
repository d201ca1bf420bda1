/* SPDX-License-Identifier: MIT */
/* The page store's private parts, shared by the files of lib/pages/. */
#ifndef AWR_PAGES_H
#define AWR_PAGES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "private.h"

#define AWR_PAGES_DW_SUFFIX	".awr-dw"
#define AWR_PAGES_DW_SLOTS                                                                         \
	64U /* records per generation (at most 4096 / 64): a larger batch goes in chunks */
#define AWR_PAGES_DW_BLOCK	4096U		/* area header and record table size */
#define AWR_PAGES_DW_GEN_BYTES                                                                     \
	(4U << 20) /* a generation's pages: fewer slots for pages above 64 KiB */
#define AWR_PAGES_DW_BYTES	(8U << 20)	/* the area: as many generations as fit, 2 to 16 */
#define AWR_PAGES_DW_GENS_MAX	16U
#define AWR_PAGES_RING_DEPTH	64U
#define AWR_PAGES_RINGS		8U		/* rings kept for the threads that write last */
#define AWR_PAGES_LIVE_CAL 32U /* AUTO: batches measured, alternating software and doublewrite */
#define AWR_PAGES_REVIEW 128U  /* AUTO: batches after a choice before measuring again (doubling) */
#define AWR_PAGES_REVIEW_MAX	8192U

/* Fault points for crash tests (AWR_PAGES_FAULT, read with secure_getenv). */
enum awr__pages_fault_kind {
	AWR_PAGES_FAULT_NONE = 0,
	AWR_PAGES_FAULT_CRASH, /* crash:N  _exit(99) once N in-place page writes were issued */
	AWR_PAGES_FAULT_TEAR, /* tear:N   doublewrite: half of in-place page write N+1, _exit(99) */
	AWR_PAGES_FAULT_AREA, /* area:N   doublewrite: area records up to N, half of record N+1,
				 _exit */
	AWR_PAGES_FAULT_SYNCED, /* synced:N doublewrite: _exit after the area sync of the chunk that
				 *          holds in-place page write N+1, before any
				 * in-place write */
	AWR_PAGES_FAULT_HELD,	/* held:N   doublewrite: _exit when the batch after the one holding
				 *          in-place write N+1 begins (its in-place writes
				 * not synced) */
	AWR_PAGES_FAULT_NOSYNC, /* nosync:N once N in-place writes were issued, batches
				 *          are acknowledged without being durable (the area
				 *          without RWF_DSYNC; other modes: no fdatasync) */
};

struct awr__pages_fault {
	enum awr__pages_fault_kind kind;
	uint64_t n;
};

struct awr_pages {
	pthread_mutex_t lock;		/* one batch at a time: the ring, the area, the counters */
	struct awr_file *file;
	int fd;				/* the writes' descriptor (the ring's) */
	int lock_fd; /* the guard's descriptor: its lock (a block device: its O_EXCL) */
	bool is_blk;
	uint64_t ino;			/* the store file's inode, recorded in its area */
	uint32_t page_size;
	uint32_t mem_align;		/* O_DIRECT buffer alignment */
	enum awr_pages_mode mode;
	enum awr_pages_mode batch_mode;	/* the mode of the batch being written */
	struct awr_queue *ring;		/* the queue of the thread writing the current batch */
	struct {			/* queues by thread: an io_uring queue takes one */
		pid_t tid;		/* submitter (IORING_SETUP_SINGLE_ISSUER): one each */
		uint64_t used;
		struct awr_queue *ring;
	} rings[AWR_PAGES_RINGS];
	uint64_t ring_clock;
	unsigned int recovered;
	char explain[384];
	/* AUTO between software and doublewrite: the first batches alternate and are timed */
	bool auto_cal;
	unsigned int cal_batches; /* of the current measurement; AWR_PAGES_LIVE_CAL: none running */
	unsigned int reviews;		/* measurements done */
	uint64_t since, review_after;	/* batches since the last choice; when to measure again */
	uint64_t batches;		/* written since open */
	bool cow_hint_set; /* the CoW extent size hint was tried at the page size (ENOSPC) */
	double cal_ns[2][AWR_PAGES_LIVE_CAL /
			 2]; /* ns per page of each measured batch: [0] software, [1] doublewrite */
	unsigned int
		cal_dw_pages; /* pages of the last batch measured, when it was a doublewrite one */
	/* the doublewrite area */
	int dw_fd;			/* -1 when the store has none open */
	uint32_t dw_slots;		/* records per generation */
	uint32_t dw_gens; /* generations: batch (chunk) s goes to generation s % dw_gens */
	uint64_t seq;			/* sequence number of the next batch */
	uint8_t *dw_buf;		/* one generation: record table and dw_slots pages */
	uint32_t dw_live; /* generations holding records: voided before a batch not written there */
	uint32_t dw_unsynced; /* generations whose batch's in-place writes are not synced yet */
	/* fault points */
	struct awr__pages_fault fault;
	uint64_t issued;		/* in-place page writes issued since open */
	uint64_t area_written;		/* area records written since open */
};

/* fault.c: the fault points (test builds set s->fault at open) */
int awr__pages_fault_parse(const char *spec, struct awr__pages_fault *out);
bool awr__pages_fault_nosync(const struct awr_pages *s);
void awr__pages_fault_exit(void) __attribute__((noreturn));
void awr__pages_fault_write(struct awr_pages *s, const void *buf, uint64_t off);
void awr__pages_fault_issued(struct awr_pages *s);
void awr__pages_fault_batch(const struct awr_pages *s);
void awr__pages_fault_synced(const struct awr_pages *s, unsigned int k);
/* a message into @buf, cut to @len (a reason string: cutting is fine) */
void awr__pages_say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* area.c: the doublewrite area's format, its writes, recovery */
int awr__area_open(struct awr_pages *s, const char *path, bool create, char *why, size_t len);
int awr__area_write(struct awr_pages *s, const struct awr_page *pages, const unsigned int *idx,
		    unsigned int k);
int awr__area_recover(struct awr_pages *s, char *why, size_t len);
void awr__area_geometry(struct awr_pages *s);
int awr__area_new(struct awr_pages *s, int fd);
int awr__area_void(struct awr_pages *s);
int awr__area_settle(struct awr_pages *s);
void awr__area_written_in_place(struct awr_pages *s, uint64_t seq);
void awr__area_close(struct awr_pages *s);

/* write.c */
int awr__pages_ring(struct awr_pages *s);
void awr__pages_rings_free(struct awr_pages *s);
int awr__pages_write_locked(struct awr_pages *s, struct awr_page *pages, unsigned int n);
int awr__pages_in_place(struct awr_pages *s, struct awr_page *pages, const unsigned int *idx,
			unsigned int k, bool atomic);
void *awr__pages_alloc(const struct awr_pages *s, size_t len);

/* hardware.c: do a file's pages take the device's atomic writes in place? */
bool awr__pages_hardware_file(const struct awr_pages *s, char *why, size_t len);
bool awr__pages_xfs_in_place(const struct awr_fs_view *fs, const struct awr_extent_report *r,
			     uint32_t ps, char *why, size_t len);

/* calibrate.c: software vs doublewrite on scratch files beside the store */
struct awr__pages_calibration {
	uint64_t software_ns;
	uint64_t doublewrite_ns;
	unsigned int pages;		/* pages per batch */
	unsigned int rounds;		/* rounds timed (after one warm-up round) */
};
int awr__pages_calibrate(const struct awr_pages *s, const char *path,
			 struct awr__pages_calibration *out);

#endif /* AWR_PAGES_H */
