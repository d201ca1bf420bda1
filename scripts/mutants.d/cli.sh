# SPDX-License-Identifier: MIT
# Description: the mutants of the command dispatch (cli/awr.c), --help, the pages and the completion
# (cli/help.c, completion/awr), the output layer's own rows (cli/output.c); sourced by
# scripts/mutants.sh.
# shellcheck shell=bash disable=SC2016

mutant version-outside-output "awr --version runs the version command outside the output layer (-o json printed nothing)" \
	"cli_contract" cli/awr.c \
	'	c = awr_command(strcmp(argv[1], "--version") ? argv[1] : "version");' \
	$'\tif (!strcmp(argv[1], "--version"))\n\t\treturn cmd_version(argc - 1, argv + 1);\n\tc = awr_command(argv[1]);'

mutant help-no-examples "awr COMMAND --help without its examples" \
	"help_pages" cli/help.c \
	'	fprintf(f, "\nExamples:\n");' \
	'	return;'

mutant man-no-options "the pages awr-COMMAND(1) without the options of the command's table" \
	"help_pages" cli/help.c \
	'	fputs(".TP\n", f);' \
	'	return;'

mutant write-cache-unknown-not-null "a disk whose sysfs shows no write cache gets write_cache keys, not null" \
	"list_guest" cli/output.c \
	'FLD(struct awr_sysfs_view, m, t, k, .flags = FLD_NULL_ZERO, __VA_ARGS__)' \
	'FLD(struct awr_sysfs_view, m, t, k, .flags = FLD_NULL_NEG, __VA_ARGS__)'

mutant completion-values-as-files "the completion offers file names for an option that lists its values" \
	"completion_values" completion/awr \
	'		compgen -W "${kind//|/ }" -- "$cur"' \
	'		compgen -f -- "$cur"'

mutant extents-path-silent "awr_extents_read_path() fails without saying why" \
	"discover_fs_view_extents" lib/discover/extents.c \
	$'\tif (ret == -EINVAL)\n\t\tawr__fail(ret, "%s is not a regular file: extents are a file\'s", path);' \
	$'\tif (ret == -EINVAL)\n\t\t;'

mutant extents-unit-blksize "awr_extents_read() judges unit 0 against st_blksize, not the view's default unit" \
	"discover_fs_view_extents_largeio" lib/discover/extents.c \
	$'\t\tunit = default_unit(fd, &st);' \
	$'\t\tunit = st.st_blksize;'
