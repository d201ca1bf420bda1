// SPDX-License-Identifier: MIT
/*
 * awr write --report-path: each unit written with awr_pwrite_route(), which
 * compares the unit's extent map before and after its write: in place is the
 * hardware path, remapped the software (copy-on-write) one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awr.h"

struct write_paths {
	uint64_t count[4];		/* per enum awr_write_route */
	struct json_object *units;	/* [{offset, length, path}] */
};

struct write_paths *write_paths_new(const char *engine)
{
	struct write_paths *w;

	if (engine && strcmp(engine, "sync")) {
		out_error("--report-path works with --engine sync: each unit's extent map is read before and "
			  "after its write");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w)
		w->units = json_object_new_array();
	return w;
}

ssize_t write_paths_pwrite(struct write_paths *w, struct awr_file *f, const void *buf, size_t len, uint64_t off,
			   unsigned int flags, struct awr_verdict *v)
{
	enum awr_write_route p;
	struct json_object *o;
	ssize_t ret = awr_pwrite_route(f, buf, len, off, flags, v, &p);

	if (ret < 0)
		return ret;
	w->count[p]++;
	o = json_object_new_object();
	json_object_object_add(o, "offset", out_u64(off));
	json_object_object_add(o, "length", out_u64(len));
	json_object_object_add(o, "path", json_object_new_string(awr_write_route_name(p)));
	json_object_array_add(w->units, o);
	return ret;
}

void write_paths_report(const struct write_paths *w, struct json_object *o)
{
	if (!w)
		return;
	if (!o) {
		printf("paths: %" PRIu64 " hardware, %" PRIu64 " software, %" PRIu64 " unknown\n",
		       w->count[AWR_ROUTE_HARDWARE], w->count[AWR_ROUTE_SOFTWARE], w->count[AWR_ROUTE_UNKNOWN]);
		return;
	}
	json_object_object_add(o, "hardware", out_u64(w->count[AWR_ROUTE_HARDWARE]));
	json_object_object_add(o, "software", out_u64(w->count[AWR_ROUTE_SOFTWARE]));
	json_object_object_add(o, "unknown", out_u64(w->count[AWR_ROUTE_UNKNOWN]));
	json_object_object_add(o, "units", json_object_get(w->units));
}

void write_paths_free(struct write_paths *w)
{
	if (!w)
		return;
	json_object_put(w->units);
	free(w);
}
