# SPDX-License-Identifier: MIT
# Description: the mutants of the command dispatch in cli/awr.c (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant version-outside-output "awr --version runs the version command outside the output layer (-o json printed nothing)" \
	"cli_contract" cli/awr.c \
	'	c = awr_command(strcmp(argv[1], "--version") ? argv[1] : "version");' \
	$'\tif (!strcmp(argv[1], "--version"))\n\t\treturn cmd_version(argc - 1, argv + 1);\n\tc = awr_command(argv[1]);'
