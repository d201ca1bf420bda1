// SPDX-License-Identifier: MIT
/*
 * The concurrent_torn check of qualification: overlapping stamped writers (awr_stress_run_fd())
 * with a journal, then the verifier (awr_verify_run()) looking for torn, corrupt, misplaced and
 * lost units. The verification is shared with the crash cycles (crash.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qualify.h"

struct first_issue {
	char text[240];
	uint32_t unit;
};

static int keep_first(const struct awr_verify_issue *is, void *arg)
{
	struct first_issue *fi = arg;

	if (!fi->text[0])
		awr_verify_issue_text(is, fi->unit, fi->text, sizeof(fi->text));
	return 0;
}

int awr__q_verify(const char *target, struct awr_qualify_stress *s, uint64_t crash_ns,
		  char *issue, size_t len)
{
	struct first_issue fi = { "", s->opts.unit };
	struct awr_verify_opts vo = { .unit = s->opts.unit, .span = s->opts.span,
				      .journal = s->opts.journal, .crash_time_ns = crash_ns,
				      .issue = keep_first, .arg = &fi };
	int ret = awr_verify_run(target, &vo, &s->verify);

	s->verified = !ret;
	snprintf(issue, len, "%s", fi.text);
	return ret;
}

/*
 * Zero the span before stamping with the unit: stamps left by the sweep (other
 * unit sizes) or by earlier runs would count as misplaced or unjournaled.
 */
static int clear_area(const struct awr__qctx *q, uint64_t len)
{
	const size_t chunk = 1U << 20;
	void *z;
	int fd, ret = 0;

	if (posix_memalign(&z, 4096, chunk))
		return -ENOMEM;
	memset(z, 0, chunk);
	fd = awr__reopen(q->fd, O_WRONLY | O_DIRECT);
	if (fd < 0)
		ret = fd;
	for (uint64_t off = 0; !ret && off < len; off += chunk) {
		size_t n = len - off < chunk ? (size_t)(len - off) : chunk;

		if (pwrite(fd, z, n, (off_t)off) != (ssize_t)n)
			ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	free(z);
	return ret;
}

static uint64_t stress_span(const struct awr_qualify_report *r)
{
	uint64_t span = 64ULL * r->unit;

	if (span < (8ULL << 20))
		span = 8ULL << 20;
	if (r->block_device && span > r->device_size)
		span = r->device_size / r->unit * r->unit;
	return span;
}

static void judge(struct awr_qualify_check *c, const struct awr_qualify_stress *s,
		  const char *tmp, const char *issue)
{
	const struct awr_stress_result *sr = &s->result;
	const struct awr_verify_result *vr = &s->verify;
	char a[32];

	if (sr->journal_error)
		awr__q_set(c, AWR_QUALIFY_FAIL, "the journal in %s failed: %s", tmp,
			   strerror(-sr->journal_error));
	else if (sr->error)
		awr__q_set(c, AWR_QUALIFY_FAIL, "a write failed after %" PRIu64 " writes: %s at "
			   "offset %" PRIu64, sr->writes, strerror(-sr->error), sr->error_offset);
	else if (vr->failed)	/* the verifier's verdict */
		awr__q_set(c, AWR_QUALIFY_FAIL, "%" PRIu64 " torn, %" PRIu64 " corrupt, %" PRIu64
			   " misplaced, %" PRIu64 " lost units; first: %s",
			   vr->count[AWR_UNIT_TORN], vr->count[AWR_UNIT_CORRUPT],
			   vr->count[AWR_UNIT_MISPLACED], vr->lost, issue);
	else
		awr__q_set(c, AWR_QUALIFY_PASS, "%u writers, %" PRIu64 " overlapping durable "
			   "atomic writes of %s in %.1f s: 0 torn, 0 corrupt, 0 lost of %" PRIu64
			   " acknowledged", s->opts.threads, sr->writes,
			   awr_format_size(s->opts.unit, a, sizeof(a)), (double)sr->nsec / 1e9,
			   vr->acked_writes);
}

void awr__q_concurrency(struct awr__qctx *q, struct awr_qualify_check *c)
{
	struct awr_qualify_stress *s = &q->r->concurrent;
	uint64_t area = 2ULL * q->r->limits.unit_max;
	char tmp[4096], journal[4200], issue[240];
	int ret;

	if (!q->writes_ok) {
		awr__q_set(c, AWR_QUALIFY_SKIP, "the size sweep did not pass");
		return;
	}
	if (awr__q_tmpdir(tmp, sizeof(tmp))) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot make a journal directory in $TMPDIR or "
			   "/tmp: %s", strerror(errno));
		return;
	}
	awr__q_journal_path(journal, sizeof(journal), tmp, 0);
	s->opts = (struct awr_stress_opts){ .unit = q->r->unit, .threads = 4,
		.span = stress_span(q->r), .journal = journal,
		.duration_ms = q->flags & AWR_QUALIFY_QUICK ? 3000 : 10000 };
	ret = clear_area(q, s->opts.span > area ? s->opts.span : area);
	if (!ret)
		ret = awr_stress_run_fd(q->fd, &s->opts, &s->result);
	if (ret) {
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot run the writers: %s", strerror(-ret));
		goto out;
	}
	s->ran = true;
	ret = awr__q_verify(q->r->target, s, 0, issue, sizeof(issue));
	if (ret)
		awr__q_set(c, AWR_QUALIFY_FAIL, "cannot verify: %s", strerror(-ret));
	else
		judge(c, s, tmp, issue);
out:
	s->opts.journal = NULL;	/* the directory is gone */
	awr__q_rmdir();
}
