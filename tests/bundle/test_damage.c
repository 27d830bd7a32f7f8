/*
 * Damaged bundles: a sideband file cut at every offset, a byte flipped in
 * every record, records that check but whose payload does not fit their
 * type, and directories that are not bundles. Reading keeps everything
 * before the damage and says where it is.
 */
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a sideband file through: returns the status at the end, fills count. */
static int read_all(const char *path, uint64_t *count, uint64_t *offset, char *error,
		    size_t error_size)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	int status;

	status = hwt_sideband_open(sb, path);
	if (!status) {
		while ((status = hwt_sideband_next(sb, &rec)) == 0)
			;
		/* Sticky. */
		CHECK_EQ(hwt_sideband_next(sb, &rec), status);
	}
	*count = hwt_sideband_count(sb);
	*offset = hwt_sideband_offset(sb);
	snprintf(error, error_size, "%s", hwt_sideband_error(sb));
	hwt_sideband_free(sb);
	return status;
}

/* The records written to one file, in order. */
static size_t file_records(const struct test_bundle *tb, const char *file,
			   const struct test_written **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < tb->nrecs && n < max; i++)
		if (!strcmp(tb->recs[i].file, file))
			out[n++] = &tb->recs[i];
	return n;
}

static void test_torn(void)
{
	const struct test_written *recs[64];
	struct test_bundle tb;
	char *dir = test_tmpdir("torn"), *path, *orig;
	size_t size, nrecs, cut;

	synth_bundle(&tb, dir, SYNTH_SUMMARY | SYNTH_LOST);
	path = test_path(dir, "sideband/100.0.sb");
	orig = test_read(path, &size);
	nrecs = file_records(&tb, "100.0", recs, 64);
	CHECK(nrecs > 10);

	for (cut = 0; cut <= size; cut++) {
		uint64_t count, offset, whole = 0, boundary = 0;
		struct hwt_bundle *b;
		char error[256], expect[128];
		int status, at_boundary = 0;
		size_t r;

		for (r = 0; r < nrecs; r++) {
			if (recs[r]->offset + recs[r]->size <= cut) {
				whole++;
				boundary = recs[r]->offset + recs[r]->size;
			}
		}
		at_boundary = boundary == cut;
		test_write(path, orig, cut);

		status = read_all(path, &count, &offset, error, sizeof(error));
		CHECK_EQ(count, whole);
		CHECK_EQ(offset, boundary);
		if (at_boundary) {
			CHECK_EQ(status, -hbe_eos);
		} else {
			CHECKF(status == -hbe_torn, "cut at %zu: %s", cut, error);
			snprintf(expect, sizeof(expect), "torn tail at byte %" PRIu64 ": the file "
				 "ends %zu bytes into a", boundary, cut - (size_t)boundary);
			CHECK_STR(error, expect);
		}

		/* The bundle says the same, naming the file. */
		b = hwt_bundle_alloc();
		CHECK_EQ(hwt_bundle_open(b, dir), 0);
		CHECK_EQ(hwt_bundle_image_at(b, 0)->records, whole);
		if (!at_boundary) {
			char *text = test_diag_text(b);

			CHECK_EQ(hwt_bundle_image_at(b, 0)->end, -hbe_torn);
			CHECK_EQ(hwt_bundle_image_at(b, 0)->end_offset, boundary);
			snprintf(expect, sizeof(expect), "/sideband/100.0.sb: torn tail at byte %"
				 PRIu64 ": ", boundary);
			CHECK_STR(text, expect);
			snprintf(expect, sizeof(expect), "kept the %" PRIu64 " records before it",
				 whole);
			CHECK_STR(text, expect);
			free(text);
		}
		/* Everything before the cut: no exit (the exec was cut) unless whole. */
		CHECK_EQ(hwt_bundle_image_at(b, 0)->has_exec, cut == size);
		hwt_bundle_free(b);
	}
	test_write(path, orig, size);
	free(orig);
	free(path);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

static void test_flipped(void)
{
	static const uint8_t masks[] = { 0x01, 0x04, 0x10, 0x80, 0xff };
	const struct test_written *recs[64];
	struct test_bundle tb;
	char *dir = test_tmpdir("flip"), *path, *orig;
	size_t size, nrecs, pos, m, r = 0, torn_seen = 0;

	synth_bundle(&tb, dir, SYNTH_SUMMARY | SYNTH_LOST);
	path = test_path(dir, "sideband/100.0.sb");
	orig = test_read(path, &size);
	nrecs = file_records(&tb, "100.0", recs, 64);

	for (pos = 0; pos < size; pos++) {
		while (r + 1 < nrecs && recs[r + 1]->offset <= pos)
			r++;
		for (m = 0; m < sizeof(masks); m++) {
			uint64_t count, offset;
			char error[256], expect[64];
			int status;
			size_t in_rec = pos - (size_t)recs[r]->offset;
			int size_field = in_rec >= 8 && in_rec < 12;

			orig[pos] ^= (char)masks[m];
			test_write(path, orig, size);
			orig[pos] ^= (char)masks[m];

			status = read_all(path, &count, &offset, error, sizeof(error));
			CHECKF(count == r, "byte %zu ^ 0x%02x: %" PRIu64 " records read, %zu expected",
			       pos, masks[m], count, r);
			CHECK_EQ(offset, recs[r]->offset);
			/*
			 * A bad size in the last record that claims more than the file
			 * holds looks exactly like a torn write; anywhere else it is corrupt.
			 */
			if (status == -hbe_torn && r == nrecs - 1 && size_field) {
				torn_seen++;
				continue;
			}
			CHECKF(status == -hbe_corrupt, "byte %zu ^ 0x%02x: status %d (%s)", pos,
			       masks[m], status, error);
			snprintf(expect, sizeof(expect), "corrupt record at byte %" PRIu64 ": ",
				 recs[r]->offset);
			CHECK_STR(error, expect);
		}
	}
	CHECK(torn_seen > 0);

	/* Through the bundle, for a flip in the middle record's CRC field. */
	{
		const struct test_written *mid = recs[nrecs / 2];
		struct hwt_bundle *b = hwt_bundle_alloc();
		char expect[160], *text;

		orig[mid->offset + 12] ^= 0x40;
		test_write(path, orig, size);
		CHECK_EQ(hwt_bundle_open(b, dir), 0);
		CHECK_EQ(hwt_bundle_image_at(b, 0)->end, -hbe_corrupt);
		CHECK_EQ(hwt_bundle_image_at(b, 0)->records, nrecs / 2);
		text = test_diag_text(b);
		snprintf(expect, sizeof(expect), "/sideband/100.0.sb: corrupt record at byte %"
			 PRIu64 ": bad CRC", mid->offset);
		CHECK_STR(text, expect);
		snprintf(expect, sizeof(expect), "kept the %zu records before it, ignored the rest",
			 nrecs / 2);
		CHECK_STR(text, expect);
		/* The other images are unaffected. */
		CHECK_EQ(hwt_bundle_image_at(b, 1)->end, 0);
		CHECK_EQ(hwt_bundle_image_at(b, 1)->records, 5);
		/* The image's records read again (the bytes the open kept, whose
		   CRCs it checked up to the damage) stop there the same way. */
		{
			struct hwt_sideband *sb = hwt_sideband_alloc();
			struct hwt_sideband_record rec;
			uint64_t n = 0;
			int status;

			CHECK(hwt_bundle_image_at(b, 0)->bytes != NULL);
			CHECK_EQ(hwt_bundle_image_open(sb, hwt_bundle_image_at(b, 0)), 0);
			while ((status = hwt_sideband_next(sb, &rec)) == 0)
				n++;
			CHECK_EQ(status, -hbe_corrupt);
			CHECK_EQ(n, nrecs / 2);
			CHECK_EQ(hwt_sideband_offset(sb), mid->offset);
			CHECK_STR(hwt_sideband_error(sb), "bad CRC");
			hwt_sideband_free(sb);
		}
		free(text);
		hwt_bundle_free(b);
	}

	free(orig);
	free(path);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

/*
 * A file: one good PROCESS_START (64 bytes), then the record in bad, then
 * another good one.
 */
static void write_pair(const char *path, struct test_rec *bad, uint32_t bad_size)
{
	struct test_rec good;
	struct hwt_record_process *p;

	p = rec_begin(&good, HWT_RECORD_PROCESS_START, sizeof(*p), 1, 7, 7);
	p->argc = 1;
	rec_string(&good, "/bin/x");
	rec_string(&good, "x");
	rec_end(&good);
	test_write(path, good.words, good.len ? hwt_record_align((uint32_t)good.len) : 0);
	rec_end_size(bad, bad_size);
	hwt_record_seal((struct hwt_record_header *)bad->words);
	test_append(path, bad->words, bad_size);
	test_append(path, good.words, hwt_record_align((uint32_t)good.len));
}

static void expect_corrupt(const char *path, const char *what, int line)
{
	uint64_t count, offset;
	char error[256];
	int status = read_all(path, &count, &offset, error, sizeof(error));

	test_check(status == -hbe_corrupt && count == 1 && offset == 64, __FILE__, line,
		   "status %d count %" PRIu64 " offset %" PRIu64 ": %s", status, count, offset,
		   error);
	test_check_contains(error, "corrupt record at byte 64: ", __FILE__, line, "error");
	test_check_contains(error, what, __FILE__, line, "error");
}

static void test_payloads(void)
{
	char *dir = test_tmpdir("payload"), *path = test_path(dir, "x.sb");
	struct hwt_record_process *p;
	struct hwt_record_mmap *m;
	struct test_rec r;

	/* A type whose record is shorter than its fields. */
	rec_begin(&r, HWT_RECORD_MMAP, 40, 2, 7, 7);
	write_pair(path, &r, 40);
	expect_corrupt(path, "mmap record of 40 bytes, its type needs at least 88", __LINE__);
	rec_begin(&r, HWT_RECORD_PROCESS_EXIT, 32, 2, 7, 7);
	write_pair(path, &r, 32);
	expect_corrupt(path, "process-exit record of 32 bytes, its type needs at least 40",
		       __LINE__);
	rec_begin(&r, HWT_RECORD_LOST, 40, 2, 7, 7);
	write_pair(path, &r, 40);
	expect_corrupt(path, "lost record of 40 bytes, its type needs at least 48", __LINE__);
	rec_begin(&r, HWT_RECORD_SIGNAL, 40, 2, 7, 7);
	write_pair(path, &r, 40);
	expect_corrupt(path, "signal record of 40 bytes", __LINE__);
	rec_begin(&r, HWT_RECORD_PROCESS_START, 40, 2, 7, 7);
	write_pair(path, &r, 40);
	expect_corrupt(path, "needs at least 48", __LINE__);

	/* Strings that run to the end of the record without a NUL. */
	p = rec_begin(&r, HWT_RECORD_PROCESS_START, sizeof(*p), 2, 7, 7);
	rec_bytes(&r, "abcdefgh", 8);
	write_pair(path, &r, 56);
	expect_corrupt(path, "process-start record without a NUL-terminated path", __LINE__);
	m = rec_begin(&r, HWT_RECORD_MMAP, sizeof(*m), 2, 7, 7);
	write_pair(path, &r, 88); /* no room for a path at all */
	expect_corrupt(path, "mmap record without a NUL-terminated path", __LINE__);
	rec_begin(&r, HWT_RECORD_UNTRACED, sizeof(struct hwt_record_untraced), 2, 7, 7);
	rec_bytes(&r, "/bin/su\0setuid!!", 16); /* the reason is not terminated */
	write_pair(path, &r, 56);
	expect_corrupt(path, "untraced record without NUL-terminated path and reason", __LINE__);

	/* More arguments than the record holds. */
	p = rec_begin(&r, HWT_RECORD_EXEC, sizeof(*p), 2, 7, 7);
	p->argc = 1000000;
	rec_bytes(&r, "/bin/x\0\0", 8);
	write_pair(path, &r, 56);
	expect_corrupt(path, "exec record says argc 1000000 but has only 1 bytes", __LINE__);
	p = rec_begin(&r, HWT_RECORD_EXEC, sizeof(*p), 2, 7, 7);
	p->argc = 3;
	rec_bytes(&r, "/bin/x\0a\0bcdefgh", 16); /* path, "a", then "bcdefgh" unterminated */
	write_pair(path, &r, 64);
	expect_corrupt(path, "argument 1 of 3 is missing or not NUL-terminated", __LINE__);

	/* A build-id longer than its field. */
	m = rec_begin(&r, HWT_RECORD_MMAP, sizeof(*m), 2, 7, 7);
	m->build_id_size = HWT_BUILD_ID_MAX + 1;
	rec_string(&r, "/lib/x.so");
	write_pair(path, &r, hwt_record_align((uint32_t)r.len));
	expect_corrupt(path, "build-id of 21 bytes", __LINE__);

	/* Headers that do not check. */
	rec_begin(&r, HWT_RECORD_MUNMAP, 48, 2, 7, 7);
	write_pair(path, &r, 44);
	expect_corrupt(path, "size 44 is not a multiple of 8", __LINE__);
	rec_begin(&r, HWT_RECORD_MUNMAP, 48, 2, 7, 7);
	write_pair(path, &r, 48);
	((struct hwt_record_header *)r.words)->size = 16;
	{
		/* Rewrite with the small size in place (the CRC cannot matter). */
		size_t len;
		char *bytes = test_read(path, &len);

		memcpy(bytes + 64 + 8, &((struct hwt_record_header *)r.words)->size, 4);
		test_write(path, bytes, len);
		free(bytes);
	}
	expect_corrupt(path, "size 16 is out of range (32 to 65536)", __LINE__);

	/* A type from the future of the largest size is skipped, not refused. */
	{
		struct hwt_sideband *sb = hwt_sideband_alloc();
		struct hwt_sideband_record rec;

		rec_begin(&r, 200, HWT_RECORD_MAX_SIZE, 2, 7, 7);
		write_pair(path, &r, HWT_RECORD_MAX_SIZE);
		CHECK_EQ(hwt_sideband_open(sb, path), 0);
		CHECK_EQ(hwt_sideband_next(sb, &rec), 0);
		CHECK_EQ(rec.known, 1);
		CHECK_EQ(hwt_sideband_next(sb, &rec), 0);
		CHECK_EQ(rec.known, 0);
		CHECK_EQ(rec.hdr->size, HWT_RECORD_MAX_SIZE);
		CHECK_EQ(rec.offset, 64);
		CHECK_EQ(hwt_sideband_next(sb, &rec), 0);
		CHECK_EQ(rec.offset, 64 + HWT_RECORD_MAX_SIZE);
		CHECK(rec.known && rec.argc == 1 && !strcmp(rec.argv[0], "x"));
		CHECK_EQ(hwt_sideband_next(sb, &rec), -hbe_eos);
		hwt_sideband_free(sb);
	}

	/* Short files: what there is of a header. */
	{
		static const uint8_t bad_magic[6] = { 'n', 'o', 'p', 'e', 0, 0 };
		uint32_t head[3] = { HWT_RECORD_MAGIC, HWT_RECORD_PROCESS_START, 12 };
		uint64_t count, offset;
		char error[256];

		test_write(path, bad_magic, 3);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_torn);
		CHECK_STR(error, "torn tail at byte 0: the file ends 3 bytes into a record header");
		test_write(path, bad_magic, 6);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_corrupt);
		CHECK_STR(error, "corrupt record at byte 0: bad magic 0x65706f6e");
		test_write(path, head, 12);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_corrupt);
		CHECK_STR(error, "size 12 is not a multiple of 8");
		head[2] = 64;
		test_write(path, head, 12);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_torn);
		test_write(path, "", 0);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_eos);
		CHECK_EQ(count, 0);
		unlink(path);
		CHECK_EQ(read_all(path, &count, &offset, error, sizeof(error)), -hbe_io);
		CHECK_STR(error, "No such file");
		CHECK_EQ(read_all(dir, &count, &offset, error, sizeof(error)), -hbe_io);
	}

	free(path);
	test_rmtree(dir);
	free(dir);
}

/* Opens dir and expects failure code with a message holding what. */
static void expect_unusable(const char *dir, int code, const char *what, int line)
{
	struct hwt_bundle *b = hwt_bundle_alloc();
	int err = hwt_bundle_open(b, dir);
	char *text = test_diag_text(b);

	test_check(err == code, __FILE__, line, "open: %d (%s), expected %d (%s)", err,
		   hwt_bundle_errstr(err), code, hwt_bundle_errstr(code));
	test_check_contains(text, what, __FILE__, line, "diagnostics");
	test_check(hwt_bundle_diag_count(b) == 1 &&
		   hwt_bundle_diag_at(b, 0)->kind == hwt_diag_fatal, __FILE__, line,
		   "one fatal diagnostic");
	test_check(hwt_bundle_image_count(b) == 0, __FILE__, line, "no images");
	free(text);
	hwt_bundle_free(b);
}

static void test_not_bundles(void)
{
	char *dir = test_tmpdir("notbundle"), *sub, *hdr;

	sub = test_path(dir, "missing");
	expect_unusable(sub, -hbe_no_dir, "/missing: no such bundle directory", __LINE__);
	free(sub);

	sub = test_path(dir, "file");
	test_write(sub, "hwt-bundle 1\n", 13);
	expect_unusable(sub, -hbe_not_dir, "/file: not a directory, so not a trace bundle",
			__LINE__);
	free(sub);

	sub = test_path(dir, "empty");
	test_mkdir(sub);
	expect_unusable(sub, -hbe_not_bundle, "/empty: an empty directory, not a trace bundle: "
			"no hwt-bundle header file", __LINE__);
	hdr = test_path(sub, "sideband");
	test_mkdir(hdr);
	free(hdr);
	expect_unusable(sub, -hbe_not_bundle, "/empty: not a trace bundle: no hwt-bundle header",
			__LINE__);

	hdr = test_path(sub, "hwt-bundle");
	test_write(hdr, "hwt-bundle 2\nunit=future\n", 25);
	expect_unusable(sub, -hbe_version, "/hwt-bundle: bundle version \"2\" is not supported "
			"(this hwt reads version 1)", __LINE__);
	test_write(hdr, "hwt-bundle 10\n", 14);
	expect_unusable(sub, -hbe_version, "bundle version \"10\"", __LINE__);
	test_write(hdr, "hwt-bundle 1.1\n", 15);
	expect_unusable(sub, -hbe_version, "bundle version \"1.1\"", __LINE__);
	test_write(hdr, "hwt-bundle\n", 11);
	expect_unusable(sub, -hbe_bad_header, "not a trace bundle header: first line is "
			"\"hwt-bundle\", expected \"hwt-bundle 1\"", __LINE__);
	test_write(hdr, "", 0);
	expect_unusable(sub, -hbe_bad_header, "the file is empty", __LINE__);
	test_write(hdr, "\x7f" "ELF\x02\x01\x01\n\x00\x00", 10);
	expect_unusable(sub, -hbe_bad_header, "first line is \"\\x7fELF\\x02\\x01\\x01\"",
			__LINE__);
	test_write(hdr, "hwt-bundle 1\nunit=x\0y\n", 22);
	expect_unusable(sub, -hbe_bad_header, "not a trace bundle header", __LINE__);
	unlink(hdr);
	test_mkdir(hdr);
	expect_unusable(sub, -hbe_io, "cannot read the header: Is a directory", __LINE__);
	free(hdr);
	free(sub);

	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	test_torn();
	test_flipped();
	test_payloads();
	test_not_bundles();
	return test_done("test_damage");
}
