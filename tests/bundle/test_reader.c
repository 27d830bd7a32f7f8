/*
 * The bundle reader against a synthetic bundle: what is read is exactly
 * what was written; images, streams, keys, totals and summary; every
 * kind of warning a readable bundle can produce; creating bundles.
 */
#include "testlib.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct hwt_bundle *open_ok(const char *dir)
{
	struct hwt_bundle *b = hwt_bundle_alloc();
	int err;

	CHECK(b != NULL);
	err = hwt_bundle_open(b, dir);
	CHECKF(err == 0, "open %s: %s", dir, hwt_bundle_errstr(err));
	return b;
}

static int count_kind(const struct hwt_bundle *b, enum hwt_diag_kind kind)
{
	size_t i;
	int n = 0;

	for (i = 0; i < hwt_bundle_diag_count(b); i++)
		n += hwt_bundle_diag_at(b, i)->kind == kind;
	return n;
}

/* Every record of every image comes back exactly as written, in order:
   read from its file, or (from_image) as hwt_bundle_image_open gives it. */
static void check_records(const struct test_bundle *tb, const struct hwt_bundle *b,
			  int from_image)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	size_t i, next = 0, seen = 0;

	for (i = 0; i < hwt_bundle_image_count(b); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(b, i);
		struct hwt_sideband_record rec;
		int status;

		CHECK_EQ(from_image ? hwt_bundle_image_open(sb, image)
				    : hwt_sideband_open(sb, image->path),
			 0);
		while ((status = hwt_sideband_next(sb, &rec)) == 0) {
			const struct test_written *w;

			while (next < tb->nrecs && strcmp(tb->recs[next].file, image->name))
				next++;
			if (!CHECKF(next < tb->nrecs, "%s: an extra record at %" PRIu64,
				    image->name, rec.offset))
				break;
			w = &tb->recs[next++];
			seen++;
			CHECK_EQ(rec.offset, w->offset);
			CHECK_EQ(rec.hdr->size, w->size);
			CHECKF(!memcmp(rec.hdr, w->bytes, w->size), "%s: record at %" PRIu64
			       " differs", image->name, rec.offset);
			CHECK_EQ(rec.known, rec.hdr->type != 99);
			if (w->path)
				CHECK(rec.path && !strcmp(rec.path, w->path));
			else
				CHECK(rec.path == NULL);
			if (w->reason)
				CHECK(rec.reason && !strcmp(rec.reason, w->reason));
			if (w->argv) {
				int a;

				CHECK_EQ(rec.argc, w->argc);
				for (a = 0; a < w->argc && a < (int)rec.argc; a++)
					CHECK(!strcmp(rec.argv[a], w->argv[a]));
				CHECK(rec.argv[rec.argc] == NULL);
			}
		}
		CHECK_EQ(status, -hbe_eos);
		CHECK_EQ(hwt_sideband_offset(sb), image->size);
		CHECK_EQ(hwt_sideband_count(sb), image->records);
		/* Errors and the end are sticky. */
		CHECK_EQ(hwt_sideband_next(sb, &rec), -hbe_eos);
	}
	CHECK_EQ(seen, tb->nrecs);
	hwt_sideband_free(sb);
}

static void test_clean(void)
{
	struct hwt_bundle_totals totals;
	struct test_bundle tb;
	struct hwt_bundle *b;
	const struct hwt_bundle_image *img;
	const struct hwt_bundle_stream *st;
	char *dir = test_tmpdir("reader"), *text;
	const char *v;
	char expect[64];

	synth_bundle(&tb, dir, SYNTH_SUMMARY);
	b = open_ok(dir);
	text = test_diag_text(b);
	CHECKF(hwt_bundle_diag_count(b) == 0, "a clean bundle has no warnings, got:\n%s", text);
	free(text);

	CHECK(!strcmp(hwt_bundle_dir(b), dir));
	v = hwt_bundle_key(b, "unit");
	CHECK(v && !strcmp(v, "valgrind"));
	v = hwt_bundle_key(b, "clock");
	CHECK(v && !strcmp(v, "sequence"));
	v = hwt_bundle_key(b, "command");
	CHECKF(v && !strcmp(v, "/usr/bin/prog --flag 'a b' $'tab\\there'"), "command=%s", v);
	v = hwt_bundle_key(b, "start");
	CHECK(v && strtoll(v, NULL, 10) > 1600000000);
	CHECK_EQ(hwt_bundle_key_count(b), 4);
	CHECK(hwt_bundle_key(b, "nonesuch") == NULL);

	CHECK_EQ(hwt_bundle_image_count(b), 3);
	img = hwt_bundle_image_at(b, 0);
	CHECK(!strcmp(img->name, "100.0") && img->pid == 100 && img->generation == 0);
	CHECK(img->has_start && img->has_exec && !img->has_exit && img->end == 0);
	CHECK_EQ(img->records, 14);
	CHECK_EQ(img->first_stream, 0);
	CHECK_EQ(img->streams, 2);
	img = hwt_bundle_image_at(b, 1);
	CHECK(!strcmp(img->name, "100.1") && img->has_exit && img->exit_status == 0);
	CHECK_EQ(img->first_stream, 2);
	CHECK_EQ(img->streams, 1);
	img = hwt_bundle_image_at(b, 2);
	CHECK(!strcmp(img->name, "102.0") && img->has_exit && img->exit_status == 0x8b);
	CHECK(!img->has_exec); /* its execve failed */
	CHECK_EQ(img->first_stream, 3);
	CHECK(hwt_bundle_image_at(b, 3) == NULL);
	CHECK(hwt_bundle_image_find(b, 100, 1) == hwt_bundle_image_at(b, 1));
	CHECK(hwt_bundle_image_find(b, 101, 0) == NULL);

	CHECK_EQ(hwt_bundle_stream_count(b), 4);
	st = hwt_bundle_stream_at(b, 0);
	CHECK(!strcmp(st->name, "100.0-100") && st->tid == 100 && st->image == 0);
	st = hwt_bundle_stream_at(b, 1);
	CHECK(!strcmp(st->name, "100.0-101") && st->tid == 101 && st->image == 0);
	st = hwt_bundle_stream_at(b, 2);
	CHECK(!strcmp(st->name, "100.1-100") && st->image == 1);
	st = hwt_bundle_stream_at(b, 3);
	CHECK(!strcmp(st->name, "102.0-102") && st->image == 2 && st->size == 28);

	check_records(&tb, b, 0);
	check_records(&tb, b, 1);
	/* The open kept the small files it read: the image replays those
	   bytes, whatever became of its file since. */
	img = hwt_bundle_image_at(b, 1);
	CHECK(img->bytes != NULL);
	CHECK_EQ(img->bytes_size, img->size);
	{
		char *moved = test_path(dir, "moved.sb");

		CHECK_EQ(rename(img->path, moved), 0);
		check_records(&tb, b, 1);
		CHECK_EQ(rename(moved, img->path), 0);
		free(moved);
	}

	CHECK_EQ(hwt_bundle_totals(b, &totals), 0);
	CHECK_EQ(totals.processes, tb.totals.processes);
	CHECK_EQ(totals.images, tb.totals.images);
	CHECK_EQ(totals.untraced, tb.totals.untraced);
	CHECK_EQ(totals.threads, tb.totals.threads);
	CHECK_EQ(totals.trace_bytes, tb.totals.trace_bytes);
	CHECK_EQ(totals.sideband_bytes, tb.totals.sideband_bytes);
	CHECK_EQ(totals.lost_records, 0);
	CHECK_EQ(totals.lost_bytes, 0);

	/* The summary written from the files says the same. */
	CHECK(hwt_bundle_has_summary(b));
	snprintf(expect, sizeof(expect), "%" PRIu64, tb.totals.trace_bytes);
	v = hwt_bundle_summary_key(b, "trace_bytes");
	CHECK(v && !strcmp(v, expect));
	snprintf(expect, sizeof(expect), "%" PRIu64, tb.totals.sideband_bytes);
	v = hwt_bundle_summary_key(b, "sideband_bytes");
	CHECK(v && !strcmp(v, expect));
	v = hwt_bundle_summary_key(b, "processes");
	CHECK(v && !strcmp(v, "2"));
	v = hwt_bundle_summary_key(b, "threads");
	CHECK(v && !strcmp(v, "4"));
	v = hwt_bundle_summary_key(b, "untraced");
	CHECK(v && !strcmp(v, "1"));
	v = hwt_bundle_summary_key(b, "exit_status");
	CHECK(v && !strcmp(v, "0"));
	CHECK_EQ(hwt_bundle_summary_count(b), 9);

	/* A trailing slash names the same bundle. */
	{
		char *slash = test_path(dir, "");
		struct hwt_bundle *b2 = open_ok(slash);

		CHECK(!strcmp(hwt_bundle_dir(b2), dir));
		CHECK(!strncmp(hwt_bundle_image_at(b2, 0)->path, dir, strlen(dir)));
		CHECK_EQ(hwt_bundle_diag_count(b2), 0);
		hwt_bundle_free(b2);
		free(slash);
	}

	/* An object opens once. */
	CHECK_EQ(hwt_bundle_open(b, dir), -hbe_invalid);
	hwt_bundle_free(b);

	/* The summary is replaced atomically, leaving no temporary file. */
	CHECK_EQ(hwt_bundle_write_summary(dir, 3 << 8), 0);
	b = open_ok(dir);
	v = hwt_bundle_summary_key(b, "exit_status");
	CHECK(v && !strcmp(v, "768"));
	CHECK_EQ(hwt_bundle_diag_count(b), 0);
	hwt_bundle_free(b);

	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

static void test_lost(void)
{
	struct hwt_bundle_totals totals;
	struct test_bundle tb;
	struct hwt_bundle *b;
	char *dir = test_tmpdir("lost"), *text;

	synth_bundle(&tb, dir, SYNTH_SUMMARY | SYNTH_LOST);
	b = open_ok(dir);
	CHECK_EQ(hwt_bundle_totals(b, &totals), 0);
	CHECK_EQ(totals.lost_records, 3);
	CHECK_EQ(totals.lost_bytes, 4196);
	CHECK_EQ(hwt_bundle_image_at(b, 0)->lost, 2);
	CHECK_EQ(count_kind(b, hwt_diag_lost), 3);
	CHECK_EQ(hwt_bundle_diag_count(b), 3);
	text = test_diag_text(b);
	CHECK_STR(text, "/sideband/100.0.sb: data was lost: 3 sideband records and 4096 trace "
			"bytes were dropped (2 lost records)");
	CHECK_STR(text, "/sideband/102.0.sb: data was lost: 0 sideband records and 100 trace "
			"bytes were dropped (1 lost record)");
	CHECK_STR(text, "in all, data was lost in 2 images: 3 sideband records and 4196 trace "
			"bytes were dropped (3 lost records)");
	free(text);
	CHECK(!strcmp(hwt_bundle_summary_key(b, "lost_records"), "3"));
	CHECK(!strcmp(hwt_bundle_summary_key(b, "lost_bytes"), "4196"));
	hwt_bundle_free(b);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

/* Writes a sideband file of one record of type with the given pid. */
static void one_record_file(const char *dir, const char *name, uint16_t type, uint32_t pid,
			    uint32_t gen)
{
	struct test_rec r;
	char *path = test_path(dir, name);

	if (type == HWT_RECORD_PROCESS_START) {
		struct hwt_record_process *p = rec_begin(&r, type, sizeof(*p), 1, pid, pid);

		p->generation = gen;
		rec_string(&r, "/bin/x");
	} else {
		rec_begin(&r, type, sizeof(struct hwt_record_mmap), 1, pid, pid);
		rec_string(&r, "/bin/x");
	}
	rec_end(&r);
	test_write(path, r.words, r.len ? hwt_record_align((uint32_t)r.len) : 0);
	free(path);
}

static void test_warnings(void)
{
	struct test_bundle tb;
	struct hwt_bundle *b;
	char *dir = test_tmpdir("warn"), *text, *p;
	size_t i;

	synth_bundle(&tb, dir, 0);
	/* strays */
	p = test_path(dir, "junk.txt");
	test_write(p, "x", 1);
	free(p);
	p = test_path(dir, "sideband/notes");
	test_write(p, "x", 1);
	free(p);
	p = test_path(dir, "sideband/bad\nname");
	test_write(p, "x", 1);
	free(p);
	p = test_path(dir, "sideband/007.0.sb");
	test_write(p, "", 0);
	free(p);
	p = test_path(dir, "sideband/100.9.sb");
	test_mkdir(p);
	free(p);
	p = test_path(dir, "streams/100.0.pt");
	test_write(p, "x", 1);
	free(p);
	p = test_path(dir, "streams/4294967296.0-1.pt"); /* pid too large */
	test_write(p, "x", 1);
	free(p);
	/* a stream without sideband */
	p = test_path(dir, "streams/200.0-200.pt");
	test_write(p, "\x02\x82", 2);
	free(p);
	/* an image that does not start with PROCESS_START, and has no exit */
	one_record_file(dir, "sideband/300.0.sb", HWT_RECORD_MMAP, 300, 0);
	/* an empty image */
	p = test_path(dir, "sideband/301.0.sb");
	test_write(p, "", 0);
	free(p);
	/* PROCESS_START disagrees with the name */
	one_record_file(dir, "sideband/302.0.sb", HWT_RECORD_PROCESS_START, 303, 4);

	b = open_ok(dir);
	text = test_diag_text(b);
	CHECK_STR(text, "no summary: the recording did not finish (recorder killed?)");
	CHECK_STR(text, "/junk.txt: stray file in the bundle, ignored");
	CHECK_STR(text, "/sideband/notes: stray file in sideband/, ignored");
	CHECK_STR(text, "/sideband/007.0.sb: stray file in sideband/");
	CHECK_STR(text, "/sideband/bad\\nname: stray file in sideband/");
	CHECK_STR(text, "/sideband/100.9.sb: not a regular file, ignored");
	CHECK_STR(text, "/streams/100.0.pt: stray file in streams/");
	CHECK_STR(text, "/streams/4294967296.0-1.pt: stray file in streams/");
	CHECK_STR(text, "/streams/200.0-200.pt: no sideband (sideband/200.0.sb is missing)");
	CHECK_STR(text, "/sideband/300.0.sb: first record is mmap, not process-start");
	CHECK_STR(text, "/sideband/300.0.sb: no exit record: killed?");
	CHECK_STR(text, "/sideband/301.0.sb: no records");
	CHECK_STR(text, "/sideband/302.0.sb: process-start says pid 303 generation 4 but the "
			"file is named for 302.0");
	CHECK_NOSTR(text, "100.0.sb: no exit");  /* it ended in exec */
	CHECK_EQ(count_kind(b, hwt_diag_unfinished), 1);
	CHECK_EQ(count_kind(b, hwt_diag_stray), 7);
	CHECK_EQ(count_kind(b, hwt_diag_orphan), 1);
	CHECK_EQ(count_kind(b, hwt_diag_no_start), 2);
	CHECK_EQ(count_kind(b, hwt_diag_no_exit), 3);
	CHECK_EQ(count_kind(b, hwt_diag_mismatch), 1);
	CHECK_EQ(count_kind(b, hwt_diag_fatal), 0);
	CHECK_EQ(hwt_bundle_warning_count(b), hwt_bundle_diag_count(b));
	for (i = 0; i < hwt_bundle_diag_count(b); i++) {
		const struct hwt_bundle_diag *d = hwt_bundle_diag_at(b, i);

		CHECK(!strchr(d->message, '\n'));
		if (!strchr(d->path, '\n'))
			CHECK(!strncmp(d->message, d->path, strlen(d->path)));
	}
	CHECK_EQ(hwt_bundle_stream_count(b), 5);
	CHECK_EQ(hwt_bundle_stream_at(b, 4)->image, -1);
	CHECK_EQ(hwt_bundle_image_count(b), 6);
	hwt_bundle_free(b);

	/* Same bundle, same warnings in the same order. */
	{
		struct hwt_bundle *again = open_ok(dir);
		char *text2 = test_diag_text(again);

		CHECK(!strcmp(text, text2));
		free(text2);
		hwt_bundle_free(again);
	}
	free(text);

	/* A summary that no longer matches the files. */
	p = test_path(dir, "summary");
	test_write(p, "processes=1\ntrace_bytes=5\nsideband_bytes=x\nbroken line\n", 56);
	free(p);
	b = open_ok(dir);
	text = test_diag_text(b);
	CHECK_STR(text, "summary says trace_bytes=5 but the files hold");
	CHECK_STR(text, "summary says sideband_bytes=x");
	CHECK_STR(text, "/summary: line 4 is not key=value, ignored: \"broken line\"");
	CHECK_NOSTR(text, "no summary");
	free(text);
	hwt_bundle_free(b);

	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
}

static void test_header_keys(void)
{
	static const char header[] = "hwt-bundle 1\nunit=perf\n\nfuture_key=42\nno equals here\n"
				     "=novalue\nunit=hwt.ko:sw\ncommand=a=b\n";
	struct hwt_bundle *b;
	char *dir = test_tmpdir("keys"), *p, *text;
	const char *k, *v;

	p = test_path(dir, "hwt-bundle");
	test_write(p, header, sizeof(header) - 1);
	free(p);
	b = open_ok(dir);
	CHECK(!strcmp(hwt_bundle_key(b, "unit"), "hwt.ko:sw")); /* the last one wins */
	CHECK(!strcmp(hwt_bundle_key(b, "future_key"), "42"));
	CHECK(!strcmp(hwt_bundle_key(b, "command"), "a=b"));
	CHECK_EQ(hwt_bundle_key_count(b), 4);
	CHECK_EQ(hwt_bundle_key_at(b, 0, &k, &v), 0);
	CHECK(!strcmp(k, "unit") && !strcmp(v, "perf"));
	CHECK_EQ(hwt_bundle_key_at(b, 4, &k, &v), -hbe_invalid);
	text = test_diag_text(b);
	CHECK_STR(text, "/hwt-bundle: line 5 is not key=value, ignored: \"no equals here\"");
	CHECK_STR(text, "/hwt-bundle: line 6 is not key=value, ignored: \"=novalue\"");
	/* No sideband/ or streams/ folder: said, not fatal. */
	CHECK_STR(text, "/sideband: cannot list process images");
	CHECK_STR(text, "/streams: cannot list thread streams");
	free(text);
	hwt_bundle_free(b);
	test_rmtree(dir);
	free(dir);
}

static void test_create(void)
{
	char *dir = test_tmpdir("create"), *sub, *p, *text;
	struct stat st;
	size_t len;

	/* An empty existing directory is fine; the layout appears. */
	CHECK_EQ(hwt_bundle_create(dir, "valgrind", "sequence", "true"), 0);
	p = test_path(dir, "sideband");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	free(p);
	p = test_path(dir, "streams");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	free(p);
	p = test_path(dir, "images");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	free(p);
	p = test_path(dir, "blocks");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	free(p);
	p = test_path(dir, "hwt-bundle");
	text = test_read(p, &len);
	free(p);
	CHECK(text && !strncmp(text, "hwt-bundle 1\nunit=valgrind\nclock=sequence\ncommand=true\n"
			       "start=", 60));
	free(text);

	/* Not again: the directory is no longer empty. */
	CHECK_EQ(hwt_bundle_create(dir, "valgrind", "sequence", "true"), -hbe_exists);
	/* Not over a file. */
	p = test_path(dir, "hwt-bundle");
	CHECK_EQ(hwt_bundle_create(p, "valgrind", "sequence", "true"), -hbe_exists);
	free(p);
	/* A new directory, but not in a missing parent. */
	sub = test_path(dir, "new.hwt");
	CHECK_EQ(hwt_bundle_create(sub, "hwt.ko:sw", "tsc", "'a b'"), 0);
	free(sub);
	sub = test_path(dir, "missing/new.hwt");
	CHECK_EQ(hwt_bundle_create(sub, "valgrind", "sequence", "true"), -hbe_io);
	free(sub);
	/* Values must stay on their line. */
	sub = test_path(dir, "nl.hwt");
	CHECK_EQ(hwt_bundle_create(sub, "valgrind", "sequence", "a\nb"), -hbe_invalid);
	CHECK_EQ(hwt_bundle_create(sub, NULL, "sequence", "a"), -hbe_invalid);
	CHECK(stat(sub, &st) < 0);
	free(sub);

	/* A summary needs a bundle. */
	sub = test_path(dir, "sideband");
	CHECK_EQ(hwt_bundle_write_summary(sub, 0), -hbe_not_bundle);
	free(sub);
	CHECK_EQ(hwt_bundle_write_summary("/nonexistent/hwt", 0), -hbe_no_dir);

	test_rmtree(dir);
	free(dir);
}

static void check_quote(int argc, const char *const *argv, const char *expect)
{
	char *q = hwt_bundle_quote_argv(argc, (char *const *)argv);

	CHECKF(q && !strcmp(q, expect), "quoted: [%s] expected [%s]", q ? q : "(null)", expect);
	free(q);
}

static void test_quote(void)
{
	static const char *const a1[] = { "/bin/ls", "-l", "a b", "it's", "" };
	static const char *const a2[] = { "x\ny", "back\\slash", "$HOME", "ok_file.c" };
	static const char *const a3[] = { "\x01", "caf\xc3\xa9" };

	check_quote(5, a1, "/bin/ls -l 'a b' 'it'\\''s' ''");
	check_quote(4, a2, "$'x\\ny' 'back\\slash' '$HOME' ok_file.c");
	check_quote(2, a3, "$'\\x01' 'caf\xc3\xa9'");
	check_quote(0, NULL, "");
}

static void test_errstr(void)
{
	int code;

	for (code = hbe_ok; code <= hbe_corrupt; code = HWT_ERR_NEXT(code, hbe_corrupt)) {
		CHECK(strcmp(hwt_bundle_errstr(-code), "unknown error") != 0);
		CHECK(!strcmp(hwt_bundle_errstr(-code), hwt_bundle_errstr(code)));
	}
	CHECK(!strcmp(hwt_bundle_errstr(-HWT_ERR_END), "unknown error"));
	CHECK(hwt_bundle_open(NULL, "x") == -hbe_invalid);
	CHECK(hwt_bundle_image_count(NULL) == 0);
	CHECK(hwt_bundle_diag_at(NULL, 0) == NULL);
	CHECK(hwt_sideband_next(NULL, NULL) == -hbe_invalid);
}

/* One UNTRACED record of untraced.sb for pid (flags: HWT_UNTRACED_CANCEL). */
static void put_native(const char *file, uint32_t pid, const char *path, uint16_t flags)
{
	struct test_rec r;
	struct hwt_record_untraced *u = rec_begin(&r, HWT_RECORD_UNTRACED, sizeof(*u), 1, pid, pid);
	struct hwt_record_header *hdr;

	u->ppid = 1;
	u->hdr.flags = flags;
	rec_string(&r, path);
	rec_string(&r, "no debug info");
	hdr = rec_end(&r);
	test_append(file, hdr, hdr->size);
}

/*
 * sideband/untraced.sb: a native image per record, after its pid's own
 * files; a cancel takes back its pid's last record; a torn tail keeps what
 * came before, with a warning. Each image reads back its own record only.
 */
static void test_untraced_file(void)
{
	char *dir = test_tmpdir("untraced"), *file;
	struct test_bundle tb;
	struct hwt_bundle *b;
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	const struct hwt_bundle_image *image;
	static const struct {
		uint32_t pid, gen;
		const char *path;
	} want[] = {
		{ 100, 2, "/bin/sed" }, /* synth_bundle has 100.0 and 100.1 */
		{ 7, 0, "/bin/cmp" },
		{ 7, 1, "/bin/rm" },
		{ 9, 0, "/bin/true" },
	};
	uint8_t half[40];
	size_t natives_before, i;

	synth_bundle(&tb, dir, 0);
	b = open_ok(dir);
	natives_before = 0;
	for (i = 0; i < hwt_bundle_image_count(b); i++)
		natives_before += hwt_bundle_image_at(b, i)->native;
	hwt_bundle_free(b);

	file = test_path(dir, "sideband/untraced.sb");
	put_native(file, 100, "/bin/sed", 0);
	put_native(file, 7, "/bin/cmp", 0);
	put_native(file, 7, "/bin/diff", 0);
	put_native(file, 7, "/bin/diff", HWT_UNTRACED_CANCEL); /* that exec failed */
	put_native(file, 9, "/bin/true", 0);
	put_native(file, 7, "/bin/rm", 0);
	{
		/* A writer that died mid-record: the first bytes of one. */
		struct test_rec r;
		struct hwt_record_untraced *u =
			rec_begin(&r, HWT_RECORD_UNTRACED, sizeof(*u), 1, 11, 11);

		rec_string(&r, "/bin/ls");
		rec_string(&r, "no debug info");
		memcpy(half, rec_end(&r), sizeof(half));
		(void)u;
	}
	test_append(file, half, sizeof(half));

	b = open_ok(dir);
	CHECK_EQ(count_kind(b, hwt_diag_torn), 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		image = hwt_bundle_image_find(b, want[i].pid, want[i].gen);
		CHECKF(image && image->native && image->shared, "native image %u.%u", want[i].pid,
		       want[i].gen);
		if (!image)
			continue;
		CHECK_EQ(hwt_bundle_image_open(sb, image), 0);
		CHECK_EQ(hwt_sideband_next(sb, &rec), 0);
		CHECK(rec.hdr && rec.hdr->type == HWT_RECORD_UNTRACED && rec.path &&
		      strcmp(rec.path, want[i].path) == 0);
		CHECK_EQ(hwt_sideband_next(sb, &rec), -hbe_eos);
	}
	CHECK(hwt_bundle_image_find(b, 7, 2) == NULL);
	natives_before += sizeof(want) / sizeof(want[0]);
	for (i = 0; i < hwt_bundle_image_count(b); i++)
		natives_before -= hwt_bundle_image_at(b, i)->native;
	CHECK_EQ(natives_before, 0);
	hwt_bundle_free(b);
	hwt_sideband_free(sb);
	synth_free(&tb);
	free(file);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	test_clean();
	test_lost();
	test_warnings();
	test_untraced_file();
	test_header_keys();
	test_create();
	test_quote();
	test_errstr();
	return test_done("test_reader");
}
