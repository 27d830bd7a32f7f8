/*
 * struct hwt_coverage: lines, functions and branches per source file,
 * merged over images. The rules that map instructions to lines are the
 * ones docs/hwt-cov.md gives (and explains against gcov):
 *
 *  - a line exists when an is_stmt row of a line table names it and covers
 *    at least one byte of code;
 *  - within one function, a line's count is the largest count of any
 *    instruction attributed to it (at -O0 that is the number of times the
 *    line's most executed basic block ran, which is gcov's count for a
 *    line that is entered once per execution, and for loop headers); the
 *    counts of the functions that share a line add (instances of a
 *    template, constructor and destructor variants, a lambda and the
 *    function around it: gcov counts each function's blocks), and so do
 *    those of several images;
 *  - artificial functions (DW_AT_artificial: implicit constructors and
 *    destructors, static initialisers) have no FN and no lines, as gcov;
 *  - the prologue row of a function counts for its declaration line
 *    (DW_AT_decl_line), as gcov counts the function's entry there, not on
 *    the opening brace;
 *  - a row whose only instruction jumps to the next one (clang -O0 on a
 *    loop's closing brace, or on "do {") does not make a line;
 *  - the epilogue row on a line holding only the function's closing brace
 *    is not a line, unless the function is void and has no explicit return
 *    (then gcc attributes the implicit return to the brace, and gcov counts
 *    it);
 *  - a function's count (FNDA) is the number of times its first
 *    instruction ran;
 *  - every conditional branch instruction gives two BRDA branches: 0 taken,
 *    1 not taken; the block number is its rank among the conditional
 *    branches of its line; '-' when the instruction never ran.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash_index.h"
#include "hwt_lcov.h"
#include "lcov_int.h"
#include "insn.h"

struct line_count {
	uint64_t count;
	int exists;
};

struct fn_entry {
	char *name;
	uint32_t line;
	uint64_t count;
};

struct br_entry {
	uint32_t line, block, branch;
	int executed;
	uint64_t taken;
};

struct source {
	char *path;
	struct line_count *lines;   /* indexed by line number */
	size_t nlines;              /* entries allocated (max line + 1) */
	struct fn_entry *fns;
	size_t nfns, fns_cap;
	struct br_entry *brs;
	size_t nbrs, brs_cap;
	/* The source text, read when a rule needs it. */
	int text_read;
	struct hwt_source_text text;
	int dropped;                /* hwt_coverage_source_drop */
	char *image;                /* the oldest image naming it (source.c's check) */
	int64_t image_mtime_ns;
};

struct hwt_coverage {
	struct source **sources;
	size_t nsources, sources_cap;
	struct hwt_hash_index index;  /* of sources by path */
	struct hwt_warn_sink warn;
};

struct hwt_coverage *hwt_coverage_alloc(void)
{
	return calloc(1, sizeof(struct hwt_coverage));
}

static void source_free(struct source *src)
{
	size_t i;

	for (i = 0; i < src->nfns; i++)
		free(src->fns[i].name);
	free(src->fns);
	free(src->brs);
	free(src->lines);
	hwt_source_text_fini(&src->text);
	free(src->image);
	free(src->path);
	free(src);
}

void hwt_coverage_free(struct hwt_coverage *cov)
{
	size_t i;

	if (!cov)
		return;
	for (i = 0; i < cov->nsources; i++)
		source_free(cov->sources[i]);
	free(cov->sources);
	hwt_hash_index_free(&cov->index);
	free(cov);
}

void hwt_coverage_set_warn(struct hwt_coverage *cov, const struct hwt_warn_sink *sink)
{
	cov->warn = sink ? *sink : (struct hwt_warn_sink){ 0 };
}

int hwt_coverage_warn(struct hwt_coverage *cov, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (!cov->warn.fn)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -hle_nomem;
	hwt_warn_say(&cov->warn, msg);
	free(msg);
	return 0;
}

size_t hwt_coverage_source_count(const struct hwt_coverage *cov)
{
	return cov->nsources;
}

const char *hwt_coverage_source_path(const struct hwt_coverage *cov, size_t i)
{
	return i < cov->nsources ? cov->sources[i]->path : NULL;
}

int hwt_coverage_source_lines(const struct hwt_coverage *cov, size_t i, uint64_t *found)
{
	size_t k;

	if (i >= cov->nsources)
		return -hle_invalid;
	*found = 0;
	for (k = 0; k < cov->sources[i]->nlines; k++)
		*found += cov->sources[i]->lines[k].exists;
	return 0;
}

int hwt_coverage_source_drop(struct hwt_coverage *cov, size_t i)
{
	if (i >= cov->nsources)
		return -hle_invalid;
	cov->sources[i]->dropped = 1;
	return 0;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct source *source_find(const struct hwt_coverage *cov, const char *path)
{
	struct hwt_hash_probe probe;

	for (long k = hwt_hash_index_find(&cov->index, hash_str(path), &probe); k >= 0;
	     k = hwt_hash_index_next(&cov->index, &probe))
		if (!strcmp(cov->sources[k]->path, path))
			return cov->sources[k];
	return NULL;
}

static struct source *source_get(struct hwt_coverage *cov, const char *path)
{
	struct source *src = source_find(cov, path), **sources;
	uint64_t hash = hash_str(path);

	if (src)
		return src;
	sources = hwt_grow_array(cov->sources, &cov->sources_cap, cov->nsources + 1, sizeof(*sources));
	if (!sources)
		return NULL;
	cov->sources = sources;
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(path))) {
		free(src);
		return NULL;
	}
	if (hwt_hash_index_add(&cov->index, hash, cov->nsources) < 0) {
		free(src->path);
		free(src);
		return NULL;
	}
	sources[cov->nsources++] = src;
	return src;
}

static int source_line(struct source *src, uint32_t line, uint64_t count)
{
	struct line_count *lines;

	lines = hwt_grow_array_zeroed(src->lines, &src->nlines, (size_t)line + 1, sizeof(*lines));
	if (!lines)
		return -hle_nomem;
	src->lines = lines;
	src->lines[line].exists = 1;
	src->lines[line].count += count;
	return 0;
}

static int source_function(struct source *src, const char *name, uint32_t line, uint64_t count)
{
	struct fn_entry *fns;
	size_t i;

	/* lcov wants one start line per name: the first one seen is kept. */
	for (i = 0; i < src->nfns; i++) {
		if (!strcmp(src->fns[i].name, name)) {
			src->fns[i].count += count;
			return 0;
		}
	}
	fns = hwt_grow_array(src->fns, &src->fns_cap, src->nfns + 1, sizeof(*fns));
	if (!fns)
		return -hle_nomem;
	src->fns = fns;
	fns[src->nfns].name = strdup(name);
	if (!fns[src->nfns].name)
		return -hle_nomem;
	fns[src->nfns].line = line;
	fns[src->nfns].count = count;
	src->nfns++;
	return 0;
}

static int source_branch(struct source *src, uint32_t line, uint32_t block, uint32_t branch,
			 int executed, uint64_t taken)
{
	struct br_entry *brs;

	/* Duplicates (the same line from several images) merge when written. */
	brs = hwt_grow_array(src->brs, &src->brs_cap, src->nbrs + 1, sizeof(*brs));
	if (!brs)
		return -hle_nomem;
	src->brs = brs;
	brs[src->nbrs].line = line;
	brs[src->nbrs].block = block;
	brs[src->nbrs].branch = branch;
	brs[src->nbrs].executed = executed;
	brs[src->nbrs].taken = taken;
	src->nbrs++;
	return 0;
}

/* The text of line (1-based) of a source file, or NULL when unreadable. */
static const char *source_text(struct source *src, uint32_t line, size_t *len)
{
	if (!src->text_read) {
		src->text_read = 1;
		hwt_source_text_read(&src->text, src->path);
	}
	return hwt_source_text_line(&src->text, line, len);
}

/* A line that holds a closing brace and nothing else (comments aside). */
static int only_closing_brace(const char *s, size_t len)
{
	size_t i = 0;
	int braces = 0;

	while (i < len) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
			i++;
		} else if (s[i] == '}') {
			braces++;
			i++;
		} else if (s[i] == ';' && braces) {
			i++; /* "};" */
		} else if (s[i] == '/' && i + 1 < len && (s[i + 1] == '/' || s[i + 1] == '*')) {
			break;
		} else {
			return 0;
		}
	}
	return braces == 1;
}

/* First executed instruction at or after vaddr (binary search). */
static size_t insn_lower(const struct hwt_cov_insn *insns, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (insns[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct hwt_cov_insn *insn_at(const struct hwt_cov_insn *insns, size_t n,
					  uint64_t vaddr)
{
	size_t i = insn_lower(insns, n, vaddr);

	return i < n && insns[i].vaddr == vaddr ? &insns[i] : NULL;
}

/* One span of one line of one function of one image, before the spans are
   grouped by (file, line, function): a line's count is the largest of its
   function's spans, and the functions' counts add. */
struct pending_line {
	uint32_t file, line;
	int32_t function;
	int stmt;                   /* the span makes its line exist */
	size_t span;                /* index in the image's spans */
};

struct pending_branch {
	uint32_t file, line;
	uint64_t vaddr;
};

static int cmp_pending_line(const void *a, const void *b)
{
	const struct pending_line *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->function != y->function)
		return x->function < y->function ? -1 : 1;
	return x->span < y->span ? -1 : x->span > y->span;
}

static int cmp_pending_branch(const void *a, const void *b)
{
	const struct pending_branch *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/*
 * Walks the instructions of [begin, end) with the classifier of the file's
 * architecture; calls fn for each. Stops early at code that does not decode.
 */
typedef int insn_fn(uint64_t vaddr, const struct hwt_insn *insn, void *ctx);

static int walk_code(const struct hwt_debuginfo *info, uint64_t begin, uint64_t end,
		     insn_fn *fn, void *ctx)
{
	uint64_t ip = begin;
	size_t avail = 0;
	const uint8_t *code = hwt_debuginfo_code(info, begin, &avail);

	if (!code)
		return 0;
	while (ip < end) {
		struct hwt_insn insn;
		size_t off = (size_t)(ip - begin);
		int len, rc;

		if (off >= avail)
			break;
		len = hwt_insn_decode(hwt_debuginfo_machine(info), code + off, avail - off, &insn);
		if (len <= 0)
			break;
		rc = fn(ip, &insn, ctx);
		if (rc)
			return rc;
		ip += (uint64_t)len;
	}
	return 0;
}

/*
 * The half of hwt_coverage_add that does not depend on counts (struct
 * hwt_cov_plan, lcov_int.h): which spans make which lines, which
 * functions and conditional branches the image has, which files the
 * closing-brace rule looked at. Made once per image; applied to each set of
 * counts (per-test coverage applies it once a test).
 */
struct plan_span {
	uint64_t begin, end;
	int new_function;           /* another function's spans start here */
};

struct plan_line {
	uint32_t file, line;
	size_t first, count;        /* its spans in plan->spans */
};

struct plan_function {
	uint32_t file, line;
	const char *name;           /* the debug info's */
	uint64_t entry;
};

struct plan_branch {
	uint32_t file, line, block;
	uint64_t vaddr;
};

struct hwt_cov_plan {
	struct plan_span *spans;
	size_t nspans, spans_cap;
	struct plan_line *lines;
	size_t nlines, lines_cap;
	struct plan_function *fns;
	size_t nfns, fns_cap;
	struct plan_branch *brs;
	size_t nbrs;
	uint32_t *brace_files;
	size_t nbrace, brace_cap;
};

void hwt_cov_plan_free(struct hwt_cov_plan *plan)
{
	if (!plan)
		return;
	free(plan->spans);
	free(plan->lines);
	free(plan->fns);
	free(plan->brs);
	free(plan->brace_files);
	free(plan);
}

static int plan_brace_file(struct hwt_cov_plan *plan, uint32_t file)
{
	uint32_t *files;

	files = hwt_grow_array(plan->brace_files, &plan->brace_cap, plan->nbrace + 1,
			       sizeof(*files));
	if (!files)
		return -1;
	plan->brace_files = files;
	files[plan->nbrace++] = file;
	return 0;
}

struct jump_search {
	uint64_t target;
	int found;
};

static int find_jump_to(uint64_t vaddr, const struct hwt_insn *insn, void *ctx)
{
	struct jump_search *js = ctx;

	if (insn->kind == HWT_INSN_JUMP && (insn->flags & HWT_INSN_HAS_TARGET) &&
	    hwt_insn_target(insn, vaddr) == js->target) {
		js->found = 1;
		return 1;
	}
	return 0;
}

/*
 * Marks (line = 0 in drop[]) the epilogue spans of function fn when they
 * sit on a line holding only its closing brace that gcov does not count.
 * first..last: the function's spans.
 */
static int drop_closing_brace(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
			      const struct hwt_line_span *spans, size_t first, size_t last,
			      const struct hwt_function *fn, uint32_t *line_of,
			      struct hwt_cov_plan *plan)
{
	uint32_t file = spans[last].file, brace = line_of[last];
	size_t tail = last, i;
	struct source *src;
	const char *text;
	size_t len;

	while (tail > first && spans[tail - 1].file == file && line_of[tail - 1] == brace)
		tail--;
	if (tail == first)
		return 0; /* the whole function is on one line */
	for (i = first; i < tail; i++)
		if (spans[i].file == file && line_of[i] >= brace)
			return 0; /* the line has other code, or is not the last one */
	src = source_get(cov, hwt_debuginfo_file(info, file));
	if (!src)
		return 0;
	/* Each coverage the plan goes to names the file, as this one does. */
	if (plan_brace_file(plan, file) < 0)
		return -hle_nomem;
	text = source_text(src, brace, &len);
	if (!text || !only_closing_brace(text, len))
		return 0;
	if (!fn->returns_value) {
		/* A void function: gcc puts its implicit return on the brace,
		   unless a return statement jumps there. */
		struct jump_search js = { spans[tail].begin, 0 };

		for (i = first; i < tail && !js.found; i++)
			if (spans[i].function == spans[last].function)
				walk_code(info, spans[i].begin, spans[i].end, find_jump_to, &js);
		if (!js.found)
			return 0;
	}
	for (i = tail; i <= last; i++)
		line_of[i] = 0;
	return 0;
}

struct nop_jump {
	uint64_t end;
	int insns, nop;
};

static int check_nop_jump(uint64_t vaddr, const struct hwt_insn *insn, void *ctx)
{
	struct nop_jump *nj = ctx;

	nj->insns++;
	nj->nop = insn->kind == HWT_INSN_JUMP && (insn->flags & HWT_INSN_HAS_TARGET) &&
		  hwt_insn_target(insn, vaddr) == nj->end &&
		  vaddr + insn->length == nj->end;
	return 0;
}

/* A span that is one jump to the next instruction (clang -O0 ends blocks
   so, on a loop's closing brace or a "do {"): no code of the line's own. */
static int is_nop_jump(const struct hwt_debuginfo *info, const struct hwt_line_span *s)
{
	struct nop_jump nj = { s->end, 0, 0 };

	if (s->end - s->begin > HWT_INSN_MAX_LEN)
		return 0;
	walk_code(info, s->begin, s->end, check_nop_jump, &nj);
	return nj.insns == 1 && nj.nop;
}

/* Little-endian word i of c (A64 code). */
static uint32_t a64_word(const uint8_t *c, size_t i)
{
	c += 4 * i;
	return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
}

/*
 * The span starts with the stack protector's load of the canary. x86-64:
 * `mov %fs:0x28,%reg`, REX.W 8B /r with a SIB of disp32 and no base.
 * AArch64: the guard's address (ADRP Xn, then LDR Xn, [Xn, #got] or ADD
 * Xn, Xn, #lo12), its value (LDR Xm, [Xn]), stored in the frame (STR/STUR
 * Xm, [SP or X29, #imm]).
 */
static int is_canary_load(const struct hwt_debuginfo *info, const struct hwt_line_span *s)
{
	static const uint8_t disp[5] = { 0x25, 0x28, 0x00, 0x00, 0x00 };
	size_t avail = 0;
	const uint8_t *c = hwt_debuginfo_code(info, s->begin, &avail);
	uint32_t w0, w1, w2, w3;
	unsigned n, m;

	if (!c)
		return 0;
	if (hwt_debuginfo_machine(info) == HWT_INSN_X86_64)
		return avail >= 9 && s->end - s->begin >= 9 && c[0] == 0x64 &&
		       (c[1] & 0xfb) == 0x48 && c[2] == 0x8b && (c[3] & 0xc7) == 0x04 &&
		       !memcmp(c + 4, disp, sizeof(disp));
	if (hwt_debuginfo_machine(info) != HWT_INSN_AARCH64 || avail < 16 ||
	    s->end - s->begin < 16)
		return 0;
	w0 = a64_word(c, 0);
	w1 = a64_word(c, 1);
	w2 = a64_word(c, 2);
	w3 = a64_word(c, 3);
	n = w0 & 0x1fu;
	m = w2 & 0x1fu;
	return (w0 & 0x9f000000u) == 0x90000000u &&                                /* ADRP Xn */
	       (((w1 & 0xffc00000u) == 0xf9400000u) ||                             /* LDR Xn, [Xn, #imm] */
		((w1 & 0xffc00000u) == 0x91000000u)) &&                            /* ADD Xn, Xn, #imm */
	       (w1 & 0x1fu) == n && ((w1 >> 5) & 0x1fu) == n &&
	       (w2 & 0xfffffc00u) == 0xf9400000u && ((w2 >> 5) & 0x1fu) == n &&    /* LDR Xm, [Xn] */
	       ((w3 & 0xffc00000u) == 0xf9000000u || (w3 & 0xffe00c00u) == 0xf8000000u) && /* STR, STUR */
	       (w3 & 0x1fu) == m && (((w3 >> 5) & 0x1fu) == 31 || ((w3 >> 5) & 0x1fu) == 29);
}

struct branch_collect {
	uint32_t file, line;
	struct pending_branch *list;
	size_t count, cap;
	int nomem;
};

static int collect_branch(uint64_t vaddr, const struct hwt_insn *insn, void *ctx)
{
	struct branch_collect *bc = ctx;
	struct pending_branch *list, *b;

	if (insn->kind != HWT_INSN_COND)
		return 0;
	list = hwt_grow_array(bc->list, &bc->cap, bc->count + 1, sizeof(*list));
	if (!list) {
		bc->nomem = 1;
		return 1;
	}
	bc->list = list;
	b = &list[bc->count++];
	b->file = bc->file;
	b->line = bc->line;
	b->vaddr = vaddr;
	return 0;
}

/*
 * What the steps of hwt_cov_plan_make share: the image's rows (spans) and
 * functions, and per span the line it counts for (0: none) and whether it
 * is a statement though its row is not is_stmt.
 */
struct plan_rows {
	const struct hwt_debuginfo *info;
	const struct hwt_line_span *spans;
	size_t nspans;
	const struct hwt_function *funcs;
	size_t nfuncs;
	uint32_t *line_of;
	uint8_t *stmt_of;
};

/* The line of span i: is_stmt rows name lines; others belong to the line
   before them (clang marks column changes within a line). */
static uint32_t plan_span_line(const struct plan_rows *r, size_t i)
{
	const struct hwt_line_span *s = &r->spans[i];
	const struct hwt_function *f = s->function >= 0 ? &r->funcs[s->function] : NULL;

	if (f && f->artificial)
		return 0;
	if (s->end > s->begin && is_nop_jump(r->info, s)) {
		/* The row's statement goes on in the next row of its line (clang
		   -O0 on aarch64 marks only the jump's row a statement). */
		for (size_t j = i + 1; s->is_stmt && j < r->nspans && !r->spans[j].is_stmt; j++)
			if (r->spans[j].file == s->file && r->spans[j].line == s->line) {
				r->stmt_of[j] = 1;
				break;
			}
		return 0;
	}
	if (!f || !f->decl_line)
		return s->line;
	/* The first row at a function's entry only. */
	if (s->begin == f->entry && (i == 0 || r->spans[i - 1].begin != s->begin))
		return f->decl_line;
	/* gcc's stack protector: the canary's load gets a row of its own on
	   the opening brace, after the entry's; it is prologue. */
	if (i > 0 && r->spans[i - 1].function == s->function &&
	    r->spans[i - 1].begin == f->entry && r->spans[i - 1].line == s->line &&
	    is_canary_load(r->info, s))
		return f->decl_line;
	return s->line;
}

/* Closing braces, function by function (spans of one part of a function
   are contiguous: both lists are sorted by address). Only in the range
   holding the entry: a cold part has no closing brace. */
static int plan_closing_braces(struct hwt_coverage *cov, const struct plan_rows *r,
			       struct hwt_cov_plan *plan)
{
	const struct hwt_line_span *spans = r->spans;
	size_t i, j;

	for (i = 0; i < r->nspans; i = j) {
		const struct hwt_function *f;

		j = i + 1;
		if (spans[i].function < 0)
			continue;
		while (j < r->nspans && spans[j].function == spans[i].function)
			j++;
		f = &r->funcs[spans[i].function];
		if (spans[i].begin < f->end && spans[j - 1].end > f->entry &&
		    drop_closing_brace(cov, r->info, spans, i, j - 1, f, r->line_of, plan) < 0)
			return -hle_nomem;
	}
	return 0;
}

/* Appends the line of pending[first..end) (one file and line) and its spans. */
static int plan_add_line(struct hwt_cov_plan *plan, const struct plan_rows *r,
			 const struct pending_line *pending, size_t first, size_t end)
{
	struct plan_span *ps;
	struct plan_line *pl;

	pl = hwt_grow_array(plan->lines, &plan->lines_cap, plan->nlines + 1, sizeof(*pl));
	if (!pl)
		return -hle_nomem;
	plan->lines = pl;
	ps = hwt_grow_array(plan->spans, &plan->spans_cap, plan->nspans + (end - first), sizeof(*ps));
	if (!ps)
		return -hle_nomem;
	plan->spans = ps;
	pl = &plan->lines[plan->nlines++];
	pl->file = pending[first].file;
	pl->line = pending[first].line;
	pl->first = plan->nspans;
	pl->count = end - first;
	for (size_t k = first; k < end; k++) {
		const struct hwt_line_span *s = &r->spans[pending[k].span];

		ps = &plan->spans[plan->nspans++];
		ps->begin = s->begin;
		ps->end = s->end;
		ps->new_function = k > first && pending[k].function != pending[k - 1].function;
	}
	return 0;
}

/* Lines (counted when applied): the spans of each line, grouped by
   function. A span whose row is not is_stmt still counts for its line,
   but does not make a line exist on its own. */
static int plan_lines(struct hwt_cov_plan *plan, const struct plan_rows *r)
{
	struct pending_line *pending = malloc(r->nspans * sizeof(*pending));
	size_t i, j, npending = 0;
	int rc = 0;

	if (!pending)
		return -hle_nomem;
	for (i = 0; i < r->nspans; i++) {
		if (!r->line_of[i])
			continue;
		pending[npending].file = r->spans[i].file;
		pending[npending].line = r->line_of[i];
		pending[npending].function = r->spans[i].function;
		pending[npending].stmt = r->spans[i].is_stmt || r->stmt_of[i];
		pending[npending].span = i;
		npending++;
	}
	if (npending)
		qsort(pending, npending, sizeof(*pending), cmp_pending_line);
	for (i = 0; i < npending && rc == 0; i = j) {
		int stmt = 0;

		for (j = i; j < npending && pending[j].file == pending[i].file &&
			    pending[j].line == pending[i].line; j++)
			stmt |= pending[j].stmt;
		if (stmt)
			rc = plan_add_line(plan, r, pending, i, j);
	}
	free(pending);
	return rc;
}

/* Functions: entry count and the declaration line. */
static int plan_functions(struct hwt_cov_plan *plan, const struct plan_rows *r)
{
	const struct hwt_line_span *spans = r->spans;
	size_t i, j;

	for (i = 0, j = 0; i < r->nfuncs; i++) {
		const struct hwt_function *f = &r->funcs[i];
		struct plan_function *pf;

		while (j < r->nspans && spans[j].end <= f->entry)
			j++;
		if (j >= r->nspans || spans[j].begin > f->entry || f->artificial)
			continue; /* no line information for it, or gcov leaves it out */
		pf = hwt_grow_array(plan->fns, &plan->fns_cap, plan->nfns + 1, sizeof(*pf));
		if (!pf)
			return -hle_nomem;
		plan->fns = pf;
		pf = &plan->fns[plan->nfns++];
		/* In the file of its declaration line (at -O2 the entry's row may
		   be code inlined from elsewhere). */
		pf->file = f->decl_line && f->decl_file >= 0 ? (uint32_t)f->decl_file : spans[j].file;
		pf->line = f->decl_line ? f->decl_line : spans[j].line;
		pf->name = f->name;
		pf->entry = f->entry;
	}
	return 0;
}

/* Conditional branches: every one in the code, executed or not, numbered
   by their rank on their line. */
static int plan_branches(struct hwt_cov_plan *plan, const struct plan_rows *r)
{
	struct branch_collect bc = { 0, 0, NULL, 0, 0, 0 };
	size_t i, j;
	int rc = 0;

	for (i = 0; i < r->nspans && !bc.nomem; i++) {
		if (!r->line_of[i])
			continue;
		bc.file = r->spans[i].file;
		bc.line = r->line_of[i];
		walk_code(r->info, r->spans[i].begin, r->spans[i].end, collect_branch, &bc);
	}
	if (bc.nomem) {
		rc = -hle_nomem;
		goto out;
	}
	if (bc.count)
		qsort(bc.list, bc.count, sizeof(*bc.list), cmp_pending_branch);
	plan->brs = malloc((bc.count ? bc.count : 1) * sizeof(*plan->brs));
	if (!plan->brs) {
		rc = -hle_nomem;
		goto out;
	}
	for (i = 0; i < bc.count; i = j) {
		uint32_t block = 0;

		for (j = i; j < bc.count && bc.list[j].file == bc.list[i].file &&
			    bc.list[j].line == bc.list[i].line; j++, block++) {
			struct plan_branch *pb = &plan->brs[plan->nbrs++];

			pb->file = bc.list[j].file;
			pb->line = bc.list[j].line;
			pb->block = block;
			pb->vaddr = bc.list[j].vaddr;
		}
	}
out:
	free(bc.list);
	return rc;
}

int hwt_cov_plan_make(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
		      struct hwt_cov_plan **out)
{
	struct plan_rows r = { .info = info };
	struct hwt_cov_plan *plan;
	int rc = 0;

	*out = NULL;
	if (!cov || !info)
		return -hle_invalid;
	plan = calloc(1, sizeof(*plan));
	if (!plan)
		return -hle_nomem;
	r.spans = hwt_debuginfo_spans(info, &r.nspans);
	r.funcs = hwt_debuginfo_functions(info, &r.nfuncs);
	if (!r.nspans) {
		*out = plan;
		return 0;
	}
	r.line_of = malloc(r.nspans * sizeof(*r.line_of));
	r.stmt_of = calloc(r.nspans, sizeof(*r.stmt_of));
	if (!r.line_of || !r.stmt_of)
		rc = -hle_nomem;
	for (size_t i = 0; i < r.nspans && rc == 0; i++)
		r.line_of[i] = plan_span_line(&r, i);
	if (rc == 0)
		rc = plan_closing_braces(cov, &r, plan);
	if (rc == 0)
		rc = plan_lines(plan, &r);
	if (rc == 0)
		rc = plan_functions(plan, &r);
	if (rc == 0)
		rc = plan_branches(plan, &r);
	free(r.line_of);
	free(r.stmt_of);
	if (rc < 0)
		hwt_cov_plan_free(plan);
	else
		*out = plan;
	return rc;
}

int hwt_cov_plan_apply(struct hwt_coverage *cov, const struct hwt_cov_plan *plan,
		       const struct hwt_debuginfo *info, const struct hwt_cov_insn *insns, size_t n)
{
	size_t i, j;

	if (!cov || !plan || !info || (n && !insns))
		return -hle_invalid;
	for (i = 0; i < plan->nbrace; i++)
		if (!source_get(cov, hwt_debuginfo_file(info, plan->brace_files[i])))
			return -hle_nomem;
	/* Lines: per function the largest count of its spans; functions add. */
	for (i = 0; i < plan->nlines; i++) {
		const struct plan_line *pl = &plan->lines[i];
		uint64_t max = 0, sum = 0;
		struct source *src;

		for (j = pl->first; j < pl->first + pl->count; j++) {
			const struct plan_span *s = &plan->spans[j];
			uint64_t c = 0;

			if (s->new_function) {
				sum += max;
				max = 0;
			}
			if (s->begin == s->end) {
				const struct hwt_cov_insn *at = insn_at(insns, n, s->begin);

				c = at ? at->count : 0;
			}
			for (size_t k = insn_lower(insns, n, s->begin); k < n && insns[k].vaddr < s->end; k++)
				if (insns[k].count > c)
					c = insns[k].count;
			if (c > max)
				max = c;
		}
		sum += max;
		src = source_get(cov, hwt_debuginfo_file(info, pl->file));
		if (!src || source_line(src, pl->line, sum) < 0)
			return -hle_nomem;
	}
	for (i = 0; i < plan->nfns; i++) {
		const struct plan_function *f = &plan->fns[i];
		const struct hwt_cov_insn *ran = insn_at(insns, n, f->entry);
		struct source *src = source_get(cov, hwt_debuginfo_file(info, f->file));

		if (!src || source_function(src, f->name, f->line, ran ? ran->count : 0) < 0)
			return -hle_nomem;
	}
	for (i = 0; i < plan->nbrs; i = j) {
		struct source *src = source_get(cov, hwt_debuginfo_file(info, plan->brs[i].file));

		for (j = i; j < plan->nbrs && plan->brs[j].file == plan->brs[i].file &&
			    plan->brs[j].line == plan->brs[i].line; j++) {
			const struct plan_branch *b = &plan->brs[j];
			const struct hwt_cov_insn *ran = insn_at(insns, n, b->vaddr);
			int executed = ran && ran->count > 0;

			if (!src ||
			    source_branch(src, b->line, b->block, 0, executed, ran ? ran->taken : 0) < 0 ||
			    source_branch(src, b->line, b->block, 1, executed,
					  ran ? ran->not_taken : 0) < 0)
				return -hle_nomem;
		}
	}
	return 0;
}

int hwt_coverage_add(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
		     const struct hwt_cov_insn *insns, size_t n)
{
	struct hwt_cov_plan *plan;
	int rc;

	if (!cov || !info || (n && !insns))
		return -hle_invalid;
	rc = hwt_cov_plan_make(cov, info, &plan);
	if (rc == 0)
		rc = hwt_cov_plan_apply(cov, plan, info, insns, n);
	hwt_cov_plan_free(plan);
	return rc;
}

/* ----- Records one at a time ---------------------------------------------- */

long hwt_coverage_source_add(struct hwt_coverage *cov, const char *path)
{
	struct source *src = source_get(cov, path);
	size_t i;

	if (!src)
		return -hle_nomem;
	/* source_get appends a new source; an old one is found by its pointer. */
	if (cov->sources[cov->nsources - 1] == src)
		return (long)(cov->nsources - 1);
	for (i = 0; cov->sources[i] != src; i++)
		;
	return (long)i;
}

int hwt_coverage_source_add_line(struct hwt_coverage *cov, size_t i, uint32_t line,
				 uint64_t count)
{
	if (i >= cov->nsources)
		return -hle_invalid;
	return source_line(cov->sources[i], line, count);
}

int hwt_coverage_source_add_function(struct hwt_coverage *cov, size_t i, const char *name,
				     uint32_t line, uint64_t count)
{
	struct source *src;
	size_t k;

	if (i >= cov->nsources || !name)
		return -hle_invalid;
	src = cov->sources[i];
	/* FNDA may come before its FN: the line is learnt later. */
	for (k = 0; k < src->nfns; k++)
		if (!src->fns[k].line && !strcmp(src->fns[k].name, name))
			src->fns[k].line = line;
	return source_function(src, name, line, count);
}

int hwt_coverage_source_add_branch(struct hwt_coverage *cov, size_t i, uint32_t line,
				   uint32_t block, uint32_t branch, int executed,
				   uint64_t taken)
{
	if (i >= cov->nsources)
		return -hle_invalid;
	return source_branch(cov->sources[i], line, block, branch, executed, taken);
}

/* ----- Checked against the source text (source.c) ------------------------ */

int hwt_coverage_source_image(struct hwt_coverage *cov, const char *path, const char *image,
			      int64_t mtime_ns)
{
	struct source *src = source_find(cov, path);
	char *copy;

	if (!src || (src->image && src->image_mtime_ns <= mtime_ns))
		return 0;
	copy = strdup(image);
	if (!copy)
		return -hle_nomem;
	free(src->image);
	src->image = copy;
	src->image_mtime_ns = mtime_ns;
	return 0;
}

const char *hwt_coverage_source_image_at(const struct hwt_coverage *cov, size_t i,
					 int64_t *mtime_ns)
{
	if (i >= cov->nsources)
		return NULL;
	*mtime_ns = cov->sources[i]->image_mtime_ns;
	return cov->sources[i]->image;
}

int hwt_coverage_source_dropped(const struct hwt_coverage *cov, size_t i)
{
	return i < cov->nsources && cov->sources[i]->dropped;
}

uint32_t hwt_coverage_source_last_line(const struct hwt_coverage *cov, size_t i)
{
	const struct source *src;
	uint32_t last = 0;
	size_t k;

	if (i >= cov->nsources)
		return 0;
	src = cov->sources[i];
	for (k = src->nlines; k > 0 && !last; k--)
		if (src->lines[k - 1].exists)
			last = (uint32_t)(k - 1);
	for (k = 0; k < src->nfns; k++)
		if (src->fns[k].line > last)
			last = src->fns[k].line;
	for (k = 0; k < src->nbrs; k++)
		if (src->brs[k].line > last)
			last = src->brs[k].line;
	return last;
}

int hwt_coverage_source_exclude(struct hwt_coverage *cov, size_t i, const uint8_t *flags,
				uint32_t nlines, struct hwt_cov_excluded *excluded)
{
	struct source *src;
	size_t k, n;

	if (i >= cov->nsources)
		return -hle_invalid;
	src = cov->sources[i];
#define FLAGS(line) ((line) > nlines ? 0xff : flags ? flags[line] : 0)
	for (k = 1; k < src->nlines; k++) {
		if (!src->lines[k].exists || !(FLAGS(k) & HWT_EXCLUDE_LINE))
			continue;
		src->lines[k].exists = 0;
		src->lines[k].count = 0;
		if (k > nlines)
			excluded->past_end++;
		else
			excluded->lines++;
	}
	for (k = 0, n = 0; k < src->nfns; k++) {
		if (src->fns[k].line && (FLAGS(src->fns[k].line) & HWT_EXCLUDE_FUNCTION)) {
			free(src->fns[k].name);
			excluded->functions++;
		} else {
			src->fns[n++] = src->fns[k];
		}
	}
	src->nfns = n;
	for (k = 0, n = 0; k < src->nbrs; k++) {
		if (FLAGS(src->brs[k].line) & (HWT_EXCLUDE_LINE | HWT_EXCLUDE_BRANCH))
			excluded->branches++;
		else
			src->brs[n++] = src->brs[k];
	}
	src->nbrs = n;
#undef FLAGS
	return 0;
}

/* ----- The coverage, file by file ----------------------------------------- */

static int cmp_source(const void *a, const void *b)
{
	const struct source *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct hwt_cov_function *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_br(const void *a, const void *b)
{
	const struct hwt_cov_branch *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->branch < y->branch ? -1 : x->branch > y->branch;
}

/* One record of the view: fills f from src (arrays malloc'd); -hle_nomem. */
static int file_of_source(const struct source *src, struct hwt_cov_file *f)
{
	struct hwt_cov_line *lines;
	struct hwt_cov_function *fns;
	struct hwt_cov_branch *brs;
	struct hwt_lcov_totals *t = &f->totals;
	size_t k, n;

	memset(f, 0, sizeof(*f));
	f->path = src->path;
	for (k = 0, n = 0; k < src->nlines; k++)
		n += src->lines[k].exists;
	lines = malloc((n ? n : 1) * sizeof(*lines));
	fns = malloc((src->nfns ? src->nfns : 1) * sizeof(*fns));
	brs = malloc((src->nbrs ? src->nbrs : 1) * sizeof(*brs));
	f->lines = lines;
	f->functions = fns;
	f->branches = brs;
	if (!lines || !fns || !brs)
		return -hle_nomem;
	for (k = 0; k < src->nlines; k++) {
		if (!src->lines[k].exists)
			continue;
		lines[f->nlines].line = (uint32_t)k;
		lines[f->nlines].count = src->lines[k].count;
		t->lines_hit += src->lines[k].count > 0;
		f->nlines++;
	}
	for (k = 0; k < src->nfns; k++) {
		fns[k].name = src->fns[k].name;
		fns[k].line = src->fns[k].line;
		fns[k].count = src->fns[k].count;
		t->functions_hit += fns[k].count > 0;
	}
	f->nfunctions = src->nfns;
	if (f->nfunctions)
		qsort(fns, f->nfunctions, sizeof(*fns), cmp_fn);
	/* Branches of one instruction from several images merge. */
	for (k = 0; k < src->nbrs; k++) {
		brs[k].line = src->brs[k].line;
		brs[k].block = src->brs[k].block;
		brs[k].branch = src->brs[k].branch;
		brs[k].executed = src->brs[k].executed;
		brs[k].taken = src->brs[k].taken;
	}
	if (src->nbrs)
		qsort(brs, src->nbrs, sizeof(*brs), cmp_br);
	for (k = 0, n = 0; k < src->nbrs; k++) {
		if (n && !cmp_br(&brs[n - 1], &brs[k])) {
			brs[n - 1].executed |= brs[k].executed;
			brs[n - 1].taken += brs[k].taken;
		} else {
			brs[n++] = brs[k];
		}
	}
	f->nbranches = n;
	for (k = 0; k < n; k++)
		t->branches_hit += brs[k].executed && brs[k].taken > 0;
	t->files = 1;
	t->lines_found = f->nlines;
	t->functions_found = f->nfunctions;
	t->branches_found = f->nbranches;
	return 0;
}

void hwt_cov_files_free(struct hwt_cov_files *files)
{
	size_t i;

	if (!files)
		return;
	for (i = 0; i < files->count; i++) {
		free((void *)files->file[i].lines);
		free((void *)files->file[i].functions);
		free((void *)files->file[i].branches);
	}
	free((void *)files->file);
	free(files);
}

int hwt_coverage_files(const struct hwt_coverage *cov, const struct hwt_lcov_filter *filter,
		       struct hwt_cov_files **out)
{
	struct hwt_cov_files *files = calloc(1, sizeof(*files));
	struct source **sorted = malloc((cov->nsources ? cov->nsources : 1) * sizeof(*sorted));
	struct hwt_cov_file *file = calloc(cov->nsources ? cov->nsources : 1, sizeof(*file));
	struct hwt_lcov_totals *t;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!files || !sorted || !file) {
		free(files);
		free(sorted);
		free(file);
		return -hle_nomem;
	}
	files->file = file;
	if (cov->nsources)
		memcpy(sorted, cov->sources, cov->nsources * sizeof(*sorted));
	if (cov->nsources)
		qsort(sorted, cov->nsources, sizeof(*sorted), cmp_source);
	t = &files->totals;
	for (i = 0; i < cov->nsources && rc == 0; i++) {
		struct hwt_cov_file *f = &file[files->count];

		if (sorted[i]->dropped || (filter && !hwt_lcov_filter_match(filter, sorted[i]->path)))
			continue;
		rc = file_of_source(sorted[i], f);
		files->count++;
		if (rc == 0 && !f->nlines && !f->nfunctions) {
			/* Nothing to say about it (a header with declarations only). */
			free((void *)f->lines);
			free((void *)f->functions);
			free((void *)f->branches);
			files->count--;
			continue;
		}
		t->files++;
		t->lines_found += f->totals.lines_found;
		t->lines_hit += f->totals.lines_hit;
		t->functions_found += f->totals.functions_found;
		t->functions_hit += f->totals.functions_hit;
		t->branches_found += f->totals.branches_found;
		t->branches_hit += f->totals.branches_hit;
	}
	free(sorted);
	if (rc < 0) {
		hwt_cov_files_free(files);
		return rc;
	}
	*out = files;
	return 0;
}
