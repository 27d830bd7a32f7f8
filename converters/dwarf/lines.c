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
	char **srcfiles;       /* gnu_v5 only */
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
	free(t);
}
