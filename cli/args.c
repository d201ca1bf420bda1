// SPDX-License-Identifier: MIT
/* Argument helpers shared by the commands: popt contexts, sizes, the write guard. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "awr.h"

int cmd_parse(struct cmd_ctx *c, int argc, const char **argv,
	      const struct poptOption *table, const char *operand_name, bool operand_required)
{
	const char *extra;
	int rc;

	c->name = argv[0];
	c->table = table;
	c->operand = NULL;
	c->pc = poptGetContext(argv[0], argc, argv, table, 0);
	while ((rc = poptGetNextOpt(c->pc)) > 0)
		;
	if (rc < -1) {
		out_error("%s: %s: %s", c->name, poptBadOption(c->pc, 0), poptStrerror(rc));
		goto usage;
	}
	if (out_apply_options())
		goto err;
	c->operand = poptGetArg(c->pc);
	extra = poptGetArg(c->pc);
	if (extra) {
		out_error("%s: unexpected argument '%s'", c->name, extra);
		goto usage;
	}
	if (operand_required && !c->operand) {
		out_error("%s: missing %s", c->name, operand_name);
		goto usage;
	}
	return 0;
usage:
	poptPrintUsage(c->pc, stderr, 0);
err:
	cmd_done(c);
	return -EINVAL;
}

/* popt allocates the values of string options: free them, in included tables too. */
static void free_strings(const struct poptOption *t)
{
	for (; t->longName || t->shortName || t->argInfo; t++) {
		unsigned int type = t->argInfo & POPT_ARG_MASK;

		if (type == POPT_ARG_INCLUDE_TABLE && t->arg) {
			free_strings(t->arg);
		} else if (type == POPT_ARG_STRING && t->arg) {
			free(*(char **)t->arg);
			*(char **)t->arg = NULL;
		}
	}
}

void cmd_done(struct cmd_ctx *c)
{
	if (c->pc)
		poptFreeContext(c->pc);
	c->pc = NULL;
	if (c->table)
		free_strings(c->table);
	c->table = NULL;
}

int parse_size_arg(const char *opt, const char *text, uint64_t *out)
{
	int ret;

	if (!text) {
		out_error("--%s is required", opt);
		return -EINVAL;
	}
	ret = awr_parse_size(text, out);
	if (ret == -ERANGE)
		out_error("--%s '%s' is too large: it must fit in 64 bits", opt, text);
	else if (ret)
		out_error("--%s '%s' is not a size: use a non-negative number with an optional unit, such as 4096, 16k, 16KiB or 1MiB", opt, text);
	return ret;
}

int guard_target(const char *path, bool force)
{
	struct awr_safety s;
	int ret = awr_target_safety(path, &s);

	if (ret) {
		out_error("cannot examine %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!s.reasons)
		return 0;
	if (force) {
		out_error("warning: writing %s although it is in use or formatted (%s): --force given", path, s.detail);
		return 0;
	}
	out_error("refusing to write %s: %s. Nothing was written. Use --force to overwrite it and lose its data.",
		  path, s.detail);
	return -EBUSY;
}

int guard_data_file(const char *cmd, const char *path, bool force)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size || force)
		return 0;
	out_error("refusing to %s %s: it holds %lld bytes of data that would be overwritten. "
		  "Give a new or empty file, or --force.", cmd, path, (long long)st.st_size);
	return -EEXIST;
}
