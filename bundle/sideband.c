/*
 * Reading one sideband file: records one at a time, each checked with
 * hwt_record_check and its payload decoded within its bounds. Reading stops
 * at the first record that does not check: everything before it is good.
 */
#include "bundle_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct hwt_sideband {
	FILE *file;
	const uint8_t *bytes;  /* read from memory instead (hwt_sideband_open_bytes) */
	char *path;
	uint64_t offset;     /* of the next record, or of the bad one */
	uint64_t pos;        /* of the file's read position */
	uint64_t end;        /* reading stops here (the end of a range) */
	uint64_t checked;    /* records that end by here have had their CRC checked */
	uint64_t count;      /* records returned */
	int status;          /* 0, or the sticky error */
	/*
	 * The current record, allocated at exactly its size (so that a memory
	 * checker sees any read past it); malloc'd, so 8-aligned.
	 */
	void *buf;
	const char **argv;
	size_t argv_cap;
	char error[256];
	/* The file's stdio buffer: given, stdio does not fstat the file to size
	   one. Allocated when a file is first opened: a reader of bytes in
	   memory (a decode's of each process image) needs none. */
	char *io;
};

#define IO_SIZE 8192

struct hwt_sideband *hwt_sideband_alloc(void)
{
	return calloc(1, sizeof(struct hwt_sideband));
}

static void sideband_close(struct hwt_sideband *sb)
{
	if (sb->file)
		fclose(sb->file);
	sb->file = NULL;
	sb->bytes = NULL;
	free(sb->path);
	sb->path = NULL;
	sb->offset = 0;
	sb->pos = 0;
	sb->end = UINT64_MAX;
	sb->checked = 0;
	sb->count = 0;
	sb->status = -hbe_eos;
	sb->error[0] = '\0';
}

void hwt_sideband_free(struct hwt_sideband *sb)
{
	if (!sb)
		return;
	sideband_close(sb);
	free(sb->argv);
	free(sb->buf);
	free(sb->io);
	free(sb);
}

int hwt_sideband_open_range(struct hwt_sideband *sb, const char *path, uint64_t offset,
			    uint64_t length)
{
	if (!sb || !path)
		return -hbe_invalid;
	sideband_close(sb);
	sb->path = strdup(path);
	if (!sb->path)
		return -hbe_nomem;
	if (!sb->io && !(sb->io = malloc(IO_SIZE)))
		return -hbe_nomem;
	sb->file = fopen(path, "rb");
	if (sb->file)
		(void)setvbuf(sb->file, sb->io, _IOFBF, IO_SIZE);
	if (!sb->file || (offset && fseeko(sb->file, (off_t)offset, SEEK_SET) != 0)) {
		snprintf(sb->error, sizeof(sb->error), "%s", strerror(errno));
		sb->status = -hbe_io;
		return -hbe_io;
	}
	sb->offset = sb->pos = offset;
	sb->end = length <= UINT64_MAX - offset ? offset + length : UINT64_MAX;
	sb->status = 0;
	return 0;
}

int hwt_sideband_open(struct hwt_sideband *sb, const char *path)
{
	return hwt_sideband_open_range(sb, path, 0, UINT64_MAX);
}

int hwt_sideband_open_bytes(struct hwt_sideband *sb, const char *path, const void *bytes,
			    size_t size, size_t checked)
{
	if (!sb || !path || (!bytes && size))
		return -hbe_invalid;
	sideband_close(sb);
	sb->path = strdup(path);
	if (!sb->path)
		return -hbe_nomem;
	sb->bytes = bytes;
	sb->end = size;
	sb->checked = checked;
	sb->status = 0;
	return 0;
}

uint64_t hwt_sideband_offset(const struct hwt_sideband *sb)
{
	return sb ? sb->offset : 0;
}

uint64_t hwt_sideband_count(const struct hwt_sideband *sb)
{
	return sb ? sb->count : 0;
}

const char *hwt_sideband_error(const struct hwt_sideband *sb)
{
	return sb ? sb->error : "";
}

__attribute__((format(printf, 3, 4)))
static int fail(struct hwt_sideband *sb, int status, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(sb->error, sizeof(sb->error), "%s at byte %" PRIu64 ": ",
		     status == -hbe_torn ? "torn tail"
		     : status == -hbe_corrupt ? "corrupt record" : "read error",
		     sb->offset);
	if (n > 0 && (size_t)n < sizeof(sb->error)) {
		va_start(ap, fmt);
		vsnprintf(sb->error + n, sizeof(sb->error) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	sb->status = status;
	return status;
}

/* Reads up to len bytes; returns how many (short only at the end or on error). */
static size_t read_bytes(struct hwt_sideband *sb, void *dst, size_t len)
{
	size_t n;

	if (sb->pos >= sb->end)
		return 0;
	if (len > sb->end - sb->pos)
		len = (size_t)(sb->end - sb->pos);
	if (sb->bytes) {
		memcpy(dst, sb->bytes + sb->pos, len);
		n = len;
	} else {
		n = fread(dst, 1, len, sb->file);
	}
	sb->pos += n;
	return n;
}

/* Whether reading failed (a file's error; memory does not fail). */
static int read_failed(const struct hwt_sideband *sb)
{
	return sb->file && ferror(sb->file);
}

/* Why a header that hwt_record_check refused is bad. */
static int header_fail(struct hwt_sideband *sb, const struct hwt_record_header *hdr)
{
	if (hdr->magic != HWT_RECORD_MAGIC)
		return fail(sb, -hbe_corrupt, "bad magic 0x%08" PRIx32 " (expected 0x%08x)",
			    hdr->magic, HWT_RECORD_MAGIC);
	if (hdr->size % HWT_RECORD_ALIGN)
		return fail(sb, -hbe_corrupt, "size %" PRIu32 " is not a multiple of %u",
			    hdr->size, HWT_RECORD_ALIGN);
	return fail(sb, -hbe_corrupt, "size %" PRIu32 " is out of range (%zu to %u)",
		    hdr->size, sizeof(*hdr), HWT_RECORD_MAX_SIZE);
}

/*
 * The record's size runs past the end of the file. Records are appended
 * with one write each, so only the last one can be cut short: when a whole
 * valid record follows inside the claimed size, the size field is wrong
 * rather than the write torn.
 */
static int short_record(struct hwt_sideband *sb, size_t have, uint32_t size)
{
	const uint8_t *bytes = (const uint8_t *)sb->buf;
	size_t at;

	for (at = HWT_RECORD_ALIGN; at + sizeof(struct hwt_record_header) <= have;
	     at += HWT_RECORD_ALIGN) {
		if (hwt_record_check(bytes + at, have - at) > 0)
			return fail(sb, -hbe_corrupt,
				    "size %" PRIu32 " runs over a valid record at byte %" PRIu64,
				    size, sb->offset + at);
	}
	return fail(sb, -hbe_torn, "the file ends %zu bytes into a %" PRIu32 "-byte record",
		    have, size);
}

/* Next NUL-terminated string in [*p, end): the string, or NULL. */
static const char *take_string(const char **p, const char *end)
{
	const char *s = *p;
	const char *nul;

	if (s >= end)
		return NULL;
	nul = memchr(s, '\0', (size_t)(end - s));
	if (!nul)
		return NULL;
	*p = nul + 1;
	return s;
}

static size_t min_size(uint32_t type)
{
	switch (type) {
	case HWT_RECORD_PROCESS_START:
	case HWT_RECORD_EXEC:          return sizeof(struct hwt_record_process);
	case HWT_RECORD_MMAP:          return sizeof(struct hwt_record_mmap);
	case HWT_RECORD_MUNMAP:        return sizeof(struct hwt_record_munmap);
	case HWT_RECORD_THREAD_CREATE:
	case HWT_RECORD_THREAD_EXIT:   return sizeof(struct hwt_record_thread);
	case HWT_RECORD_FORK:          return sizeof(struct hwt_record_fork);
	case HWT_RECORD_PROCESS_EXIT:  return sizeof(struct hwt_record_exit);
	case HWT_RECORD_LOST:          return sizeof(struct hwt_record_lost);
	/* offset came later: records grow at the end */
	case HWT_RECORD_SWITCH:        return offsetof(struct hwt_record_switch, offset);
	case HWT_RECORD_BUFFER:        return sizeof(struct hwt_record_buffer);
	case HWT_RECORD_SIGNAL:        return sizeof(struct hwt_record_signal);
	case HWT_RECORD_UNTRACED:      return sizeof(struct hwt_record_untraced);
	}
	return 0;
}

static int decode_argv(struct hwt_sideband *sb, struct hwt_sideband_record *rec,
		       const char *p, const char *end)
{
	uint32_t argc = rec->u.process->argc, i;

	/* Each argument takes at least its NUL: argc cannot exceed the bytes left. */
	if (argc > (size_t)(end - p))
		return fail(sb, -hbe_corrupt, "%s record says argc %" PRIu32
			    " but has only %zu bytes of strings",
			    hwt_record_type_name(rec->hdr->type), argc, (size_t)(end - p));
	if (hwt_grow((void **)&sb->argv, &sb->argv_cap, (size_t)argc + 1, sizeof(*sb->argv))) {
		snprintf(sb->error, sizeof(sb->error), "out of memory");
		sb->status = -hbe_nomem;
		return -hbe_nomem;
	}
	for (i = 0; i < argc; i++) {
		sb->argv[i] = take_string(&p, end);
		if (!sb->argv[i])
			return fail(sb, -hbe_corrupt, "%s record: argument %" PRIu32
				    " of %" PRIu32 " is missing or not NUL-terminated",
				    hwt_record_type_name(rec->hdr->type), i, argc);
	}
	sb->argv[argc] = NULL;
	rec->argv = sb->argv;
	rec->argc = argc;
	return 0;
}

/* Decodes the typed payload of a checked record; 0 or an error. */
static int decode(struct hwt_sideband *sb, struct hwt_sideband_record *rec)
{
	const struct hwt_record_header *hdr = rec->hdr;
	const char *bytes = (const char *)hdr;
	const char *end = bytes + hdr->size;
	const char *p;
	size_t need = min_size(hdr->type);

	rec->known = need != 0;
	if (!rec->known)
		return 0;
	if (hdr->size < need)
		return fail(sb, -hbe_corrupt, "%s record of %" PRIu32
			    " bytes, its type needs at least %zu",
			    hwt_record_type_name(hdr->type), hdr->size, need);

	/* All typed views share the header; any member of u points to the record. */
	rec->u.process = (const struct hwt_record_process *)hdr;
	p = bytes + need;
	switch (hdr->type) {
	case HWT_RECORD_PROCESS_START:
	case HWT_RECORD_EXEC:
		rec->path = take_string(&p, end);
		if (!rec->path)
			return fail(sb, -hbe_corrupt, "%s record without a NUL-terminated path",
				    hwt_record_type_name(hdr->type));
		return decode_argv(sb, rec, p, end);
	case HWT_RECORD_MMAP:
		if (rec->u.mmap->build_id_size > HWT_BUILD_ID_MAX)
			return fail(sb, -hbe_corrupt, "mmap record with a build-id of %" PRIu32
				    " bytes (at most %u)", rec->u.mmap->build_id_size,
				    HWT_BUILD_ID_MAX);
		rec->path = take_string(&p, end);
		if (!rec->path)
			return fail(sb, -hbe_corrupt, "mmap record without a NUL-terminated path");
		return 0;
	case HWT_RECORD_UNTRACED:
		rec->path = take_string(&p, end);
		rec->reason = rec->path ? take_string(&p, end) : NULL;
		if (!rec->reason)
			return fail(sb, -hbe_corrupt,
				    "untraced record without NUL-terminated path and reason");
		return 0;
	}
	return 0;
}

int hwt_sideband_next(struct hwt_sideband *sb, struct hwt_sideband_record *rec)
{
	struct hwt_record_header head, *hdr;
	size_t n, rest;
	int64_t checked;
	void *buf;
	int err;

	if (!sb || !rec)
		return -hbe_invalid;
	if (sb->status)
		return sb->status;

	memset(rec, 0, sizeof(*rec));
	n = read_bytes(sb, &head, sizeof(head));
	if (n < sizeof(head)) {
		if (read_failed(sb))
			return fail(sb, -hbe_io, "%s", strerror(errno));
		if (n == 0) {
			sb->status = -hbe_eos;
			return -hbe_eos;
		}
		/* What there is of the header may already be wrong. */
		if (n >= offsetof(struct hwt_record_header, type) && head.magic != HWT_RECORD_MAGIC)
			return header_fail(sb, &head);
		if (n >= offsetof(struct hwt_record_header, crc32) &&
		    (head.size < sizeof(head) || head.size > HWT_RECORD_MAX_SIZE ||
		     head.size % HWT_RECORD_ALIGN))
			return header_fail(sb, &head);
		return fail(sb, -hbe_torn, "the file ends %zu bytes into a record header", n);
	}
	if (hwt_record_check(&head, sizeof(head)) < 0)
		return header_fail(sb, &head);

	buf = realloc(sb->buf, head.size);
	if (!buf) {
		snprintf(sb->error, sizeof(sb->error), "out of memory");
		sb->status = -hbe_nomem;
		return -hbe_nomem;
	}
	sb->buf = buf;
	hdr = buf;
	memcpy(hdr, &head, sizeof(head));
	rest = head.size - sizeof(head);
	n = read_bytes(sb, hdr + 1, rest);
	if (n < rest) {
		if (read_failed(sb))
			return fail(sb, -hbe_io, "%s", strerror(errno));
		return short_record(sb, sizeof(head) + n, head.size);
	}
	checked = sb->offset + hdr->size <= sb->checked ? hdr->size
						      : hwt_record_check(hdr, hdr->size);
	if (checked <= 0)
		return fail(sb, -hbe_corrupt, "bad CRC (type %" PRIu16 ", size %" PRIu32 ")",
			    hdr->type, hdr->size);

	rec->offset = sb->offset;
	rec->hdr = hdr;
	err = decode(sb, rec);
	if (err) {
		memset(rec, 0, sizeof(*rec));
		return err;
	}
	sb->offset += hdr->size;
	sb->count++;
	return 0;
}
