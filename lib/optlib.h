/* SPDX-License-Identifier: MIT */
/*
 * The optional libraries: libnvme (NVMe Identify, device/nvme_dev.c) and libcrypto (the remote
 * journal's HMAC-SHA256, verify/remote.c) are loaded when first needed, not when a program starts.
 * Linked in, the two cost every process 3-4 ms of CPU in the dynamic loader (libcrypto's
 * relocations and constructors), which awr write, awr probe and a database with the preload pay
 * although most of them never identify an NVMe device nor talk to a journal server.
 *
 * One seam for both: a user keeps a table of typed function pointers and a resolve() that fills
 * it with AWR_OPTLIB_SYM(); awr__optlib_load() opens the library and resolves the table once
 * for the process (a lock for the first call only), and says what is missing and which Debian
 * package has it. A fully static build (meson -Dstatic_tools=true, the guest's tools) defines
 * AWR_OPTLIB_LINKED: the table takes the linked symbols and nothing is opened.
 */
#ifndef AWR_OPTLIB_H
#define AWR_OPTLIB_H

#include <stddef.h>

struct awr_optlib {
	const char *soname;		/* "libnvme.so.1" */
	const char *package;		/* the Debian package that has it */
	const char *what;		/* what needs it, for the error: "NVMe Identify" */
	/* fills the caller's table: NULL, or the name of the first symbol missing */
	const char *(*resolve)(void *handle);
	/* private */
	int done; /* set (release) once loaded or failed: later calls take no lock */
	int ret;
	char msg[320];
};

#define AWR_OPTLIB_INIT(so, pkg, what_for, fn) \
	{ .soname = (so), .package = (pkg), .what = (what_for), .resolve = (fn) }

/* In resolve(): PTR = SYM from @h (returns SYM's name from resolve() when it is missing). */
#ifdef AWR_OPTLIB_LINKED
#define AWR_OPTLIB_SYM(h, ptr, sym) do { (void)(h); (ptr) = (sym); } while (0)
#else
#define AWR_OPTLIB_SYM(h, ptr, sym) do {					\
		*(void **)&(ptr) = awr__optlib_dlsym((h), #sym);		\
		if (!(ptr))							\
			return #sym;						\
	} while (0)
#endif

/*
 * Load @l and resolve its table, once for the process. 0, or -ELIBACC with @err (when given)
 * saying what needs which library and why it did not load; every later call answers the same.
 */
int awr__optlib_load(struct awr_optlib *l, char *err, size_t errlen);

void *awr__optlib_dlsym(void *handle, const char *name);

#endif
