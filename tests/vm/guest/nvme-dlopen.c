// SPDX-License-Identifier: MIT
/*
 * nvme-dlopen DEV: NVMe Identify the way the shared library does it, with libnvme loaded on first
 * use (lib/optlib.c). The guest's awr is a static build, which links libnvme in; this program is
 * built by run.sh with the host's compiler from lib/device/nvme_dev.c, nvme_decode.c and
 * lib/optlib.c, packed with the host's libnvme and run with the host's loader (/awr/my/run), so
 * the dlopen path reads a real namespace. Prints, on one line:
 *   before=0|1 after=0|1 ret=N nsid=N nsfeat=0xNN nawupf=N awupf=N lba=N
 * before/after: libnvme mapped before and after the Identify (0 and 1 expected).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device/device.h"
#include "../../proc_maps.h"

int main(int argc, char **argv)
{
	struct awr_nvme_id id;
	char err[400] = "";
	bool before;
	int fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: nvme-dlopen /dev/nvmeXnY\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	before = t_mapped("libnvme.so");
	memset(&id, 0, sizeof(id));
	ret = awr__nvme_read(fd, true, &id, err, sizeof(err));
	printf("before=%d after=%d ret=%d nsid=%u nsfeat=0x%02x nawupf=%u awupf=%u lba=%u%s%s\n",
	       before, t_mapped("libnvme.so"), ret, id.nsid, id.nsfeat, id.nawupf, id.awupf,
	       id.lba_size, err[0] ? " err=" : "", err);
	close(fd);
	return ret ? 1 : 0;
}
