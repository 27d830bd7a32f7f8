/*
 * Writing a perf.data file, as perf record does.
 *
 * File mode: a placeholder header, the ids and attributes, the records,
 * then the feature sections (a table of {offset, size}, then their bytes)
 * and the real header over the placeholder. Pipe mode: a 16-byte header,
 * then HEADER_ATTR, HEADER_FEATURE and HEADER_BUILD_ID records before the
 * first record, no seeks.
 *
 * With HWT_PERF_WRITE_COMPRESS, records other than AUXTRACE (whose data
 * perf never compresses either) are gathered and written as COMPRESSED
 * records: one zstd stream, flushed at each batch, cut into records of at
 * most 64 KiB, which perf decompresses with one streaming context.
 */
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#define OUT_BUFFER (1u << 20)
/* Records gathered before a compressed batch is written. */
#define COMPRESS_BATCH (32u << 10)
/* The most compressed bytes in one COMPRESSED record (its size is 16 bits). */
#define COMPRESSED_MAX (65528u - 8u)

struct hwt_perf_writer {
	int fd, own_fd, opened, closed;
	unsigned flags;
	int status;
	uint64_t offset;          /* bytes written to the file so far */
	struct hwt_perf_buf out;  /* not yet written */

	struct hwt_perf_attr *attrs;
	size_t nattrs, cap_attrs;
	struct hwt_perf_layout layout;
	int started;              /* the first record was written */
	uint64_t data_off, attrs_off, attrs_size;

	struct hwt_perf_buf features[HWT_PERF_FEAT_BITS];
	uint8_t have_feature[HWT_PERF_FEAT_BITS];
	struct hwt_perf_buf build_ids; /* entries of the BUILD_ID feature */
	struct hwt_perf_buf index;     /* AUXTRACE index entries */
	uint64_t nindex;

	ZSTD_CStream *zstd;
	struct hwt_perf_buf batch;     /* records to compress */
	struct hwt_perf_buf scratch;   /* an encoded record */
};

struct hwt_perf_writer *hwt_perf_writer_alloc(void)
{
	struct hwt_perf_writer *w = calloc(1, sizeof(*w));

	if (w)
		w->fd = -1;
	return w;
}

void hwt_perf_writer_free(struct hwt_perf_writer *w)
{
	if (!w)
		return;
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nattrs; i++)
		free((void *)w->attrs[i].ids);
	free(w->attrs);
	for (size_t i = 0; i < HWT_PERF_FEAT_BITS; i++)
		hwt_perf_buf_free(&w->features[i]);
	hwt_perf_buf_free(&w->build_ids);
	hwt_perf_buf_free(&w->index);
	hwt_perf_buf_free(&w->out);
	hwt_perf_buf_free(&w->batch);
	hwt_perf_buf_free(&w->scratch);
	if (w->zstd)
		ZSTD_freeCStream(w->zstd);
	free(w);
}

/* ----- Output ----------------------------------------------------------- */

static int compression_feature(struct hwt_perf_writer *w);

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -hpf_io;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int flush_out(struct hwt_perf_writer *w)
{
	int err = write_all(w->fd, w->out.data, w->out.len);

	w->out.len = 0;
	if (err)
		w->status = err;
	return err;
}

static int emit(struct hwt_perf_writer *w, const void *p, size_t n)
{
	if (w->status)
		return w->status;
	if (n >= OUT_BUFFER) {
		if (flush_out(w))
			return w->status;
		if (write_all(w->fd, p, n))
			return w->status = -hpf_io;
	} else {
		if (w->out.len + n > OUT_BUFFER && flush_out(w))
			return w->status;
		if (hwt_perf_buf_add(&w->out, p, n))
			return w->status = -hpf_nomem;
	}
	w->offset += n;
	return 0;
}

/* hwt_perf_writer_open on an open descriptor (closed by hwt_perf_writer_close). */
static int hwt_perf_writer_open_fd(struct hwt_perf_writer *w, int fd, unsigned flags)
{
	uint8_t header[HWT_PERF_FILE_HEADER_SIZE] = { 0 };
	uint64_t magic = HWT_PERF_MAGIC, size;

	if (!w || fd < 0 || w->opened)
		return -hpf_invalid;
	w->opened = 1;
	w->fd = fd;
	w->flags = flags;
	/* Pipe mode for what cannot seek. */
	if (lseek(fd, 0, SEEK_CUR) < 0)
		w->flags |= HWT_PERF_WRITE_PIPE;
	size = w->flags & HWT_PERF_WRITE_PIPE ? HWT_PERF_PIPE_HEADER_SIZE
					      : HWT_PERF_FILE_HEADER_SIZE;
	memcpy(header, &magic, 8);
	memcpy(header + 8, &size, 8);
	/* perf decompresses only files that say how they were compressed. */
	if ((w->flags & HWT_PERF_WRITE_COMPRESS) && compression_feature(w))
		return -hpf_nomem;
	return emit(w, header, (size_t)size);
}

int hwt_perf_writer_open(struct hwt_perf_writer *w, const char *path, unsigned flags)
{
	int fd, err;

	if (!w || !path)
		return -hpf_invalid;
	if (!strcmp(path, "-"))
		return hwt_perf_writer_open_fd(w, 1, flags | HWT_PERF_WRITE_PIPE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -hpf_io;
	err = hwt_perf_writer_open_fd(w, fd, flags);
	w->own_fd = 1;
	return err;
}

/* HEADER_COMPRESSED as perf record -z writes it: version 0, zstd, level 1. */
static int compression_feature(struct hwt_perf_writer *w)
{
	uint32_t info[5] = { 0, HWT_PERF_COMP_ZSTD, 1, 1, COMPRESSED_MAX };

	return hwt_perf_writer_feature(w, HWT_PERF_FEAT_COMPRESSED, info, sizeof(info));
}

/* ----- Header parts ----------------------------------------------------- */

int hwt_perf_writer_add_attr(struct hwt_perf_writer *w, const struct perf_event_attr *attr,
			     const uint64_t *ids, size_t nids)
{
	struct hwt_perf_attr *a;
	uint64_t *copy = NULL;
	char why[256];

	if (!w || !attr || (nids && !ids) || !w->opened || w->started)
		return -hpf_invalid;
	if (w->nattrs == w->cap_attrs) {
		size_t cap = w->cap_attrs ? w->cap_attrs * 2 : 4;
		void *p = realloc(w->attrs, cap * sizeof(*w->attrs));

		if (!p)
			return -hpf_nomem;
		w->attrs = p;
		w->cap_attrs = cap;
	}
	if (nids) {
		copy = malloc(nids * sizeof(*copy));
		if (!copy)
			return -hpf_nomem;
		memcpy(copy, ids, nids * sizeof(*copy));
	}
	a = &w->attrs[w->nattrs++];
	a->attr = *attr;
	a->attr.size = sizeof(a->attr);
	a->ids = copy;
	a->nids = nids;
	hwt_perf_layout_of(&w->layout, w->attrs, w->nattrs, why, sizeof(why));
	if (why[0]) {
		/* Trailers would not say which layout they follow. */
		w->nattrs--;
		free(copy);
		hwt_perf_layout_of(&w->layout, w->attrs, w->nattrs, why, sizeof(why));
		return -hpf_invalid;
	}
	return 0;
}

static int pipe_feature_record(struct hwt_perf_writer *w, unsigned feature)
{
	const struct hwt_perf_buf *f = &w->features[feature];
	uint32_t type = HWT_PERF_RECORD_HEADER_FEATURE;
	uint64_t feat = feature;
	uint16_t misc = 0, size;

	if (16 + f->len > UINT16_MAX)
		return -hpf_invalid;
	size = (uint16_t)(16 + ((f->len + 7) & ~(size_t)7));
	if (emit(w, &type, 4) || emit(w, &misc, 2) || emit(w, &size, 2) || emit(w, &feat, 8) ||
	    emit(w, f->data, f->len))
		return w->status;
	{
		static const uint8_t zero[8];

		return emit(w, zero, size - 16u - f->len);
	}
}

int hwt_perf_writer_feature(struct hwt_perf_writer *w, unsigned feature, const void *data,
			    size_t size)
{
	struct hwt_perf_buf *f;

	if (!w || feature >= HWT_PERF_FEAT_BITS || !feature || (size && !data) ||
	    feature == HWT_PERF_FEAT_AUXTRACE || feature == HWT_PERF_FEAT_BUILD_ID)
		return -hpf_invalid;
	f = &w->features[feature];
	f->len = 0;
	if (hwt_perf_buf_add(f, data, size))
		return -hpf_nomem;
	w->have_feature[feature] = 1;
	if (w->started && (w->flags & HWT_PERF_WRITE_PIPE))
		return pipe_feature_record(w, feature);
	return 0;
}

int hwt_perf_writer_feature_string(struct hwt_perf_writer *w, unsigned feature,
				   const char *value)
{
	struct hwt_perf_buf b = { 0 };
	int err;

	if (!value)
		return -hpf_invalid;
	err = hwt_perf_buf_string(&b, value);
	if (!err)
		err = hwt_perf_writer_feature(w, feature, b.data, b.len);
	hwt_perf_buf_free(&b);
	return err;
}

int hwt_perf_writer_feature_nrcpus(struct hwt_perf_writer *w, uint32_t online,
				   uint32_t available)
{
	uint32_t v[2] = { available, online };

	return hwt_perf_writer_feature(w, HWT_PERF_FEAT_NRCPUS, v, sizeof(v));
}

int hwt_perf_writer_feature_cmdline(struct hwt_perf_writer *w, size_t argc,
				    const char *const *argv)
{
	struct hwt_perf_buf b = { 0 };
	int err;

	if (argc > UINT32_MAX || (argc && !argv))
		return -hpf_invalid;
	err = hwt_perf_buf_u32(&b, (uint32_t)argc);
	for (size_t i = 0; !err && i < argc; i++)
		err = hwt_perf_buf_string(&b, argv[i]);
	if (!err)
		err = hwt_perf_writer_feature(w, HWT_PERF_FEAT_CMDLINE, b.data, b.len);
	hwt_perf_buf_free(&b);
	return err;
}

int hwt_perf_writer_feature_event_desc(struct hwt_perf_writer *w, const char *const *names)
{
	struct hwt_perf_buf b = { 0 };
	int err;

	if (!w || !names)
		return -hpf_invalid;
	err = hwt_perf_buf_u32(&b, (uint32_t)w->nattrs) |
	      hwt_perf_buf_u32(&b, (uint32_t)sizeof(struct perf_event_attr));
	for (size_t i = 0; !err && i < w->nattrs; i++) {
		err = hwt_perf_buf_add(&b, &w->attrs[i].attr, sizeof(w->attrs[i].attr)) |
		      hwt_perf_buf_u32(&b, (uint32_t)w->attrs[i].nids);
		if (!err)
			err = hwt_perf_buf_string(&b, names[i] ? names[i] : "");
		for (size_t k = 0; !err && k < w->attrs[i].nids; k++)
			err = hwt_perf_buf_u64(&b, w->attrs[i].ids[k]);
	}
	if (!err)
		err = hwt_perf_writer_feature(w, HWT_PERF_FEAT_EVENT_DESC, b.data, b.len);
	hwt_perf_buf_free(&b);
	return err ? (err == -hpf_invalid ? err : -hpf_nomem) : 0;
}

/* A build_id_event: header (type given), pid, build_id[24], padded name. */
static int build_id_event(struct hwt_perf_buf *b, uint32_t type, int32_t pid, uint16_t misc,
			  const uint8_t *id, uint8_t size, const char *filename)
{
	size_t n = strlen(filename) + 1;
	size_t padded = (n + HWT_PERF_NAME_ALIGN - 1) / HWT_PERF_NAME_ALIGN * HWT_PERF_NAME_ALIGN;
	uint8_t bid[24] = { 0 };
	uint16_t total;

	if (size > 20 || 36 + padded > UINT16_MAX)
		return -hpf_invalid;
	total = (uint16_t)(36 + padded);
	/* Byte 32 holds the size when misc bit 15 says so (perf 5.13 and later). */
	misc |= (uint16_t)(1u << 15);
	memcpy(bid, id, size);
	bid[20] = size;
	if (hwt_perf_buf_u32(b, type) || hwt_perf_buf_add(b, &misc, 2) ||
	    hwt_perf_buf_add(b, &total, 2) || hwt_perf_buf_add(b, &pid, 4) ||
	    hwt_perf_buf_add(b, bid, sizeof(bid)) || hwt_perf_buf_add(b, filename, n) ||
	    hwt_perf_buf_zero(b, padded - n))
		return -hpf_nomem;
	return 0;
}

int hwt_perf_writer_build_id(struct hwt_perf_writer *w, int32_t pid, uint16_t misc,
			     const uint8_t *build_id, uint8_t size, const char *filename)
{
	if (!w || !build_id || !filename || !w->opened)
		return -hpf_invalid;
	if ((w->flags & HWT_PERF_WRITE_PIPE) && w->started) {
		struct hwt_perf_buf b = { 0 };
		int err = build_id_event(&b, HWT_PERF_RECORD_HEADER_BUILD_ID, pid, misc, build_id,
					 size, filename);

		if (!err)
			err = emit(w, b.data, b.len);
		hwt_perf_buf_free(&b);
		return err;
	}
	return build_id_event(&w->build_ids, HWT_PERF_RECORD_HEADER_BUILD_ID, pid, misc,
			      build_id, size, filename);
}

/* Before the first record: the attributes (and pipe mode's header records). */
static int start(struct hwt_perf_writer *w)
{
	if (w->started)
		return 0;
	w->started = 1;
	if (w->flags & HWT_PERF_WRITE_PIPE) {
		for (size_t i = 0; i < w->nattrs; i++) {
			const struct hwt_perf_attr *a = &w->attrs[i];
			uint32_t type = HWT_PERF_RECORD_HEADER_ATTR;
			uint16_t misc = 0;
			size_t size = 8 + sizeof(a->attr) + a->nids * 8;
			uint16_t size16;

			if (size > UINT16_MAX)
				return w->status = -hpf_invalid;
			size16 = (uint16_t)size;
			if (emit(w, &type, 4) || emit(w, &misc, 2) || emit(w, &size16, 2) ||
			    emit(w, &a->attr, sizeof(a->attr)) ||
			    (a->nids && emit(w, a->ids, a->nids * 8)))
				return w->status;
		}
		for (unsigned f = 1; f < HWT_PERF_FEAT_BITS; f++)
			if (w->have_feature[f] && pipe_feature_record(w, f))
				return w->status ? w->status : -hpf_invalid;
		if (w->build_ids.len && emit(w, w->build_ids.data, w->build_ids.len))
			return w->status;
		return 0;
	}
	/* File mode: ids, then attributes (each followed by its ids section). */
	{
		uint64_t ids_at = w->offset;

		for (size_t i = 0; i < w->nattrs; i++)
			if (w->attrs[i].nids && emit(w, w->attrs[i].ids, w->attrs[i].nids * 8))
				return w->status;
		w->attrs_off = w->offset;
		for (size_t i = 0; i < w->nattrs; i++) {
			uint64_t sec[2] = { ids_at, w->attrs[i].nids * 8 };

			if (emit(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr)) ||
			    emit(w, sec, sizeof(sec)))
				return w->status;
			ids_at += sec[1];
		}
		w->attrs_size = w->offset - w->attrs_off;
		w->data_off = w->offset;
	}
	return 0;
}

/* ----- Records ---------------------------------------------------------- */

/* Compresses the gathered records into COMPRESSED records. */
static int flush_batch(struct hwt_perf_writer *w)
{
	ZSTD_inBuffer in;
	uint8_t *chunk;
	size_t cap = COMPRESSED_MAX;
	int done = 0;

	if (!w->batch.len)
		return 0;
	if (!w->zstd) {
		w->zstd = ZSTD_createCStream();
		if (!w->zstd || ZSTD_isError(ZSTD_initCStream(w->zstd, 1)))
			return w->status = -hpf_nomem;
	}
	chunk = malloc(8 + cap);
	if (!chunk)
		return w->status = -hpf_nomem;
	in.src = w->batch.data;
	in.size = w->batch.len;
	in.pos = 0;
	while (!done) {
		ZSTD_outBuffer out = { chunk + 8, cap, 0 };
		size_t left = ZSTD_compressStream2(w->zstd, &out, &in, ZSTD_e_flush);
		uint32_t type = HWT_PERF_RECORD_COMPRESSED;
		uint16_t misc = 0, size;

		if (ZSTD_isError(left)) {
			free(chunk);
			return w->status = -hpf_compressed;
		}
		done = !left && in.pos == in.size;
		if (!out.pos)
			continue;
		/* Not padded (as perf): the decompressor reads every byte of it. */
		size = (uint16_t)(8 + out.pos);
		memcpy(chunk, &type, 4);
		memcpy(chunk + 4, &misc, 2);
		memcpy(chunk + 6, &size, 2);
		if (emit(w, chunk, size)) {
			free(chunk);
			return w->status;
		}
	}
	free(chunk);
	w->batch.len = 0;
	return 0;
}

static int put(struct hwt_perf_writer *w, const void *p, size_t n)
{
	if (!(w->flags & HWT_PERF_WRITE_COMPRESS))
		return emit(w, p, n);
	if (hwt_perf_buf_add(&w->batch, p, n))
		return w->status = -hpf_nomem;
	return w->batch.len >= COMPRESS_BATCH ? flush_batch(w) : 0;
}

int hwt_perf_writer_write_raw(struct hwt_perf_writer *w, const void *bytes, size_t size)
{
	if (!w || !w->opened || w->closed || (size && !bytes))
		return -hpf_invalid;
	if (w->status)
		return w->status;
	if (start(w))
		return w->status;
	return emit(w, bytes, size);
}

int hwt_perf_writer_write(struct hwt_perf_writer *w, const struct hwt_perf_record *rec)
{
	int err;

	if (!w || !rec || !w->opened || w->closed)
		return -hpf_invalid;
	if (w->status)
		return w->status;
	if (start(w))
		return w->status;
	w->scratch.len = 0;
	if (rec->type == HWT_PERF_RECORD_AUXTRACE) {
		uint64_t entry[2];

		if (rec->u.auxtrace.size != rec->u.auxtrace.data_size ||
		    (rec->u.auxtrace.data_size && !rec->u.auxtrace.data))
			return -hpf_invalid;
		err = hwt_perf_record_encode(&w->layout, rec, &w->scratch);
		if (err)
			return err;
		/* Records before it stay before it. */
		if (flush_batch(w))
			return w->status;
		entry[0] = w->offset;
		entry[1] = w->scratch.len;
		if (hwt_perf_buf_add(&w->index, entry, sizeof(entry)))
			return w->status = -hpf_nomem;
		w->nindex++;
		if (emit(w, w->scratch.data, w->scratch.len))
			return w->status;
		return emit(w, rec->u.auxtrace.data, (size_t)rec->u.auxtrace.data_size);
	}
	err = hwt_perf_record_encode(&w->layout, rec, &w->scratch);
	if (err == -hpf_invalid && rec->raw && rec->size >= 8)
		return put(w, rec->raw, rec->size);
	if (err)
		return err;
	return put(w, w->scratch.data, w->scratch.len);
}

/* ----- Closing ---------------------------------------------------------- */

static int feature_bytes(struct hwt_perf_writer *w, unsigned f, const uint8_t **p, size_t *n)
{
	if (f == HWT_PERF_FEAT_BUILD_ID) {
		*p = w->build_ids.data;
		*n = w->build_ids.len;
		return w->build_ids.len > 0;
	}
	if (f == HWT_PERF_FEAT_AUXTRACE) {
		*p = w->index.data;
		*n = w->index.len;
		return w->nindex > 0;
	}
	*p = w->features[f].data;
	*n = w->features[f].len;
	/* hwt's own section is no feature in file mode (the header's event_types). */
	return w->have_feature[f] && f != HWT_PERF_FEAT_HWT;
}

static int finish_file(struct hwt_perf_writer *w)
{
	uint8_t header[HWT_PERF_FILE_HEADER_SIZE] = { 0 };
	uint64_t v, bits[4] = { 0 }, table_at, at, data_size, hwt_types[2] = { 0, 0 };
	unsigned nfeat = 0;
	struct hwt_perf_buf table = { 0 };

	data_size = w->offset - w->data_off;
	for (unsigned f = 1; f < HWT_PERF_FEAT_BITS; f++) {
		const uint8_t *p;
		size_t n;

		if (feature_bytes(w, f, &p, &n)) {
			bits[f / 64] |= 1ull << (f % 64);
			nfeat++;
		}
	}
	/* The AUXTRACE index starts with its count. */
	table_at = w->offset;
	at = table_at + 16ull * nfeat;
	for (unsigned f = 1; f < HWT_PERF_FEAT_BITS; f++) {
		const uint8_t *p;
		size_t n;

		if (!feature_bytes(w, f, &p, &n))
			continue;
		if (f == HWT_PERF_FEAT_AUXTRACE)
			n += 8;
		if (hwt_perf_buf_u64(&table, at) || hwt_perf_buf_u64(&table, n)) {
			hwt_perf_buf_free(&table);
			return w->status = -hpf_nomem;
		}
		at += n;
	}
	if (emit(w, table.data, table.len)) {
		hwt_perf_buf_free(&table);
		return w->status;
	}
	hwt_perf_buf_free(&table);
	for (unsigned f = 1; f < HWT_PERF_FEAT_BITS; f++) {
		const uint8_t *p;
		size_t n;

		if (!feature_bytes(w, f, &p, &n))
			continue;
		if (f == HWT_PERF_FEAT_AUXTRACE && emit(w, &w->nindex, 8))
			return w->status;
		if (emit(w, p, n))
			return w->status;
	}
	/*
	 * hwt's own section after the features, named by the header's
	 * event_types section, which perf ignores: a feature bit perf does not
	 * know makes perf inject (6.1) crash when it writes its output.
	 */
	if (w->have_feature[HWT_PERF_FEAT_HWT]) {
		hwt_types[0] = w->offset;
		hwt_types[1] = w->features[HWT_PERF_FEAT_HWT].len;
		if (emit(w, w->features[HWT_PERF_FEAT_HWT].data, w->features[HWT_PERF_FEAT_HWT].len))
			return w->status;
	}
	if (flush_out(w))
		return w->status;

	v = HWT_PERF_MAGIC;
	memcpy(header, &v, 8);
	v = HWT_PERF_FILE_HEADER_SIZE;
	memcpy(header + 8, &v, 8);
	v = sizeof(struct perf_event_attr) + 16;
	memcpy(header + 16, &v, 8);
	memcpy(header + 24, &w->attrs_off, 8);
	memcpy(header + 32, &w->attrs_size, 8);
	memcpy(header + 40, &w->data_off, 8);
	memcpy(header + 48, &data_size, 8);
	memcpy(header + 56, hwt_types, sizeof(hwt_types));
	memcpy(header + 72, bits, sizeof(bits));
	if (pwrite(w->fd, header, sizeof(header), 0) != (ssize_t)sizeof(header))
		return w->status = -hpf_io;
	return 0;
}

int hwt_perf_writer_close(struct hwt_perf_writer *w)
{
	int err;

	if (!w || !w->opened || w->closed)
		return -hpf_invalid;
	if (!w->status)
		start(w);
	if (!w->status)
		flush_batch(w);
	if (!w->status && !(w->flags & HWT_PERF_WRITE_PIPE))
		finish_file(w);
	if (!w->status)
		flush_out(w);
	err = w->status;
	w->closed = 1;
	if (w->own_fd) {
		if (close(w->fd) < 0 && !err)
			err = -hpf_io;
		w->fd = -1;
	}
	return err;
}
