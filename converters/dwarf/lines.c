/* A compilation unit's line table (lines.h). */
#include <stdlib.h>
#include <string.h>

#include <libdwarf/dwarf.h>

#include "dwarf_int.h"
#include "hwt_dwarf.h"
#include "lines.h"

struct hwt_dwarf_lines {
	Dwarf_Debug dbg;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed nlines;
	int gnu_v5;            /* gcc's DWARF 5: file 0 is file 1 */
	int version;
	uint8_t *default_file; /* other DWARF 5: the row's file register was
				  never set in its sequence (it is file 1) */
	char **srcfiles;       /* gnu_v5 and default_file only */
	Dwarf_Signed nsrcfiles;
	char *name;            /* last dwarf_linesrc answer */
};

int hwt_dwarf_lines_open(Dwarf_Debug dbg, Dwarf_Die cu, struct hwt_dwarf_lines **lines)
{
	struct hwt_dwarf_lines *t = calloc(1, sizeof(*t));
	Dwarf_Unsigned version = 0;
	Dwarf_Small tables = 0;
	Dwarf_Error err = NULL;
	char *producer = NULL;

	*lines = NULL;
	if (!t)
		return -hde_nomem;
	t->dbg = dbg;
	if (dwarf_srclines_b(cu, &version, &tables, &t->ctx, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		free(t);
		return 0;
	}
	if (dwarf_srclines_from_linecontext(t->ctx, &t->lines, &t->nlines, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		dwarf_srclines_dealloc_b(t->ctx);
		free(t);
		return 0;
	}
	t->version = (int)version;
	if (version == 5 && dwarf_die_text(cu, DW_AT_producer, &producer, &err) == DW_DLV_OK &&
	    producer)
		t->gnu_v5 = !strncmp(producer, "GNU ", 4); /* points into the section */
	hwt_dwarf_drop_error(dbg, &err);
	if (t->gnu_v5 && dwarf_srcfiles(cu, &t->srcfiles, &t->nsrcfiles, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		t->srcfiles = NULL;
		t->nsrcfiles = 0;
	}
	*lines = t;
	return 0;
}

size_t hwt_dwarf_lines_count(const struct hwt_dwarf_lines *t)
{
	return t->nlines > 0 ? (size_t)t->nlines : 0;
}

int hwt_dwarf_lines_row(struct hwt_dwarf_lines *t, size_t i, struct hwt_dwarf_row *row)
{
	Dwarf_Line l = t->lines[i];
	Dwarf_Addr addr = 0;
	Dwarf_Unsigned line = 0, file = 0, isa = 0, disc = 0;
	Dwarf_Bool end = 0, stmt = 0, prologue = 0, epilogue = 0;
	Dwarf_Error err = NULL;

	memset(row, 0, sizeof(*row));
	if (dwarf_lineaddr(l, &addr, &err) != DW_DLV_OK || dwarf_lineno(l, &line, &err) != DW_DLV_OK ||
	    dwarf_line_srcfileno(l, &file, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(t->dbg, &err);
		return -hde_dwarf;
	}
	if (dwarf_prologue_end_etc(l, &prologue, &epilogue, &isa, &disc, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(t->dbg, &err);
		epilogue = 0;
		disc = 0;
	}
	if (dwarf_lineendsequence(l, &end, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(t->dbg, &err);
		end = 0;
	}
	if (dwarf_linebeginstatement(l, &stmt, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(t->dbg, &err);
		stmt = 0;
	}
	if (t->default_file && t->default_file[i])
		file = 1;
	row->addr = addr;
	row->line = line;
	row->file = file;
	row->disc = disc <= UINT32_MAX ? (uint32_t)disc : 0;
	row->is_stmt = stmt != 0;
	row->end = end && !epilogue;
	return 0;
}

const char *hwt_dwarf_lines_file(struct hwt_dwarf_lines *t, size_t i)
{
	Dwarf_Unsigned file = 0;
	Dwarf_Error err = NULL;

	if (t->name) {
		dwarf_dealloc(t->dbg, t->name, DW_DLA_STRING);
		t->name = NULL;
	}
	if (t->gnu_v5 && dwarf_line_srcfileno(t->lines[i], &file, &err) == DW_DLV_OK && file == 0)
		return t->nsrcfiles > 1 ? t->srcfiles[1] : NULL;
	if (t->default_file && t->default_file[i])
		return t->nsrcfiles > 1 ? t->srcfiles[1] : NULL;
	hwt_dwarf_drop_error(t->dbg, &err);
	if (dwarf_linesrc(t->lines[i], &t->name, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(t->dbg, &err);
		t->name = NULL;
	}
	return t->name;
}

void hwt_dwarf_lines_close(struct hwt_dwarf_lines *t)
{
	if (!t)
		return;
	if (t->name)
		dwarf_dealloc(t->dbg, t->name, DW_DLA_STRING);
	if (t->srcfiles) {
		for (Dwarf_Signed k = 0; k < t->nsrcfiles; k++)
			dwarf_dealloc(t->dbg, t->srcfiles[k], DW_DLA_STRING);
		dwarf_dealloc(t->dbg, t->srcfiles, DW_DLA_LIST);
	}
	dwarf_srclines_dealloc_b(t->ctx);
	free(t->default_file);
	free(t);
}

static uint64_t read_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* An unsigned LEB128 at *p (not past end); *p moves past it. */
static uint64_t read_uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/*
 * Runs the DWARF 5 line program at offset off of the section only to learn,
 * row by row (in libdwarf's order), whether DW_LNS_set_file came before the
 * row in its sequence. 1 and t->default_file, or 0 when the program does
 * not read as expected (the rows are then left as libdwarf gives them).
 */
static int scan_default_file(struct hwt_dwarf_lines *t, const uint8_t *sec, size_t size,
			     uint64_t off)
{
	const uint8_t *p, *end, *prog, *lengths;
	uint64_t unit_len, header_len;
	size_t nlines = hwt_dwarf_lines_count(t), row = 0;
	unsigned opcode_base;
	int wide = 0, file_set = 0;

	if (off >= size || size - off < 4)
		return 0;
	p = sec + off;
	unit_len = read_le(p, 4);
	p += 4;
	if (unit_len == 0xffffffffu) {
		if ((size_t)(sec + size - p) < 8)
			return 0;
		unit_len = read_le(p, 8);
		p += 8;
		wide = 1;
	}
	if (unit_len > (uint64_t)(sec + size - p) || unit_len < 4u + (wide ? 8u : 4u) + 6u)
		return 0;
	end = p + unit_len;
	if (read_le(p, 2) != 5)
		return 0;
	p += 4; /* version, address_size, segment_selector_size */
	header_len = read_le(p, wide ? 8 : 4);
	p += wide ? 8 : 4;
	if (header_len > (uint64_t)(end - p) || header_len < 6)
		return 0;
	prog = p + header_len;
	opcode_base = p[5];
	lengths = p + 6;
	if (opcode_base == 0 || lengths + opcode_base - 1 > prog)
		return 0;
	t->default_file = calloc(nlines ? nlines : 1, 1);
	if (!t->default_file)
		return 0;
	for (p = prog; p < end;) {
		unsigned op = *p++;
		uint64_t len, k;
		int emit = 0, ends = 0;

		if (op >= opcode_base) {
			emit = 1;
		} else if (op == 0) { /* extended */
			len = read_uleb(&p, end);
			if (len == 0 || len > (uint64_t)(end - p))
				break;
			if (*p == DW_LNE_end_sequence)
				emit = ends = 1;
			p += len;
		} else if (op == DW_LNS_copy) {
			emit = 1;
		} else if (op == DW_LNS_set_file) {
			read_uleb(&p, end);
			file_set = 1;
		} else if (op == DW_LNS_fixed_advance_pc) {
			p += 2;
		} else {
			for (k = 0; k < lengths[op - 1]; k++)
				read_uleb(&p, end);
		}
		if (emit) {
			if (row >= nlines)
				break;
			t->default_file[row++] = !file_set;
		}
		if (ends)
			file_set = 0;
	}
	if (row != nlines || p != end) {
		free(t->default_file);
		t->default_file = NULL;
		return 0;
	}
	return 1;
}

int hwt_dwarf_lines_open_in(struct hwt_dwarf *dwarf, Dwarf_Die cu, struct hwt_dwarf_lines **lines)
{
	Dwarf_Debug dbg = hwt_dwarf_debug(dwarf);
	Dwarf_Unsigned off = 0;
	Dwarf_Error err = NULL;
	const uint8_t *sec;
	size_t size = 0;
	struct hwt_dwarf_lines *t;
	int rc = hwt_dwarf_lines_open(dbg, cu, lines);

	t = *lines;
	if (rc < 0 || !t || t->version != 5 || t->gnu_v5)
		return rc;
	sec = hwt_dwarf_line_section(dwarf, &size);
	if (!sec || dwarf_srclines_table_offset(t->ctx, &off, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return 0;
	}
	if (scan_default_file(t, sec, size, off) &&
	    dwarf_srcfiles(cu, &t->srcfiles, &t->nsrcfiles, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		t->srcfiles = NULL;
		t->nsrcfiles = 0;
	}
	return 0;
}
