/* SPDX-License-Identifier: MIT */
/* Loading the identify/VPD fixtures of tests/fixtures/ (hex text) for unit tests. */
#ifndef AWR_TEST_DEVICE_FIXTURES_H
#define AWR_TEST_DEVICE_FIXTURES_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "helpers.h"
#include "libatomicwr.h"

/* Derived limits in bytes, as sysfs shows them. */
#define EXPECT_LIMITS(l, umin, umax, maxb, bnd, what) do {			\
	T_EXPECT_EQ((l)->unit_min, umin, what " unit_min");			\
	T_EXPECT_EQ((l)->unit_max, umax, what " unit_max");			\
	T_EXPECT_EQ((l)->max_bytes, maxb, what " max_bytes");			\
	T_EXPECT_EQ((l)->boundary, bnd, what " boundary");			\
} while (0)

/* What kernel @k derives from a view's data, into @l (awr_device_derive_at()). */
static inline const struct awr_device_limits *derive_at(const struct awr_device *d, uint32_t k,
							struct awr_device_limits *l)
{
	awr_device_derive_at(d, k, l);
	return l;
}

/* What 6.18 derives: for NVMe the answer of kernels that use the controller's AWUPF. */
static inline const struct awr_device_limits *derived_618(const struct awr_device *d)
{
	static struct awr_device_limits l;

	return derive_at(d, AWR_KERNEL(6, 18, 0), &l);
}
#define with_awupf(d)	derived_618(d)

/* What kernels that ignore AWUPF (7.0) derive, or NULL when it is what 6.18 derives. */
static inline const struct awr_device_limits *without_awupf(const struct awr_device *d)
{
	static struct awr_device_limits l;
	const struct awr_device_limits *w = with_awupf(d);

	derive_at(d, AWR_KERNEL(7, 0, 0), &l);
	return l.unit_min == w->unit_min && l.unit_max == w->unit_max &&
	       l.max_bytes == w->max_bytes && l.boundary == w->boundary ? NULL : &l;
}

static const char *fixture_dir = "tests/fixtures";

/* Raw file content (up to @cap bytes) of a fixture; exits on I/O errors. */
static size_t fixture_raw(const char *name, void *buf, size_t cap)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		printf("cannot open fixture %s: %s\n", path, strerror(errno));
		exit(T_EXIT_FAIL);
	}
	n = read(fd, buf, cap);
	close(fd);
	if (n < 0) {
		printf("cannot read fixture %s\n", path);
		exit(T_EXIT_FAIL);
	}
	return (size_t)n;
}

/* The bytes a fixture's hex text stands for; exits when it does not parse. */
static size_t fixture_bytes(const char *name, uint8_t *out, size_t cap)
{
	static char text[65536];
	size_t len = fixture_raw(name, text, sizeof(text));
	ssize_t n = awr_dump_parse(text, len, out, cap);

	if (n < 0) {
		printf("fixture %s does not parse: %s\n", name, strerror((int)-n));
		exit(T_EXIT_FAIL);
	}
	return (size_t)n;
}

static void fixture_dir_from_args(int argc, char **argv)
{
	if (argc > 1)
		fixture_dir = argv[1];
}

static inline bool has_finding(const struct awr_device *d, const char *id)
{
	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		if (!strcmp(awr_device_finding(d, i)->id, id))
			return true;
	return false;
}

/* The message of finding @id, "" when there is none. */
static inline const char *finding_message(const struct awr_device *d, const char *id)
{
	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		if (!strcmp(awr_device_finding(d, i)->id, id))
			return awr_device_finding(d, i)->message;
	return "";
}

static inline void print_findings(const struct awr_device *d)
{
	for (unsigned int i = 0; i < awr_device_nr_findings(d); i++)
		printf("  finding %s: %s\n", awr_device_finding(d, i)->id,
		       awr_device_finding(d, i)->message);
}

#endif /* AWR_TEST_DEVICE_FIXTURES_H */
