// SPDX-License-Identifier: MIT
/*
 * Saved pages and tool output read from files: whole, up to 1 MiB, and every
 * refusal names the file, what is wrong with it and what would be right.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"

size_t awr__input_read(int fd, char *raw, int *err)
{
	size_t n = 0;
	ssize_t r = 0;

	while (n <= AWR__INPUT_MAX && (r = read(fd, raw + n, AWR__INPUT_MAX + 1 - n)) > 0)
		n += (size_t)r;
	*err = r < 0 ? errno : 0;
	return n;
}

/* @path's page in @out (@cap bytes): its length or -errno. A read error reads as what was read. */
static ssize_t load_page(const char *path, const char *name, uint8_t *out, size_t cap)
{
	char *raw = malloc(AWR__INPUT_MAX + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = fd < 0 ? errno : ENOMEM;
	ssize_t n;

	if (fd < 0 || !raw) {
		free(raw);
		if (fd >= 0)
			close(fd);
		return awr__fail(-err, "cannot open %s: %s", name, strerror(err));
	}
	n = (ssize_t)awr__input_read(fd, raw, &err);
	close(fd);
	if (n > AWR__INPUT_MAX) {
		free(raw);
		return awr__fail(-EFBIG, "%s is larger than %u bytes: not an identify or VPD dump",
				 name, AWR__INPUT_MAX);
	}
	n = awr_dump_parse(raw, (size_t)n, out, cap);
	free(raw);
	if (n == -EOVERFLOW)
		return awr__fail(-EOVERFLOW, "%s holds more than %zu bytes: not a single identify "
				 "page or VPD page", name, cap);
	if (n < 0)
		return awr__fail((int)n, "%s is neither binary nor hex text: use the raw dump "
				 "(nvme id-ns -b, sg_vpd -r) or hex pairs with optional offsets",
				 name);
	return n;
}

int awr_nvme_id_load(const char *path, const char *name, bool ns, struct awr_nvme_id *id)
{
	uint8_t buf[8192];
	ssize_t n;
	int ret;

	if (!path || !id)
		return -EINVAL;
	n = load_page(path, name ? name : path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	ret = ns ? awr_nvme_decode_ns(buf, (size_t)n, id) :
		   awr_nvme_decode_ctrl(buf, (size_t)n, id);
	if (ret == -EMSGSIZE)
		return awr__fail(ret, "%s holds %zd bytes: an Identify %s page has 4096",
				 name ? name : path, n, ns ? "Namespace" : "Controller");
	if (ret)
		return awr__fail(ret, "%s: LBA format %u in use (FLBAS 0x%02x) is invalid: beyond "
				 "NLBAF %u or LBADS %u outside 9..31", name ? name : path,
				 id->lbaf_index, id->flbas, id->nlbaf, id->lbads);
	return 0;
}

int awr_scsi_id_load(const char *path, const char *name, struct awr_scsi_id *id)
{
	uint8_t buf[4096];
	ssize_t n;
	int ret;

	if (!path || !id)
		return -EINVAL;
	name = name ? name : path;
	n = load_page(path, name, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	ret = awr_scsi_decode_bl_vpd(buf, (size_t)n, id);
	if (ret == -EMSGSIZE)
		return awr__fail(ret, "%s holds %zd bytes, fewer than its page header or the "
				 "atomic fields its page length promises: the dump is truncated",
				 name, n);
	if (ret)
		return awr__fail(ret, "%s is not a Block Limits VPD page: byte 1 is 0x%02x, B0h "
				 "expected", name, n > 1 ? buf[1] : 0);
	return 0;
}

/* A file of tool output, added to @r; "-" is standard input (nvme id-ctrl ... | awr decode -). */
int awr__readings_add_file(struct awr_readings *r, const char *path)
{
	bool in = !strcmp(path, "-");
	char *raw = malloc(AWR__INPUT_MAX + 1);
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	int err = fd < 0 ? errno : 0, ret;
	size_t n;

	if (fd < 0 || !raw) {
		free(raw);
		if (fd >= 0 && !in)
			close(fd);
		err = err ? err : ENOMEM;
		return awr__fail(-err, "cannot open %s: %s", path, strerror(err));
	}
	n = awr__input_read(fd, raw, &err);
	if (!in)
		close(fd);
	if (err || n > AWR__INPUT_MAX)
		ret = awr__fail(err ? -err : -EFBIG, "%s %s", path, err ? strerror(err) :
				"is larger than 1 MiB: not tool output or a dump");
	else
		ret = awr_readings_add(r, raw, n, in ? "standard input" : path);
	free(raw);
	return ret;
}
