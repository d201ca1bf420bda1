/* SPDX-License-Identifier: MIT */
/* Private helpers of the input readers (text_nvme.c, text_scsi.c, input.c). */
#ifndef AWR_INPUT_H
#define AWR_INPUT_H

#include "device.h"

/* One line of text: [p, end), trailing '\r' dropped. */
struct awr__line {
	const char *p, *end;
};

/* The next line of [*pos, end); false at the end. */
bool awr__text_line(const char **pos, const char *end, struct awr__line *l);
/* Skip blanks in [*p, end). */
void awr__text_blank(const char **p, const char *end);
/* A number (decimal, or hex with 0x) at *p; moves *p past it. */
bool awr__text_number(const char **p, const char *end, uint64_t *v);
/* The line is an elision: "[...]", "...", "…". */
bool awr__text_elided(const struct awr__line *l);

/* Set a field, refusing a second, different value (-EINVAL). */
int awr__input_set(struct awr_input *in, enum awr_input_field f, uint64_t v);
/* The controller's serial number (nvme-cli "sn"), kept as a hash; the first one stays. */
void awr__input_sn(struct awr_input *in, const char *sn, size_t n);
void awr__input_ident(struct awr_input *in, char key, const char *s, size_t n);
/* Record LBA format @i's data size; @in_use marks it in use. */
int awr__input_lbaf(struct awr_input *in, uint64_t i, uint64_t size, bool in_use);

/* Readers: the number of fields read (0: not this format) or -errno. */
int awr__nvme_text(const char *s, size_t len, struct awr_input *in);
int awr__nvme_json(const char *s, size_t len, struct awr_input *in);
int awr__scsi_text(const char *s, size_t len, struct awr_input *in);

/* A file of tool output added to @r as awr_readings_add() adds it; "-" is standard input. */
int awr__readings_add_file(struct awr_readings *r, const char *path);
/* The value of field @f in @in as a number (0 for one that has none). */
uint64_t awr__input_value(const struct awr_input *in, enum awr_input_field f);

/* dump.c: which page a binary dump holds */
enum awr__dump_kind { AWR_DUMP_UNKNOWN, AWR_DUMP_NVME_CTRL, AWR_DUMP_NVME_NS, AWR_DUMP_SCSI_BL };
enum awr__dump_kind awr__dump_kind(const uint8_t *b, size_t len);

#endif /* AWR_INPUT_H */
