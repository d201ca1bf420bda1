// SPDX-License-Identifier: MIT
/*
 * Description: the optional libraries (lib/optlib.c): libnvme and libcrypto are not in the process
 * until the first NVMe Identify or remote-journal MAC loads them (read in /proc/self/maps);
 * loaded, they answer for real (Identify on a regular file: the kernel's ENOTTY; HMAC-SHA256
 * against RFC 4231's test case 2); a library that is not there, or lacks a symbol, is named with
 * its Debian package, and every later call answers the same.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "helpers.h"
#include "proc_maps.h"
#include "device/device.h"
#include "optlib.h"
#include "verify/remote.h"

static int resolve_calls;

static const char *resolve_missing_sym(void *h)
{
	resolve_calls++;
	if (!dlsym(h, "HMAC"))
		return "HMAC";
	return dlsym(h, "awr_no_such_symbol") ? NULL : "awr_no_such_symbol";
}

static const char *resolve_never(void *h)
{
	(void)h;
	resolve_calls++;
	return NULL;
}

static void missing(void)
{
	struct awr_optlib none = AWR_OPTLIB_INIT("libawr-no-such-library.so.9", "libawr-none",
						 "the test's feature", resolve_never);
	struct awr_optlib lacking =
		AWR_OPTLIB_INIT("libcrypto.so.3", "libssl3", "the test's MAC", resolve_missing_sym);
	char err[400] = "";

	T_EXPECT_EQ(awr__optlib_load(&none, err, sizeof(err)), -ELIBACC, "a library that is not "
									 "there");
	T_EXPECT(strstr(err, "the test's feature needs libawr-no-such-library.so.9 (Debian package "
			     "libawr-none)"),
		 "the message names what needs which library from which package: %s", err);
	T_EXPECT(strstr(err, "cannot open shared object file"), "and says why it did not load: %s",
		 err);
	err[0] = 0;
	T_EXPECT_EQ(awr__optlib_load(&none, err, sizeof(err)), -ELIBACC, "asked again, the same "
									 "answer");
	T_EXPECT(strstr(err, "libawr-no-such-library.so.9"), "with the same message: %s", err);
	T_EXPECT_EQ(resolve_calls, 0, "resolve() of a library that did not load");

	T_EXPECT_EQ(awr__optlib_load(&lacking, err, sizeof(err)), -ELIBACC, "a library without a "
									    "symbol");
	T_EXPECT(strstr(err,
			"needs awr_no_such_symbol from libcrypto.so.3 (Debian package libssl3)"),
		 "the message names the missing symbol: %s", err);
	T_EXPECT_EQ(awr__optlib_load(&lacking, NULL, 0), -ELIBACC, "asked again");
	T_EXPECT_EQ(resolve_calls, 1, "resolve() runs once for the process");
}

int main(void)
{
	/* RFC 4231, test case 2: HMAC-SHA-256, key "Jefe" */
	static const uint8_t expect[AWR_RJ_MAC] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24,
		0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27,
		0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	static const char data[] = "what do ya want for nothing?";
	/* A fully static build (the guest's tools) links both in: nothing to load, nothing to see
	 * mapped. */
	bool dynamic = t_mapped("ld-linux");
	struct awr_nvme_id id;
	uint8_t mac[AWR_RJ_MAC];
	char err[400] = "";
	int fd, ret;

	if (dynamic) {
		T_EXPECT(!t_mapped("libnvme.so"), "libnvme is mapped before any NVMe Identify");
		T_EXPECT(!t_mapped("libcrypto.so"), "libcrypto is mapped before any MAC");
	}

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	T_EXPECT(fd >= 0, "open /proc/self/exe: %s", strerror(errno));
	memset(&id, 0, sizeof(id));
	ret = awr__nvme_read(fd, true, &id, err, sizeof(err));
	T_EXPECT_EQ(ret, -ENOTTY, "Identify Controller on a regular file (the kernel's answer to "
				  "the ioctl)");
	T_EXPECT(strstr(err, "Identify Controller failed"), "the message: %s", err);
	close(fd);
	if (dynamic) {
		T_EXPECT(t_mapped("libnvme.so.1"), "libnvme is mapped after the first Identify");
		T_EXPECT(t_mapped("libcrypto.so"),
			 "libcrypto came in with libnvme (its dependency)");
	}

	T_EXPECT_EQ(awr__rj_crypto_load(), 0, "libcrypto for the MACs");
	T_EXPECT_EQ(awr__rj_hmac((const uint8_t *)"Jefe", 4, data, 10, data + 10, 10, data + 20,
				 sizeof(data) - 21, mac),
		    0, "HMAC-SHA256 through the loaded table");
	T_EXPECT(!memcmp(mac, expect, sizeof(mac)), "RFC 4231 test case 2");
	T_EXPECT(awr__rj_mac_equal(mac, expect), "the constant-time compare says equal");
	mac[31] ^= 1;
	T_EXPECT(!awr__rj_mac_equal(mac, expect), "and unequal one bit off");

	if (dynamic)
		missing();
	return t_done("optlib");
}
