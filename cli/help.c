// SPDX-License-Identifier: MIT
/*
 * The help of every command from one source: the command table (purpose,
 * synopsis, examples, notes) with each command's popt option table gives
 * awr COMMAND --help, the man page awr-COMMAND(1) (awr help --man COMMAND
 * SOURCE, run by the build, adds the prose of man/src/COMMAND.man) and what
 * the bash completion offers (awr help --complete COMMAND). One walk over the
 * options, notes and examples feeds the three renderers (struct help_ops), so
 * pages and --help cannot drift: they print the same strings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awr.h"
#include "config.h"

enum help_mode { HELP_TEXT, HELP_MAN, HELP_COMPLETE };

static enum help_mode help_mode = HELP_TEXT;
static const char *help_source;	/* the man page's prose (HELP_MAN) */

#define HELP_WIDTH 79	/* --help text is wrapped to this column */
#define MAN_DATE "2026-12-07"

/* ---- the walk: options, notes and examples, for each renderer ---- */

/*
 * A renderer of a command's help (text, roff, completion): the walk calls its parts in order.
 * table: an included option table's heading ("Output:"); section: "Columns", "Examples".
 * NULL parts print nothing.
 */
struct help_ops {
	void (*table)(FILE *f, const char *title);
	void (*option)(FILE *f, const struct poptOption *o, int width);
	void (*section)(FILE *f, const char *title);
	void (*note)(FILE *f, const struct awr_note *n);
	void (*example)(FILE *f, const struct awr_example *e);
};

/* popt's callback entries and hidden options are not shown */
static bool hidden(const struct poptOption *o)
{
	return (o->argInfo & POPT_ARG_MASK) == POPT_ARG_CALLBACK ||
	       (o->argInfo & POPT_ARGFLAG_DOC_HIDDEN) || (!o->longName && !o->shortName);
}

static bool included(const struct poptOption *o)
{
	return (o->argInfo & POPT_ARG_MASK) == POPT_ARG_INCLUDE_TABLE;
}

/* what an option takes ("SIZE"), or NULL for a flag */
static const char *option_arg(const struct poptOption *o)
{
	if ((o->argInfo & POPT_ARG_MASK) == POPT_ARG_NONE)
		return NULL;
	return o->argDescrip ? o->argDescrip : "ARG";
}

/* "-o, --output=normal|json", "    --require=SIZE": an option's names as --help lists them */
static int option_names(const struct poptOption *o, char *buf, size_t len)
{
	const char *arg = option_arg(o);
	int n;

	if (o->shortName && o->longName)
		n = snprintf(buf, len, "-%c, --%s", o->shortName, o->longName);
	else if (o->shortName)
		n = snprintf(buf, len, "-%c", o->shortName);
	else
		n = snprintf(buf, len, "    --%s", o->longName);
	if (arg)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
			      strchr(" =(", *arg) ? "" : o->longName ? "=" : " ", arg);
	return n;
}

/*
 * The width of the names column: its widest entry, counting "-X, " for every option as popt
 * does (popt 1.19 maxArgWidth())
 */
static int options_width(const struct poptOption *t)
{
	char names[128];
	int w = 0, n;

	for (; t->longName || t->shortName || t->arg; t++) {
		if (included(t))
			n = t->arg ? options_width(t->arg) : 0;
		else if (hidden(t))
			n = 0;
		else
			n = 2 + option_names(t, names, sizeof(names)) + (t->longName ? 0 : 2);
		w = n > w ? n : w;
	}
	return w;
}

/* A table's options, then the tables it includes, each under its heading (as popt lists them) */
static void walk_options(FILE *f, const struct help_ops *ops, const struct poptOption *t,
			 int width)
{
	for (const struct poptOption *o = t; o->longName || o->shortName || o->arg; o++)
		if (!included(o) && !hidden(o))
			ops->option(f, o, width);
	for (const struct poptOption *o = t; o->longName || o->shortName || o->arg; o++) {
		if (!included(o) || !o->arg)
			continue;
		if (o->descrip && ops->table)
			ops->table(f, o->descrip);
		walk_options(f, ops, o->arg, width);
	}
}

/* The parts of one command's help that every renderer shows, in order */
static void help_walk(FILE *f, const struct help_ops *ops, const struct awr_cmd *cmd,
		      const struct poptOption *t)
{
	walk_options(f, ops, t, options_width(t));
	if (ops->note && cmd->notes) {
		ops->section(f, cmd->notes_title);
		for (const struct awr_note *n = cmd->notes; n->term; n++)
			ops->note(f, n);
	}
	if (!ops->example)
		return;
	ops->section(f, "Examples");
	for (const struct awr_example *e = cmd->examples; e && e->line; e++)
		ops->example(f, e);
}

/* ---- text: --help and awr help ---- */

void text_wrap(FILE *f, const char *text, int indent, int col, int width)
{
	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > indent && col + 1 + (int)n > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, text);
		col += (int)n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void help_usage(FILE *f)
{
	int w = 0;

	for (size_t i = 0; i < awr_nr_commands; i++)
		if ((int)strlen(awr_commands[i].name) > w)
			w = (int)strlen(awr_commands[i].name);
	fprintf(f, "Usage: awr COMMAND [OPTIONS] [PATH]\n\nCommands:\n");
	for (size_t i = 0; i < awr_nr_commands; i++)
		fprintf(f, "  %-*s %s\n", w, awr_commands[i].name, awr_commands[i].summary);
	fprintf(f, "\nEvery command takes --help and -o normal|json. "
		"'awr help COMMAND' is 'awr COMMAND --help'.\n"
		"See awr(1) and awr-COMMAND(1).\n");
}

static void text_table(FILE *f, const char *title)
{
	fprintf(f, "\n%s\n", title);
}

/*
 * One option: its names padded to @width, then its description under itself, broken at spaces
 * while the rest does not fit in the line (the last line may reach column 79, the others 78),
 * as popt 1.19's singleOptionHelp() printed it
 */
static void text_option(FILE *f, const struct poptOption *o, int width)
{
	const char *d = o->descrip ? o->descrip : "";
	size_t room = (size_t)(HELP_WIDTH - width - 5), n;
	char names[128];

	option_names(o, names, sizeof(names));
	fprintf(f, "  %-*s   ", width, names);
	while (strlen(d) > room) {
		for (n = room - 1; n && d[n] != ' '; n--)
			;
		if (!n)
			break;
		while (n > 1 && d[n] == ' ')
			n--;
		fprintf(f, "%.*s\n%*s", (int)++n, d, width + 5, "");
		for (d += n; *d == ' '; d++)
			;
	}
	fprintf(f, "%s\n", d);
}

static void text_section(FILE *f, const char *title)
{
	fprintf(f, "\n%s:\n", title);
}

static void text_note(FILE *f, const struct awr_note *n)
{
	fprintf(f, "  %-15s", n->term);
	if (strlen(n->term) > 15)
		fprintf(f, "\n%*s", 17, "");
	text_wrap(f, n->text, 18, 17, HELP_WIDTH);
}

static void text_example(FILE *f, const struct awr_example *e)
{
	fputs("  # ", f);
	text_wrap(f, e->what, 4, 4, HELP_WIDTH);
	fprintf(f, "  %s\n", e->line);
}

static const struct help_ops text_ops = {
	.table = text_table, .option = text_option, .section = text_section,
	.note = text_note, .example = text_example,
};

static void text_help(FILE *f, const struct awr_cmd *cmd, const struct cmd_ctx *c,
		      const char *operand_name)
{
	fprintf(f, "Usage: %s %s\n", c->prog, operand_name ? c->other_help : "[OPTION...]");
	fprintf(f, "%s\n", cmd->summary);
	fprintf(f, "  awr %s%s%s\n\n", cmd->name, *cmd->synopsis ? " " : "", cmd->synopsis);
	help_walk(f, &text_ops, cmd, c->table);
	fprintf(f, "\nSee awr-%s(1) for the whole description.\n", cmd->name);
}

/* ---- roff: awr help --man ---- */

/* @s escaped for roff: backslashes and minus signs, a leading dot or quote made literal */
static void man_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		if (*s == '\n' && (s[1] == '.' || s[1] == '\''))
			fputs("\\&", f);
	}
}

/* @before, @s escaped (man_text()), @after */
static void man_put(FILE *f, const char *before, const char *s, const char *after)
{
	fputs(before, f);
	man_text(f, s);
	fputs(after, f);
}

static void man_option(FILE *f, const struct poptOption *o, int width)
{
	(void)width;
	fputs(".TP\n", f);
	if (o->shortName)
		fprintf(f, "\\fB\\-%c\\fR%s", o->shortName, o->longName ? ", " : "");
	if (o->longName)
		man_put(f, "\\fB\\-\\-", o->longName, "\\fR");
	if (option_arg(o))
		man_put(f, "=\\fI", option_arg(o), "\\fR");
	man_put(f, "\n", o->descrip ? o->descrip : "", "\n");
}

static void man_head(FILE *f, const char *page, const char *summary)
{
	fputs(".\\\" Generated by awr help --man from cli/help.c and man/src: edit those.\n", f);
	fprintf(f, ".TH %s 1 %s \"libatomicwr %s\" \"User Commands\"\n", page, MAN_DATE,
		AWR_VERSION_STRING);
	man_put(f, ".SH NAME\n", page, " \\- ");
	man_put(f, "", summary, "\n");
}

/* a section named in capitals: "Examples" is .SH EXAMPLES */
static void man_section(FILE *f, const char *title)
{
	fputs(".SH ", f);
	for (const char *t = title; *t; t++)
		fputc(toupper((unsigned char)*t), f);
	fputs("\n", f);
}

static void man_note(FILE *f, const struct awr_note *n)
{
	man_put(f, ".TP\n.B ", n->term, "\n");
	man_put(f, "", n->text, "\n");
}

static void man_example(FILE *f, const struct awr_example *e)
{
	man_put(f, ".PP\n", e->what, ":\n.RS\n.nf\n");
	man_put(f, "", e->line, "\n.fi\n.RE\n");
}

static const struct help_ops man_ops = {
	.option = man_option, .section = man_section, .note = man_note, .example = man_example,
};

static void man_commands(FILE *f)
{
	fputs(".SH COMMANDS\nEach command has its own page, and\n.BI \"awr \" COMMAND \" "
	      "\\-\\-help\"\n(or \\fBawr help\\fR \\fICOMMAND\\fR) prints its options and "
	      "examples from the same source;\n.B awr help\nlists the commands.\n", f);
	for (size_t i = 0; i < awr_nr_commands; i++) {
		if (awr_commands[i].handler == cmd_help)
			continue;
		man_put(f, ".TP\n.BR awr\\-", awr_commands[i].name, " (1)\n");
		man_put(f, "", awr_commands[i].summary, "\n");
	}
}

/* The generated sections: a command's options, notes and examples; awr(1)'s commands */
static void man_sections(FILE *f, const struct awr_cmd *cmd, const struct cmd_ctx *c)
{
	if (!cmd) {
		man_commands(f);
		return;
	}
	man_section(f, "Options");
	help_walk(f, &man_ops, cmd, c->table);
}

/*
 * The prose of @source around the generated sections: its first section
 * (DESCRIPTION), then man_sections(), then the rest of it. Without a SEE
 * ALSO section of its own the page ends with one naming awr(1).
 */
static int man_splice(FILE *f, const char *source, const struct awr_cmd *cmd,
		      const struct cmd_ctx *c)
{
	FILE *in = fopen(source, "r");
	char *line = NULL;
	size_t cap = 0;
	int sections = 0;
	bool see_also = false;

	if (!in) {
		out_error("help: cannot read %s: %s", source, strerror(errno));
		return -errno;
	}
	while (getline(&line, &cap, in) > 0) {
		if (!strncmp(line, ".SH ", 4) && ++sections == 2)
			man_sections(f, cmd, c);
		see_also |= !strncmp(line, ".SH SEE ALSO", 12);
		fputs(line, f);
	}
	if (sections < 2)
		man_sections(f, cmd, c);
	if (!see_also && cmd)
		fputs(".SH SEE ALSO\n.BR awr (1)\n", f);
	free(line);
	fclose(in);
	return 0;
}

static int man_command(FILE *f, const struct awr_cmd *cmd, const struct cmd_ctx *c)
{
	char page[64];

	snprintf(page, sizeof(page), "awr-%s", cmd->name);
	man_head(f, page, cmd->summary);
	man_put(f, ".SH SYNOPSIS\n.B awr ", cmd->name, "\n");
	man_put(f, "", cmd->synopsis, "\n");
	return man_splice(f, help_source, cmd, c);
}

/* awr(1): the overview, its command list from the table */
static int man_overview(FILE *f, const char *source)
{
	man_head(f, "awr", "probe, check, perform and qualify Linux atomic (untorn) block writes");
	fputs(".SH SYNOPSIS\n.B awr\n.I COMMAND\n.RI [ OPTIONS ]\n.RI [ PATH ]\n.br\n"
	      ".B awr help\n.RI [ COMMAND ]\n", f);
	return man_splice(f, source, NULL, NULL);
}

/* ---- completion: awr help --complete ---- */

/* one line per option: --LONG -S ARG ("-" for a part it has not) */
static void complete_option(FILE *f, const struct poptOption *o, int width)
{
	(void)width;
	fprintf(f, "%s%s ", o->longName ? "--" : "-", o->longName ? o->longName : "");
	if (o->shortName)
		fprintf(f, "-%c ", o->shortName);
	else
		fputs("- ", f);
	fprintf(f, "%s\n", option_arg(o) ? option_arg(o) : "-");
}

static const struct help_ops complete_ops = { .option = complete_option };

static void complete_command(FILE *f, const struct awr_cmd *cmd, const struct cmd_ctx *c,
			     const char *operand_name)
{
	fprintf(f, "operand %s\n", operand_name ? operand_name : "-");
	help_walk(f, &complete_ops, cmd, c->table);
}

/* ---- entry points ---- */

const struct awr_cmd *awr_command(const char *name)
{
	for (size_t i = 0; i < awr_nr_commands; i++)
		if (!strcmp(awr_commands[i].name, name))
			return &awr_commands[i];
	return NULL;
}

bool help_asked(int argc, const char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-?"))
			return true;
	return false;
}

int help_command(const struct cmd_ctx *c, const char *operand_name)
{
	const struct awr_cmd *cmd = awr_command(c->name);

	if (!cmd)
		return -ENOENT;
	switch (help_mode) {
	case HELP_MAN:
		return man_command(stdout, cmd, c);
	case HELP_COMPLETE:
		complete_command(stdout, cmd, c, operand_name);
		return 0;
	default:
		text_help(stdout, cmd, c, operand_name);
		return 0;
	}
}

static int help_unknown(const char *name)
{
	out_error("unknown command '%s'", name);
	help_usage(stderr);
	return AWR_EXIT_USAGE;
}

/*
 * awr help [COMMAND]; for the build and the completion: awr help --man
 * (awr|COMMAND) SOURCE, awr help --complete [COMMAND].
 */
int cmd_help(int argc, const char **argv)
{
	const char *args[] = { NULL, "--help", NULL };
	const struct awr_cmd *c;

	if (argc >= 2 && !strcmp(argv[1], "--complete")) {
		help_mode = HELP_COMPLETE;
		argv++;
		argc--;
		if (argc < 2) {
			for (size_t i = 0; i < awr_nr_commands; i++)
				printf("%s\n", awr_commands[i].name);
			return AWR_EXIT_OK;
		}
	} else if (argc == 4 && !strcmp(argv[1], "--man")) {
		help_mode = HELP_MAN;
		help_source = argv[3];
		if (!strcmp(argv[2], "awr"))
			return man_overview(stdout, argv[3]) ? AWR_EXIT_USAGE : AWR_EXIT_OK;
		argv++;
		argc--;
	}
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-?")) {
		help_usage(stdout);
		return AWR_EXIT_OK;
	}
	c = awr_command(argv[1]);
	if (!c || c->handler == cmd_help)
		return help_unknown(argv[1]);
	args[0] = c->name;
	return c->handler(2, args);
}
