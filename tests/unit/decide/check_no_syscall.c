// SPDX-License-Identifier: MIT
/*
 * Description: the rule checker makes no system call per write: the running
 * kernel's release (uname) is asked once per process, whatever the open flags,
 * so a queued write costs arithmetic only (the bench's < 50 ns target).
 *
 * uname() is interposed here: the library's calls reach this definition (the
 * executable's symbol comes first), which counts them and asks the kernel.
 * The first check of a write on a fd without O_DIRECT and with no kernel in
 * the limits must call it exactly once (the control: the counter sees the
 * library's call); the next 10000 checks, with and without O_DIRECT, must
 * not call it again.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

static unsigned int uname_calls;

int uname(struct utsname *buf)
{
	uname_calls++;
	return (int)syscall(SYS_uname, buf);
}

static const struct awr_limits lim = {	/* kernel 0: the running one */
	.supported = true, .unit_min = 4096, .unit_max = 65536, .segments_max = 1,
	.flags = AWR_LIMITS_FILE,
};

int main(void)
{
	struct awr_write_plan direct = { 16384, 16384, NULL, 1, O_RDWR | O_DIRECT };
	struct awr_write_plan buffered = { 16384, 16384, NULL, 1, O_RDWR };
	unsigned int refused = 0;
	uint32_t k;

	T_EXPECT_EQ(uname_calls, 0U, "uname calls before any check");
	awr_check(&lim, &buffered, NULL);
	T_EXPECT_EQ(uname_calls, 1U, "uname calls after the first check that needs the release");
	k = awr_kernel_running();
	T_EXPECT(k != 0, "the running kernel's release is parsed");
	for (unsigned int i = 0; i < 5000; i++) {
		direct.offset = (uint64_t)i * 16384;
		buffered.offset = direct.offset;
		refused += awr_check(&lim, &direct, NULL) != 0;
		awr_check(&lim, &buffered, NULL);
	}
	T_EXPECT_EQ(refused, 0U, "aligned 16 KiB O_DIRECT writes refused");
	T_EXPECT_EQ(uname_calls, 1U, "uname calls after 10000 more checks");
	T_EXPECT_EQ(awr_kernel_running(), k, "the cached release");
	return t_done("check_no_syscall");
}
