# SPDX-License-Identifier: MIT
# Description: the mutants of the field tables' back ends, cli/fields.c (sourced by
# scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant fields-null-head-ignored "an object row is an object even where its first row is null" \
	"cli_list_tree" cli/fields.c \
	'((f->flags & FLD_NULL_HEAD) && fld_is_null(f->sub, sub_of(f, s)));' \
	'((f->flags & FLD_NULL_HEAD) && 0);'

mutant fields-onehot-inverted "a one-hot gauge is 0 for the value the row has, 1 for the others" \
	"list_prometheus" cli/fields.c \
	'prom_sample(t->key, l, !strcmp(v, t->name(i)));' \
	'prom_sample(t->key, l, !!strcmp(v, t->name(i)));'

mutant fields-omit-ignored "a FLD_OMIT row's key stands, null, where it should be left out" \
	"qualify_xfs" cli/fields.c \
	'if (!(t->flags & FLD_OMIT) || !fld_is_null(t, s))' \
	'if (1 || !fld_is_null(t, s))'
