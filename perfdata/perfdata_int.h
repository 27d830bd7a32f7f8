/* Internals of the perf.data library, shared by its files; not installed. */
#ifndef HWT_PERFDATA_INT_H
#define HWT_PERFDATA_INT_H

#include "hwt_perfdata.h"

#include <stdarg.h>

/* The file header of file mode (perf's struct perf_file_header). */
#define HWT_PERF_MAGIC 0x32454c4946524550ull /* "PERFILE2" little-endian */
#define HWT_PERF_FILE_HEADER_SIZE 104u
#define HWT_PERF_PIPE_HEADER_SIZE 16u
/* perf pads strings of the header to this. */
#define HWT_PERF_NAME_ALIGN 64u
/* The fixed part of an AUXTRACE record (header included). */
#define HWT_PERF_AUXTRACE_SIZE 48u

/* Where the sample_id fields are (the sample_type bits that place them). */
struct hwt_perf_layout {
	uint64_t sample_type;    /* of the attributes */
	int sample_id_all;
	int identifier_only;     /* attrs disagree but all have IDENTIFIER: each
	                            record's trailer is its attr's */
	const struct hwt_perf_attr *attrs;
	size_t nattrs;
};

/* A growing byte buffer. */
struct hwt_perf_buf {
	uint8_t *data;
	size_t len, cap;
};

int hwt_perf_buf_reserve(struct hwt_perf_buf *b, size_t more);
int hwt_perf_buf_add(struct hwt_perf_buf *b, const void *data, size_t len);
int hwt_perf_buf_zero(struct hwt_perf_buf *b, size_t len);
int hwt_perf_buf_u32(struct hwt_perf_buf *b, uint32_t v);
int hwt_perf_buf_u64(struct hwt_perf_buf *b, uint64_t v);
/* perf's header string: u32 length (padded to NAME_ALIGN), the NUL-padded string. */
int hwt_perf_buf_string(struct hwt_perf_buf *b, const char *s);
void hwt_perf_buf_free(struct hwt_perf_buf *b);

/* record.c */
/* Layout of the attributes (a warning into why when they disagree). */
void hwt_perf_layout_of(struct hwt_perf_layout *layout, const struct hwt_perf_attr *attrs,
			size_t count, char *why, size_t why_size);
/* 1 for types that carry a sample_id trailer (kernel records but SAMPLE). */
int hwt_perf_type_has_trailer(uint32_t type);
/*
 * Decodes size bytes (a whole record) into *rec. Returns 0, or
 * -hpf_bad_record with the reason in why.
 */
int hwt_perf_record_decode(const struct hwt_perf_layout *layout, const void *bytes, size_t size,
			   struct hwt_perf_record *rec, char *why, size_t why_size);
/* Encodes rec (not AUXTRACE's data) into b. 0, -hpf_invalid, -hpf_nomem. */
int hwt_perf_record_encode(const struct hwt_perf_layout *layout,
			   const struct hwt_perf_record *rec, struct hwt_perf_buf *b);

/* feature.c */
/* A perf header string at *p of the n bytes left: 0 and the string, or -1. */
int hwt_perf_read_string(const uint8_t **p, uint64_t *n, const char **s);

#endif /* HWT_PERFDATA_INT_H */
