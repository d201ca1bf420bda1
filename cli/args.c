// SPDX-License-Identifier: MIT
/* Argument helpers shared by the commands: popt contexts, sizes, the write guard. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "awr.h"

/*
 * The option of @t or a table it includes called --@name (@len bytes), or -@sh when @sh is given,
 * whose type is one of @types (a bit per POPT_ARG_* type).
 */
static const struct poptOption *find_option(const struct poptOption *t, const char *name,
					    size_t len, char sh, unsigned int types)
{
	for (; t->longName || t->shortName || t->argInfo; t++) {
		unsigned int type = t->argInfo & POPT_ARG_MASK;
		const struct poptOption *in;

		if (type == POPT_ARG_INCLUDE_TABLE && t->arg) {
			if ((in = find_option(t->arg, name, len, sh, types)))
				return in;
		} else if (((1U << type) & types) &&
			   (sh ? t->shortName == sh :
			    t->longName && strlen(t->longName) == len &&
			    !strncmp(t->longName, name, len))) {
			return t;
		}
	}
	return NULL;
}

#define NUMERIC_TYPES ((1U << POPT_ARG_INT) | (1U << POPT_ARG_LONG) | \
		       (1U << POPT_ARG_LONGLONG) | (1U << POPT_ARG_DOUBLE))
#define STRING_TYPES (1U << POPT_ARG_STRING)

static void opt_each(const struct poptOption *t,
		     void (*fn)(const struct poptOption *o, void *arg), void *arg)
{
	for (; t->longName || t->shortName || t->argInfo; t++) {
		if ((t->argInfo & POPT_ARG_MASK) != POPT_ARG_INCLUDE_TABLE)
			fn(t, arg);
		else if (t->arg)
			opt_each(t->arg, fn, arg);
	}
}

/*
 * popt takes "" as 0 (which these options read as "not given": stress ran its
 * default 10 s for --writes '') and accepts negative numbers: every numeric
 * option of awr is a count or a time, so an empty or negative value is refused.
 */
static int check_numeric_values(int argc, const char **argv, const struct poptOption *table)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *eq, *val;
		const struct poptOption *o;

		if (strncmp(a, "--", 2))
			continue;
		eq = strchr(a + 2, '=');
		o = find_option(table, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), 0,
				NUMERIC_TYPES);
		if (!o)
			continue;
		val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (val && (!*val || *val == '-' || *val == ' ')) {
			out_error("--%s '%s' is not a number: give a non-negative number, such as "
				  "--%s %s", o->longName,
				  val, o->longName,
				  o->argDescrip && !strcmp(o->argDescrip, "S") ? "1.5" : "10");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * popt strdup()s the value of a string option and overwrites the pointer when
 * the option is given again, so the earlier copy leaks (popt(3): the
 * application frees). The last occurrence wins in popt, so the earlier ones
 * are dropped from the arguments popt sees. Returns a new argv (argc in @n).
 */
static const char **drop_repeated_strings(int argc, const char **argv,
					  const struct poptOption *table, int *n)
{
	const struct poptOption **opt = calloc((size_t)argc + 1, sizeof(*opt));
	const char **out = calloc((size_t)argc + 1, sizeof(*out));
	int *width = calloc((size_t)argc + 1, sizeof(*width));
	int i, j, k = 0;

	if (!opt || !out || !width) {
		free(opt);
		free(width);
		free(out);
		return NULL;
	}
	for (i = 1; i < argc && strcmp(argv[i], "--"); i += width[i] ? width[i] : 1) {
		const char *a = argv[i], *eq;

		if (!strncmp(a, "--", 2)) {
			eq = strchr(a + 2, '=');
			opt[i] = find_option(table, a + 2, eq ? (size_t)(eq - a - 2) :
					     strlen(a + 2), 0, STRING_TYPES);
			width[i] = opt[i] && !eq && i + 1 < argc ? 2 : 1;
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			opt[i] = find_option(table, NULL, 0, a[1], STRING_TYPES);
			width[i] = opt[i] && !a[2] && i + 1 < argc ? 2 : 1;
		}
	}
	out[k++] = argv[0];
	for (i = 1; i < argc; i++) {
		bool later = false;

		if (opt[i])
			for (j = i + width[i]; j < argc && !later; j++)
				later = opt[j] == opt[i];
		if (later) {
			i += width[i] - 1;
			continue;
		}
		out[k++] = argv[i];
	}
	free(opt);
	free(width);
	*n = k;
	return out;
}

int cmd_parse(struct cmd_ctx *c, int argc, const char **argv,
	      const struct poptOption *table, const char *operand_name, bool operand_required)
{
	const char *extra;
	int rc;

	c->name = argv[0];
	c->table = table;
	c->operand = NULL;
	c->argv = drop_repeated_strings(argc, argv, table, &argc);
	if (c->argv)
		argv = c->argv;
	/* popt names the program in the usage line from argv[0]: "awr decode", not "decode" */
	snprintf(c->prog, sizeof(c->prog), "awr %s", c->name);
	if (c->argv)
		c->argv[0] = c->prog;
	/* usage lines name the tool and the command: "Usage: awr decode [OPTION...] FILE..." */
	c->pc = poptGetContext(c->prog, argc, argv, table, 0);
	if (operand_name) {
		snprintf(c->other_help, sizeof(c->other_help), "[OPTION...] %s%s%s",
			 operand_required ? "" : "[",
			 operand_name, operand_required ? "" : "]");
		poptSetOtherOptionHelp(c->pc, c->other_help);
	}
	out_set_command(c->name, NULL);
	/* --help from the command table (help.c), as popt's own would: exit at once */
	if (help_asked(argc, argv)) {
		rc = help_command(c, operand_name);
		cmd_done(c);
		exit(rc ? AWR_EXIT_USAGE : AWR_EXIT_OK);
	}
	while ((rc = poptGetNextOpt(c->pc)) > 0)
		;
	/* -o first: an error in the other options is then reported in the format asked for */
	if (out_apply_options(c->name))
		goto err;
	if (check_numeric_values(argc, argv, table))
		goto usage;
	if (rc < -1) {
		const char *bad = poptBadOption(c->pc, 0), *opt = NULL;

		/* a bad number: popt names the value; name the option it was given to as well */
		for (int i = 2; (rc == POPT_ERROR_BADNUMBER || rc == POPT_ERROR_OVERFLOW) &&
		     i < argc; i++)
			if (!strcmp(argv[i], bad) && argv[i - 1][0] == '-')
				opt = argv[i - 1];
		if (opt)
			out_error("%s: %s '%s': %s: give a non-negative number in range, such as "
				  "%s 10", c->name, opt,
				  bad, poptStrerror(rc), opt);
		else
			out_error("%s: %s: %s", c->name, bad, poptStrerror(rc));
		goto usage;
	}
	if (operand_name && strstr(operand_name, "...")) {	/* any number of operands */
		c->operands = poptGetArgs(c->pc);
		c->operand = c->operands ? c->operands[0] : NULL;
	} else {
		c->operands = NULL;
		c->operand = poptGetArg(c->pc);
	}
	out_set_command(c->name, c->operand);
	extra = c->operands ? NULL : poptGetArg(c->pc);
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
	/* one line of usage and where the options are, as coreutils does */
	fprintf(stderr, "Usage: %s %s\nTry '%s --help' for the options.\n", c->prog,
		operand_name ? c->other_help : "[OPTION...]", c->prog);
err:
	cmd_done(c);
	return -EINVAL;
}

/* popt allocates the values of string options: free them (opt_each: in included tables too). */
static void free_string(const struct poptOption *o, void *arg)
{
	(void)arg;
	if ((o->argInfo & POPT_ARG_MASK) == POPT_ARG_STRING && o->arg) {
		free(*(char **)o->arg);
		*(char **)o->arg = NULL;
	}
}

void cmd_done(struct cmd_ctx *c)
{
	if (c->pc)
		poptFreeContext(c->pc);
	c->pc = NULL;
	if (c->table)
		opt_each(c->table, free_string, NULL);
	c->table = NULL;
	free(c->argv);
	c->argv = NULL;
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
		out_error("--%s '%s' is not a size: use a non-negative number with an optional "
			  "unit, such as 4096, 16k, 16KiB or 1MiB", opt, text);
	return ret;
}

int target_open_as(const char *verb, const char *path, int oflags, unsigned int tflags, bool force,
		   bool *created)
{
	struct awr_safety s;
	int fd = awr_target_open(path, oflags, tflags | (force ? AWR_TARGET_FORCE : 0), &s);

	if (created)
		*created = fd >= 0 && s.created;
	if (fd < 0) {	/* the library's sentence, naming the command */
		awr_target_refusal(&s, fd, path, oflags, verb);
		out_error("%s", awr_last_error());
		return fd;
	}
	if (s.reasons)
		out_error("warning: writing %s although it %s: --force given", path, s.detail);
	return fd;
}

int target_open(const char *verb, const char *path, int oflags, unsigned int tflags, bool force)
{
	return target_open_as(verb, path, oflags, tflags, force, NULL);
}

volatile sig_atomic_t stop_signal;

/*
 * SIGINT and SIGTERM end a run early: @on (async-signal-safe) is called after stop_signal is set.
 */
void catch_stop_signals(void (*on)(int))
{
	struct sigaction sa = { .sa_handler = on };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
