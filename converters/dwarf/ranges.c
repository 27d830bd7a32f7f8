/* Code address ranges of a DWARF DIE (see ranges.h). */
#include <libdwarf/dwarf.h>

#include "dwarf_int.h"
#include "grow.h"
#include "hwt_dwarf.h"
#include "ranges.h"

int hwt_addr_ranges_add(struct hwt_addr_ranges *list, uint64_t begin, uint64_t end)
{
	struct hwt_addr_range *r;

	if (end <= begin || begin == 0)
		return 0;
	r = hwt_grow_array(list->r, &list->cap, list->n + 1, sizeof(*r));
	if (!r)
		return -hde_nomem;
	list->r = r;
	r[list->n].begin = begin;
	r[list->n].end = end;
	list->n++;
	return 0;
}

/* DWARF 5 .debug_rnglists: libdwarf cooks the entries (base address
   entries, the CU's base address, .debug_addr indexes) into addresses. */
static int rnglists(Dwarf_Debug dbg, Dwarf_Attribute attr, Dwarf_Half form,
		    Dwarf_Unsigned value, struct hwt_addr_ranges *list)
{
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Unsigned count = 0, global_off = 0, i;
	Dwarf_Error err = NULL;
	int rc = 0;

	if (dwarf_rnglists_get_rle_head(attr, form, value, &head, &count, &global_off, &err) !=
	    DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return 0;
	}
	for (i = 0; i < count && rc == 0; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned raw1 = 0, raw2 = 0, begin = 0, end = 0;
		Dwarf_Bool unavailable = 0;

		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
						      &unavailable, &begin, &end, &err) != DW_DLV_OK) {
			hwt_dwarf_drop_error(dbg, &err);
			break;
		}
		if (code == DW_RLE_end_of_list)
			break;
		switch (code) {
		case DW_RLE_startx_endx:
		case DW_RLE_startx_length:
		case DW_RLE_offset_pair:
		case DW_RLE_start_end:
		case DW_RLE_start_length:
			if (!unavailable)
				rc = hwt_addr_ranges_add(list, begin, end);
			break;
		default: /* base address entries: already applied */
			break;
		}
	}
	dwarf_dealloc_rnglists_head(head);
	return rc;
}

/* DWARF 2-4 .debug_ranges: offsets from the CU's base address until a
   base address selection entry changes it. */
static int debug_ranges(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Off off, Dwarf_Addr base,
			struct hwt_addr_ranges *list)
{
	Dwarf_Ranges *buf = NULL;
	Dwarf_Signed count = 0, i;
	Dwarf_Unsigned bytes = 0;
	Dwarf_Off real = 0;
	Dwarf_Error err = NULL;
	int rc = 0;

	if (dwarf_get_ranges_b(dbg, off, die, &real, &buf, &count, &bytes, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return 0;
	}
	for (i = 0; i < count && rc == 0; i++) {
		if (buf[i].dwr_type == DW_RANGES_END)
			break;
		if (buf[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = buf[i].dwr_addr2;
		else
			rc = hwt_addr_ranges_add(list, base + buf[i].dwr_addr1,
						 base + buf[i].dwr_addr2);
	}
	dwarf_ranges_dealloc(dbg, buf, count);
	return rc;
}

static int attr_ranges(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Addr cu_base,
		       struct hwt_addr_ranges *list)
{
	Dwarf_Attribute attr = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0, version = 0, offset_size = 0;
	Dwarf_Unsigned value = 0;
	Dwarf_Off off = 0;
	int res, rc = 0;

	if (dwarf_attr(die, DW_AT_ranges, &attr, &err) != DW_DLV_OK) {
		hwt_dwarf_drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK ||
	    dwarf_get_version_of_die(die, &version, &offset_size) != DW_DLV_OK)
		goto out;
	if (form == DW_FORM_rnglistx) {
		/* An index into the CU's offset table (DW_AT_rnglists_base):
		   libdwarf resolves it. */
		res = dwarf_formudata(attr, &value, &err);
	} else if (form == DW_FORM_sec_offset) {
		res = dwarf_global_formref(attr, &off, &err);
		value = off;
	} else {
		res = dwarf_formudata(attr, &value, &err); /* DWARF 2/3: data4/data8 */
	}
	if (res != DW_DLV_OK)
		goto out;
	if (form == DW_FORM_rnglistx || version >= 5)
		rc = rnglists(dbg, attr, form, value, list);
	else
		rc = debug_ranges(dbg, die, (Dwarf_Off)value, cu_base, list);
out:
	hwt_dwarf_drop_error(dbg, &err);
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return rc;
}

int hwt_dwarf_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Addr cu_base,
			 struct hwt_addr_ranges *list, int *from_low_pc)
{
	Dwarf_Addr low = 0, high = 0;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
	Dwarf_Error err = NULL;

	list->n = 0;
	if (from_low_pc)
		*from_low_pc = 0;
	if (dwarf_lowpc(die, &low, &err) == DW_DLV_OK) {
		if (from_low_pc)
			*from_low_pc = 1;
		if (dwarf_highpc_b(die, &high, &form, &cls, &err) != DW_DLV_OK) {
			hwt_dwarf_drop_error(dbg, &err);
			return 0;
		}
		if (cls == DW_FORM_CLASS_CONSTANT)
			high += low;
		return hwt_addr_ranges_add(list, low, high);
	}
	hwt_dwarf_drop_error(dbg, &err);
	return attr_ranges(dbg, die, cu_base, list);
}
