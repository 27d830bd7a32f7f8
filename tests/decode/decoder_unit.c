/*
 * Unit tests of the decoder's two parts (converters/decode/decode_int.h):
 * the settings a decode's threads share and one thread's decoder. A
 * decoder made by hwt_decoder_init starts with every field zero but its
 * settings and profile, whatever its memory held (so a field added later
 * is a thread's own too); decoders over the same settings see the same
 * settings and keep caches of their own (code read, the stream buffer);
 * hwt_decoder_fini frees what one keeps (LeakSanitizer in the sanitizer
 * build).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode_int.h"
#include "unit_check.h"

static void test_shared_init(void)
{
	struct hwt_decode_options options = { .jobs = 3 };
	struct hwt_decode_shared s;

	memset(&s, 0xa5, sizeof(s));
	hwt_decode_shared_init(&s, &options);
	CHECK(s.options == &options);
	CHECK(s.bundle == NULL);
	CHECK(s.files == NULL && s.file_count == 0 && s.file_capacity == 0);
	CHECK(s.bundle_start == -1);
	CHECK(s.trace_cap == 0 && s.pt_kernel == 0 && s.pt_async_resume == 0);
}

/* Every byte of a new decoder is zero but its settings and profile. */
static void test_init_zeroes(void)
{
	struct hwt_decode_shared s;
	struct hwt_profile *profile = hwt_profile_alloc();
	struct hwt_decoder d, want;

	hwt_decode_shared_init(&s, NULL);
	memset(&d, 0xa5, sizeof(d));
	hwt_decoder_init(&d, &s, profile);
	memset(&want, 0, sizeof(want));
	want.shared = &s;
	want.profile = profile;
	CHECK(!memcmp(&d, &want, sizeof(d)));
	hwt_decoder_fini(&d);
	hwt_profile_free(profile);
}

static struct hwt_code_key key_at(uint64_t offset)
{
	/* A key names a file by address only: any object's will do. */
	static const struct hwt_file file;

	return (struct hwt_code_key){ &file, 0, 1 << 20, offset, hwt_code_chain, 0 };
}

/* A stream file of n bytes (hwt_stream_bytes reads it), at path. */
static int stream_file(char *path, size_t size, struct hwt_bundle_stream *st, size_t n)
{
	unsigned char bytes[256];
	int fd;

	snprintf(path, size, "/tmp/hwt_decoder_unit.%d.pt", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	for (size_t k = 0; k < sizeof(bytes); k++)
		bytes[k] = (unsigned char)k;
	if (write(fd, bytes, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	close(fd);
	memset(st, 0, sizeof(*st));
	st->path = path;
	st->size = n;
	return 0;
}

/* Two decoders over the same settings: one set of settings, two sets of caches. */
static void test_workers_apart(void)
{
	struct hwt_decode_options one = { .jobs = 1 }, two = { .jobs = 2 };
	struct hwt_decode_shared s;
	struct hwt_profile *profile = hwt_profile_alloc(), *other = hwt_profile_alloc();
	struct hwt_decoder main_d, worker;
	struct hwt_code_key key = key_at(0x1234);
	struct hwt_bundle_stream st;
	char path[64];
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	unsigned char *v, *w;

	hwt_decode_shared_init(&s, &one);
	hwt_decoder_init(&main_d, &s, profile);
	v = hwt_code_add(&main_d, &key, 16);
	CHECK(v != NULL);
	if (v)
		memset(v, 0x11, 16);
	CHECK(hwt_code_find(&main_d, &key) == v);

	/* A worker made after the main decoder cached code: none of it. */
	hwt_decoder_init(&worker, &s, other);
	CHECK(worker.shared == main_d.shared && worker.profile == other);
	CHECK(worker.code == NULL && worker.edge_pool == NULL && worker.edge_layouts == NULL &&
	      worker.edge_runs == NULL && worker.stream_buf == NULL && worker.fails == NULL);
	CHECK(hwt_code_find(&worker, &key) == NULL);
	w = hwt_code_add(&worker, &key, 16);
	CHECK(w != NULL && w != v);
	if (w)
		memset(w, 0x22, 16);
	CHECK(hwt_code_find(&worker, &key) == w);
	CHECK(v && v[0] == 0x11 && v[15] == 0x11);

	/* The settings are one: what the main thread sets, the worker reads. */
	hwt_decoder_set_options(&main_d, &two);
	CHECK(worker.shared->options == &two);

	/* Each reads short streams into a buffer of its own. */
	if (stream_file(path, sizeof(path), &st, 200) == 0) {
		a = hwt_stream_bytes(&main_d, &st, &na);
		b = hwt_stream_bytes(&worker, &st, &nb);
		CHECK(a && a == main_d.stream_buf && na == 200);
		CHECK(b && b == worker.stream_buf && nb == 200);
		CHECK(a != b);
		CHECK(a && b && !memcmp(a, b, 200) && a[199] == 199);
		hwt_stream_bytes_done(&main_d, a, na);
		hwt_stream_bytes_done(&worker, b, nb);
		unlink(path);
	} else {
		CHECK(!"a stream file in /tmp");
	}

	/* The worker's end frees its own, and only its own. */
	worker.fails = calloc(4, sizeof(*worker.fails));
	CHECK(worker.fails != NULL);
	hwt_decoder_fini(&worker);
	CHECK(worker.code == NULL && worker.stream_buf == NULL && worker.fails == NULL);
	CHECK(hwt_code_find(&main_d, &key) == v);
	CHECK(main_d.stream_buf != NULL);
	hwt_files_free(&main_d); /* the main decoder's caches, then the (no) files */
	CHECK(main_d.code == NULL && main_d.stream_buf == NULL);
	hwt_decoder_fini(&main_d);
	hwt_profile_free(other);
	hwt_profile_free(profile);
}

int main(void)
{
	test_shared_init();
	test_init_zeroes();
	test_workers_apart();
	return unit_exit("decoder_unit");
}
