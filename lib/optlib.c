// SPDX-License-Identifier: MIT
/* The optional libraries, loaded on first use (optlib.h). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "optlib.h"

#ifndef AWR_OPTLIB_LINKED
void *awr__optlib_dlsym(void *handle, const char *name)
{
	return dlsym(handle, name);
}
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static int load(struct awr_optlib *l)
{
	const char *missing;
	void *h = NULL;

#ifndef AWR_OPTLIB_LINKED
	/* never closed: the table points into it for the life of the process */
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(l->msg, sizeof(l->msg), "%s needs %s (Debian package %s), which did not "
						 "load: %s",
			 l->what, l->soname, l->package, dlerror());
		return -ELIBACC;
	}
#endif
	missing = l->resolve(h);
	if (missing) {
		snprintf(l->msg, sizeof(l->msg), "%s needs %s from %s (Debian package %s), which "
						 "lacks it",
			 l->what, missing, l->soname, l->package);
		return -ELIBACC;
	}
	return 0;
}

int awr__optlib_load(struct awr_optlib *l, char *err, size_t errlen)
{
	if (!__atomic_load_n(&l->done, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&load_lock);
		if (!l->done) {
			l->ret = load(l);
			__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&load_lock);
	}
	if (l->ret && err && errlen)
		snprintf(err, errlen, "%s", l->msg);
	return l->ret;
}
