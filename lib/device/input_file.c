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

#define INPUT_MAX	(1U << 20)	/* a text dump of a 4 KiB page is ~16 KiB */

/*
 * @path ("-": standard input, when @std) read whole into *@raw (to free()): the length read,
 * above INPUT_MAX when larger, or -errno when it cannot be opened, with a sentence calling it
 * @name; *@err the errno of a failed read, else 0.
 */
static ssize_t read_whole(const char *path, const char *name, bool std, char **raw, int *err)
{
	bool in = std && !strcmp(path, "-");
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r = 0;

	*err = fd < 0 ? errno : ENOMEM;
	*raw = fd < 0 ? NULL : malloc(INPUT_MAX + 1);
	if (!*raw) {
		if (fd >= 0 && !in)
			close(fd);
		return awr__fail(-*err, "cannot open %s: %s", name, strerror(*err));
	}
	while (n <= INPUT_MAX && (r = read(fd, *raw + n, INPUT_MAX + 1 - n)) > 0)
		n += (size_t)r;
	*err = r < 0 ? errno : 0;
	if (!in)
		close(fd);
	return (ssize_t)n;
}

/* @path's page in @out (@cap bytes): its length or -errno. A read error reads as what was read. */
static ssize_t load_page(const char *path, const char *name, uint8_t *out, size_t cap)
{
	char *raw;
	int err;
	ssize_t n = read_whole(path, name, false, &raw, &err);

	if (n < 0)
		return n;
	if (n > INPUT_MAX) {
		free(raw);
		return awr__fail(-EFBIG, "%s is larger than %u bytes: not an identify or VPD dump",
				 name, INPUT_MAX);
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
	char *raw;
	int err, ret;
	ssize_t n = read_whole(path, path, true, &raw, &err);

	if (n < 0)
		return (int)n;
	if (err || n > INPUT_MAX)
		ret = awr__fail(err ? -err : -EFBIG, "%s %s", path, err ? strerror(err) :
				"is larger than 1 MiB: not tool output or a dump");
	else
		ret = awr_readings_add(r, raw, (size_t)n,
				       strcmp(path, "-") ? path : "standard input");
	free(raw);
	return ret;
}
