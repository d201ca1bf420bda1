// SPDX-License-Identifier: MIT
/* Description: libFuzzer harness for the stamp classifier: any unit read back gets one class, and
 * its fields stay in range. */
#include <errno.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct awr_unit_state st;
	uint32_t unit_size;
	uint64_t unit = 0;
	uint8_t *copy;

	if (size < 8 + AWR_STAMP_SECTOR || size > 8 + 64 * 1024)
		return 0;
	memcpy(&unit, data, sizeof(unit));
	unit %= 64;		/* the index expected: mostly the one the seeds carry */
	data += 8;
	size -= 8;
	unit_size = (uint32_t)(size - size % AWR_STAMP_SECTOR);
	copy = fuzz_copy(data, unit_size);
	if (awr_stamp_classify(copy, unit_size, unit, &st))
		abort();	/* a valid size must classify */
	if ((unsigned int)st.cls >= AWR_UNIT__COUNT ||
	    !strcmp(awr_unit_class_name(st.cls), "unknown"))
		abort();
	if (st.cls != AWR_UNIT_INTACT && st.cls != AWR_UNIT_NEVER_WRITTEN &&
	    st.bad_sector >= unit_size / AWR_STAMP_SECTOR)
		abort();	/* the sector named is inside the unit */
	if (st.cls == AWR_UNIT_INTACT && st.newest_generation != st.generation)
		abort();	/* an intact unit holds one generation */
	/* a size that is not a multiple of a sector is refused, never read */
	if (awr_stamp_classify(copy, unit_size - 1, unit, &st) != -EINVAL)
		abort();
	free(copy);
	return 0;
}
