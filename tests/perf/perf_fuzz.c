/*
 * perf.data damaged every way: every truncation point of a file written by
 * hwt export, then many seeded random corruptions aimed at what a reader
 * trusts (the header's sections, feature offsets, record sizes, AUXTRACE
 * sizes) and at random bytes. The reader (perfdata/) and the import
 * (collector/perf) must never crash, hang or read out of bounds (built with
 * -DHWT_SANITIZE=ON the sanitizers watch), must always answer with a sane
 * status, an error with a message, and records only from inside the file.
 *
 * usage: perf_fuzz FILE WORKDIR [SEED [ITERATIONS]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_perf_import.h"
#include "hwt_perfdata.h"

static uint64_t rng_state;
static unsigned failures;
static const char *workdir;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

#define CHECK(cond, ...) do {                                  \
		if (!(cond)) {                                  \
			failures++;                             \
			fprintf(stderr, "FAIL: " __VA_ARGS__);  \
			fputc('\n', stderr);                    \
		}                                               \
	} while (0)

/* An in-memory file with these bytes (a regular file: the reader maps it). */
static int memfile(const uint8_t *data, size_t size)
{
	int fd = memfd_create("perf_fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
		perror("memfd");
		exit(2);
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* A reader's warning: a message, never an empty one. */
static void check_warning(void *context, const char *message)
{
	CHECK(message && message[0], "%s: an empty warning", (const char *)context);
}

/* Reads every record of the file fd (size bytes); checks what the reader hands out. */
static void read_fd(int fd, size_t size, const char *what)
{
	struct hwt_perf_reader *r = hwt_perf_reader_alloc();
	struct hwt_perf_record rec;
	int err;
	uint64_t n = 0;

	lseek(fd, 0, SEEK_SET);
	hwt_perf_reader_set_warn(r, &(struct hwt_warn_sink){ check_warning, (void *)what });
	err = hwt_perf_reader_open_fd(r, fd, what);
	if (err) {
		CHECK(err < 0 && hwt_perf_reader_error(r)[0], "%s: open fails without a message", what);
		goto out;
	}
	for (size_t i = 0; i < hwt_perf_build_id_count(r); i++)
		(void)strlen(hwt_perf_build_id_at(r, i)->filename);
	for (size_t i = 0; i < HWT_PERF_FEAT_BITS; i++) {
		const char *s = hwt_perf_feature_string(r, (unsigned)i);

		if (s)
			(void)strlen(s);
	}
	while (!(err = hwt_perf_reader_next(r, &rec))) {
		n++;
		CHECK(rec.size >= 8, "%s: a record of %u bytes", what, rec.size);
		if (!rec.compressed && !hwt_perf_reader_pipe_mode(r))
			CHECK(rec.offset + rec.size <= size, "%s: a record past the end", what);
		if (rec.type == PERF_RECORD_MMAP2 || rec.type == PERF_RECORD_MMAP)
			(void)strlen(rec.u.mmap.filename);
		if (rec.type == PERF_RECORD_COMM)
			(void)strlen(rec.u.comm.comm);
		if (rec.type == HWT_PERF_RECORD_AUXTRACE && rec.u.auxtrace.data_size) {
			volatile uint8_t x = rec.u.auxtrace.data[rec.u.auxtrace.data_size - 1];

			(void)x;
			CHECK(rec.u.auxtrace.data_size <= rec.u.auxtrace.size,
			      "%s: more AUX data than the record says", what);
		}
		if (rec.type == HWT_PERF_RECORD_AUXTRACE_INFO)
			for (size_t k = 0; k < rec.u.auxtrace_info.npriv; k++)
				(void)rec.u.auxtrace_info.priv[k];
		CHECK(n < 10 * 1000 * 1000, "%s: records without end", what);
		if (n >= 10 * 1000 * 1000)
			break;
	}
	CHECK(err == -hpf_eos || hwt_perf_reader_error(r)[0],
	      "%s: stops with %s and no message", what, hwt_perf_errstr(err));
out:
	hwt_perf_reader_free(r);
}

static void read_all(const uint8_t *data, size_t size, const char *what)
{
	int fd = memfile(data, size);

	read_fd(fd, size, what);
	close(fd);
}

static void quiet(void *context, const char *message)
{
	(void)context;
	(void)message;
}

/* The import of the damaged file: 0 or an error with its text. */
static void import(const uint8_t *data, size_t size, const char *what)
{
	struct hwt_perf_import_options o = { 0 };
	char path[64], dir[4096], error[512] = "", cmd[4200];
	int fd = memfile(data, size), err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	snprintf(dir, sizeof(dir), "%s/import", workdir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		exit(2);
	o.warn.fn = quiet;
	o.error = error;
	o.error_size = sizeof(error);
	err = hwt_perf_import(path, dir, &o, NULL);
	CHECK(err <= 0, "%s: import returns %d", what, err);
	CHECK(!err || error[0], "%s: import fails (%s) without a message", what,
	      hwt_perf_import_errstr(err));
	close(fd);
}

static uint8_t *slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1)) ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size) {
		perror(path);
		exit(2);
	}
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* Offsets of the records of a file-mode file (to aim at their fields). */
static size_t record_offsets(const uint8_t *d, size_t size, uint64_t *out, size_t max)
{
	uint64_t off, len, at, n = 0;

	if (size < 104)
		return 0;
	memcpy(&off, d + 40, 8);
	memcpy(&len, d + 48, 8);
	for (at = off; at + 8 <= size && at < off + len && n < max;) {
		uint16_t rsize;
		uint32_t type;

		memcpy(&type, d + at, 4);
		memcpy(&rsize, d + at + 6, 2);
		if (rsize < 8)
			break;
		out[n++] = at;
		if (type == HWT_PERF_RECORD_AUXTRACE && at + 16 <= size) {
			uint64_t aux;

			memcpy(&aux, d + at + 8, 8);
			if (aux > size)
				break;
			at += aux;
		}
		at += rsize;
	}
	return n;
}

int main(int argc, char **argv)
{
	size_t size, nrec;
	uint8_t *orig, *buf;
	uint64_t iterations = 2000, *recs, seed;
	char what[128];

	if (argc < 3) {
		fprintf(stderr, "usage: perf_fuzz FILE WORKDIR [SEED [ITERATIONS]]\n");
		return 2;
	}
	workdir = argv[2];
	rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x5eedf00dull;
	seed = rng_state;
	if (argc > 4)
		iterations = strtoull(argv[4], NULL, 0);
	orig = slurp(argv[1], &size);
	buf = malloc(size + 64);
	recs = calloc(65536, sizeof(*recs));
	nrec = record_offsets(orig, size, recs, 65536);

	/* Every truncation point, from the end down in one file (the import at some). */
	{
		int fd = memfile(orig, size);

		for (size_t cut = size; cut-- > 0;) {
			if (ftruncate(fd, (off_t)cut) < 0) {
				perror("ftruncate");
				return 2;
			}
			snprintf(what, sizeof(what), "cut at %zu", cut);
			read_fd(fd, cut, what);
			if (cut % 2039 == 0)
				import(orig, cut, what);
		}
		close(fd);
	}
	for (uint64_t it = 0; it < iterations; it++) {
		size_t n = size;
		uint64_t v;

		memcpy(buf, orig, size);
		switch (below(7)) {
		case 0: /* bit flips */
			for (int k = 0; k < 1 + (int)below(8); k++)
				buf[below(size)] ^= (uint8_t)(1u << below(8));
			break;
		case 1: /* the header's sections and feature bits */
			v = below(4) ? rng() : below(2 * size);
			memcpy(buf + 16 + 8 * below(11), &v, 8);
			break;
		case 2: /* a feature section's offset or size */
			if (size > 104) {
				uint64_t off, len;

				memcpy(&off, buf + 40, 8);
				memcpy(&len, buf + 48, 8);
				if (off + len + 16 <= size) {
					v = below(2) ? rng() : below(size + 1000);
					memcpy(buf + off + len + 8 * below(8) % (size - off - len - 7),
					       &v, 8);
				}
			}
			break;
		case 3: /* a record's size */
			if (nrec) {
				static const uint16_t sizes[] = { 0, 1, 4, 7, 8, 9, 15, 16, 0xffff };
				uint16_t s = below(2) ? sizes[below(9)] : (uint16_t)rng();

				memcpy(buf + recs[below(nrec)] + 6, &s, 2);
			}
			break;
		case 4: /* an AUXTRACE record's size, or any u64 of a record */
			if (nrec) {
				uint64_t at = recs[below(nrec)];

				v = below(2) ? rng() : (uint64_t)below(2 * size);
				if (at + 16 <= size)
					memcpy(buf + at + 8 + 8 * below(4) % (size - at - 15), &v, 8);
			}
			break;
		case 5: /* random bytes */
			for (int k = 0; k < 1 + (int)below(4); k++)
				buf[below(size)] = (uint8_t)rng();
			break;
		case 6: /* truncated after a corruption */
			buf[below(size)] ^= 0xff;
			n = below(size);
			break;
		}
		snprintf(what, sizeof(what), "mutation %" PRIu64, it);
		read_all(buf, n, what);
		/* The import writes a bundle (two fsyncs): at some of them. */
		if (it % 29 == 0)
			import(buf, n, what);
	}
	printf("perf_fuzz: %s, seed %#" PRIx64 ": %zu truncations, %" PRIu64 " mutations, "
	       "%u failures\n", argv[1], seed, size, iterations,
	       failures);
	free(orig);
	free(buf);
	free(recs);
	return failures ? 1 : 0;
}
