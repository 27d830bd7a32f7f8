/* DIEs: the walk of a DIE tree and the attributes the converters read (hwt_dwarf.h). */
#include <stdlib.h>
#include <string.h>

#include <libdwarf/dwarf.h>

#include "dwarf_int.h"
#include "hwt_dwarf.h"

static int walk(Dwarf_Debug dbg, Dwarf_Die die, int level, int max_level,
		hwt_dwarf_visit_fn visit, void *arg)
{
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL, sib = NULL;
	Dwarf_Half tag = 0;
	int rc, res;

	if (level > max_level)
		return 0;
	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		tag = 0;
	}
	rc = visit(arg, die, tag, level);
	if (rc <= 0)
		return rc;
	rc = 0;
	res = dwarf_child(die, &child, &err);
	if (res == DW_DLV_ERROR)
		hwt_dwarf_drop_error(dbg, &err);
	while (res == DW_DLV_OK && rc == 0) {
		rc = walk(dbg, child, level + 1, max_level, visit, arg);
		res = dwarf_siblingof_b(dbg, child, 1, &sib, &err);
		if (res == DW_DLV_ERROR)
			hwt_dwarf_drop_error(dbg, &err);
		dwarf_dealloc_die(child);
		child = sib;
	}
	if (res == DW_DLV_OK)
		dwarf_dealloc_die(child); /* the sibling not walked after a stop */
	return rc;
}

int hwt_dwarf_walk(Dwarf_Debug dbg, Dwarf_Die die, int max_level, hwt_dwarf_visit_fn visit,
		   void *arg)
{
	return walk(dbg, die, 0, max_level, visit, arg);
}

/* Attribute name of die, or NULL. */
static Dwarf_Attribute attr_get(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name)
{
	Dwarf_Attribute attr = NULL;
	Dwarf_Error err = NULL;

	if (dwarf_attr(die, name, &attr, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return NULL;
	}
	return attr;
}

int hwt_dwarf_attr_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *value)
{
	Dwarf_Attribute attr = attr_get(dbg, die, name);
	Dwarf_Error err = NULL;
	int res;

	if (!attr)
		return 0;
	res = dwarf_formudata(attr, value, &err);
	hwt_dwarf_drop_error(dbg, &err);
	if (res != DW_DLV_OK) {
		/* DW_FORM_implicit_const (gcc's DWARF 5 abbreviations: a
		   decl_file shared by many DIEs) is read as signed data. */
		Dwarf_Signed s = 0;

		res = dwarf_formsdata(attr, &s, &err);
		hwt_dwarf_drop_error(dbg, &err);
		if (res == DW_DLV_OK && s < 0)
			res = DW_DLV_ERROR;
		if (res == DW_DLV_OK)
			*value = (Dwarf_Unsigned)s;
	}
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return res == DW_DLV_OK;
}

char *hwt_dwarf_attr_strdup(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name)
{
	Dwarf_Attribute attr = attr_get(dbg, die, name);
	Dwarf_Error err = NULL;
	char *s = NULL, *copy = NULL;

	if (!attr)
		return NULL;
	/* The string points into the section: it is not deallocated. */
	if (dwarf_formstring(attr, &s, &err) == DW_DLV_OK && s)
		copy = strdup(s);
	hwt_dwarf_drop_error(dbg, &err);
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return copy;
}

int hwt_dwarf_has_attr(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name)
{
	Dwarf_Bool b = 0;
	Dwarf_Error err = NULL;
	int res = dwarf_hasattr(die, name, &b, &err);

	hwt_dwarf_drop_error(dbg, &err);
	return res == DW_DLV_OK && b;
}

Dwarf_Die hwt_dwarf_attr_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name)
{
	Dwarf_Attribute attr = attr_get(dbg, die, name);
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;
	Dwarf_Die ref = NULL;
	int res;

	if (!attr)
		return NULL;
	res = dwarf_global_formref(attr, &off, &err);
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	if (res != DW_DLV_OK || dwarf_offdie_b(dbg, off, 1, &ref, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return NULL;
	}
	return ref;
}

int hwt_dwarf_entry_pc(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Addr base, Dwarf_Addr *entry)
{
	Dwarf_Attribute attr = attr_get(dbg, die, DW_AT_entry_pc);
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Unsigned off = 0;
	int res;

	if (!attr)
		return 0;
	res = dwarf_whatform(attr, &form, &err);
	if (res == DW_DLV_OK) {
		switch (form) {
		case DW_FORM_addr:
		case DW_FORM_addrx:
		case DW_FORM_addrx1:
		case DW_FORM_addrx2:
		case DW_FORM_addrx3:
		case DW_FORM_addrx4:
		case DW_FORM_GNU_addr_index:
			res = dwarf_formaddr(attr, entry, &err);
			break;
		default: /* a constant class: an offset from base */
			res = dwarf_formudata(attr, &off, &err);
			*entry = base + off;
			break;
		}
	}
	hwt_dwarf_drop_error(dbg, &err);
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return res == DW_DLV_OK;
}

void hwt_dwarf_function_read(Dwarf_Debug dbg, Dwarf_Die die, struct hwt_dwarf_function *fn)
{
	Dwarf_Die cur = die, next;
	Dwarf_Unsigned line = 0, file = 0;
	int has_file = 0;
	char *linkage = NULL, *plain = NULL;
	int hops;

	memset(fn, 0, sizeof(*fn));
	/* Name, decl_line and type may sit on the DIEs this one refers to. */
	for (hops = 0; cur && hops < 4; hops++) {
		if (!linkage)
			linkage = hwt_dwarf_attr_strdup(dbg, cur, DW_AT_linkage_name);
		if (!linkage)
			linkage = hwt_dwarf_attr_strdup(dbg, cur, DW_AT_MIPS_linkage_name);
		if (!plain)
			plain = hwt_dwarf_attr_strdup(dbg, cur, DW_AT_name);
		if (!line && hwt_dwarf_attr_udata(dbg, cur, DW_AT_decl_line, &line))
			has_file = hwt_dwarf_attr_udata(dbg, cur, DW_AT_decl_file, &file);
		if (hwt_dwarf_has_attr(dbg, cur, DW_AT_type))
			fn->has_type = 1;
		if (hwt_dwarf_has_attr(dbg, cur, DW_AT_artificial))
			fn->artificial = 1;
		next = hwt_dwarf_attr_die(dbg, cur, DW_AT_abstract_origin);
		if (!next)
			next = hwt_dwarf_attr_die(dbg, cur, DW_AT_specification);
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur && cur != die)
		dwarf_dealloc_die(cur);
	if (linkage) {
		free(plain);
		fn->name = linkage;
	} else {
		fn->name = plain;
	}
	fn->decl_line = line <= UINT32_MAX ? (uint32_t)line : 0;
	fn->has_decl_file = fn->decl_line && has_file && file <= UINT32_MAX;
	fn->decl_file = fn->has_decl_file ? (uint32_t)file : 0;
}
