/*
 * The DT_NEEDED walk of the preloaded library (collector/select/needed.c):
 * the closure of real programs matches what ld.so loads (`ldd`, given as
 * the expected list), a non-ELF file ahead in LD_LIBRARY_PATH is skipped as
 * ld.so skips it, and mutated or truncated executables never make it read
 * out of bounds (run under ASan+UBSan) nor visit more than the cap.
 * With the sanitizers, this program itself needs more libraries than
 * usual: its own file is the one mutated.
 *
 * usage: needed_check PROGRAM EXPECTED_LIBS_FILE WORKDIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "needed.h"

static int failures;

#define CHECK(cond, ...)                                  \
	do {                                              \
		if (!(cond)) {                            \
			failures++;                       \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);              \
			printf("\n");                     \
		}                                         \
	} while (0)

struct seen {
	char paths[HWT_NEEDED_MAX_LIBS + 8][PATH_MAX];
	int n, calls;
	const char *stop_at; /* base name to accept, or NULL */
};

static int collect(void *ctx, const char *path, int fd)
{
	struct seen *s = ctx;
	const char *base = strrchr(path, '/');

	s->calls++;
	if (fd < 0 || path[0] != '/')
		s->calls += 1000; /* noticed below */
	if (s->n < (int)(sizeof(s->paths) / sizeof(s->paths[0])))
		snprintf(s->paths[s->n++], PATH_MAX, "%s", path);
	return s->stop_at && base && strcmp(base + 1, s->stop_at) == 0;
}

static int walk(const char *exe, char *const envp[], struct seen *s, char *found)
{
	char real[PATH_MAX];
	int fd, r;

	if (!realpath(exe, real) || (fd = open(real, O_RDONLY)) < 0)
		return -1;
	r = hwt_needed_find(fd, real, envp, collect, s, found, PATH_MAX);
	close(fd);
	return r;
}

static int has(const struct seen *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->paths[i], path) == 0)
			return 1;
	return 0;
}

/* The closure equals ldd's list (canonical paths, the loader left out). */
static void check_closure(const char *exe, const char *expected_file)
{
	static struct seen s;
	char line[PATH_MAX], found[PATH_MAX];
	int expected = 0;
	FILE *f = fopen(expected_file, "r");
	char *envp[] = { NULL };

	memset(&s, 0, sizeof(s));
	CHECK(walk(exe, envp, &s, found) == 0, "%s: a library was accepted", exe);
	CHECK(s.calls == s.n, "%s: a callback without descriptor or canonical path", exe);
	CHECK(f != NULL, "%s: cannot read", expected_file);
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		expected++;
		CHECK(has(&s, line), "%s: %s not in the closure", exe, line);
	}
	if (f)
		fclose(f);
	CHECK(s.n == expected, "%s: %d libraries walked, ldd lists %d", exe, s.n, expected);
	for (int i = 0; i < s.n; i++)
		printf("  %s\n", s.paths[i]);

	/* Stopping at a library: the walk ends there and says which. */
	if (s.n > 0) {
		const char *last = strrchr(s.paths[s.n - 1], '/') + 1;
		static struct seen t;
		char want[PATH_MAX];

		snprintf(want, sizeof(want), "%s", s.paths[s.n - 1]);
		memset(&t, 0, sizeof(t));
		t.stop_at = last;
		CHECK(walk(exe, envp, &t, found) == 1 && strcmp(found, want) == 0,
		      "%s: stopping at %s", exe, last);
	}
}

/* A file that is not ELF, ahead in LD_LIBRARY_PATH, is passed over. */
static void check_skip_non_elf(const char *exe, const char *work)
{
	static struct seen s, plain;
	char dir[1024], file[2048], env[2 * 1024 + 32], found[PATH_MAX];
	char *envp[] = { env, NULL }, *none[] = { NULL };
	int fd;

	snprintf(dir, sizeof(dir), "%s/not-elf", work);
	mkdir(dir, 0755);
	memset(&plain, 0, sizeof(plain));
	walk(exe, none, &plain, found);
	for (int i = 0; i < plain.n; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, strrchr(plain.paths[i], '/') + 1);
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			CHECK(write(fd, "not an ELF file\n", 16) == 16, "write");
			close(fd);
		}
	}
	snprintf(env, sizeof(env), "LD_LIBRARY_PATH=%s::%s", dir, dir);
	memset(&s, 0, sizeof(s));
	walk(exe, envp, &s, found);
	CHECK(s.n == plain.n, "non-ELF files in LD_LIBRARY_PATH: %d libraries, %d without", s.n,
	      plain.n);
	for (int i = 0; i < s.n; i++)
		CHECK(strncmp(s.paths[i], dir, strlen(dir)) != 0, "took %s", s.paths[i]);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Mutated and truncated copies of exe: no crash, no read out of bounds, the cap holds. */
static void check_mutations(const char *exe, const char *work, int rounds)
{
	static unsigned char orig[4 << 20], buf[4 << 20];
	static struct seen s;
	char path[PATH_MAX], found[PATH_MAX];
	char *envp[] = { "LD_LIBRARY_PATH=$ORIGIN:${ORIGIN}/x:$LIB:$PLATFORM:${BAD", NULL };
	ssize_t size;
	int fd = open(exe, O_RDONLY), accepted = 0;

	size = fd >= 0 ? read(fd, orig, sizeof(orig)) : -1;
	if (fd >= 0)
		close(fd);
	CHECK(size > 4096, "%s: cannot read it", exe);
	if (size <= 4096)
		return;
	snprintf(path, sizeof(path), "%s/mutant", work);
	for (int r = 0; r < rounds; r++) {
		size_t len = (size_t)size;
		int k = 1 + (int)rnd(8);

		memcpy(buf, orig, len);
		for (int i = 0; i < k; i++) {
			/* mostly the headers and tables at the start, sometimes anywhere */
			size_t at = rnd(4) ? rnd(4096) : rnd((unsigned)len);
			buf[at] = rnd(3) ? (unsigned char)rnd(256) : 0xff;
		}
		if (rnd(8) == 0)
			len = rnd((unsigned)len);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
			CHECK(0, "cannot write %s", path);
			if (fd >= 0)
				close(fd);
			return;
		}
		memset(&s, 0, sizeof(s));
		s.stop_at = rnd(2) ? "libc.so.6" : NULL;
		accepted += hwt_needed_find(fd, path, envp, collect, &s, found, PATH_MAX) == 1;
		CHECK(s.calls <= HWT_NEEDED_MAX_LIBS, "round %d: %d libraries", r, s.calls);
		close(fd);
	}
	unlink(path);
	printf("  %d mutants of %s walked (%d stopped at libc)\n", rounds, exe, accepted);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: needed_check PROGRAM EXPECTED_LIBS_FILE WORKDIR\n");
		return 2;
	}
	check_closure(argv[1], argv[2]);
	check_skip_non_elf(argv[1], argv[3]);
	/* This program: several DT_NEEDED, some found through the cache, others not. */
	check_mutations("/proc/self/exe", argv[3], 3000);
	printf("needed_check: %s\n", failures ? "FAILED" : "all passed");
	return failures != 0;
}
