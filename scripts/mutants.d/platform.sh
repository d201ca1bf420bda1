# SPDX-License-Identifier: MIT
# Description: the mutants of the platform layer's mountinfo reading: a mount point left escaped
# as mountinfo writes it ("a\040b"), by libmount's reader and by the static tools' own; and the one
# naming of a file's type the journal and write-target refusals share (sourced by
# scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant mountinfo-target-escaped "the mount point handed on as mountinfo writes it (\\040)" \
	"mountinfo cli_mount_names" lib/platform/mountinfo.c \
	'.target = or_empty(mnt_fs_get_target(fs)),' \
	'.target = or_empty(mnt_mangle(or_empty(mnt_fs_get_target(fs)))),'

mutant unmangle-none "the static tools' mountinfo reader (and /proc/swaps) leaves \\ooo escapes" \
	"mountinfo_builtin" lib/platform/str.c \
	$'\t\tif (in[0] == \'\\\\\' && in[1] >= \'0\'' \
	$'\t\tif (in[0] == 1 && in[1] >= \'0\''

mutant file-type-fifo-socket "a FIFO named a socket in the journal and write-target refusals" \
	"str journal_open_safety" lib/platform/fd.c \
	$'\t\treturn "a FIFO";' \
	$'\t\treturn "a socket";'

mutant symlink-regular-unnamed "a symbolic link to a regular file called not a regular file" \
	"write_target_open" lib/decide/safety.c \
	$'\tif (S_ISREG(m))\n\t\treturn "a regular file";\n' \
	''
