#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: the mutation check, run by hand before a release (see tests/README, "Mutation check").
#
#   scripts/mutants.sh [--list] [NAME...]
#   scripts/mutants.sh --check        (each mutant's old text occurs once in the work tree: fast)
#   AWR_MUTANTS_REV=TAG scripts/mutants.sh       (another commit or tag than HEAD)
#
# Copies the committed HEAD of this repository into a scratch directory (git clone, nothing of the
# work tree's uncommitted changes), builds it once, checks that the selected tests pass unmutated,
# then for each mutant below: applies it (exact text replaced in one source file), rebuilds, runs
# only the tests meant to catch it and reports "caught" (a test failed) or "SURVIVED" (all passed).
# The scratch copy is removed on exit. Integration tests need root (scratch XFS on a loop device);
# without it they skip, and the table says which tests skipped.
#
# Exit status: 0 every mutant caught; 1 a mutant survived; 2 the check itself could not run (a
# mutant no longer applies to the source, does not build, or the tests fail without any mutant).
set -u

here=$(cd "$(dirname "$0")/.." && pwd)

# mutant NAME "TESTS" FILE OLD NEW [OLD NEW ...]: each OLD must occur exactly once in FILE.
names=() ; declare -A m_tests m_file m_what m_nrep
declare -A m_old m_new
mutant() {
	local name=$1 what=$2 tests=$3 file=$4 i=0
	shift 4
	names+=("$name")
	m_what[$name]=$what
	m_tests[$name]=$tests
	m_file[$name]=$file
	while [ $# -ge 2 ]; do
		m_old[$name.$i]=$1
		m_new[$name.$i]=$2
		i=$((i + 1))
		shift 2
	done
	m_nrep[$name]=$i
}

# --- the mutants -----------------------------------------------------------------------------
mutant rules-direct-first "the rule checker tests O_DIRECT before the shape rules" \
	"rules write_xfs_atomic" lib/decide/rules.c \
	$'\tunsigned int segs = w->nr_segs ? w->nr_segs : 1;\n\n\tif (segs > 1)' \
	$'\tunsigned int segs = w->nr_segs ? w->nr_segs : 1;\n\n\tif (w->open_flags >= 0 && !(w->open_flags & O_DIRECT))\n\t\treturn verdict(v, AWR_RULE_NOT_DIRECT, "not O_DIRECT");\n\tif (segs > 1)'

mutant nvme-nawupf0-no-fallback "NSABP set and NAWUPF 0 does not fall back to AWUPF" \
	"nvme_derive probe_nvme_sysfs" lib/device/derive_nvme.c \
	$'\treturn (id->nsfeat & NSFEAT_NSABP) && id->nawupf;' \
	$'\treturn (id->nsfeat & NSFEAT_NSABP);'

mutant verify-lost-horizon "the lost rule with > instead of >= at the horizon" \
	"verify_rule" lib/verify/verify.c \
	'newest >= horizon(m, ' \
	'newest > horizon(m, '

mutant nvme-swap-probe "probe: the AWUPF-less derivation taken as primary against sysfs" \
	"probe_nvme_sysfs" lib/discover/device_probe.c \
	$'\tconst struct awr_device_limits *l = &d->kder;' \
	$'\tconst struct awr_device_limits *l = d->have_alt ? &d->alt : &d->kder;' \
	'if (d->have_alt && same_as_sysfs(&d->alt, y)) {' \
	'if (d->have_alt && same_as_sysfs(&d->derived, y)) {'

mutant nvme-swap-finding "nvme_awupf_ignored names the two derivations the other way round" \
	"nvme_derive" lib/device/derive_nvme.c \
	$'id->awupf, d->alt.unit_min,\n\t\t\t d->alt.unit_max, d->derived.unit_min, d->derived.unit_max);' \
	$'id->awupf, d->derived.unit_min,\n\t\t\t d->derived.unit_max, d->alt.unit_min, d->alt.unit_max);'

mutant nvme-swap-device "the device view derives primary and AWUPF-less the other way round" \
	"nvme_derive cli_decode" lib/device/device.c \
	'awr_nvme_derive(&d->nvme, AWR_KERNEL(6, 18, 0), &d->caps, &d->derived);' \
	'awr_nvme_derive(&d->nvme, AWR_KERNEL(7, 0, 0), &d->caps, &d->derived);' \
	'awr_nvme_derive(&d->nvme, AWR_KERNEL(7, 0, 0), &d->caps, &d->alt);' \
	'awr_nvme_derive(&d->nvme, AWR_KERNEL(6, 18, 0), &d->caps, &d->alt);'

mutant kernel-backport-series "a rule's stable backport taken as applying to every later release of any series" \
	"kernel_rules" lib/kernel.c \
	'if (same_series(kernel, r->backports[i]) && kernel >= r->backports[i])' \
	'if (same_series(kernel, kernel) && kernel >= r->backports[i])'

mutant kernel-chunk-limit "the 6.17 chunk_sectors rule compares with unit_max instead of hw_max" \
	"kernel_derive" lib/device/derive_blk.c \
	'(l->hw_max >> 9) > chunk)' \
	'(l->hw_unit_max >> 10) > chunk)'

mutant rules-readonly-after-zero "a zero-length write to a read-only block device counted as a no-op, not EPERM" \
	"rules" lib/decide/rules.c \
	$'\tif (l->flags & AWR_LIMITS_READ_ONLY)\n' \
	$'\tif ((l->flags & AWR_LIMITS_READ_ONLY) && w->length)\n'

mutant rules-end-of-device "a write ending exactly at the device end counted as past it" \
	"rules" lib/decide/rules.c \
	'if (l->dev_size && end > l->dev_size)' \
	'if (l->dev_size && end >= l->dev_size)'

mutant rules-boundary-end "the boundary rule takes the end, not the last byte" \
	"rules" lib/decide/rules.c \
	'w->offset / l->boundary != (end - 1) / l->boundary' \
	'w->offset / l->boundary != end / l->boundary'

mutant stamp-checksum-range "the unit checksum leaves the 8 bytes before it out" \
	"stamp_format" lib/verify/stamp.c \
	'return XXH3_64bits(p, unit_size - STAMP_CSUM);' \
	'return XXH3_64bits(p, unit_size - STAMP_CSUM - 8);'

mutant journal-partial-record "a record a full filesystem took in part is left in the journal and named EIO" \
	"journal_full" lib/verify/journal.c \
	'ret = finish_record(j->fd, b, (size_t)got);' \
	'ret = -EIO;'

mutant pt-nvme-nawupf0 "NVMe passthrough takes NAWUPF 0 as the unit (no AWUPF fallback)" \
	"passthru_check" lib/decide/pt_check.c \
	'bool ns_unit = ns && id->nawupf;' \
	'bool ns_unit = ns;'

mutant uring-reap-no-submit "awr_queue_reap does not submit the queued writes when completions wait" \
	"write_ring_depth" lib/write/queue.c \
	'	ret = q->ops->enter(q, wait_nr > n + ready ? wait_nr - n - ready : 0);' \
	'	ret = ready ? 0 : q->ops->enter(q, wait_nr > n + ready ? wait_nr - n - ready : 0);'

mutant queue-open-misaligned "the queue's per-write check lets a misaligned atomic write through" \
	"write_uring_engine" lib/write/uring.c \
	$'\t       !(off & (len - 1)) && !((uintptr_t)buf & u->mem_mask) &&' \
	$'\t       !((uintptr_t)buf & u->mem_mask) &&'

mutant path-compare-moved "awr_route_compare does not compare device offsets: a remapped unit counts as in place" \
	"path_predict discover_fs_view_extents prepare_extents" lib/discover/extents.c \
	'		if (a[i].logical != b[i].logical || a[i].physical != b[i].physical ||' \
	'		if (a[i].logical != b[i].logical ||'

mutant xfs-ag-relative "the XFS hardware-path rule judges the device offset, not the block within the AG" \
	"path_predict" lib/discover/extents.c \
	$'\t\tblk %= fs->ag_size / bs;' \
	$'\t\tblk += 0;'

mutant remote-frame-mac-unchecked "the remote journal takes a frame without checking its MAC (either side)" \
	"journal_remote" lib/verify/remote.c \
	'	if (!awr__rj_mac_equal(mac, b + 9 + AWR_RJ_HDR + n))' \
	'	if (0)'

mutant remote-auth-unchecked "the journal server takes a client without checking its authentication MAC" \
	"journal_remote" lib/verify/serve.c \
	'	if (!awr__rj_mac_equal(mac, auth + AWR_RJ_AUTH_BODY)) {' \
	'	if (0) {'

mutant journal-append-unchecked "an append whose generation no run could issue is written (not refused)" \
	"journal_damage journal_generation_bound" lib/verify/journal.c \
	'	} else if (!gen_possible(r->generation, j->records + 1,' \
	'	} else if (0 && !gen_possible(r->generation, j->records + 1,'

mutant queue-run-no-stop "the queued-write loop queues units after a failed one (not only those in flight)" \
	"write_page_batch" lib/write/batch.c \
	$'\twhile (r->next < r->nr && !r->error &&\n' \
	$'\twhile (r->next < r->nr &&\n'

mutant pages-unsent-ok "pages not sent after the batch's failed one keep status 0, as if written" \
	"pages_store" lib/pages/write.c \
	'			pages[idx[i]].status = ret ? ret : -ECANCELED;' \
	'			pages[idx[i]].status = ret ? ret : 0;'

mutant pages-lock-on-ring-fd "the store's writes use the guard's own descriptor (the dead process's ring then holds the lock)" \
	"pages_crash_reopen_doublewrite pages_crash_reopen_software" lib/pages/store.c \
	'	fd = reopen_for_writes(s->lock_fd, path, &st);' \
	'	fd = dup(s->lock_fd);'

mutant pages-seq-restart "the page store numbers its batches from 1 again on every open" \
	"pages_crash_sessions" lib/pages/area.c \
	$'\ts->seq = nr ? newest + 1 : 1;' \
	$'\ts->seq = 1;'

mutant pages-settle-no-sync "the area's generation is reused without the store's fdatasync first" \
	"pages_crash_cache" lib/pages/area.c \
	$'\tif (fdatasync(s->fd))\n\t\treturn -errno;\n\ts->dw_unsynced = 0;' \
	$'\ts->dw_unsynced = 0;'

mutant pages-area-no-dsync "the area write is not RWF_DSYNC (the batch acknowledged before it is durable)" \
	"pages_crash_cache" lib/pages/area.c \
	'		     awr__pages_fault_nosync(s) ? 0 : RWF_DSYNC);' \
	'		     0);'

mutant pages-recover-nothing "opening a store recovers nothing from its doublewrite area" \
	"pages_example" lib/pages/area.c \
	$'\tif (s->dw_fd < 0)\n\t\treturn 0;\n\trecs = calloc(' \
	$'\tif (s->dw_fd >= -1)\n\t\treturn 0;\n\trecs = calloc('

mutant db-buffered-guaranteed "a data directory whose server writes pages buffered is guaranteed under atomic writes" \
	"db_verdict db_preload" lib/database/db.c \
	'	if (r->atomic_writes && r->direct_io) {' \
	'	if (r->atomic_writes) {'

mutant db-fcrc32-page-size "the full_crc32 FSP flags read with the older layout's page size code" \
	"db_verdict" lib/database/dbfiles.c \
	'		*page_size = 1U << (ssize + 9);
		return say(why, why_len, 0, "FSP flags 0x%x (full_crc32 layout)' \
	'		*page_size = 1U << (ssize + 10);
		return say(why, why_len, 0, "FSP flags 0x%x (full_crc32 layout)'

mutant prom-label-unescaped "-o prometheus writes label values without escaping quotes and backslashes" \
	"list_prometheus" cli/output.c \
	$'\t\tif (*v == \'\\\\\' || *v == \'"\')' \
	$'\t\tif (*v == 1)'

mutant progress-stdout-tty "progress is drawn when standard output is a terminal, not standard error" \
	"cli_progress_tty" cli/progress.c \
	'	return out_mode == OUT_NORMAL && isatty(STDERR_FILENO);' \
	'	return out_mode == OUT_NORMAL && isatty(STDOUT_FILENO);'

mutant qualify-creates-missing "qualify makes a missing PATH its scratch file without --create" \
	"cli_contract qualify_lib" lib/qualify/target.c \
	'	if (!(flags & AWR_QUALIFY_TARGET_CREATE))' \
	'	if (0)'

mutant qualify-target-kept "awr_qualify_target_close() leaves the scratch file it made" \
	"qualify_lib" lib/qualify/target.c \
	$'\tif (t->created) {\n\t\tunlink(t->path);' \
	$'\tif (t->created) {'

mutant qualify-prom-seconds-result "-o prometheus labels each check's seconds with a result" \
	"qualify_prometheus" cli/cmd_qualify.c \
	'		l[4] = m == P_CHECK ? "result" : NULL;' \
	'		l[4] = "result";'

mutant qualify-cleanup-target-kept "awr_qualify_cleanup() leaves the file made for the run" \
	"qualify_lib" lib/qualify/run.c \
	$'\tawr__q_target_cleanup();\n' \
	''

mutant report-last-check-dropped "the HTML report leaves out the last check's row" \
	"cli_report_html" cli/report_html.c \
	$'\tfor (size_t i = 0; i < n; i++) {\n\t\tstruct json_object *c = json_object_array_get_idx(a, i);\n\t\tconst char *res = word(str(c, "result"));' \
	$'\tfor (size_t i = 0; i + 1 < n; i++) {\n\t\tstruct json_object *c = json_object_array_get_idx(a, i);\n\t\tconst char *res = word(str(c, "result"));'

mutant report-cdf-first-point "the latency chart draws each mode without its first sample" \
	"cli_report_html" cli/report_html.c \
	$'\t\tfor (size_t i = 0; i < n; i++) {\n\t\t\tstruct json_object *p = json_object_array_get_idx(c, i);\n\t\t\tdouble us' \
	$'\t\tfor (size_t i = 1; i < n; i++) {\n\t\t\tstruct json_object *p = json_object_array_get_idx(c, i);\n\t\t\tdouble us'

mutant report-pct-shifted "the latency chart marks p99 and p99.9 at the percentile below" \
	"cli_report_html" cli/report_html.c \
	'			double us = num(lat, pcts[k]);' \
	'			double us = num(lat, pcts[k ? k - 1 : 0]);'

mutant json-error-silent "an error with -o json prints no error document" \
	"cli_contract" cli/output.c \
	'	if (out_mode != OUT_JSON || rc == AWR_EXIT_OK || json_printed || !last_error[0])' \
	'	if (1)'

mutant require-outcome-unset "probe --require that is not met leaves outcome at failed" \
	"cli_contract" cli/cmd_probe.c \
	'		out_outcome("requirement_not_met");' \
	''

mutant preload-uring-unmarked "the preload counts an io_uring page write as atomic without setting RWF_ATOMIC" \
	"preload_writes" preload/preload.c \
	$'\t\t\tsqe->rw_flags |= RWF_ATOMIC;\n' \
	$'\t\t\t(void)sqe;\n'

mutant preload-setfl-ignored "the preload misses O_DIRECT set by fcntl(F_SETFL) after the open (as InnoDB sets it)" \
	"preload_writes mariadb_preload" preload/preload.c \
	'	if (cmd == F_SETFL)' \
	'	if (cmd == -F_SETFL)'

mutant kernel-release-per-call "awr_kernel_running asks uname() on every call (the rule checker then makes a system call per write)" \
	"check_no_syscall" lib/kernel.c \
	'	if (k)
		return k;' \
	'	if (k && 0)
		return k;'

mutant text-nawun-nawupf "nvme-cli text and JSON: the key table reads nawun as NAWUPF and nawupf as NAWUN" \
	"decode_text" lib/device/text_nvme.c \
	'{ "nawun", AWR_IF_NAWUN }' '{ "nawun", AWR_IF_NAWUPF }' \
	'{ "nawupf", AWR_IF_NAWUPF }' '{ "nawupf", AWR_IF_NAWUN }'

mutant text-nabo-nabspf "nvme-cli text and JSON: the key table reads nabo as NABSPF and nabspf as NABO" \
	"decode_text" lib/device/text_nvme.c \
	'{ "nabo", AWR_IF_NABO }' '{ "nabo", AWR_IF_NABSPF }' \
	'{ "nabspf", AWR_IF_NABSPF }' '{ "nabspf", AWR_IF_NABO }'

mutant text-scsi-granularity-name "sg_vpd text: the label \"Atomic transfer length granularity\" not recognised" \
	"decode_text" lib/device/text_scsi.c \
	'{ "Atomic transfer length granularity", AWR_IF_ATOMIC_GRAN },' \
	'{ "Atomic transfer length granularty", AWR_IF_ATOMIC_GRAN },'

mutant list-awupf-from-awun "awr list takes the controller's AWUN as its AWUPF" \
	"list_guest" lib/discover/blockdevs.c \
	'b->awupf = d->nvme.awupf;' \
	'b->awupf = d->nvme.awun;'

mutant list-json-awupf-nawupf "awr list -o json prints NAWUPF (when set) as awupf" \
	"list_guest" cli/cmd_list.c \
	$'\tFLD(struct awr_blockdev, awupf, FLD_INT, "awupf", .flags = FLD_NULL_NEG),' \
	$'\tFLD(struct awr_blockdev, nawupf, FLD_INT, "awupf", .flags = FLD_NULL_NEG),'

mutant list-text-awupf-first "awr list's DEVICE column shows AWUPF even where NSFEAT bit 1 makes NAWUPF the field" \
	"list_guest" cli/cmd_list.c \
	$'\tif (b->nawupf >= 0)\n\t\tsnprintf(buf, len, "NAWUPF %d", b->nawupf);\n\telse if (b->awupf >= 0)\n\t\tsnprintf(buf, len, "AWUPF %d", b->awupf);' \
	$'\tif (b->awupf >= 0)\n\t\tsnprintf(buf, len, "AWUPF %d", b->awupf);\n\telse if (b->nawupf >= 0)\n\t\tsnprintf(buf, len, "NAWUPF %d", b->nawupf);'

mutant list-verdict-inverted "awr list's verdict says misaligned for an aligned partition and atomic for a misaligned one" \
	"list_guest cli_list_tree" lib/discover/blockdevs.c \
	'b->sysfs.logical_block_size, b->nr_parts_aligned < b->nr_parts);' \
	'b->sysfs.logical_block_size, b->nr_parts_aligned > 0);'

mutant part-align-unit-only "a partition's alignment judged by unit_min alone, not max(unit_min, boundary)" \
	"list_guest cli_list_tree" lib/discover/sysfs.c \
	$'hw_unit_min,\n\t\t\t\t\t      y->boundary);' \
	$'hw_unit_min,\n\t\t\t\t\t      0);'

mutant remote-seq-zero "every frame MACed with sequence number 0 (a dropped or repeated frame passes)" \
	"journal_remote" lib/verify/remote.c \
	'ret = frame_mac(c, b, c->send_dir, c->send_seq, len, b + 9 + AWR_RJ_HDR + len);' \
	'ret = frame_mac(c, b, c->send_dir, 0, len, b + 9 + AWR_RJ_HDR + len);' \
	'ret = frame_mac(c, b, c->recv_dir, c->recv_seq, n, mac);' \
	'ret = frame_mac(c, b, c->recv_dir, 0, n, mac);'

mutant serve-name-never-busy "the server lets two clients append to one journal name" \
	"journal_remote" lib/verify/serve.c \
	$'\t\t    !strcmp(s->slots[i].name, sl->name))\n\t\t\treturn true;' \
	$'\t\t    !strcmp(s->slots[i].name, sl->name))\n\t\t\treturn false;'

mutant decode-finding-from-assumed "a finding is raised from a field the paste did not hold" \
	"decode_text" lib/device/derive_blk.c \
	'	if (d->assumed & awr__finding_reads(awr__findings[key].id))' \
	'	if (0 && (d->assumed & awr__finding_reads(awr__findings[key].id)))'

mutant decode-assumed-as-read "decode prints an assumed field as read" \
	"decode_text" cli/device_out.c \
	'printf("%s%s %s%s%s%s", sep, t->f.label, assumed(d, t->input) ? "assumed " : "", v,' \
	'printf("%s%s %s%s%s%s", sep, t->f.label, "", v,'

mutant probe-dir-no-new-file "probe DIR answers for the directory, not a new file in it" \
	"cli_contract" lib/discover/probe.c \
	'	probe_new_file(p, dirfd, path);' \
	''

mutant json-effective-old-names "effective keeps mem_align/offset_align beside statx's dio_* names" \
	"cli_json_keys" cli/output.c \
	'L(mem_align, FLD_SIZE, "dio_mem_align"),' \
	'L(mem_align, FLD_SIZE, "mem_align"),'

# issue 29 item 2: an extent's alignment judged as the kernel does (XFS: within its AG)
mutant extents-device-offset "awr extents judges XFS extents by their device offset, not within the AG" \
	"prepare_extents" lib/discover/extents.c \
	'	uint64_t base = awr__align_base(fe->fe_physical, r->ag_size);' \
	'	uint64_t base = fe->fe_physical;'

# issue 25 item 18: the kernel rules table consulted where the rule applies
mutant part-start-unit-min-only "a partition start is checked against unit_min on every kernel" \
	"kernel_rules" lib/kernel.c \
	'	uint32_t unit = hw_unit_min && awr_kernel_has(kernel, AWR_KRULE_PART_HW_UNIT_MIN) ?' \
	'	uint32_t unit = hw_unit_min && false ?'

mutant part-rule-mainline-6.13 "the partition rule dated 6.13 (its backport's series) instead of 6.14" \
	"kernel_rules" lib/kernel.c \
	'	[AWR_KRULE_PART_HW_UNIT_MIN] = { "partition_hw_unit_min", AWR_KERNEL(6, 14, 0),' \
	'	[AWR_KRULE_PART_HW_UNIT_MIN] = { "partition_hw_unit_min", AWR_KERNEL(6, 13, 0),'

mutant db-growth-ignored "awr database ignores where a growing file's extents will lie (no stripe unit: not judged)" \
	"db_verdict" lib/database/db.c \
	'	if (!P || (f->grow_align && f->grow_align % P == 0))' \
	'	if (1 || !P || (f->grow_align && f->grow_align % P == 0))'

mutant dio-off-atomic "a file that takes no O_DIRECT (ext4 data=journal) keeps its statx atomic limits" \
	"findings" lib/discover/findings.c \
	'	if (s->dio_reported && !s->dio_offset_align) {' \
	'	if (s->dio_reported && !s->dio_offset_align && 0) {'

mutant optlib-linked "libnvme and libcrypto linked in again (every process pays their loading)" \
	"optlib" lib/meson.build \
	$'  optlib_deps = [nvme_dep.partial_dependency(compile_args: true, includes: true),\n                 crypto_dep.partial_dependency(compile_args: true, includes: true),' \
	$'  optlib_deps = [nvme_dep, crypto_dep,' \
	$'  optlib_args = []' \
	$'  optlib_args = [\'-DAWR_OPTLIB_LINKED\']'

mutant optlib-once "a library that failed to load is tried again on every call" \
	"optlib" lib/optlib.c \
	$'\t\t\t__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);' \
	$'\t\t\t__atomic_store_n(&l->done, !l->ret, __ATOMIC_RELEASE);'

mutant bench-flush-uncounted "awr bench counts a batch's fdatasync time as page writes" \
	"bench_cli bench_run" lib/bench/bench.c \
	$'\tb->step_ns[k] += awr__now_ns() - t;' \
	$'\tb->step_ns[k == AWR_BENCH_STEP_FLUSH ? 1 : k] += awr__now_ns() - t;	/* 1: writes */'

mutant maw-reflink-6.19 "the XFS max_atomic_write refusal without reflink dated 6.19 instead of 6.17" \
	"kernel_rules" lib/kernel.c \
	'"xfs_max_atomic_write_reflink", AWR_KERNEL(6, 17, 0)' \
	'"xfs_max_atomic_write_reflink", AWR_KERNEL(6, 19, 0)'

mutant mpath-stack-6.19 "dm-multipath stacking dated 6.19 (dm-crypt's merge) instead of 7.0" \
	"kernel_rules" lib/kernel.c \
	'"dm_multipath_stacking", AWR_KERNEL(7, 0, 0)' \
	'"dm_multipath_stacking", AWR_KERNEL(6, 19, 0)'

# The mutants of one area each live in scripts/mutants.d/AREA.sh (the same mutant calls).
for f in "$here"/scripts/mutants.d/*.sh; do
	[ -e "$f" ] || continue
	# shellcheck disable=SC1090
	. "$f"
done

# ---------------------------------------------------------------------------------------------

if [ "${1:-}" = --list ]; then
	for n in "${names[@]}"; do
		printf '%-26s %-28s %-34s %s\n' "$n" "${m_file[$n]}" "${m_tests[$n]}" "${m_what[$n]}"
	done
	exit 0
fi
if [ "${1:-}" = --check ]; then
	# every test a mutant names is a meson test of the build (AWR_BUILD_DIR: the meson test
	# mutants_check sets it; a build without -Dtest_hooks=true lacks some, so it is not asked)
	intro=${AWR_BUILD_DIR:-}/meson-info
	if [ -n "${AWR_BUILD_DIR:-}" ] && grep -q '"name": "test_hooks", "value": true' \
		"$intro/intro-buildoptions.json" 2>/dev/null; then
		for n in "${names[@]}"; do echo "$n ${m_tests[$n]}"; done | python3 -c '
import json, sys
known = {t["name"] for t in json.load(open(sys.argv[1]))}
bad = [f"mutant {w[0]}: no meson test {t}" for w in map(str.split, sys.stdin) for t in w[1:]
       if t not in known]
print("\n".join(bad + [f"mutants name {len(known)} known tests: {len(bad)} unknown name(s)"]))
sys.exit(1 if bad else 0)' "$intro/intro-tests.json" || exit 1
	fi
	for n in "${names[@]}"; do
		for ((i = 0; i < m_nrep[$n]; i++)); do
			printf '%s\0%s\0%s\0' "$n" "${m_file[$n]}" "${m_old[$n.$i]}"
		done
	done | python3 -c '
import sys
f = sys.stdin.buffer.read().split(b"\0")[:-1]
bad = 0
for k in range(0, len(f), 3):
    name, path, old = (x.decode() for x in f[k:k + 3])
    try:
        c = open(sys.argv[1] + "/" + path).read().count(old)
    except OSError:
        c = 0
    if c != 1:
        print(f"mutant {name}: an old text occurs {c} times in {path}, not once")
        bad = 1
print(f"{int(sys.argv[2])} mutants: " + ("some do not apply" if bad else "every old text occurs once"))
sys.exit(bad)' "$here" "${#names[@]}"
	exit
fi
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${names[@]}")
for n in "${selected[@]}"; do
	[ -n "${m_file[$n]:-}" ] || { echo "unknown mutant: $n (see --list)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-mutants.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
src=$work/src
bld=$work/build
rev=$(git -C "$here" rev-parse --verify "${AWR_MUTANTS_REV:-HEAD}^{commit}") || exit 2
git clone -q --no-checkout "$here" "$src" && git -C "$src" checkout -q --detach "$rev" || exit 2
echo "mutation check of $(git -C "$src" log -1 --format='%h %s' | cut -c1-100)"
[ -z "$(git -C "$here" status --porcelain --untracked-files=no)" ] ||
	echo "note: the work tree has uncommitted changes; they are not part of this check"

echo "building in $bld ..."
if ! meson setup "$bld" "$src" -Dtest_hooks=true >"$work/setup.log" 2>&1 ||
   ! ninja -C "$bld" >"$work/build.log" 2>&1; then
	tail -n 20 "$work/setup.log" "$work/build.log"
	echo "the unmutated source does not build" >&2
	exit 2
fi

# run_tests TESTS...: meson test; prints "FAILED_NAMES|SKIPPED_NAMES"; status of meson test.
run_tests() {
	local rc
	meson test -C "$bld" --no-rebuild "$@" >"$work/test.log" 2>&1
	rc=$?
	python3 - "$bld/meson-logs/testlog.json" <<'PY'
import json, sys
failed, skipped = [], []
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get('result') == 'SKIP':
        skipped.append(t['name'])
    elif t.get('result') not in ('OK', 'EXPECTEDFAIL'):
        failed.append(t['name'])
print(','.join(failed) + '|' + ','.join(skipped))
PY
	return $rc
}

# Baseline: every selected test passes before any mutant.
all_tests=$(for n in "${selected[@]}"; do echo ${m_tests[$n]}; done | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "baseline: $all_tests"
# shellcheck disable=SC2086
if ! out=$(run_tests $all_tests); then
	cat "$work/test.log"
	echo "the tests fail without any mutant (${out%%|*}): fix that first" >&2
	exit 2
fi
[ -z "${out#*|}" ] || echo "baseline skipped: ${out#*|}"

apply() {	# apply NAME: replace each OLD with NEW in the scratch copy
	local n=$1 i args=()
	for ((i = 0; i < ${m_nrep[$n]}; i++)); do
		args+=("${m_old[$n.$i]}" "${m_new[$n.$i]}")
	done
	python3 - "$src/${m_file[$n]}" "${args[@]}" <<'PY'
import sys
path, pairs = sys.argv[1], sys.argv[2:]
text = open(path).read()
for old, new in zip(pairs[::2], pairs[1::2]):
    if text.count(old) != 1:
        print('%s: %d matches of %r' % (path, text.count(old), old))
        sys.exit(1)
    text = text.replace(old, new)
open(path, 'w').write(text)
PY
}

survived=0 errors=0
table=$(printf '%-26s %-28s %-9s %s' mutant file result detail)
for n in "${selected[@]}"; do
	f=${m_file[$n]}
	if ! msg=$(apply "$n"); then
		res=ERROR detail="does not apply: $msg"
		errors=$((errors + 1))
	elif ! ninja -C "$bld" >"$work/build.log" 2>&1; then
		res=ERROR detail="does not build (see the mutant's text)"
		errors=$((errors + 1))
	else
		# shellcheck disable=SC2086
		if out=$(run_tests ${m_tests[$n]}); then
			res=SURVIVED detail="${m_tests[$n]} passed"
			survived=$((survived + 1))
		else
			res=caught detail="failed: ${out%%|*}"
		fi
		[ -z "${out#*|}" ] || detail="$detail; skipped: ${out#*|}"
	fi
	git -C "$src" checkout -q -- "$f"
	printf '%-26s %-9s %s\n' "$n" "$res" "$detail"
	table+=$'\n'$(printf '%-26s %-28s %-9s %s' "$n" "$f" "$res" "$detail")
done

echo
echo "$table"
echo
echo "${#selected[@]} mutants: $((${#selected[@]} - survived - errors)) caught, $survived survived, $errors errors"
[ $errors -eq 0 ] || exit 2
[ $survived -eq 0 ] || exit 1
exit 0
