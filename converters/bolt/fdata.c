/*
 * llvm-bolt's fdata profile of one image, from exact counts (hwt_bolt.h).
 *
 * The lines come from three places:
 *  - the profile's edges: conditional branches taken and not taken, jumps
 *    and indirect jumps within a function (branches and fall-throughs),
 *    calls and tail calls between functions;
 *  - fall-throughs that no branch makes: BOLT starts a block at every
 *    branch target, so straight-line code that runs into a target crosses
 *    a block edge. The function is decoded (linear sweep) to find its
 *    targets; the count is what entered the target other than by a branch
 *    or a return, at most what ran of the instruction before it.
 * Returns and far transfers are left out: BOLT's graph has no edge for
 * them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bolt_int.h"
#include "grow.h"
#include "hwt_bolt.h"
#include "insn.h"

enum line_kind { line_branch, line_fall_through, line_call };

struct line {
	const struct hwt_bolt_function *from, *to;
	uint64_t from_off, to_off;   /* from the functions' entries */
	uint64_t count;
	enum line_kind kind;
};

/* The other end of a transfer to or from another image. */
static const struct hwt_bolt_function unknown = { 0, 0, (char *)"[unknown]" };

struct lines {
	struct line *items;
	size_t count, capacity;
};

/* Inflow of an address other than by a return (fall-throughs are not edges). */
struct inflow {
	uint64_t to;     /* file offset */
	uint64_t count;
};

struct writer {
	const struct hwt_profile *profile;
	size_t image;
	struct hwt_elf_file elf;
	struct hwt_bolt_functions fns;
	struct hwt_profile_insn *insns;
	size_t ninsns;
	const struct hwt_profile_edge *edges;
	size_t nedges;
	struct inflow *inflow;     /* sorted by to, one per address */
	size_t ninflow;
	struct lines lines;
	struct hwt_bolt_stats stats;
};

static int add_line(struct lines *l, const struct line *line)
{
	struct line *items = hwt_grow_array(l->items, &l->capacity, l->count + 1, sizeof(*items));

	if (!items)
		return -hboe_nomem;
	l->items = items;
	l->items[l->count++] = *line;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->from->addr != y->from->addr)
		return x->from->addr < y->from->addr ? -1 : 1;
	if (x->from_off != y->from_off)
		return x->from_off < y->from_off ? -1 : 1;
	if (x->to->addr != y->to->addr)
		return x->to->addr < y->to->addr ? -1 : 1;
	if (x->to_off != y->to_off)
		return x->to_off < y->to_off ? -1 : 1;
	return 0;
}

static int cmp_inflow(const void *a, const void *b)
{
	const struct inflow *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

static uint64_t inflow_at(const struct writer *w, uint64_t to)
{
	struct inflow key = { to, 0 };
	const struct inflow *f = bsearch(&key, w->inflow, w->ninflow, sizeof(key), cmp_inflow);

	return f ? f->count : 0;
}

/* The executed instruction at file offset, or NULL. */
static const struct hwt_profile_insn *insn_at(const struct writer *w, uint64_t offset)
{
	return hwt_profile_insn_at(w->insns, w->ninsns, offset);
}

/* Index of the first executed instruction at or after offset. */
static size_t insn_lower_bound(const struct writer *w, uint64_t offset)
{
	size_t lo = 0, hi = w->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->insns[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Edges whose target is in this image, added up per target, returns left out. */
static int collect_inflow(struct writer *w)
{
	size_t i, n = 0;

	w->inflow = calloc(w->nedges + 1, sizeof(*w->inflow));
	if (!w->inflow)
		return -hboe_nomem;
	for (i = 0; i < w->nedges; i++) {
		const struct hwt_profile_edge *e = &w->edges[i];

		if (e->to_image == w->image && e->kind != hwt_edge_return && e->count)
			w->inflow[n++] = (struct inflow){ e->to, e->count };
	}
	qsort(w->inflow, n, sizeof(*w->inflow), cmp_inflow);
	w->ninflow = 0;
	for (i = 0; i < n; i++) {
		if (w->ninflow && w->inflow[w->ninflow - 1].to == w->inflow[i].to)
			w->inflow[w->ninflow - 1].count += w->inflow[i].count;
		else
			w->inflow[w->ninflow++] = w->inflow[i];
	}
	return 0;
}

/* The lines of the profile's edges that leave this image's code. */
static int edge_lines(struct writer *w)
{
	size_t i;

	for (i = 0; i < w->nedges; i++) {
		const struct hwt_profile_edge *e = &w->edges[i];
		const struct hwt_bolt_function *from, *to;
		struct line line;
		uint64_t fv, tv;
		int rc;

		if (!e->count || e->kind == hwt_edge_return || e->kind == hwt_edge_far)
			continue;
		if (e->from_image != w->image) {
			/* Entered from another image (main from libc, callbacks):
			   the function's entry count. */
			tv = hwt_elf_file_vaddr(&w->elf, e->to);
			to = e->to_image == w->image ? hwt_bolt_function_at(&w->fns, tv) : NULL;
			if (!to || tv != to->addr)
				continue;
			line = (struct line){ &unknown, to, 0, 0, e->count, line_call };
			rc = add_line(&w->lines, &line);
			if (rc < 0)
				return rc;
			continue;
		}
		fv = hwt_elf_file_vaddr(&w->elf, e->from);
		tv = hwt_elf_file_vaddr(&w->elf, e->to);
		from = hwt_bolt_function_at(&w->fns, fv);
		to = e->to_image == w->image ? hwt_bolt_function_at(&w->fns, tv) : NULL;
		if (from && e->to_image != w->image &&
		    (e->kind == hwt_edge_call || e->kind == hwt_edge_indirect_call)) {
			/* A call out of the image (shared libraries), as BOLT's
			   instrumentation writes it. */
			line = (struct line){ from, &unknown, fv - from->addr, 0, e->count, line_call };
			rc = add_line(&w->lines, &line);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!from || !to) {
			w->stats.outside += e->count;
			continue;
		}
		line = (struct line){ from, to, fv - from->addr, tv - to->addr, e->count, line_call };
		switch ((enum hwt_profile_edge_kind)e->kind) {
		case hwt_edge_cond_not_taken:
			line.kind = line_fall_through;
			break;
		case hwt_edge_cond_taken:
		case hwt_edge_jump:
		case hwt_edge_indirect_jump:
			/* Within a function a branch; to another, a tail call. */
			line.kind = from == to ? line_branch : line_call;
			break;
		default:
			line.kind = line_call;
			break;
		}
		if (line.kind == line_fall_through && from != to) {
			w->stats.outside += e->count; /* falls off the end of a function */
			continue;
		}
		rc = add_line(&w->lines, &line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* 1 when the instruction of this kind can run on into the next one. */
static int falls_through(uint8_t kind)
{
	return kind == HWT_INSN_OTHER || kind == HWT_INSN_CALL || kind == HWT_INSN_CALL_INDIRECT ||
	       kind == HWT_INSN_FAR;
}

struct decoded {
	uint64_t vaddr;
	uint64_t target;  /* direct branches within the function, else 0 */
	uint8_t kind;
	uint8_t leader;   /* a branch of the function targets it */
};

/* Index of the decoded instruction at vaddr, or n. */
static size_t decoded_at(const struct decoded *code, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (code[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && code[lo].vaddr == vaddr ? lo : n;
}

/*
 * The fall-throughs of one function into its branch targets, where the
 * instruction before the target is not a branch (those are the
 * profile's not-taken edges).
 */
static int function_fall_throughs(struct writer *w, const struct hwt_bolt_function *fn,
				  struct decoded *code, size_t room)
{
	size_t n = 0, i, k;
	uint64_t v = fn->addr;
	int rc;

	/* Linear sweep; it stops at bytes that do not decode. */
	while (v < fn->end && n < room) {
		size_t avail = 0;
		const uint8_t *bytes = hwt_elf_file_code(&w->elf, v, &avail);
		struct hwt_insn insn;
		uint64_t t = 0;
		int len;

		if (!bytes)
			break;
		if (avail > fn->end - v)
			avail = (size_t)(fn->end - v);
		len = hwt_insn_decode(w->elf.machine, bytes, avail, &insn);
		if (len <= 0)
			break;
		if ((insn.kind == HWT_INSN_COND || insn.kind == HWT_INSN_JUMP) &&
		    (insn.flags & HWT_INSN_HAS_TARGET)) {
			t = hwt_insn_target(&insn, v);
			if (t <= fn->addr || t >= fn->end)
				t = 0;
		}
		code[n++] = (struct decoded){ v, t, insn.kind, 0 };
		v += (uint64_t)len;
	}
	for (i = 0; i < n; i++)
		if (code[i].target && (k = decoded_at(code, n, code[i].target)) < n)
			code[k].leader = 1;
	/* Targets of indirect jumps seen in the trace are block starts too. */
	for (i = 1; i < n; i++) {
		const struct hwt_profile_insn *prev, *here;
		uint64_t off, in, ft;
		struct line line;

		off = hwt_elf_file_offset(&w->elf, code[i].vaddr);
		if (!code[i].leader && !inflow_at(w, off))
			continue;
		if (!falls_through(code[i - 1].kind))
			continue;
		prev = insn_at(w, hwt_elf_file_offset(&w->elf, code[i - 1].vaddr));
		here = insn_at(w, off);
		if (!prev || !here)
			continue;
		in = inflow_at(w, off);
		ft = here->count > in ? here->count - in : 0;
		if (ft > prev->count)
			ft = prev->count;
		if (!ft)
			continue;
		line = (struct line){ fn, fn, code[i - 1].vaddr - fn->addr, code[i].vaddr - fn->addr,
				      ft, line_fall_through };
		rc = add_line(&w->lines, &line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int fall_through_lines(struct writer *w)
{
	struct decoded *code = NULL;
	size_t room = 0, i;
	int rc = 0;

	for (i = 0; i < w->fns.count && rc == 0; i++) {
		const struct hwt_bolt_function *fn = &w->fns.items[i];
		uint64_t begin = hwt_elf_file_offset(&w->elf, fn->addr);
		uint64_t end = hwt_elf_file_offset(&w->elf, fn->end - 1);
		size_t k = insn_lower_bound(w, begin), need;

		/* Only functions that ran. */
		if (k >= w->ninsns || w->insns[k].offset > end)
			continue;
		need = (size_t)(fn->end - fn->addr);
		if (need > room) {
			free(code);
			code = calloc(need, sizeof(*code));
			room = code ? need : 0;
			if (!code)
				return -hboe_nomem;
		}
		rc = function_fall_throughs(w, fn, code, room);
	}
	free(code);
	return rc;
}

static int write_lines(struct writer *w, FILE *out)
{
	size_t i, j;
	const struct hwt_bolt_function *last = NULL;

	qsort(w->lines.items, w->lines.count, sizeof(*w->lines.items), cmp_line);
	for (i = 0; i < w->lines.count; i = j) {
		struct line l = w->lines.items[i];

		/* Equal ends (an edge seen as several kinds) add up. */
		for (j = i + 1; j < w->lines.count && !cmp_line(&w->lines.items[j], &l); j++)
			l.count += w->lines.items[j].count;
		if (l.from != last && l.from != &unknown)
			w->stats.functions++;
		last = l.from;
		w->stats.count += l.count;
		if (l.kind == line_branch)
			w->stats.branches++;
		else if (l.kind == line_fall_through)
			w->stats.fall_throughs++;
		else
			w->stats.calls++;
		if (fprintf(out, "%d %s %" PRIx64 " %d %s %" PRIx64 " 0 %" PRIu64 "\n",
			    l.from != &unknown, l.from->name, l.from_off, l.to != &unknown,
			    l.to->name, l.to_off, l.count) < 0)
			return -hboe_io;
	}
	if (fflush(out) != 0 || ferror(out))
		return -hboe_io;
	return 0;
}

int hwt_bolt_write_fdata(const struct hwt_profile *profile, size_t image, const char *file,
			 FILE *out, struct hwt_bolt_stats *stats, int *profile_error)
{
	const struct hwt_profile_image *img = profile ? hwt_profile_image_at(profile, image) : NULL;
	struct writer w;
	int rc;

	if (!img || !out)
		return -hboe_invalid;
	memset(&w, 0, sizeof(w));
	w.profile = profile;
	w.image = image;
	/* Executed instructions (and the build-id check) first. */
	rc = hwt_profile_image_insns(profile, image, file, &w.insns, &w.ninsns);
	if (rc == 0)
		rc = hwt_profile_edges(profile, &w.edges, &w.nedges);
	if (rc < 0) {
		if (profile_error)
			*profile_error = rc;
		if (rc == -hpe_not_elf)
			return -hboe_not_elf;
		return rc == -hpe_nomem ? -hboe_nomem : -hboe_profile;
	}
	rc = hwt_elf_file_open(&w.elf, file ? file : img->path);
	if (rc < 0) {
		rc = hwt_elf_error_as(rc, hboe_io);
		goto out;
	}
	if (!w.elf.is_elf || !hwt_insn_machine_known(w.elf.machine)) {
		rc = -hboe_not_elf;
		goto out;
	}
	rc = hwt_bolt_functions_read(&w.elf, &w.fns);
	if (rc == 0)
		rc = collect_inflow(&w);
	if (rc == 0)
		rc = edge_lines(&w);
	if (rc == 0)
		rc = fall_through_lines(&w);
	if (rc == 0)
		rc = write_lines(&w, out);
	if (rc == 0 && stats)
		*stats = w.stats;
out:
	free(w.lines.items);
	free(w.inflow);
	free(w.insns);
	hwt_bolt_functions_clear(&w.fns);
	hwt_elf_file_close(&w.elf);
	return rc;
}
