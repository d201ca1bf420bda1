// SPDX-License-Identifier: MIT
/*
 * awr database DATADIR --for innodb|postgresql: may the engine's torn-page
 * protection (the doublewrite buffer, full_page_writes) be turned off here?
 * Only reads (awr_db_qualify()); `awr qualify DATADIR --for ENGINE` is the
 * same command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

#define SHOWN_MAX	10	/* files with their reasons in the text output, without --files */

static struct json_object *file_json(const struct awr_db_file *f)
{
	struct json_object *o = json_object_new_object(), *why = json_object_new_array();

	json_object_object_add(o, "path", json_object_new_string(f->path));
	json_object_object_add(o, "page_size", f->page_size ? out_u64(f->page_size) : NULL);
	json_object_object_add(o, "verdict", json_object_new_string(awr_db_verdict_name(f->verdict)));
	json_object_object_add(o, "fs", json_object_new_string(f->fs));
	json_object_object_add(o, "device", f->device[0] ? json_object_new_string(f->device) : NULL);
	json_object_object_add(o, "statx_atomic", json_object_new_boolean(f->statx_atomic));
	json_object_object_add(o, "unit_min", out_u64(f->unit_min));
	json_object_object_add(o, "unit_max", out_u64(f->unit_max));
	json_object_object_add(o, "hw_atomic", json_object_new_boolean(f->hw_atomic));
	json_object_object_add(o, "by_provider", json_object_new_boolean(f->by_provider));
	json_object_object_add(o, "hw_unit_max", out_u64(f->hw_unit_max));
	json_object_object_add(o, "write_path", json_object_new_string(awr_write_path_name(f->write_path)));
	json_object_object_add(o, "mapped_bytes", out_u64(f->mapped_bytes));
	json_object_object_add(o, "aligned_bytes", out_u64(f->aligned_bytes));
	json_object_object_add(o, "device_offset_align", f->device_offset_align ? out_u64(f->device_offset_align) : NULL);
	json_object_object_add(o, "grow_align", f->grow_align ? out_u64(f->grow_align) : NULL);
	for (unsigned int i = 0; i < f->nr_reasons; i++)
		json_object_array_add(why, json_object_new_string(f->reasons[i]));
	json_object_object_add(o, "reasons", why);
	return o;
}

static struct json_object *strings(const char (*s)[256], unsigned int n)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(s[i]));
	return a;
}

static void print_json(const struct awr_db_report *r)
{
	struct json_object *o = json_object_new_object(), *files = json_object_new_array();
	char kbuf[32];

	json_object_object_add(o, "datadir", json_object_new_string(r->datadir));
	json_object_object_add(o, "engine", json_object_new_string(r->engine == AWR_DB_INNODB ? "innodb" : "postgresql"));
	json_object_object_add(o, "page_size", r->page_size ? out_u64(r->page_size) : NULL);
	json_object_object_add(o, "page_size_from", json_object_new_string(r->page_size_from));
	json_object_object_add(o, "direct_io", json_object_new_boolean(r->direct_io));
	json_object_object_add(o, "direct_io_from", json_object_new_string(r->direct_io_from));
	json_object_object_add(o, "engine_version", r->engine_version ? out_u64(r->engine_version) : NULL);
	json_object_object_add(o, "data_checksum_version", r->data_checksum_version < 0 ? NULL :
			       out_u64((uint64_t)r->data_checksum_version));
	json_object_object_add(o, "atomic_writes", json_object_new_boolean(r->atomic_writes));
	json_object_object_add(o, "atomic_writes_why", json_object_new_string(r->atomic_why));
	json_object_object_add(o, "kernel", json_object_new_string(awr_kernel_format(r->kernel, kbuf, sizeof(kbuf))));
	json_object_object_add(o, "verdict", json_object_new_string(awr_db_verdict_name(r->verdict)));
	json_object_object_add(o, "advice", json_object_new_string(r->advice));
	json_object_object_add(o, "server_pid", r->server_pid ? out_u64((uint64_t)r->server_pid) : NULL);
	json_object_object_add(o, "protection", r->protection < 0 ? NULL : json_object_new_boolean(r->protection));
	json_object_object_add(o, "protection_from", json_object_new_string(r->protection_from));
	json_object_object_add(o, "warning", r->warning[0] ? json_object_new_string(r->warning) : NULL);
	json_object_object_add(o, "speed", r->speed[0] ? json_object_new_string(r->speed) : NULL);
	json_object_object_add(o, "conditions", strings(r->conditions, r->nr_conditions));
	json_object_object_add(o, "skipped", strings(r->skipped, r->nr_skipped));
	for (unsigned int i = 0; i < r->nr_files; i++)
		json_object_array_add(files, file_json(&r->files[i]));
	json_object_object_add(o, "files", files);
	out_print_json(out_json_schema(o));
}

/* The distinct reasons across files, each with how many files give it and the first of them. */
struct reason_group {
	const char *text, *first;
	unsigned int files;
};

static void print_reasons(const struct awr_db_report *r)
{
	struct reason_group g[64];
	unsigned int ng = 0, more = 0;

	for (unsigned int i = 0; i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		for (unsigned int k = 0; k < f->nr_reasons; k++) {
			unsigned int j = 0;

			while (j < ng && strcmp(g[j].text, f->reasons[k]))
				j++;
			if (j < ng) {
				g[j].files++;
			} else if (ng < sizeof(g) / sizeof(g[0])) {
				g[ng++] = (struct reason_group){ f->reasons[k], f->path, 1 };
			} else {
				more++;
			}
		}
	}
	if (ng)
		printf("reasons:\n");
	for (unsigned int j = 0; j < ng && j < SHOWN_MAX; j++) {
		if (g[j].files == 1)
			printf("  - %s: %s\n", g[j].first, g[j].text);
		else
			printf("  - %u files (%s, ...): %s\n", g[j].files, g[j].first, g[j].text);
	}
	if (ng > SHOWN_MAX || more)
		printf("  ... and %u more (every file's with --files or -o json)\n", ng - (ng > SHOWN_MAX ? SHOWN_MAX : ng) + more);
}

static void print_text(const struct awr_db_report *r, bool all)
{
	unsigned int count[4] = { 0 };
	char a[32], b[32], kbuf[32];

	if (r->warning[0])	/* first and loud: the server runs unprotected where a page can tear */
		printf("WARNING: %s\n\n", r->warning);
	snprintf(b, sizeof(b), " %u", r->engine_version);
	printf("%s: %s%s, %s pages (%s)\n", r->datadir, r->engine == AWR_DB_INNODB ? "InnoDB" : "PostgreSQL",
	       r->engine_version ? b : "", r->page_size ? out_size(r->page_size, a, sizeof(a)) : "unknown",
	       r->page_size_from);
	printf("atomic writes by the engine: %s (%s)\n", r->atomic_writes ? "yes" : "no", r->atomic_why);
	printf("page writes: %s (%s); kernel %s\n", r->direct_io ? "O_DIRECT" : "buffered, the page cache",
	       r->direct_io_from, awr_kernel_format(r->kernel, kbuf, sizeof(kbuf)));
	if (r->data_checksum_version >= 0)
		printf("data checksums: %s (pg_control data_checksum_version %d)\n",
		       r->data_checksum_version ? "on" : "off", r->data_checksum_version);
	for (unsigned int i = 0; i < r->nr_files; i++)
		count[r->files[i].verdict]++;
	printf("%u data file(s): %u guaranteed, %u device-implicit, %u not safe, %u unknown\n", r->nr_files,
	       count[AWR_DB_GUARANTEED], count[AWR_DB_DEVICE_IMPLICIT], count[AWR_DB_NOT_SAFE], count[AWR_DB_UNKNOWN]);
	for (unsigned int i = 0; all && i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		printf("  %s: %s; %s pages, %s on %s, statx atomic %s, %s of %s mapped bytes in aligned pages, "
		       "atomic writes take the %s path\n", f->path, awr_db_verdict_name(f->verdict),
		       f->page_size ? out_size(f->page_size, kbuf, sizeof(kbuf)) : "unknown", f->fs[0] ? f->fs : "?",
		       f->device[0] ? f->device : "no device", f->statx_atomic ? "yes" : "no",
		       out_size(f->aligned_bytes, a, sizeof(a)), out_size(f->mapped_bytes, b, sizeof(b)),
		       awr_write_path_name(f->write_path));
		for (unsigned int k = 0; k < f->nr_reasons; k++)
			printf("    - %s\n", f->reasons[k]);
	}
	if (!all)
		print_reasons(r);
	for (unsigned int i = 0; i < r->nr_skipped; i++)
		printf("skipped: %s\n", r->skipped[i]);
	if (r->nr_conditions) {
		printf("conditions:\n");
		for (unsigned int i = 0; i < r->nr_conditions; i++)
			printf("  - %s\n", r->conditions[i]);
	}
	printf("%s: %s (%s)\n", r->engine == AWR_DB_INNODB ? "innodb_doublewrite" : "full_page_writes",
	       r->protection < 0 ? "unknown" : r->protection ? "ON" : "OFF", r->protection_from);
	printf("verdict: %s\nadvice: %s\n", awr_db_verdict_name(r->verdict), r->advice);
	if (r->speed[0])
		printf("speed: %s\n", r->speed);
}

int cmd_database(int argc, const char **argv)
{
	char *engine_s = NULL;
	int atomic = 0, all = 0, ret, rc;
	struct poptOption table[] = {
		{ "for", 0, POPT_ARG_STRING, &engine_s, 0, "the engine: innodb (MySQL, MariaDB) or postgresql",
		  "ENGINE" },
		{ "atomic-writes", 0, POPT_ARG_NONE, &atomic, 0,
		  "the engine's page writes are RWF_ATOMIC (it runs under libatomicwr-preload); found by itself "
		  "when a running server with the files open has the preload loaded", NULL },
		{ "files", 0, POPT_ARG_NONE, &all, 0, "print every data file with its own reasons (else the distinct reasons, with how many files give each)",
		  NULL },
		{ NULL, 0, POPT_ARG_INCLUDE_TABLE, (void *)out_options, 0, "Output:", NULL },
		POPT_AUTOHELP
		POPT_TABLEEND
	};
	enum awr_db_engine engine;
	struct awr_db_report *r;
	struct cmd_ctx c;

	if (cmd_parse(&c, argc, argv, table, "DATADIR", true))
		return AWR_EXIT_USAGE;
	if (out_mode == OUT_PROMETHEUS) {
		out_error("qualify DATADIR --for: -o prometheus is not written for a data directory: use -o normal or "
			  "-o json");
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (!engine_s || (strcmp(engine_s, "innodb") && strcmp(engine_s, "postgresql"))) {
		out_error("--for %s: name the engine whose files DATADIR holds: --for innodb (MySQL, MariaDB) or "
			  "--for postgresql", engine_s ? engine_s : "is missing");
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	engine = !strcmp(engine_s, "innodb") ? AWR_DB_INNODB : AWR_DB_POSTGRESQL;
	ret = awr_db_qualify(c.operand, engine, atomic ? AWR_DB_ATOMIC_WRITES : 0, &r);
	if (ret) {
		if (ret == -ENODATA)
			out_error("%s holds no %s data file (%s): is it the data directory, and the engine right?",
				  c.operand, engine_s, engine == AWR_DB_INNODB ? "ibdata1, undoNNN, *.ibd" :
				  "base/*/NNNN, global/NNNN, pg_tblspc/*/PG_*/*/NNNN");
		else
			out_error("cannot read the data directory %s: %s", c.operand, strerror(-ret));
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (r->warning[0])	/* on stderr too, in every mode: a script reading the JSON is told */
		fprintf(stderr, "awr: WARNING: %s\n", r->warning);
	if (out_mode == OUT_JSON)
		print_json(r);
	else
		print_text(r, all);
	rc = r->verdict == AWR_DB_GUARANTEED || r->verdict == AWR_DB_DEVICE_IMPLICIT ? AWR_EXIT_OK : AWR_EXIT_FAIL;
	out_outcome(r->verdict == AWR_DB_NOT_SAFE ? "not_safe" : "unknown");
	awr_db_report_free(r);
	cmd_done(&c);
	return rc;
}
