/*
 * Reading a perf.data file: the header (file mode: attributes, data and
 * feature sections, each bounds-checked against the file; pipe mode: the
 * same information in header records), then the records one at a time,
 * COMPRESSED ones decompressed in place.
 *
 * A regular file is mapped; a pipe is read as it comes (a file-mode
 * file through a pipe is read whole first, as it needs seeks). Every
 * record is copied into an 8-aligned buffer before it is decoded, so that
 * a file whose sizes are not multiples of 8 cannot cause unaligned reads.
 */
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

/* A pipe-mode AUXTRACE record's data is read in pieces of this. */
#define STREAM_CHUNK (1u << 20)

struct feature {
	const uint8_t *data;
	uint64_t size;
	uint8_t *owned;           /* pipe mode: a copy */
};

struct hwt_perf_reader {
	int fd, own_fd, opened;
	char *name;
	int pipe;                 /* pipe-mode file */
	int stream;               /* read from fd as it comes (a pipe) */

	/* A mapped (or slurped) file. */
	const uint8_t *map;
	uint64_t file_size;
	int mapped;               /* map is an mmap (else malloc'd) */
	uint64_t data_off, data_size, data_end;
	int data_whole;           /* the header's data section is all in the file */
	uint64_t pos;             /* file offset of the next record */

	struct hwt_perf_buf rec;  /* the current record, 8-aligned */
	struct hwt_perf_buf aux;  /* stream mode: an AUXTRACE record's data */
	int aux_cut;              /* the last AUXTRACE data was cut: next call fails */
	uint64_t aux_cut_want, aux_cut_have, aux_cut_at;

	struct hwt_perf_attr *attrs;
	size_t nattrs, cap_attrs;
	struct hwt_perf_layout layout;
	int layout_warned;

	struct feature features[HWT_PERF_FEAT_BITS];
	struct hwt_perf_build_id *build_ids; /* filenames malloc'd */
	size_t nbuild_ids, cap_build_ids;
	const char **cmdline;
	size_t cmdline_argc;

	struct hwt_warn_sink warn;

	/* Decompression of COMPRESSED records. */
	ZSTD_DStream *zstd;
	struct hwt_perf_buf decomp;
	size_t decomp_pos;
	uint64_t decomp_offset;   /* of the COMPRESSED record it came from */

	int status;
	uint64_t count;
	char error[320];
};

/* ----- Warnings and errors ---------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void warn(struct hwt_perf_reader *r, const char *fmt, ...)
{
	va_list ap;
	char text[512];

	if (!r->warn.fn)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	hwt_warn_say(&r->warn, text);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct hwt_perf_reader *r, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	r->status = status;
	return status;
}

void hwt_perf_reader_set_warn(struct hwt_perf_reader *r, const struct hwt_warn_sink *sink)
{
	if (r)
		r->warn = sink ? *sink : (struct hwt_warn_sink){ 0 };
}

const char *hwt_perf_reader_error(const struct hwt_perf_reader *r)
{
	return r ? r->error : "";
}

uint64_t hwt_perf_reader_count(const struct hwt_perf_reader *r)
{
	return r ? r->count : 0;
}

int hwt_perf_reader_pipe_mode(const struct hwt_perf_reader *r)
{
	return r ? r->pipe : 0;
}

/* ----- Life ------------------------------------------------------------- */

struct hwt_perf_reader *hwt_perf_reader_alloc(void)
{
	struct hwt_perf_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->fd = -1;
	return r;
}

void hwt_perf_reader_free(struct hwt_perf_reader *r)
{
	if (!r)
		return;
	if (r->map) {
		if (r->mapped)
			munmap((void *)r->map, r->file_size);
		else
			free((void *)r->map);
	}
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; i < r->nattrs; i++)
		free((void *)r->attrs[i].ids);
	free(r->attrs);
	for (size_t i = 0; i < HWT_PERF_FEAT_BITS; i++)
		free(r->features[i].owned);
	for (size_t i = 0; i < r->nbuild_ids; i++)
		free((char *)r->build_ids[i].filename);
	free(r->build_ids);
	free(r->cmdline);
	hwt_perf_buf_free(&r->rec);
	hwt_perf_buf_free(&r->aux);
	hwt_perf_buf_free(&r->decomp);
	if (r->zstd)
		ZSTD_freeDStream(r->zstd);
	free(r->name);
	free(r);
}

/* ----- Attributes ------------------------------------------------------- */

static void layout_update(struct hwt_perf_reader *r)
{
	char why[256];

	hwt_perf_layout_of(&r->layout, r->attrs, r->nattrs, why, sizeof(why));
	if (why[0] && !r->layout_warned) {
		r->layout_warned = 1;
		warn(r, "%s: %s", r->name, why);
	}
}

/* Adds an attribute from size bytes at p (its own size field may say less). */
static int attr_add(struct hwt_perf_reader *r, const uint8_t *p, size_t size,
		    const uint8_t *ids, size_t nids)
{
	struct hwt_perf_attr *a;
	uint64_t *copy = NULL;

	if (r->nattrs == r->cap_attrs) {
		size_t cap = r->cap_attrs ? r->cap_attrs * 2 : 4;
		void *q = realloc(r->attrs, cap * sizeof(*r->attrs));

		if (!q)
			return -hpf_nomem;
		r->attrs = q;
		r->cap_attrs = cap;
	}
	if (nids) {
		copy = malloc(nids * sizeof(*copy));
		if (!copy)
			return -hpf_nomem;
		memcpy(copy, ids, nids * sizeof(*copy));
	}
	a = &r->attrs[r->nattrs++];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, p, size < sizeof(a->attr) ? size : sizeof(a->attr));
	a->ids = copy;
	a->nids = nids;
	layout_update(r);
	return 0;
}

size_t hwt_perf_attr_count(const struct hwt_perf_reader *r)
{
	return r ? r->nattrs : 0;
}

const struct hwt_perf_attr *hwt_perf_attr_at(const struct hwt_perf_reader *r, size_t i)
{
	return r && i < r->nattrs ? &r->attrs[i] : NULL;
}

const struct hwt_perf_attr *hwt_perf_attr_find(const struct hwt_perf_reader *r, uint64_t id)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->nattrs; i++)
		for (size_t k = 0; k < r->attrs[i].nids; k++)
			if (r->attrs[i].ids[k] == id)
				return &r->attrs[i];
	return NULL;
}

/* ----- Features --------------------------------------------------------- */

int hwt_perf_read_string(const uint8_t **p, uint64_t *n, const char **s)
{
	uint32_t len;

	if (*n < 4)
		return -1;
	memcpy(&len, *p, 4);
	if (len > *n - 4 || !len || !memchr(*p + 4, '\0', len))
		return -1;
	*s = (const char *)(*p + 4);
	*p += 4 + (uint64_t)len;
	*n -= 4 + (uint64_t)len;
	return 0;
}

int hwt_perf_feature(const struct hwt_perf_reader *r, unsigned feature, const void **data,
		     uint64_t *size)
{
	if (!r || feature >= HWT_PERF_FEAT_BITS || !data || !size)
		return -hpf_invalid;
	if (!r->features[feature].data)
		return -hpf_no_feature;
	*data = r->features[feature].data;
	*size = r->features[feature].size;
	return 0;
}

const char *hwt_perf_feature_string(const struct hwt_perf_reader *r, unsigned feature)
{
	const void *data;
	const uint8_t *p;
	uint64_t n;
	const char *s;

	if (hwt_perf_feature(r, feature, &data, &n))
		return NULL;
	p = data;
	return hwt_perf_read_string(&p, &n, &s) ? NULL : s;
}

int hwt_perf_feature_nrcpus(const struct hwt_perf_reader *r, uint32_t *online,
			    uint32_t *available)
{
	const void *data;
	uint64_t n;

	if (hwt_perf_feature(r, HWT_PERF_FEAT_NRCPUS, &data, &n) || n < 8)
		return -hpf_no_feature;
	/* perf writes the available count first. */
	memcpy(available, data, 4);
	memcpy(online, (const uint8_t *)data + 4, 4);
	return 0;
}

const char *const *hwt_perf_feature_cmdline(const struct hwt_perf_reader *r, size_t *argc)
{
	if (!r || !r->cmdline)
		return NULL;
	if (argc)
		*argc = r->cmdline_argc;
	return r->cmdline;
}

size_t hwt_perf_build_id_count(const struct hwt_perf_reader *r)
{
	return r ? r->nbuild_ids : 0;
}

const struct hwt_perf_build_id *hwt_perf_build_id_at(const struct hwt_perf_reader *r,
						     size_t i)
{
	return r && i < r->nbuild_ids ? &r->build_ids[i] : NULL;
}

/*
 * One build-id entry (perf's build_id_event: header, pid, build_id[24],
 * filename) of n bytes at p. Returns its size, or 0 when it does not parse.
 */
static size_t build_id_add(struct hwt_perf_reader *r, const uint8_t *p, uint64_t n)
{
	struct hwt_perf_build_id *b;
	uint16_t misc, size;
	const char *name;
	char *copy;

	if (n < 8 + 4 + 24)
		return 0;
	memcpy(&misc, p + 4, 2);
	memcpy(&size, p + 6, 2);
	if (size < 8 + 4 + 24 || size > n)
		return 0;
	name = (const char *)p + 36;
	if (!memchr(name, '\0', size - 36u))
		return 0;
	if (r->nbuild_ids == r->cap_build_ids) {
		size_t cap = r->cap_build_ids ? r->cap_build_ids * 2 : 16;
		void *q = realloc(r->build_ids, cap * sizeof(*r->build_ids));

		if (!q)
			return 0;
		r->build_ids = q;
		r->cap_build_ids = cap;
	}
	copy = strdup(name);
	if (!copy)
		return 0;
	b = &r->build_ids[r->nbuild_ids++];
	memset(b, 0, sizeof(*b));
	memcpy(&b->pid, p + 8, 4);
	b->misc = misc;
	memcpy(b->build_id, p + 12, 20);
	/* Since perf 5.13 misc bit 15 says that byte 32 is the size. */
	b->size = misc & (1u << 15) && p[32] <= 20 ? p[32] : 20;
	b->filename = copy;
	return size;
}

static void parse_build_ids(struct hwt_perf_reader *r, const uint8_t *p, uint64_t n)
{
	while (n) {
		size_t used = build_id_add(r, p, n);

		if (!used) {
			warn(r, "%s: the build-id section does not parse after %zu entries",
			     r->name, r->nbuild_ids);
			return;
		}
		p += used;
		n -= used;
	}
}

static void parse_cmdline(struct hwt_perf_reader *r, const uint8_t *p, uint64_t n)
{
	uint32_t nr;
	const char **argv;

	if (n < 4)
		goto bad;
	memcpy(&nr, p, 4);
	p += 4;
	n -= 4;
	if (nr > n / 4)
		goto bad;
	argv = calloc((size_t)nr + 1, sizeof(*argv));
	if (!argv)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		if (hwt_perf_read_string(&p, &n, &argv[i])) {
			free(argv);
			goto bad;
		}
	}
	r->cmdline = argv;
	r->cmdline_argc = nr;
	return;
bad:
	warn(r, "%s: the CMDLINE section does not parse", r->name);
}

/* Takes a feature section in (data valid for the reader's life, or copied). */
static int feature_set(struct hwt_perf_reader *r, unsigned feat, const uint8_t *data,
		       uint64_t size, int copy)
{
	struct feature *f = &r->features[feat];

	free(f->owned);
	f->owned = NULL;
	if (copy) {
		f->owned = malloc(size ? size : 1);
		if (!f->owned)
			return -hpf_nomem;
		memcpy(f->owned, data, size);
		data = f->owned;
	}
	f->data = data;
	f->size = size;
	if (feat == HWT_PERF_FEAT_BUILD_ID)
		parse_build_ids(r, data, size);
	else if (feat == HWT_PERF_FEAT_CMDLINE) {
		free(r->cmdline);
		r->cmdline = NULL;
		parse_cmdline(r, data, size);
	}
	return 0;
}

/* ----- Opening ---------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t n, size_t *got)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = read(fd, (uint8_t *)buf + done, n - done);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			*got = done;
			return -hpf_io;
		}
		if (!k)
			break;
		done += (size_t)k;
	}
	*got = done;
	return 0;
}

/* Reads the rest of a stream into memory after head bytes already read. */
static int slurp(struct hwt_perf_reader *r, const uint8_t *head, size_t head_len)
{
	struct hwt_perf_buf b = { 0 };
	size_t got;

	if (hwt_perf_buf_add(&b, head, head_len))
		return -hpf_nomem;
	for (;;) {
		if (hwt_perf_buf_reserve(&b, STREAM_CHUNK)) {
			hwt_perf_buf_free(&b);
			return -hpf_nomem;
		}
		if (read_full(r->fd, b.data + b.len, STREAM_CHUNK, &got)) {
			hwt_perf_buf_free(&b);
			return -hpf_io;
		}
		b.len += got;
		if (got < STREAM_CHUNK)
			break;
	}
	r->map = b.data;
	r->file_size = b.len;
	r->mapped = 0;
	return 0;
}

static int open_file_mode(struct hwt_perf_reader *r)
{
	const uint8_t *h = r->map;
	uint64_t size, attr_size, attrs_off, attrs_size, feat_bits[4];
	uint64_t nfeat = 0, feat_off, types_off, types_size;

	memcpy(&size, h + 8, 8);
	memcpy(&attr_size, h + 16, 8);
	memcpy(&attrs_off, h + 24, 8);
	memcpy(&attrs_size, h + 32, 8);
	memcpy(&r->data_off, h + 40, 8);
	memcpy(&r->data_size, h + 48, 8);
	memcpy(&types_off, h + 56, 8);
	memcpy(&types_size, h + 64, 8);
	memcpy(feat_bits, h + 72, sizeof(feat_bits));
	if (size != HWT_PERF_FILE_HEADER_SIZE)
		return fail(r, -hpf_bad_header, "%s: header size %" PRIu64 ", expected %u",
			    r->name, size, HWT_PERF_FILE_HEADER_SIZE);
	if (r->data_off < HWT_PERF_FILE_HEADER_SIZE || r->data_off > r->file_size)
		return fail(r, -hpf_bad_header, "%s: the data section starts at byte %" PRIu64
			    ", outside the file (%" PRIu64 " bytes)", r->name, r->data_off,
			    r->file_size);

	/* The data. A killed perf record leaves size 0: read to the end then. */
	if (!r->data_size && r->file_size > r->data_off) {
		warn(r, "%s: the header gives the data no size (perf record did not finish?): "
		     "reading to the end of the file", r->name);
		r->data_end = r->file_size;
		memset(feat_bits, 0, sizeof(feat_bits));
	} else if (r->data_size > r->file_size - r->data_off) {
		warn(r, "%s: the file is %" PRIu64 " bytes shorter than its header says (cut?)",
		     r->name, r->data_size - (r->file_size - r->data_off));
		r->data_end = r->file_size;
	} else {
		r->data_end = r->data_off + r->data_size;
		r->data_whole = 1;
	}
	r->pos = r->data_off;

	/* The attributes: attr_size bytes each, the last 16 an ids section. */
	if (attrs_size) {
		if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096 ||
		    attrs_size % attr_size || attrs_off > r->file_size ||
		    attrs_size > r->file_size - attrs_off)
			return fail(r, -hpf_bad_header, "%s: the attribute section (%" PRIu64
				    " bytes at %" PRIu64 ", entries of %" PRIu64 ") is out of "
				    "range or malformed", r->name, attrs_size, attrs_off,
				    attr_size);
		for (uint64_t at = attrs_off; at < attrs_off + attrs_size; at += attr_size) {
			uint64_t ids_off, ids_size;
			int err;

			memcpy(&ids_off, r->map + at + attr_size - 16, 8);
			memcpy(&ids_size, r->map + at + attr_size - 8, 8);
			if (ids_size % 8 || ids_off > r->file_size ||
			    ids_size > r->file_size - ids_off) {
				warn(r, "%s: the ids of event attribute %zu are out of range",
				     r->name, r->nattrs);
				ids_off = ids_size = 0;
			}
			err = attr_add(r, r->map + at, (size_t)attr_size - 16, r->map + ids_off,
				       (size_t)(ids_size / 8));
			if (err)
				return fail(r, err, "%s: out of memory", r->name);
		}
	}

	/* The feature sections follow the data: a table, then their bytes. */
	for (unsigned i = 0; i < 4; i++)
		nfeat += (uint64_t)__builtin_popcountll(feat_bits[i]);
	feat_off = r->data_off + r->data_size;
	if (nfeat && (feat_off > r->file_size || nfeat * 16 > r->file_size - feat_off)) {
		warn(r, "%s: the feature section table (%" PRIu64 " sections at byte %" PRIu64
		     ") is outside the file: no header features", r->name, nfeat, feat_off);
		nfeat = 0;
	}
	for (unsigned feat = 0, k = 0; nfeat && feat < HWT_PERF_FEAT_BITS; feat++) {
		uint64_t off, len;

		if (!(feat_bits[feat / 64] >> (feat % 64) & 1))
			continue;
		memcpy(&off, r->map + feat_off + 16ull * k, 8);
		memcpy(&len, r->map + feat_off + 16ull * k + 8, 8);
		k++;
		if (off > r->file_size || len > r->file_size - off) {
			warn(r, "%s: feature section %u (%" PRIu64 " bytes at byte %" PRIu64
			     ") is outside the file: ignored", r->name, feat, len, off);
			continue;
		}
		if (feature_set(r, feat, r->map + off, len, 0))
			return fail(r, -hpf_nomem, "%s: out of memory", r->name);
	}

	/*
	 * hwt's own section: the header's event_types section (perf ignores
	 * it; very old perf wrote its event types there) when it starts with
	 * "hwt-perf ".
	 */
	if (types_size >= 9 && types_off <= r->file_size &&
	    types_size <= r->file_size - types_off &&
	    !memcmp(r->map + types_off, "hwt-perf ", 9)) {
		if (feature_set(r, HWT_PERF_FEAT_HWT, r->map + types_off, types_size, 0))
			return fail(r, -hpf_nomem, "%s: out of memory", r->name);
	} else if (types_size && (types_off > r->file_size ||
				  types_size > r->file_size - types_off)) {
		warn(r, "%s: the event_types section (%" PRIu64 " bytes at byte %" PRIu64
		     ", hwt's own section) is outside the file: ignored", r->name, types_size,
		     types_off);
	}
	return 0;
}

int hwt_perf_reader_open_fd(struct hwt_perf_reader *r, int fd, const char *name)
{
	uint8_t head[HWT_PERF_FILE_HEADER_SIZE];
	struct stat st;
	uint64_t magic, size;
	size_t got;

	if (!r || fd < 0 || r->opened)
		return -hpf_invalid;
	r->opened = 1;
	r->fd = fd;
	r->name = strdup(name ? name : "perf.data");
	if (!r->name)
		return -hpf_nomem;
	if (fstat(fd, &st) < 0)
		return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));

	if (S_ISREG(st.st_mode)) {
		r->file_size = (uint64_t)st.st_size;
		if (r->file_size) {
			void *p = mmap(NULL, (size_t)r->file_size, PROT_READ, MAP_PRIVATE, fd, 0);

			if (p == MAP_FAILED)
				return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
			r->map = p;
			r->mapped = 1;
		}
		if (r->file_size < HWT_PERF_PIPE_HEADER_SIZE)
			return fail(r, r->file_size < 8 ? -hpf_magic : -hpf_truncated,
				    "%s: %" PRIu64 " bytes: too short for a perf.data header",
				    r->name, r->file_size);
		memcpy(head, r->map, HWT_PERF_PIPE_HEADER_SIZE);
	} else {
		r->stream = 1;
		if (read_full(fd, head, HWT_PERF_PIPE_HEADER_SIZE, &got))
			return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
		if (got < HWT_PERF_PIPE_HEADER_SIZE)
			return fail(r, got < 8 ? -hpf_magic : -hpf_truncated,
				    "%s: %zu bytes: too short for a perf.data header", r->name, got);
	}
	memcpy(&magic, head, 8);
	memcpy(&size, head + 8, 8);
	if (magic == __builtin_bswap64(HWT_PERF_MAGIC))
		return fail(r, -hpf_endian, "%s: a perf.data file of the other byte order",
			    r->name);
	if (magic != HWT_PERF_MAGIC)
		return fail(r, -hpf_magic, "%s: not a perf.data file (no PERFILE2 magic)",
			    r->name);
	if (size == HWT_PERF_PIPE_HEADER_SIZE) {
		r->pipe = 1;
		r->pos = HWT_PERF_PIPE_HEADER_SIZE;
		r->data_off = r->pos;
		r->data_end = r->file_size;
		r->data_size = r->stream ? 0 : r->file_size - r->pos;
		return 0;
	}
	if (size != HWT_PERF_FILE_HEADER_SIZE)
		return fail(r, -hpf_bad_header, "%s: header size %" PRIu64
			    " is neither a file's (%u) nor a pipe's (%u)", r->name, size,
			    HWT_PERF_FILE_HEADER_SIZE, HWT_PERF_PIPE_HEADER_SIZE);
	if (r->stream) {
		/* File mode needs seeks: read it all. */
		if (read_full(fd, head + HWT_PERF_PIPE_HEADER_SIZE,
			      HWT_PERF_FILE_HEADER_SIZE - HWT_PERF_PIPE_HEADER_SIZE, &got))
			return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
		if (got < HWT_PERF_FILE_HEADER_SIZE - HWT_PERF_PIPE_HEADER_SIZE)
			return fail(r, -hpf_truncated, "%s: the file ends inside its header",
				    r->name);
		if (slurp(r, head, sizeof(head)))
			return fail(r, -hpf_nomem, "%s: cannot read it into memory", r->name);
		r->stream = 0;
	} else if (r->file_size < HWT_PERF_FILE_HEADER_SIZE) {
		return fail(r, -hpf_truncated, "%s: the file ends inside its header", r->name);
	}
	return open_file_mode(r);
}

int hwt_perf_reader_open(struct hwt_perf_reader *r, const char *path)
{
	int fd, err;

	if (!r || !path)
		return -hpf_invalid;
	if (!strcmp(path, "-"))
		return hwt_perf_reader_open_fd(r, 0, "standard input");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r->opened = 1;
		r->name = strdup(path);
		return fail(r, -hpf_io, "%s: %s", path, strerror(errno));
	}
	err = hwt_perf_reader_open_fd(r, fd, path);
	r->own_fd = 1;
	return err;
}

/* ----- Records ---------------------------------------------------------- */

/* Pipe-mode header records: their contents join the header. */
static int take_header_record(struct hwt_perf_reader *r, const struct hwt_perf_record *rec)
{
	const uint8_t *p = rec->raw;
	size_t size = rec->size;

	switch (rec->type) {
	case HWT_PERF_RECORD_HEADER_ATTR: {
		uint32_t asize;

		if (size < 8 + PERF_ATTR_SIZE_VER0)
			goto bad;
		memcpy(&asize, p + 8 + 4, 4);
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		asize = (asize + 7u) & ~7u;
		if (asize > size - 8)
			goto bad;
		return attr_add(r, p + 8, asize, p + 8 + asize, (size - 8 - asize) / 8);
	}
	case HWT_PERF_RECORD_HEADER_FEATURE: {
		uint64_t feat;

		if (size < 16)
			goto bad;
		memcpy(&feat, p + 8, 8);
		if (feat >= HWT_PERF_FEAT_BITS) {
			warn(r, "%s: HEADER_FEATURE record at byte %" PRIu64
			     " for feature %" PRIu64 ", which cannot be: ignored", r->name,
			     rec->offset, feat);
			return 0;
		}
		return feature_set(r, (unsigned)feat, p + 16, size - 16, 1);
	}
	case HWT_PERF_RECORD_HEADER_BUILD_ID:
		if (!build_id_add(r, p, size))
			goto bad;
		return 0;
	default:
		return 0;
	}
bad:
	warn(r, "%s: %s record at byte %" PRIu64 " does not parse: ignored", r->name,
	     hwt_perf_record_name(rec->type), rec->offset);
	return 0;
}

/* Decompresses the payload of a COMPRESSED record onto the decomp buffer. */
static int decompress(struct hwt_perf_reader *r, const uint8_t *p, size_t n)
{
	ZSTD_inBuffer in = { p, n, 0 };

	if (!r->zstd) {
		r->zstd = ZSTD_createDStream();
		if (!r->zstd || ZSTD_isError(ZSTD_initDStream(r->zstd)))
			return fail(r, -hpf_nomem, "%s: cannot start the zstd decompressor",
				    r->name);
	}
	/* Keep what was not taken yet at the front. */
	if (r->decomp_pos) {
		memmove(r->decomp.data, r->decomp.data + r->decomp_pos,
			r->decomp.len - r->decomp_pos);
		r->decomp.len -= r->decomp_pos;
		r->decomp_pos = 0;
	}
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t ret;

		if (hwt_perf_buf_reserve(&r->decomp, 1u << 17))
			return fail(r, -hpf_nomem, "%s: out of memory", r->name);
		out.dst = r->decomp.data + r->decomp.len;
		out.size = r->decomp.cap - r->decomp.len;
		out.pos = 0;
		ret = ZSTD_decompressStream(r->zstd, &out, &in);
		if (ZSTD_isError(ret))
			return fail(r, -hpf_compressed, "%s: the COMPRESSED record at byte %"
				    PRIu64 " does not decompress: %s", r->name, r->pos,
				    ZSTD_getErrorName(ret));
		r->decomp.len += out.pos;
		if (!out.pos && in.pos < in.size && out.size)
			return fail(r, -hpf_compressed, "%s: the COMPRESSED record at byte %"
				    PRIu64 " makes no progress", r->name, r->pos);
	}
	return 0;
}

static const char *record_name_at(const uint8_t *p)
{
	uint32_t type;

	memcpy(&type, p, 4);
	return hwt_perf_record_name(type);
}

/* Copies size bytes into the aligned record buffer. */
static int take_bytes(struct hwt_perf_reader *r, const uint8_t *p, size_t size)
{
	r->rec.len = 0;
	if (hwt_perf_buf_add(&r->rec, p, size) || hwt_perf_buf_zero(&r->rec, 8)) {
		return fail(r, -hpf_nomem, "%s: out of memory", r->name);
	}
	r->rec.len = size;
	return 0;
}

/*
 * The next record's bytes into r->rec, from the decompressed data when it
 * holds a whole one, else from the file. Sets *from_decomp. 0, -hpf_eos or
 * an error.
 */
static int fetch(struct hwt_perf_reader *r, int *from_decomp)
{
	uint8_t hdr[8];
	uint16_t size;

	*from_decomp = 0;
	if (r->decomp.len - r->decomp_pos >= 8) {
		memcpy(&size, r->decomp.data + r->decomp_pos + 6, 2);
		if (size < 8)
			return fail(r, -hpf_bad_record, "%s: a record of %u bytes in the "
				    "COMPRESSED data of byte %" PRIu64, r->name, size,
				    r->decomp_offset);
		if (r->decomp.len - r->decomp_pos >= size) {
			*from_decomp = 1;
			if (take_bytes(r, r->decomp.data + r->decomp_pos, size))
				return r->status;
			r->decomp_pos += size;
			return 0;
		}
	}
	if (!r->stream) {
		if (r->pos >= r->data_end) {
			if (r->decomp.len > r->decomp_pos)
				return fail(r, -hpf_truncated, "%s: the compressed records end "
					    "inside a record (%zu bytes left over)", r->name,
					    r->decomp.len - r->decomp_pos);
			return -hpf_eos;
		}
		if (r->data_end - r->pos < 8)
			return fail(r, -hpf_truncated, "%s: the data ends %" PRIu64
				    " bytes into a record header at byte %" PRIu64, r->name,
				    r->data_end - r->pos, r->pos);
		memcpy(&size, r->map + r->pos + 6, 2);
		if (size < 8)
			return fail(r, -hpf_bad_record, "%s: record of %u bytes at byte %" PRIu64
				    ", less than its header", r->name, size, r->pos);
		if (size > r->data_end - r->pos)
			return fail(r, -hpf_truncated, "%s: the data ends %" PRIu64
				    " bytes into a %u-byte %s record at byte %" PRIu64, r->name,
				    r->data_end - r->pos, size, record_name_at(r->map + r->pos),
				    r->pos);
		return take_bytes(r, r->map + r->pos, size);
	}
	{
		size_t got;

		if (read_full(r->fd, hdr, 8, &got))
			return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
		if (!got) {
			if (r->decomp.len > r->decomp_pos)
				return fail(r, -hpf_truncated, "%s: the compressed records end "
					    "inside a record (%zu bytes left over)", r->name,
					    r->decomp.len - r->decomp_pos);
			return -hpf_eos;
		}
		if (got < 8)
			return fail(r, -hpf_truncated, "%s: the data ends %zu bytes into a "
				    "record header at byte %" PRIu64, r->name, got, r->pos);
		memcpy(&size, hdr + 6, 2);
		if (size < 8)
			return fail(r, -hpf_bad_record, "%s: record of %u bytes at byte %" PRIu64
				    ", less than its header", r->name, size, r->pos);
		r->rec.len = 0;
		if (hwt_perf_buf_reserve(&r->rec, (size_t)size + 8))
			return fail(r, -hpf_nomem, "%s: out of memory", r->name);
		memcpy(r->rec.data, hdr, 8);
		if (read_full(r->fd, r->rec.data + 8, size - 8u, &got))
			return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
		if (got < size - 8u)
			return fail(r, -hpf_truncated, "%s: the data ends %zu bytes into a "
				    "%u-byte record at byte %" PRIu64, r->name, got + 8, size,
				    r->pos);
		memset(r->rec.data + size, 0, 8);
		r->rec.len = size;
		return 0;
	}
}

/* No AUX area perf maps comes near this: a larger AUXTRACE size is corrupt. */
#define AUX_SIZE_MAX (1ull << 36)

/* AUXTRACE: hands out the data that follows the record (all, or what there is). */
static int aux_data(struct hwt_perf_reader *r, struct hwt_perf_record *rec, int from_decomp)
{
	uint64_t want = rec->u.auxtrace.size, have;
	uint64_t at = rec->offset + rec->size;

	/* A size past a data section that is all there is a corrupt size, not a
	   cut file (whose data simply ends inside the AUX data). */
	if (want > AUX_SIZE_MAX ||
	    (!from_decomp && !r->stream && r->data_whole && want > r->data_end - r->pos)) {
		r->pos = rec->offset;
		return fail(r, -hpf_bad_record, "%s: byte %" PRIu64 ": the AUXTRACE record claims %"
			    PRIu64 " bytes of AUX data, more than the data section holds: a corrupt "
			    "size", r->name, rec->offset, want);
	}

	if (from_decomp) {
		have = r->decomp.len - r->decomp_pos;
		if (have > want)
			have = want;
		rec->u.auxtrace.data = r->decomp.data + r->decomp_pos;
		r->decomp_pos += (size_t)have;
	} else if (!r->stream) {
		have = r->data_end - r->pos;
		if (have > want)
			have = want;
		rec->u.auxtrace.data = r->map + r->pos;
		r->pos += have;
	} else {
		r->aux.len = 0;
		have = 0;
		while (have < want) {
			size_t chunk = want - have < STREAM_CHUNK ? (size_t)(want - have) : STREAM_CHUNK;
			size_t got;

			if (hwt_perf_buf_reserve(&r->aux, chunk))
				return fail(r, -hpf_nomem, "%s: out of memory for %" PRIu64
					    " bytes of AUX data", r->name, want);
			if (read_full(r->fd, r->aux.data + r->aux.len, chunk, &got))
				return fail(r, -hpf_io, "%s: %s", r->name, strerror(errno));
			r->aux.len += got;
			have += got;
			r->pos += got;
			if (got < chunk)
				break;
		}
		rec->u.auxtrace.data = r->aux.data;
	}
	rec->u.auxtrace.data_size = have;
	if (have < want) {
		r->aux_cut = 1;
		r->aux_cut_want = want;
		r->aux_cut_have = have;
		r->aux_cut_at = at;
	}
	return 0;
}

int hwt_perf_reader_next(struct hwt_perf_reader *r, struct hwt_perf_record *rec)
{
	char why[256];

	if (!r || !rec || !r->opened)
		return -hpf_invalid;
	if (r->status)
		return r->status;
	if (r->aux_cut)
		return fail(r, -hpf_truncated, "%s: the file ends %" PRIu64 " bytes into the %"
			    PRIu64 " bytes of AUX data at byte %" PRIu64 " (AUX data cut)",
			    r->name, r->aux_cut_have, r->aux_cut_want, r->aux_cut_at);
	for (;;) {
		uint64_t offset = r->pos;
		int from_decomp, err;

		err = fetch(r, &from_decomp);
		if (err)
			return err;
		if (from_decomp)
			offset = r->decomp_offset;
		else
			r->pos += r->rec.len;
		err = hwt_perf_record_decode(&r->layout, r->rec.data, r->rec.len, rec, why,
					     sizeof(why));
		rec->offset = offset;
		rec->compressed = from_decomp;
		if (err) {
			if (!from_decomp)
				r->pos = offset;
			return fail(r, err, "%s: byte %" PRIu64 "%s: %s", r->name, offset,
				    from_decomp ? " (compressed)" : "", why);
		}
		switch (rec->type) {
		case HWT_PERF_RECORD_COMPRESSED:
			if (from_decomp)
				return fail(r, -hpf_bad_record, "%s: a COMPRESSED record inside "
					    "the COMPRESSED data of byte %" PRIu64, r->name, offset);
			r->decomp_offset = offset;
			err = decompress(r, r->rec.data + 8, r->rec.len - 8);
			if (err)
				return err;
			continue;
		case HWT_PERF_RECORD_AUXTRACE:
			err = aux_data(r, rec, from_decomp);
			if (err)
				return err;
			break;
		case HWT_PERF_RECORD_HEADER_TRACING_DATA: {
			uint32_t skip;

			/* Its data (size bytes) follows the record. */
			if (rec->size < 12)
				break;
			memcpy(&skip, r->rec.data + 8, 4);
			if (!r->stream && !from_decomp) {
				if (skip > r->data_end - r->pos)
					return fail(r, -hpf_truncated, "%s: the file ends inside "
						    "the tracing data of byte %" PRIu64, r->name,
						    offset);
				r->pos += skip;
			} else if (r->stream) {
				uint8_t sink[4096];
				size_t got;

				while (skip) {
					size_t n = skip < sizeof(sink) ? skip : sizeof(sink);

					if (read_full(r->fd, sink, n, &got) || got < n)
						return fail(r, -hpf_truncated, "%s: the file ends "
							    "inside the tracing data of byte %"
							    PRIu64, r->name, offset);
					skip -= (uint32_t)n;
					r->pos += n;
				}
			}
			break;
		}
		case HWT_PERF_RECORD_HEADER_ATTR:
		case HWT_PERF_RECORD_HEADER_FEATURE:
		case HWT_PERF_RECORD_HEADER_BUILD_ID:
			err = take_header_record(r, rec);
			if (err)
				return fail(r, err, "%s: out of memory", r->name);
			break;
		default:
			break;
		}
		r->count++;
		return 0;
	}
}
