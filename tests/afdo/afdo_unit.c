/*
 * Unit tests of the AutoFDO converter's small parts: error strings, the
 * discriminator encoding, and the DWARF loader on files that are not what
 * it wants and on this test's own DWARF (it is built with -g), where a
 * known function's source position is checked against where the loader
 * put it.
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwt_afdo.h"
#include "unit_check.h"

int afdo_unit_probe(int x);

static const unsigned probe_line = __LINE__ + 1;
__attribute__((noinline)) int afdo_unit_probe(int x)
{
	return x * 5 + 2;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1; /* the first object is the executable */
}

static void test_errstr(void)
{
	CHECK_ERRSTR(hwt_afdo_errstr, hae_ok, hae_profile);
}

static void test_discriminators(void)
{
	/* No components: base 0, factor 1. Base 3 (3 << 1), factor 2 after it. */
	CHECK(hwt_afdo_base_discriminator(0) == 0);
	CHECK(hwt_afdo_duplication_factor(0) == 1);
	CHECK(hwt_afdo_base_discriminator(3 << 1) == 3);
	CHECK(hwt_afdo_duplication_factor(3 << 1 | 2 << 8) == 2);
	CHECK(hwt_afdo_base_discriminator(1) == 0); /* bit 0: absent */
}

static void test_loader(void)
{
	struct hwt_afdo_debug *debug = hwt_afdo_debug_alloc();
	struct hwt_afdo_location loc;
	char path[] = "/tmp/afdo_unit.XXXXXX";
	uintptr_t bias = 0;
	uint64_t vaddr;
	int fd = mkstemp(path);

	CHECK(debug != NULL);
	if (!debug)
		return;
	CHECK(hwt_afdo_debug_load(debug, "/nonexistent/file") == -hae_io);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, "hello, not an ELF file\n", 23) == 23);
		close(fd);
		CHECK(hwt_afdo_debug_load(debug, path) == -hae_not_elf);
		unlink(path);
	}
	CHECK(hwt_afdo_debug_load(debug, "/proc/self/exe") == 0);
	CHECK(hwt_afdo_debug_function_count(debug) > 0);
	dl_iterate_phdr(each_object, &bias);
	vaddr = (uint64_t)((uintptr_t)&afdo_unit_probe - bias);
	CHECK(hwt_afdo_debug_function_at(debug, vaddr) &&
	      !strcmp(hwt_afdo_debug_function_at(debug, vaddr), "afdo_unit_probe"));
	CHECK(hwt_afdo_debug_lookup(debug, vaddr, &loc) == 1);
	CHECK(loc.nframes == 1 && loc.entry == vaddr);
	CHECK(!strcmp(loc.frames[0].function, "afdo_unit_probe"));
	CHECK(loc.frames[0].decl_line == probe_line);
	CHECK(loc.line >= probe_line && loc.line <= probe_line + 3);
	/* Loaded once only. */
	CHECK(hwt_afdo_debug_load(debug, "/proc/self/exe") == -hae_invalid);
	hwt_afdo_debug_free(debug);
}

int main(void)
{
	volatile int x = 1;

	x = afdo_unit_probe(x);
	test_errstr();
	test_discriminators();
	test_loader();
	return unit_exit("afdo_unit");
}
