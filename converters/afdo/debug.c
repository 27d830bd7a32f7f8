/*
 * struct hwt_afdo_debug: source positions of an ELF file's code, with the
 * inline chains a sample profile needs, read with libdwarf (the 20210528
 * API of Debian 12).
 *
 * What is kept:
 *  - nodes: one per DW_TAG_subprogram with code (an outermost function)
 *    and one per DW_TAG_inlined_subroutine inside it, with the callee's
 *    name and DW_AT_decl_line (through DW_AT_abstract_origin and
 *    DW_AT_specification), the call line and discriminator, the parent;
 *  - the address ranges of every node (DW_AT_low_pc/high_pc, or
 *    DW_AT_ranges from .debug_ranges or .debug_rnglists);
 *  - the line table as spans [begin, end) with line and discriminator.
 */
#include <stdlib.h>
#include <string.h>

#include <libdwarf/dwarf.h>

#include "debug_file.h"
#include "elf_file.h"
#include "grow.h"
#include "hwt_dwarf.h"
#include "lines.h"
#include "ranges.h"
#include "hwt_afdo.h"

struct node {
	char *name;
	uint32_t decl_line;
	uint32_t call_line, call_disc;
	int32_t parent;       /* node index, -1 for an outermost function */
	int32_t top;          /* the outermost function's node */
	uint32_t depth;       /* 0 for an outermost function */
	uint64_t entry;       /* lowest address (functions: DW_AT_low_pc or first range) */
	size_t ifirst, ilast; /* functions: their inline ranges in iranges */
};

struct range {
	uint64_t lo, hi;
	uint32_t node;
	uint32_t depth;
	int32_t top;
};

struct span {
	uint64_t begin, end;
	uint32_t line, disc;
};

struct hwt_afdo_debug {
	struct node *nodes;
	size_t nnodes, nodes_cap;
	struct range *franges;   /* outermost functions, sorted by lo */
	size_t nfranges, franges_cap;
	struct range *iranges;   /* inlined calls, sorted by top, lo */
	size_t niranges, iranges_cap;
	struct span *spans;      /* sorted by begin */
	size_t nspans, spans_cap;
	struct range *entries;   /* function entries (lo) sorted, node */
	size_t nentries;
	size_t nfunctions, ninlines;
	char *dwarf_file;        /* the file its DWARF was read from (malloc'd) */
	char *crc_mismatch;      /* a debug file passed over: its CRC is not the link's */
};

struct hwt_afdo_debug *hwt_afdo_debug_alloc(void)
{
	return calloc(1, sizeof(struct hwt_afdo_debug));
}

void hwt_afdo_debug_free(struct hwt_afdo_debug *debug)
{
	size_t i;

	if (!debug)
		return;
	for (i = 0; i < debug->nnodes; i++)
		free(debug->nodes[i].name);
	free(debug->nodes);
	free(debug->franges);
	free(debug->iranges);
	free(debug->spans);
	free(debug->entries);
	free(debug->dwarf_file);
	free(debug->crc_mismatch);
	free(debug);
}

size_t hwt_afdo_debug_function_count(const struct hwt_afdo_debug *debug)
{
	return debug->nfunctions;
}

/* ----- LLVM's discriminator encoding -------------------------------------- */

/*
 * A discriminator holds up to three components (base discriminator,
 * duplication factor, copy id), each in a prefix encoding: bit 0 set means
 * the component is absent (0); else the next bits hold 5 bits of value,
 * or, when bit 6 is set, 12 bits (low 5, then 7 more above bit 6).
 */
static uint32_t component(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	if (d & 0x20)
		return ((d >> 1) & 0xfe0) | (d & 0x1f);
	return d & 0x1f;
}

static uint32_t next_component(uint32_t d)
{
	if ((d & 1) == 0)
		return d >> ((d & 0x40) ? 14 : 7);
	return d >> 1;
}

uint32_t hwt_afdo_base_discriminator(uint32_t discriminator)
{
	return component(discriminator);
}

uint32_t hwt_afdo_duplication_factor(uint32_t discriminator)
{
	uint32_t f = component(next_component(discriminator));

	return f ? f : 1;
}

/* ----- Building ------------------------------------------------------------ */

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
	void *p = hwt_grow_array(*array, cap, need, size);

	if (!p)
		return -hae_nomem;
	*array = p;
	return 0;
}

/* DIEs below this many levels of a unit are left out. */
#define WALK_MAX_LEVEL 96

struct walk {
	struct hwt_afdo_debug *debug;
	Dwarf_Debug dbg;
	uint64_t cu_base;
	struct hwt_addr_ranges list;  /* scratch: the ranges of the DIE at hand */
	/*
	 * Per level of the walk, for the DIEs at that level: the node the
	 * code below them belongs to (-1 outside functions), and its inline
	 * depth + 1 (0 outside functions).
	 */
	struct {
		int32_t parent;
		uint32_t depth;
	} at[WALK_MAX_LEVEL + 2];
};

static int add_node(struct walk *w, Dwarf_Die die, int32_t parent, uint32_t depth, int32_t *index)
{
	struct hwt_afdo_debug *d = w->debug;
	struct hwt_dwarf_function fn;
	struct node *n;
	Dwarf_Unsigned value = 0;
	size_t i;

	*index = -1;
	if (hwt_dwarf_die_ranges(w->dbg, die, w->cu_base, &w->list, NULL) < 0)
		return -hae_nomem;
	if (w->list.n == 0)
		return 0;
	if (grow((void **)&d->nodes, &d->nodes_cap, d->nnodes + 1, sizeof(*d->nodes)) < 0)
		return -hae_nomem;
	n = &d->nodes[d->nnodes];
	memset(n, 0, sizeof(*n));
	hwt_dwarf_function_read(w->dbg, die, &fn);
	n->name = fn.name;
	n->decl_line = fn.decl_line;
	if (!n->name)
		return 0; /* a function without a name cannot be in a profile */
	n->parent = parent;
	n->depth = depth;
	n->top = parent < 0 ? (int32_t)d->nnodes : d->nodes[parent].top;
	if (depth > 0) {
		if (hwt_dwarf_attr_udata(w->dbg, die, DW_AT_call_line, &value) && value <= UINT32_MAX)
			n->call_line = (uint32_t)value;
		value = 0;
		if (hwt_dwarf_attr_udata(w->dbg, die, DW_AT_GNU_discriminator, &value) &&
		    value <= UINT32_MAX)
			n->call_disc = (uint32_t)value;
	}
	n->entry = w->list.r[0].begin;
	for (i = 0; i < w->list.n; i++) {
		struct range **arr = depth ? &d->iranges : &d->franges;
		size_t *cnt = depth ? &d->niranges : &d->nfranges;
		size_t *cap = depth ? &d->iranges_cap : &d->franges_cap;
		struct range *r;

		if (grow((void **)arr, cap, *cnt + 1, sizeof(**arr)) < 0) {
			free(n->name);
			return -hae_nomem;
		}
		r = &(*arr)[(*cnt)++];
		r->lo = w->list.r[i].begin;
		r->hi = w->list.r[i].end;
		r->node = (uint32_t)d->nnodes;
		r->depth = depth;
		r->top = n->top;
		if (r->lo < n->entry)
			n->entry = r->lo;
	}
	if (depth)
		d->ninlines++;
	else
		d->nfunctions++;
	*index = (int32_t)d->nnodes++;
	return 0;
}

/* Functions, the calls inlined in them, and the DIEs that can hold either. */
static int visit_die(void *arg, Dwarf_Die die, Dwarf_Half tag, int level)
{
	struct walk *w = arg;
	int32_t parent = w->at[level].parent, index = -1;
	uint32_t depth = w->at[level].depth;
	int rc = 0;

	switch (tag) {
	case DW_TAG_subprogram:
		/* A nested subprogram (a local function) is a function of its own. */
		rc = add_node(w, die, -1, 0, &index);
		parent = index;
		depth = index >= 0 ? 1 : 0;
		break;
	case DW_TAG_inlined_subroutine:
		if (parent < 0)
			return 0;
		rc = add_node(w, die, parent, depth, &index);
		if (index < 0)
			return rc; /* no code: neither has what it inlines */
		parent = index;
		depth++;
		break;
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		break;
	default:
		return 0; /* variables, parameters, types: no code below */
	}
	if (rc < 0)
		return rc;
	w->at[level + 1].parent = parent;
	w->at[level + 1].depth = depth;
	return 1;
}

struct row {
	uint64_t addr;
	uint32_t line, disc;
	int valid;
};

static int read_lines(struct hwt_afdo_debug *d, Dwarf_Debug dbg, Dwarf_Die cu)
{
	int rc = 0;
	struct hwt_dwarf_lines *table;
	struct row prev = { 0 };
	size_t i, nlines;

	if (hwt_dwarf_lines_open(dbg, cu, &table) < 0)
		return -hae_nomem;
	if (!table)
		return 0;
	nlines = hwt_dwarf_lines_count(table);
	for (i = 0; i < nlines && rc == 0; i++) {
		struct hwt_dwarf_row dr;
		struct row r = { 0 };

		if (hwt_dwarf_lines_row(table, i, &dr) < 0) {
			prev.valid = 0;
			continue;
		}
		r.addr = dr.addr;
		r.line = dr.line <= UINT32_MAX ? (uint32_t)dr.line : 0;
		r.disc = dr.disc;
		r.valid = !dr.end;
		if (prev.valid && dr.addr > prev.addr) {
			struct span *s;

			if (grow((void **)&d->spans, &d->spans_cap, d->nspans + 1,
				 sizeof(*d->spans)) < 0) {
				rc = -hae_nomem;
				break;
			}
			s = &d->spans[d->nspans++];
			s->begin = prev.addr;
			s->end = dr.addr;
			s->line = prev.line;
			s->disc = prev.disc;
		}
		/* Rows at one address: the last one holds for the code there. */
		prev = r;
	}
	hwt_dwarf_lines_close(table);
	return rc;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->top != y->top)
		return x->top < y->top ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_frange(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int finish(struct hwt_afdo_debug *d)
{
	size_t i, j;

	if (d->nfranges > 1)
		qsort(d->franges, d->nfranges, sizeof(*d->franges), cmp_frange);
	/* Overlapping functions (folded code): the first one keeps the range. */
	for (i = 0, j = 0; i < d->nfranges; i++) {
		if (j > 0 && d->franges[i].lo < d->franges[j - 1].hi)
			continue;
		d->franges[j++] = d->franges[i];
	}
	d->nfranges = j;
	if (d->niranges > 1)
		qsort(d->iranges, d->niranges, sizeof(*d->iranges), cmp_range);
	for (i = 0; i < d->niranges; i = j) {
		struct node *top = &d->nodes[d->iranges[i].top];

		for (j = i; j < d->niranges && d->iranges[j].top == d->iranges[i].top; j++)
			;
		top->ifirst = i;
		top->ilast = j;
	}
	if (d->nspans > 1)
		qsort(d->spans, d->nspans, sizeof(*d->spans), cmp_span);
	for (i = 0, j = 0; i < d->nspans; i++) {
		if (j > 0 && d->spans[i].begin < d->spans[j - 1].end)
			continue; /* a CU described twice, or folded code */
		d->spans[j++] = d->spans[i];
	}
	d->nspans = j;
	d->entries = malloc((d->nfranges ? d->nfranges : 1) * sizeof(*d->entries));
	if (!d->entries)
		return -hae_nomem;
	for (i = 0; i < d->nfranges; i++) {
		const struct node *n = &d->nodes[d->franges[i].node];

		if (d->franges[i].lo == n->entry)
			d->entries[d->nentries++] = d->franges[i];
	}
	return 0;
}

static int read_dwarf(struct hwt_afdo_debug *d, const char *path)
{
	struct hwt_dwarf *dw;
	struct hwt_dwarf_cu cu;
	struct walk w = { 0 };
	int res, rc = hwt_dwarf_open(path, &dw);

	if (rc < 0)
		return hwt_dwarf_error_as(rc, hae_no_debug, hae_dwarf);
	w.debug = d;
	w.dbg = hwt_dwarf_debug(dw);
	w.at[0].parent = -1;
	w.at[0].depth = 0;
	while ((res = hwt_dwarf_next_cu(dw, &cu)) > 0) {
		w.cu_base = cu.base;
		rc = read_lines(d, w.dbg, cu.die);
		if (rc == 0)
			rc = hwt_dwarf_walk(w.dbg, cu.die, WALK_MAX_LEVEL, visit_die, &w);
		if (rc < 0)
			break;
	}
	free(w.list.r);
	hwt_dwarf_close(dw);
	if (res < 0)
		rc = hwt_dwarf_error_as(res, hae_no_debug, hae_dwarf);
	if (rc < 0)
		return rc;
	if (d->nspans == 0 || d->nfunctions == 0)
		return -hae_no_debug;
	return finish(d);
}

int hwt_afdo_debug_load_dirs(struct hwt_afdo_debug *debug, const char *path,
			     const char *const *debug_dirs)
{
	struct hwt_elf_file elf;
	struct hwt_debug_file found;
	char *dwarf_path = NULL;
	int rc;

	if (!debug || !path || debug->nnodes || debug->dwarf_file)
		return -hae_invalid;
	rc = hwt_elf_file_open(&elf, path);
	if (rc < 0)
		return hwt_elf_error_as(rc, hae_io);
	if (!elf.is_elf) {
		hwt_elf_file_close(&elf);
		return -hae_not_elf;
	}
	/* The file itself, else its separate debug file where gdb finds it. */
	rc = hwt_debug_file_dwarf(&elf, path, debug_dirs, &found, &dwarf_path);
	hwt_elf_file_close(&elf);
	debug->crc_mismatch = found.crc_mismatch;
	found.crc_mismatch = NULL;
	hwt_debug_file_fini(&found);
	if (rc < 0)
		return hwt_elf_error_as(rc, hae_invalid);
	if (rc == 0)
		return -hae_no_debug;
	debug->dwarf_file = dwarf_path;
	return read_dwarf(debug, dwarf_path);
}

int hwt_afdo_debug_load(struct hwt_afdo_debug *debug, const char *path)
{
	return hwt_afdo_debug_load_dirs(debug, path, NULL);
}

const char *hwt_afdo_debug_crc_mismatch(const struct hwt_afdo_debug *debug)
{
	return debug->crc_mismatch;
}

/* ----- Lookups ------------------------------------------------------------- */

/* Index of the last element of a sorted-by-key array with key <= addr, or -1. */
#define LAST_LE(array, count, field, addr, out)                                 \
	do {                                                                    \
		size_t lo_ = 0, hi_ = (count);                                  \
		while (lo_ < hi_) {                                             \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                    \
			if ((array)[mid_].field <= (addr))                      \
				lo_ = mid_ + 1;                                 \
			else                                                    \
				hi_ = mid_;                                     \
		}                                                               \
		(out) = (long)lo_ - 1;                                          \
	} while (0)

const char *hwt_afdo_debug_function_at(const struct hwt_afdo_debug *debug, uint64_t vaddr)
{
	long i;

	LAST_LE(debug->entries, debug->nentries, lo, vaddr, i);
	if (i < 0 || debug->entries[i].lo != vaddr)
		return NULL;
	return debug->nodes[debug->entries[i].node].name;
}

int hwt_afdo_debug_lookup(const struct hwt_afdo_debug *debug, uint64_t vaddr,
			  struct hwt_afdo_location *loc)
{
	const struct node *top, *n;
	int32_t chain[HWT_AFDO_MAX_FRAMES];
	uint32_t best_depth = 0, k, count = 0;
	int32_t best = -1, cur;
	size_t i;
	long f, s;

	LAST_LE(debug->franges, debug->nfranges, lo, vaddr, f);
	if (f < 0 || vaddr >= debug->franges[f].hi)
		return 0;
	LAST_LE(debug->spans, debug->nspans, begin, vaddr, s);
	if (s < 0 || vaddr >= debug->spans[s].end || debug->spans[s].line == 0)
		return 0;
	top = &debug->nodes[debug->franges[f].node];
	best = debug->franges[f].node;
	for (i = top->ifirst; i < top->ilast; i++) {
		const struct range *r = &debug->iranges[i];

		if (r->lo > vaddr)
			break; /* sorted by lo within the function */
		if (vaddr < r->hi && r->depth > best_depth) {
			best_depth = r->depth;
			best = (int32_t)r->node;
		}
	}
	/* Innermost to outermost; deeper chains than we follow are left out. */
	for (cur = best; cur >= 0; cur = debug->nodes[cur].parent) {
		if (count == HWT_AFDO_MAX_FRAMES)
			return 0;
		chain[count++] = cur;
	}
	for (k = 0; k < count; k++) {
		n = &debug->nodes[chain[count - 1 - k]];
		loc->frames[k].function = n->name;
		loc->frames[k].decl_line = n->decl_line;
		loc->frames[k].call_line = n->call_line;
		loc->frames[k].call_discriminator = n->call_disc;
	}
	loc->nframes = count;
	loc->line = debug->spans[s].line;
	loc->discriminator = debug->spans[s].disc;
	loc->entry = top->entry;
	return 1;
}
