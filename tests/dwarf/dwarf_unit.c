/*
 * The converters' DWARF reader (converters/dwarf) on files that are not
 * what it wants, and on this test's own DWARF (it is built with -g): the
 * units, a walk of their DIEs, the function of a known definition (its
 * name, declaration line, return type and code range, checked against
 * where the loader put it) and its line table rows.
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdwarf/dwarf.h>

#include "hwt_dwarf.h"
#include "lines.h"
#include "ranges.h"
#include "unit_check.h"

/* The definitions the test looks for in its own DWARF. */
int dwarf_unit_probe(int x);
void dwarf_unit_void_probe(volatile int *x);

static const unsigned probe_line = __LINE__ + 1;
__attribute__((noinline)) int dwarf_unit_probe(int x)
{
	return x * 3 + 1;
}

static const unsigned void_probe_line = __LINE__ + 1;
__attribute__((noinline)) void dwarf_unit_void_probe(volatile int *x)
{
	*x += 1;
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1; /* the first object is the executable */
}

struct found {
	Dwarf_Debug dbg;
	Dwarf_Addr cu_base;
	size_t dies, max_level;
	int probe, void_probe;
	uint64_t probe_lo, probe_hi;
	struct hwt_addr_ranges list;
	int nomem;
};

static int visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int level)
{
	struct found *f = arg;
	struct hwt_dwarf_function fn;

	f->dies++;
	if ((size_t)level > f->max_level)
		f->max_level = (size_t)level;
	if (tag != DW_TAG_subprogram)
		return 1;
	hwt_dwarf_function_read(f->dbg, die, &fn);
	if (fn.name && !strcmp(fn.name, "dwarf_unit_probe")) {
		f->probe++;
		CHECK(fn.decl_line == probe_line);
		CHECK(fn.has_type);
		if (hwt_dwarf_die_ranges(f->dbg, die, f->cu_base, &f->list, NULL) < 0)
			f->nomem = 1;
		CHECK(f->list.n == 1);
		if (f->list.n) {
			f->probe_lo = f->list.r[0].begin;
			f->probe_hi = f->list.r[0].end;
		}
	} else if (fn.name && !strcmp(fn.name, "dwarf_unit_void_probe")) {
		f->void_probe++;
		CHECK(fn.decl_line == void_probe_line);
		CHECK(!fn.has_type);
	}
	free(fn.name);
	return 1;
}

static int stop(void *arg, Dwarf_Die die, Dwarf_Half tag, int level)
{
	(void)die;
	(void)tag;
	(*(int *)arg)++;
	return level == 1 ? -77 : 1;
}

/* Rows of the unit's line table inside [lo, hi): lines seen there. */
static void check_lines(Dwarf_Debug dbg, Dwarf_Die cu, uint64_t lo, uint64_t hi)
{
	struct hwt_dwarf_lines *t;
	size_t in = 0;
	int body = 0;

	CHECK(hwt_dwarf_lines_open(dbg, cu, &t) == 0 && t);
	if (!t)
		return;
	for (size_t i = 0; i < hwt_dwarf_lines_count(t); i++) {
		struct hwt_dwarf_row row;
		const char *file;

		if (hwt_dwarf_lines_row(t, i, &row) < 0 || row.addr < lo || row.addr >= hi)
			continue;
		in++;
		CHECK(row.line >= probe_line && row.line <= probe_line + 3);
		body |= row.line == probe_line + 2;
		file = hwt_dwarf_lines_file(t, i);
		CHECK(file && strstr(file, "dwarf_unit.c"));
	}
	CHECK(in >= 2);
	CHECK(body);
	hwt_dwarf_lines_close(t);
}

static void test_self(void)
{
	struct hwt_dwarf *dw;
	struct hwt_dwarf_cu cu;
	struct found f = { 0 };
	uintptr_t bias = 0;
	size_t units = 0;
	int res, rc, visited = 0;

	dl_iterate_phdr(each_object, &bias);
	CHECK(hwt_dwarf_open("/proc/self/exe", &dw) == 0);
	if (!dw)
		return;
	f.dbg = hwt_dwarf_debug(dw);
	while ((res = hwt_dwarf_next_cu(dw, &cu)) > 0) {
		int probes = f.probe;

		units++;
		f.cu_base = cu.base;
		CHECK(hwt_dwarf_walk(f.dbg, cu.die, 64, visit, &f) == 0);
		if (f.probe > probes)
			check_lines(f.dbg, cu.die, f.probe_lo, f.probe_hi);
		/* A walk stops where its visit says so, with what it said
		   (at the unit's first child, when it has one). */
		visited = 0;
		rc = hwt_dwarf_walk(f.dbg, cu.die, 64, stop, &visited);
		CHECK((rc == -77 && visited == 2) || (rc == 0 && visited == 1));
	}
	CHECK(res == 0);
	CHECK(hwt_dwarf_next_cu(dw, &cu) == 0); /* stays at the end */
	CHECK(units >= 1);
	CHECK(f.probe == 1 && f.void_probe == 1 && !f.nomem);
	CHECK(f.max_level >= 1);
	CHECK(f.probe_lo == (uint64_t)((uintptr_t)&dwarf_unit_probe - bias));
	CHECK(f.probe_hi > f.probe_lo);
	free(f.list.r);
	hwt_dwarf_close(dw);

	/* max_level 0: the units' own DIEs only. */
	CHECK(hwt_dwarf_open("/proc/self/exe", &dw) == 0);
	if (!dw)
		return;
	memset(&f, 0, sizeof(f));
	f.dbg = hwt_dwarf_debug(dw);
	units = 0;
	while (hwt_dwarf_next_cu(dw, &cu) > 0) {
		units++;
		CHECK(hwt_dwarf_walk(f.dbg, cu.die, 0, visit, &f) == 0);
	}
	CHECK(f.dies == units && f.max_level == 0 && f.probe == 0);
	hwt_dwarf_close(dw);
}

static void test_not_dwarf(void)
{
	char path[] = "/tmp/dwarf_unit.XXXXXX";
	struct hwt_dwarf *dw = (struct hwt_dwarf *)path; /* set to NULL on failure */
	int fd = mkstemp(path);

	CHECK(hwt_dwarf_open("/nonexistent/file", &dw) == -hde_io && !dw);
	CHECK(hwt_dwarf_open(NULL, &dw) == -hde_invalid);
	CHECK(hwt_dwarf_open("/proc/self/exe", NULL) == -hde_invalid);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, "hello, not an ELF file\n", 23) == 23);
	close(fd);
	CHECK(hwt_dwarf_open(path, &dw) == -hde_dwarf && !dw);
	unlink(path);
	hwt_dwarf_close(NULL);
}

static void test_errstr(void)
{
	CHECK_ERRSTR(hwt_dwarf_errstr, hde_ok, hde_dwarf);
}

int main(void)
{
	volatile int x = 1;

	x = dwarf_unit_probe(x);
	dwarf_unit_void_probe(&x);
	test_not_dwarf();
	test_self();
	test_errstr();
	return unit_exit("dwarf_unit");
}
