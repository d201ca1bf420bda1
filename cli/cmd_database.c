// SPDX-License-Identifier: MIT
/*
 * awr database DATADIR [--for ENGINE]: may the engine's torn-page protection
 * (the doublewrite buffer, full_page_writes) be turned off here? Without --for,
 * the engine whose files DATADIR holds.
 * Only reads (awr_db_qualify()); `awr qualify DATADIR --for ENGINE` is the
 * same command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "awr.h"

#define SHOWN_MAX	10	/* files with their reasons in the text output, without --files */

FLD_ENUM_NAME(awr_db_verdict_name, enum awr_db_verdict)
FLD_ENUM_NAME(awr_write_route_name, enum awr_write_route)
FLD_ENUM_NAME(awr_db_engine_name, enum awr_db_engine)

/* the running kernel's release, in a buffer that lives until the next call */
static const char *kernel_name(int k)
{
	static char buf[32];

	return awr_kernel_format((uint32_t)k, buf, sizeof(buf));
}

#define F(m, t, k, ...) FLD(struct awr_db_file, m, t, k, __VA_ARGS__)
static const struct field file_fields[] = {
	F(path, FLD_CHARS, "path"),
	F(page_size, FLD_SIZE, "page_size", .flags = FLD_NULL_ZERO),
	F(verdict, FLD_ENUM, "verdict", .name = awr_db_verdict_name_int),
	F(fs, FLD_CHARS, "fs"),
	F(device, FLD_CHARS, "device", .flags = FLD_NULL_ZERO),
	F(statx_atomic, FLD_BOOL, "statx_atomic"),
	F(unit_min, FLD_SIZE, "unit_min"),
	F(unit_max, FLD_SIZE, "unit_max"),
	F(hw_atomic, FLD_BOOL, "hw_atomic"),
	F(by_provider, FLD_BOOL, "by_provider"),
	F(hw_unit_max, FLD_SIZE, "hw_unit_max"),
	F(write_route, FLD_ENUM, "write_path", .name = awr_write_route_name_int),
	F(mapped_bytes, FLD_SIZE, "mapped_bytes"),
	F(aligned_bytes, FLD_SIZE, "aligned_bytes"),
	F(device_offset_align, FLD_SIZE, "device_offset_align", .flags = FLD_NULL_ZERO),
	F(grow_align, FLD_SIZE, "grow_align", .flags = FLD_NULL_ZERO),
	F(what_to_do, FLD_STR, "what_to_do", .flags = FLD_NULL_ZERO),
	FLD_END
};
#undef F

#define R(m, t, k, ...) FLD(struct awr_db_report, m, t, k, __VA_ARGS__)
static const struct field report_fields[] = {
	R(datadir, FLD_CHARS, "datadir"),
	R(engine, FLD_ENUM, "engine", .name = awr_db_engine_name_int),
	R(page_size, FLD_SIZE, "page_size", .flags = FLD_NULL_ZERO),
	R(page_size_from, FLD_CHARS, "page_size_from"),
	R(direct_io, FLD_BOOL, "direct_io"),
	R(direct_io_from, FLD_CHARS, "direct_io_from"),
	R(engine_version, FLD_UINT, "engine_version", .flags = FLD_NULL_ZERO),
	R(data_checksum_version, FLD_INT, "data_checksum_version", .flags = FLD_NULL_NEG),
	R(atomic_writes, FLD_BOOL, "atomic_writes"),
	R(atomic_why, FLD_CHARS, "atomic_writes_why"),
	R(kernel, FLD_ENUM, "kernel", .name = kernel_name),
	R(verdict, FLD_ENUM, "verdict", .name = awr_db_verdict_name_int),
	R(advice, FLD_CHARS, "advice"),
	R(what_to_do, FLD_STR, "what_to_do", .flags = FLD_NULL_ZERO),
	R(server_pid, FLD_INT, "server_pid", .flags = FLD_NULL_ZERO),
	R(protection, FLD_BOOL, "protection", .flags = FLD_NULL_NEG),
	R(protection_from, FLD_CHARS, "protection_from"),
	R(warning, FLD_CHARS, "warning", .flags = FLD_NULL_ZERO),
	R(speed, FLD_CHARS, "speed", .flags = FLD_NULL_ZERO),
	FLD_END
};
#undef R

/* A JSON array of the @n sentences of @s */
static struct json_object *strings(const char (*s)[256], unsigned int n)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(s[i]));
	return a;
}

static struct json_object *file_json(const struct awr_db_file *f)
{
	struct json_object *o = fld_json(file_fields, f);

	json_object_object_add(o, "reasons", strings(f->reasons, f->nr_reasons));
	return o;
}

static void print_json(const struct awr_db_report *r)
{
	struct json_object *o = fld_json(report_fields, r), *files = json_object_new_array();

	json_object_object_add(o, "conditions", strings(r->conditions, r->nr_conditions));
	json_object_object_add(o, "skipped", strings(r->skipped, r->nr_skipped));
	for (unsigned int i = 0; i < r->nr_files; i++)
		json_object_array_add(files, file_json(&r->files[i]));
	json_object_object_add(o, "files", files);
	out_print_json(out_json_schema(o));
}

/* The distinct reasons across files (the report's groups), the first SHOWN_MAX of them */
static void print_reasons(const struct awr_db_report *r)
{
	unsigned int ng = r->nr_reason_groups, more = r->reason_groups_more;

	if (ng)
		printf("reasons:\n");
	for (unsigned int j = 0; j < ng && j < SHOWN_MAX; j++) {
		const struct awr_db_reason_group *g = &r->reason_groups[j];

		if (g->files == 1)
			printf("  - %s: %s\n", g->first, g->text);
		else
			printf("  - %u files (%s, ...): %s\n", g->files, g->first, g->text);
	}
	if (ng > SHOWN_MAX || more)
		printf("  ... and %u more (every file's with --files or -o json)\n",
		       ng - (ng > SHOWN_MAX ? SHOWN_MAX : ng) + more);
}

static void print_text(const struct awr_db_report *r, bool all)
{
	const unsigned int *count = r->nr_files_by_verdict;
	char a[32], b[32], kbuf[32];

	if (r->warning[0])	/* first and loud: the server runs unprotected where a page can tear
				   */
		printf("WARNING: %s\n\n", r->warning);
	snprintf(b, sizeof(b), " %u", r->engine_version);
	printf("%s: %s%s, %s pages (%s)\n", r->datadir,
	       r->engine == AWR_DB_INNODB ? "InnoDB" : "PostgreSQL",
	       r->engine_version ? b : "",
	       r->page_size ? out_size(r->page_size, a, sizeof(a)) : "unknown",
	       r->page_size_from);
	printf("atomic writes by the engine: %s (%s)\n", r->atomic_writes ? "yes" : "no",
	       r->atomic_why);
	printf("page writes: %s (%s); kernel %s\n",
	       r->direct_io ? "O_DIRECT" : "buffered, the page cache",
	       r->direct_io_from, awr_kernel_format(r->kernel, kbuf, sizeof(kbuf)));
	if (r->data_checksum_version >= 0)
		printf("data checksums: %s (pg_control data_checksum_version %d)\n",
		       r->data_checksum_version ? "on" : "off", r->data_checksum_version);
	printf("%u data file(s): %u guaranteed, %u device-implicit, %u not safe, %u unknown\n",
	       r->nr_files,
	       count[AWR_DB_GUARANTEED], count[AWR_DB_DEVICE_IMPLICIT], count[AWR_DB_NOT_SAFE],
	       count[AWR_DB_UNKNOWN]);
	for (unsigned int i = 0; all && i < r->nr_files; i++) {
		const struct awr_db_file *f = &r->files[i];

		printf("  %s: %s; %s pages, %s on %s, statx atomic %s, %s of %s mapped bytes in "
		       "aligned pages, atomic writes take the %s path\n", f->path,
		       awr_db_verdict_text(f->verdict),
		       f->page_size ? out_size(f->page_size, kbuf, sizeof(kbuf)) : "unknown",
		       f->fs[0] ? f->fs : "?",
		       f->device[0] ? f->device : "no device", f->statx_atomic ? "yes" : "no",
		       out_size(f->aligned_bytes, a, sizeof(a)),
		       out_size(f->mapped_bytes, b, sizeof(b)),
		       awr_write_route_name(f->write_route));
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
	printf("%s: %s (%s)\n",
	       r->engine == AWR_DB_INNODB ? "innodb_doublewrite" : "full_page_writes",
	       r->protection < 0 ? "unknown" : r->protection ? "ON" : "OFF", r->protection_from);
	printf("verdict: %s\nadvice: %s\n", awr_db_verdict_text(r->verdict), r->advice);
	if (r->what_to_do)
		printf("what to do: %s\n", r->what_to_do);
	if (r->speed[0])
		printf("speed: %s\n", r->speed);
}

int cmd_database(int argc, const char **argv)
{
	char *engine_s = NULL;
	int atomic = 0, all = 0, ret, rc;
	struct poptOption table[] = {
		{ "for", 0, POPT_ARG_STRING, &engine_s, 0,
		  "the engine: innodb (also mariadb, mysql) or postgresql (also postgres, pg); "
		  "without it, the engine whose files DATADIR holds",
		  "innodb|postgresql" },
		{ "atomic-writes", 0, POPT_ARG_NONE, &atomic, 0,
		  "the engine's page writes are RWF_ATOMIC (it runs under libatomicwr-preload); "
		  "found by itself when a running server with the files open has the preload "
		  "loaded", NULL },
		{ "files", 0, POPT_ARG_NONE, &all, 0,
		  "print every data file with its own reasons (else the distinct reasons, with how "
		  "many files give each)",
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
		out_error("qualify DATADIR --for: -o prometheus is not written for a data "
			  "directory: use -o normal or -o json");
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	engine = awr_db_engine_parse(engine_s);
	if (engine_s && engine == AWR_DB_ANY) {
		out_error("--for %s: name the engine whose files DATADIR holds: --for innodb "
			  "(MySQL, MariaDB) or --for postgresql", engine_s);
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	ret = awr_db_qualify(c.operand, engine, atomic ? AWR_DB_ATOMIC_WRITES : 0, &r);
	if (ret) {
		/* awr_last_error() says why; for an unknown engine, awr says what to give */
		out_error(ret == -EMEDIUMTYPE ? "%s: give --for innodb (MySQL, MariaDB) or --for "
			  "postgresql" : "%s", awr_last_error());
		cmd_done(&c);
		return AWR_EXIT_USAGE;
	}
	if (r->warning[0])	/* on stderr too, in every mode: a script reading the JSON is told
				   */
		fprintf(stderr, "awr: WARNING: %s\n", r->warning);
	if (out_mode == OUT_JSON)
		print_json(r);
	else
		print_text(r, all);
	rc = r->verdict == AWR_DB_GUARANTEED || r->verdict == AWR_DB_DEVICE_IMPLICIT ?
	     AWR_EXIT_OK : AWR_EXIT_FAIL;
	out_outcome(r->verdict == AWR_DB_NOT_SAFE ? "not_safe" : "unknown");
	awr_db_report_free(r);
	cmd_done(&c);
	return rc;
}
