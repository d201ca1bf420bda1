# SPDX-License-Identifier: MIT
# Mutants of the readings of saved tool output (lib/device/readings.c, input_file.c): sourced by
# scripts/mutants.sh.

mutant readings-no-new-reading "what follows nvme format goes on in the same reading" \
	"readings cli_decode" lib/device/readings.c \
	$'\t\tif (!ret && off < len && in->have && r->nr < MAX_READINGS)' \
	$'\t\tif (0)'

mutant readings-pick-beyond "a reading beyond the last is picked" \
	"readings" lib/device/readings.c \
	$'\tif (n > count)\n' \
	$'\tif (0)\n'

mutant readings-scsi-change-zero "a SCSI field's change between readings given as 0 -> 0" \
	"readings" lib/device/input.c \
	$'\treturn p ? field_get(p, bits) : 0;' \
	$'\treturn p && f < AWR_IF_VPD_BL ? field_get(p, bits) : 0;'

mutant readings-conflict-line "a field given twice named at its line within the part, not the file" \
	"readings" lib/device/readings.c \
	$'\t\tbase += lines(raw + off, chunk);' \
	$'\t\tbase += 0;'

mutant readings-load-name "a page file's refusal names the path, not what the caller called it" \
	"readings" lib/device/input_file.c \
	$'\tn = load_page(path, name ? name : path, buf, sizeof(buf));' \
	$'\tn = load_page(path, path, buf, sizeof(buf));'
