/*
 * Every truncation point of every file of a bundle, then many seeded random
 * corruptions (some resealed so that the CRC passes and the payload decoder
 * is what gets tested): the library and hwt dump must never crash, hang or
 * read out of bounds (run it built with -DHWT_SANITIZE=ON), and must always
 * answer with a sane status.
 *
 * usage: test_bundle_fuzz [SEED [ITERATIONS]]
 */
#include "testlib.h"
#include "commands.h"
#include "hwt_dump.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *devnull;
static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

/* Touches every byte of s, so that the sanitizer sees a string that runs over. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* A decoded string lies inside its record, NUL included. */
static void check_string(const struct hwt_sideband_record *rec, const char *s, const char *what)
{
	const char *begin = (const char *)rec->hdr, *end = begin + rec->hdr->size;

	if (!s)
		return;
	CHECKF(s >= begin + sizeof(*rec->hdr) && s < end && memchr(s, '\0', (size_t)(end - s)),
	       "%s: a string of the record at %" PRIu64 " is outside it", what, rec->offset);
	touch(s);
}

static void exercise(const char *dir, const char *what)
{
	struct hwt_dump_options all = { .pid = -1, .packets = 1 };
	struct hwt_dump_options sb_only = { .pid = -1, .sideband_only = 1 };
	struct hwt_bundle *b = hwt_bundle_alloc();
	struct hwt_sideband *sb = hwt_sideband_alloc();
	int err, status, expect_dump;
	size_t i;

	err = hwt_bundle_open(b, dir);
	for (i = 0; i < hwt_bundle_diag_count(b); i++)
		touch(hwt_bundle_diag_at(b, i)->message);
	if (err) {
		CHECKF(err == -hbe_not_bundle || err == -hbe_bad_header || err == -hbe_version,
		       "%s: open: %s", what, hwt_bundle_errstr(err));
		CHECKF(hwt_bundle_diag_count(b) == 1, "%s: one diagnostic on failure", what);
		expect_dump = HWT_DUMP_UNUSABLE;
	} else {
		expect_dump = -1;
	}
	for (i = 0; !err && i < hwt_bundle_image_count(b); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(b, i);
		struct hwt_sideband_record rec;
		uint64_t n = 0;
		uint32_t a;

		CHECK_EQ(hwt_sideband_open(sb, image->path), 0);
		while ((status = hwt_sideband_next(sb, &rec)) == 0) {
			n++;
			if (!CHECKF(rec.hdr->size >= sizeof(*rec.hdr) &&
				    rec.offset + rec.hdr->size <= image->size,
				    "%s: record at %" PRIu64 " out of the file", what, rec.offset))
				break;
			check_string(&rec, rec.path, what);
			check_string(&rec, rec.reason, what);
			for (a = 0; rec.argv && a < rec.argc; a++)
				check_string(&rec, rec.argv[a], what);
			if (rec.argv)
				CHECK(rec.argv[rec.argc] == NULL);
		}
		CHECKF(status == -hbe_eos || status == -hbe_torn || status == -hbe_corrupt,
		       "%s: %s: status %d", what, image->name, status);
		CHECK_EQ(n, image->records);
		CHECK_EQ(status == -hbe_eos ? 0 : status, image->end);
		touch(hwt_sideband_error(sb));
	}
	hwt_sideband_free(sb);
	hwt_bundle_free(b);

	status = hwt_dump(dir, &all, devnull, devnull);
	if (expect_dump >= 0)
		CHECKF(status == expect_dump, "%s: dump --packets exit %d", what, status);
	else
		CHECKF(status == HWT_DUMP_OK || status == HWT_DUMP_WARNINGS,
		       "%s: dump --packets exit %d", what, status);
	status = hwt_dump(dir, &sb_only, devnull, devnull);
	CHECKF(status >= 0 && status <= 2, "%s: dump --sideband-only exit %d", what, status);
}

struct file {
	char *rel;
	char *path;
	char *bytes;
	size_t len;
};

/* Re-seals every record of a sideband image that still has a sane header. */
static void reseal(char *bytes, size_t len)
{
	static uint64_t rec[HWT_RECORD_MAX_SIZE / 8];
	size_t at = 0;

	while (at + sizeof(struct hwt_record_header) <= len) {
		struct hwt_record_header *hdr = (struct hwt_record_header *)rec;

		memcpy(rec, bytes + at, sizeof(*hdr));
		if (hdr->magic != HWT_RECORD_MAGIC || hdr->size < sizeof(*hdr) ||
		    hdr->size > HWT_RECORD_MAX_SIZE || hdr->size % 8 || at + hdr->size > len)
			return;
		memcpy(rec, bytes + at, hdr->size);
		hwt_record_seal(hdr);
		memcpy(bytes + at, rec, hdr->size);
		at += hdr->size;
	}
}

static void mutate(struct file *f, char *buf, size_t *len, int sideband)
{
	static const uint32_t words[] = { 0, 1, 7, 8, 32, 40, 0x7fffffff, 0x80000000u,
					  0xffffffffu, 65536, 65544, HWT_RECORD_MAGIC };
	unsigned kind = (unsigned)rng_below(6), i, n;

	memcpy(buf, f->bytes, f->len);
	*len = f->len;
	if (!f->len)
		return;
	switch (kind) {
	case 0: /* flip bits */
		n = 1 + (unsigned)rng_below(4);
		for (i = 0; i < n; i++)
			buf[rng_below(*len)] ^= (char)(1u << rng_below(8));
		break;
	case 1: /* random bytes */
		n = 1 + (unsigned)rng_below(8);
		for (i = 0; i < n; i++)
			buf[rng_below(*len)] = (char)rng();
		break;
	case 2: /* an interesting 32-bit word at an aligned place */
		if (*len >= 4) {
			size_t at = rng_below(*len / 4) * 4;
			uint32_t w = words[rng_below(sizeof(words) / sizeof(words[0]))];

			memcpy(buf + at, &w, 4);
		}
		break;
	case 3: /* truncate and flip */
		*len = rng_below(*len);
		if (*len)
			buf[rng_below(*len)] ^= (char)0xff;
		break;
	case 4: /* zero a run */
		{
			size_t at = rng_below(*len), n2 = rng_below(64);

			if (n2 > *len - at)
				n2 = *len - at;
			memset(buf + at, 0, n2);
		}
		break;
	default: /* random bytes after the headers' magic, then CRCs fixed */
		n = 1 + (unsigned)rng_below(6);
		for (i = 0; i < n; i++) {
			size_t at = rng_below(*len);

			if (rng_below(2))
				buf[at] = (char)rng();
			else
				buf[at] ^= (char)(1u << rng_below(8));
		}
		break;
	}
	if (sideband && (kind == 5 || kind == 2))
		reseal(buf, *len);
}

static void on_alarm(int sig)
{
	static const char msg[] = "test_fuzz: timed out: a hang?\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	static const char *const rels[] = {
		"hwt-bundle", "summary", "sideband/100.0.sb", "sideband/100.1.sb",
		"sideband/102.0.sb", "streams/100.0-100.pt", "streams/100.0-101.pt",
		"streams/100.1-100.pt", "streams/102.0-102.pt",
	};
	enum { NFILES = sizeof(rels) / sizeof(rels[0]) };
	struct file files[NFILES];
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eedf00dull;
	long iterations = argc > 2 ? strtol(argv[2], NULL, 0) : 3000;
	struct test_bundle tb;
	char *dir = test_tmpdir("fuzz"), what[128], *buf;
	size_t i, cut, len;
	long it;

	signal(SIGALRM, on_alarm);
	alarm(280);
	devnull = fopen("/dev/null", "w");
	rng_state = seed ? seed : 1;
	printf("test_fuzz: seed 0x%" PRIx64 ", %ld random corruptions\n", seed, iterations);

	synth_bundle(&tb, dir, SYNTH_SUMMARY | SYNTH_LOST);
	for (i = 0; i < NFILES; i++) {
		files[i].rel = (char *)rels[i];
		files[i].path = test_path(dir, rels[i]);
		files[i].bytes = test_read(files[i].path, &files[i].len);
		if (!files[i].bytes)
			return 99;
	}
	buf = malloc(HWT_RECORD_MAX_SIZE * 2);

	exercise(dir, "intact");

	/* Every truncation point of every file. */
	for (i = 0; i < NFILES; i++) {
		for (cut = 0; cut < files[i].len; cut++) {
			test_write(files[i].path, files[i].bytes, cut);
			snprintf(what, sizeof(what), "%s cut at %zu", files[i].rel, cut);
			exercise(dir, what);
		}
		test_write(files[i].path, files[i].bytes, files[i].len);
	}

	/* Random corruptions, one file at a time. */
	for (it = 0; it < iterations; it++) {
		struct file *f = &files[rng_below(NFILES)];
		int sideband = !strncmp(f->rel, "sideband/", 9);

		mutate(f, buf, &len, sideband);
		test_write(f->path, buf, len);
		snprintf(what, sizeof(what), "iteration %ld (%s)", it, f->rel);
		exercise(dir, what);
		test_write(f->path, f->bytes, f->len);
	}

	/* Several files at once. */
	for (it = 0; it < iterations / 10; it++) {
		for (i = 0; i < NFILES; i++) {
			mutate(&files[i], buf, &len, !strncmp(files[i].rel, "sideband/", 9));
			test_write(files[i].path, buf, len);
		}
		snprintf(what, sizeof(what), "all files, iteration %ld", it);
		exercise(dir, what);
	}

	for (i = 0; i < NFILES; i++) {
		free(files[i].path);
		free(files[i].bytes);
	}
	free(buf);
	fclose(devnull);
	synth_free(&tb);
	test_rmtree(dir);
	free(dir);
	return test_done("test_fuzz");
}
