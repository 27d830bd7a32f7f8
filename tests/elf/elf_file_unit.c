/*
 * The converters' ELF reader (converters/elf) on files that are not what
 * it wants, and on this test's own executable, checked against what the
 * dynamic loader mapped of it (dl_iterate_phdr, getauxval): the build-id
 * note, the entry point, the code bytes of a function and its symbol, the
 * PLT entry of a libc function it calls; and the first bytes of it cut off
 * at several lengths.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debug_file.h"
#include "elf_file.h"
#include "elf_note.h"
#include "unit_check.h"

/* What the loader says of the executable: its load bias and build-id. */
struct loaded {
	uintptr_t bias;
	uint8_t build_id[HWT_ELF_BUILD_ID_MAX];
	uint32_t build_id_size;
	int found;
};

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded *l = arg;

	(void)size;
	if (l->found)
		return 0;
	l->found = 1; /* the first object is the executable */
	l->bias = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum && !l->build_id_size; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *desc;
		uint32_t n;

		if (ph->p_type != PT_NOTE)
			continue;
		n = hwt_elf_note_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
					  ph->p_memsz, HWT_ELF_BUILD_ID_MAX, &desc);
		if (n) {
			memcpy(l->build_id, desc, n);
			l->build_id_size = n;
		}
	}
	return 0;
}

static char *temp_file(const void *bytes, size_t n)
{
	char *path = strdup("/tmp/elf_file_unit.XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0) {
		free(path);
		return NULL;
	}
	if (write(fd, bytes, n) != (ssize_t)n) {
		close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static void test_not_elf(void)
{
	struct hwt_elf_file f;
	char *path;

	errno = 0;
	CHECK(hwt_elf_file_open(&f, "/nonexistent/file") == -hee_io && errno == ENOENT);
	errno = 0;
	CHECK(hwt_elf_file_open(&f, "/tmp") == -hee_io && errno == EINVAL);
	CHECK(hwt_elf_file_open(&f, NULL) == -hee_invalid);
	CHECK(hwt_elf_file_open(NULL, "/tmp") == -hee_invalid);

	path = temp_file("", 0);
	CHECK(path != NULL);
	if (path) {
		CHECK(hwt_elf_file_open(&f, path) == 0);
		CHECK(!f.is_elf && !f.data && f.size == 0 && f.load_count == 0);
		hwt_elf_file_close(&f);
		unlink(path);
		free(path);
	}
	path = temp_file("hello, not an ELF file\n", 23);
	CHECK(path != NULL);
	if (path) {
		size_t avail = 0;

		CHECK(hwt_elf_file_open(&f, path) == 0);
		CHECK(!f.is_elf && f.size == 23 && !memcmp(f.data, "hello", 5));
		CHECK(f.build_id_size == 0 && !f.has_symtab);
		CHECK(hwt_elf_file_vaddr(&f, 7) == 7);
		CHECK(hwt_elf_file_code(&f, 0, &avail) == NULL);
		CHECK(hwt_elf_file_function_in(&f, "main", 0, UINT64_MAX) == 0);
		hwt_elf_file_close(&f);
		unlink(path);
		free(path);
	}
}

/* The first bytes of a real ELF file: a header whose tables are cut off. */
static void test_truncated(const struct hwt_elf_file *self)
{
	struct hwt_elf_file f;

	for (size_t cut = 16; cut <= 4096 && cut < self->size; cut *= 2) {
		char *path = temp_file(self->data, cut);

		CHECK(path != NULL);
		if (!path)
			return;
		CHECK(hwt_elf_file_open(&f, path) == 0);
		for (size_t i = 0; i < f.load_count; i++) {
			size_t avail = 0;
			const uint8_t *code = hwt_elf_file_code(&f, f.loads[i].vaddr, &avail);

			CHECK(!code || (code >= f.data && code + avail <= f.data + f.size));
		}
		(void)hwt_elf_file_function_in(&f, "main", 0, UINT64_MAX);
		hwt_elf_file_close(&f);
		unlink(path);
		free(path);
	}
}

/* The symbol table holds this static function (its size, local) and main
   (global); the PLT has an entry for dl_iterate_phdr, in executable code. */
static void test_symbols(struct hwt_elf_file *f, uint64_t self)
{
	const struct hwt_elf_symbol *syms;
	struct hwt_elf_symbol *plt;
	size_t n = 0, nplt = 0, avail;
	int found_self = 0, found_main = 0, found_plt = 0;

	CHECK(hwt_elf_file_symbols(f, &syms, &n) == 0 && n > 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(i == 0 || syms[i - 1].addr <= syms[i].addr);
		if (!strcmp(syms[i].name, "test_self"))
			found_self = syms[i].addr == self && syms[i].size > 16 &&
				     !(syms[i].flags & HWT_ELF_SYMBOL_GLOBAL);
		if (!strcmp(syms[i].name, "main"))
			found_main = (syms[i].flags & HWT_ELF_SYMBOL_GLOBAL) != 0;
	}
	CHECK(found_self && found_main);
	CHECK(hwt_elf_file_plt(f, &plt, &nplt) == 0);
	for (size_t i = 0; i < nplt; i++)
		if (!strcmp(plt[i].name, "dl_iterate_phdr"))
			found_plt = plt[i].size == 16 && hwt_elf_file_code(f, plt[i].addr, &avail);
	/* Built with -fno-plt, there is no PLT. */
	CHECK(found_plt || nplt == 0);
	free(plt);
}

static void test_self(void)
{
	struct hwt_elf_file f;
	struct loaded l = { 0 };
	uint64_t vaddr;
	const uint8_t *code;
	size_t avail = 0;

	dl_iterate_phdr(each_object, &l);
	CHECK(l.found);
	CHECK(hwt_elf_file_open(&f, "/proc/self/exe") == 0);
	CHECK(f.is_elf && f.load_count >= 2 && f.has_symtab);
	CHECK(l.build_id_size > 0);
	CHECK(f.build_id_size == l.build_id_size &&
	      !memcmp(f.build_id, l.build_id, l.build_id_size));

	/* This function's code as the loader mapped it, and its symbol. */
	vaddr = (uint64_t)((uintptr_t)&test_self - l.bias);
	code = hwt_elf_file_code(&f, vaddr, &avail);
	CHECK(code != NULL && avail >= 16);
	if (code && avail >= 16)
		CHECK(!memcmp(code, (const void *)(uintptr_t)&test_self, 16));
	if (code)
		CHECK(hwt_elf_file_vaddr(&f, (uint64_t)(code - f.data)) == vaddr);
	CHECK(hwt_elf_file_function_in(&f, "test_self", vaddr, vaddr + 1) == vaddr);
	CHECK(hwt_elf_file_function_in(&f, "test_self", vaddr + 1, vaddr + 2) == 0);
	CHECK(hwt_elf_file_function_in(&f, "test_not_elf", vaddr, vaddr + 1) == 0);
	if (code)
		CHECK(hwt_elf_file_offset(&f, vaddr) == (uint64_t)(code - f.data));
	CHECK(f.type == ET_DYN || f.type == ET_EXEC);
	CHECK(f.entry == getauxval(AT_ENTRY) - l.bias);
	test_symbols(&f, vaddr);
	test_truncated(&f);
	hwt_elf_file_close(&f);
	CHECK(f.data == NULL && f.loads == NULL && f.symbols == NULL);
}

/* Copies the file at from to to; 0 or -1. */
static int copy_file(const char *from, const char *to)
{
	struct hwt_elf_file f;
	FILE *out;
	int ok;

	if (hwt_elf_file_open(&f, from) < 0)
		return -1;
	out = fopen(to, "wb");
	ok = out && fwrite(f.data, 1, f.size, out) == f.size;
	if (out && fclose(out) != 0)
		ok = 0;
	hwt_elf_file_close(&f);
	return ok ? 0 : -1;
}

/*
 * Separate debug files (debug_file.h): the CRC32 of .gnu_debuglink (zlib's),
 * a file with DWARF of its own, a .build-id tree under a debug directory
 * taken only with the image's build-id.
 */
static void test_debug_file(void)
{
	char dir[] = "/tmp/hwt_debug_file_XXXXXX", sub[128], path[256], other[256];
	const char *dirs[] = { "/nonexistent", dir, NULL };
	struct hwt_elf_file self;
	struct hwt_debug_file found;
	char *dwarf = NULL;
	int rc;

	CHECK(hwt_debug_file_crc32((const uint8_t *)"123456789", 9) == 0xcbf43926u);
	CHECK(hwt_debug_file_crc32(NULL, 0) == 0);
	CHECK(hwt_debug_file_find(NULL, "x", NULL, &found) == -hee_invalid);
	hwt_debug_file_fini(&found);
	CHECK(hwt_debug_file_find(NULL, "x", NULL, NULL) == -hee_invalid);
	CHECK(hwt_elf_file_open(&self, "/proc/self/exe") == 0 && self.build_id_size >= 2);
	/* Built with -g: its own DWARF, no separate file. */
	rc = hwt_debug_file_dwarf(&self, "/proc/self/exe", NULL, &found, &dwarf);
	if (self.has_debug_info)
		CHECK(rc == 1 && dwarf && !strcmp(dwarf, "/proc/self/exe") && !found.path);
	free(dwarf);
	hwt_debug_file_fini(&found);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(sub, sizeof(sub), "%s/.build-id/%02x", dir, self.build_id[0]);
	snprintf(path, sizeof(path), "%s/", sub);
	for (uint32_t i = 1; i < self.build_id_size; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%02x", self.build_id[i]);
	strcat(path, ".debug");
	snprintf(other, sizeof(other), "%s/.build-id", dir);
	CHECK(mkdir(other, 0700) == 0 && mkdir(sub, 0700) == 0);
	/* Nothing there yet; then a file with another build-id: not taken. */
	CHECK(hwt_debug_file_find(&self, "/proc/self/exe", dirs, &found) == 0 && !found.path);
	hwt_debug_file_fini(&found);
	CHECK(copy_file("/bin/sh", path) == 0);
	CHECK(hwt_debug_file_find(&self, "/proc/self/exe", dirs, &found) == 0 && !found.path);
	hwt_debug_file_fini(&found);
	/* A copy of this program has its build-id: taken, from the second directory. */
	CHECK(copy_file("/proc/self/exe", path) == 0);
	CHECK(hwt_debug_file_find(&self, "/proc/self/exe", dirs, &found) == 1 && found.path &&
	      !strcmp(found.path, path) && found.by_build_id && !found.crc_mismatch);
	hwt_debug_file_fini(&found);
	CHECK(found.path == NULL);
	/* Not in the list: not looked in. */
	dirs[1] = NULL;
	CHECK(hwt_debug_file_find(&self, "/proc/self/exe", dirs, &found) == 0);
	hwt_debug_file_fini(&found);
	unlink(path);
	rmdir(sub);
	rmdir(other);
	rmdir(dir);
	hwt_elf_file_close(&self);
}

static void test_errstr(void)
{
	CHECK_ERRSTR(hwt_elf_errstr, hee_ok, hee_io);
}

int main(void)
{
	test_not_elf();
	test_self();
	test_debug_file();
	test_errstr();
	return unit_exit("elf_file_unit");
}
