# SPDX-License-Identifier: MIT
# Description: the mutants of awr qualify's short_pin check and the kernel rows of issue 40 (LIO,
# the short pin) (sourced by scripts/mutants.sh).
# shellcheck shell=bash disable=SC2016

mutant pin-torn-as-refused "short_pin takes a range with new pages after an error for refused whole" \
	"qualify_short_pin" lib/qualify/short_pin.c \
	'	if (r->pages_old != r->pages)' \
	'	if (r->pages_old != r->pages && r->ret >= 0)'

mutant pin-short-not-torn "short_pin judges a short count by the count alone (never torn)" \
	"qualify_short_pin" lib/qualify/short_pin.c \
	'	if (r->pages_old != r->pages)
		return AWR_QUALIFY_PIN_TORN;' \
	'	if (r->pages_old != r->pages && r->ret == (ssize_t)r->unit)
		return AWR_QUALIFY_PIN_TORN;'

mutant pin-error-kept-as-torn "short_pin calls every refusal torn" \
	"qualify_short_pin" lib/qualify/short_pin.c \
	'	return r->ret < 0 ? AWR_QUALIFY_PIN_REFUSED : AWR_QUALIFY_PIN_SHORT_KEPT;' \
	'	return AWR_QUALIFY_PIN_TORN;'

mutant pin-no-protnone "short_pin's buffer has no PROT_NONE page: the XFS file takes the whole write" \
	"qualify_short_pin" lib/qualify/short_pin.c \
	'	if (mprotect(m + unit - PIN_PAGE, PIN_PAGE, PROT_NONE)) {' \
	'	if (mprotect(m + unit - PIN_PAGE, PIN_PAGE, PROT_READ)) {'

mutant krule-lio-6-18 "the LIO rule dated 6.18 instead of 6.19" \
	"kernel_rules" lib/kernel.c \
	'	[AWR_KRULE_LIO_ATOMIC] = { "lio_atomic", AWR_KERNEL(6, 19, 0), { 0 },' \
	'	[AWR_KRULE_LIO_ATOMIC] = { "lio_atomic", AWR_KERNEL(6, 18, 0), { 0 },'

mutant krule-pin-fixed-7-3 "the short-pin fix dated 7.3 (Debian's 7.3.4 tears)" \
	"kernel_rules" lib/kernel.c \
	'	[AWR_KRULE_SHORT_PIN_FIXED] = { "short_pin_fixed", AWR_KERNEL(7, 4, 0), { 0 },' \
	'	[AWR_KRULE_SHORT_PIN_FIXED] = { "short_pin_fixed", AWR_KERNEL(7, 3, 0), { 0 },'

mutant scsi-kernel-vpd-ignored "the derivation for the running kernel ignores that sd holds no Block Limits page" \
	"scsi_kernel_vpd" lib/device/derive_kernel.c \
	'	if (d->scsi_kernel_no_vpd && kernel == awr_kernel_running()) {' \
	'	if (0 && d->scsi_kernel_no_vpd && kernel == awr_kernel_running()) {'

mutant scsi-kernel-vpd-never-missing "a SCSI disk's sysfs is never found without vpd_pgb0" \
	"scsi_kernel_vpd" lib/device/device_io.c \
	'	return stat(f, &st) != 0;' \
	'	return false;'

mutant report-short-pin-dropped "the HTML report leaves out the short_pin section" \
	"qualify_short_pin_report" cli/report_html.c \
	'	{ NULL, NULL, short_pin, "short_pin", FIGURES(' \
	'	{ NULL, NULL, short_pin, "short-pin", FIGURES('
