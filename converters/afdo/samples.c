/*
 * struct hwt_afdo_samples: an LLVM sample profile built from exact counts.
 *
 * Counting convention (docs/pgo.md): the samples of a source location
 * (function context, line offset from DW_AT_decl_line, base
 * discriminator) are the largest execution count of the instructions at
 * that location, each multiplied by its duplication factor, as AutoFDO
 * does with sampled counts; call targets add up the traced calls (and tail
 * calls) from the location; head samples are the executions of the
 * function's entry instruction; total samples are the sum of the body
 * samples and of the totals of the inlined callsites.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hwt_afdo.h"

struct target {
	char *name;
	uint64_t count;
};

struct body {
	uint32_t offset, disc;
	uint64_t count;
	struct target *targets;
	size_t ntargets, targets_cap;
};

struct fsamples;

struct callsite {
	uint32_t offset, disc;
	struct fsamples *fs;   /* the inlined callee's samples (fs->name) */
};

struct fsamples {
	char *name;
	uint64_t total, head;
	struct body *body;
	size_t nbody, body_cap;
	struct callsite *calls;
	size_t ncalls, calls_cap;
};

struct hwt_afdo_samples {
	struct fsamples **top;  /* sorted by name */
	size_t ntop, top_cap;
};

struct hwt_afdo_samples *hwt_afdo_samples_alloc(void)
{
	return calloc(1, sizeof(struct hwt_afdo_samples));
}

static void fs_free(struct fsamples *fs)
{
	size_t i, j;

	if (!fs)
		return;
	for (i = 0; i < fs->nbody; i++) {
		for (j = 0; j < fs->body[i].ntargets; j++)
			free(fs->body[i].targets[j].name);
		free(fs->body[i].targets);
	}
	for (i = 0; i < fs->ncalls; i++)
		fs_free(fs->calls[i].fs);
	free(fs->body);
	free(fs->calls);
	free(fs->name);
	free(fs);
}

void hwt_afdo_samples_free(struct hwt_afdo_samples *samples)
{
	size_t i;

	if (!samples)
		return;
	for (i = 0; i < samples->ntop; i++)
		fs_free(samples->top[i]);
	free(samples->top);
	free(samples);
}

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
	void *p = hwt_grow_array(*array, cap, need, size);

	if (!p)
		return -hae_nomem;
	*array = p;
	return 0;
}

static struct fsamples *fs_new(const char *name)
{
	struct fsamples *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return NULL;
	fs->name = strdup(name);
	if (!fs->name) {
		free(fs);
		return NULL;
	}
	return fs;
}

static struct fsamples *top_get(struct hwt_afdo_samples *s, const char *name)
{
	size_t lo = 0, hi = s->ntop;
	struct fsamples *fs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->top[mid]->name, name);

		if (c == 0)
			return s->top[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (grow((void **)&s->top, &s->top_cap, s->ntop + 1, sizeof(*s->top)) < 0)
		return NULL;
	fs = fs_new(name);
	if (!fs)
		return NULL;
	memmove(s->top + lo + 1, s->top + lo, (s->ntop - lo) * sizeof(*s->top));
	s->top[lo] = fs;
	s->ntop++;
	return fs;
}

/* Compares (offset, disc) of a body entry or callsite with a key. */
static int key_cmp(uint32_t off, uint32_t disc, uint32_t koff, uint32_t kdisc)
{
	if (off != koff)
		return off < koff ? -1 : 1;
	return disc < kdisc ? -1 : disc > kdisc;
}

static struct body *body_get(struct fsamples *fs, uint32_t off, uint32_t disc)
{
	size_t lo = 0, hi = fs->nbody;
	struct body *b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(fs->body[mid].offset, fs->body[mid].disc, off, disc);

		if (c == 0)
			return &fs->body[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (grow((void **)&fs->body, &fs->body_cap, fs->nbody + 1, sizeof(*fs->body)) < 0)
		return NULL;
	memmove(fs->body + lo + 1, fs->body + lo, (fs->nbody - lo) * sizeof(*fs->body));
	b = &fs->body[lo];
	memset(b, 0, sizeof(*b));
	b->offset = off;
	b->disc = disc;
	fs->nbody++;
	return b;
}

/* Callsites sorted by offset, disc, callee name. */
static struct fsamples *callsite_get(struct fsamples *fs, uint32_t off, uint32_t disc,
				     const char *callee)
{
	size_t lo = 0, hi = fs->ncalls;
	struct callsite *c;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = key_cmp(fs->calls[mid].offset, fs->calls[mid].disc, off, disc);

		if (r == 0)
			r = strcmp(fs->calls[mid].fs->name, callee);
		if (r == 0)
			return fs->calls[mid].fs;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (grow((void **)&fs->calls, &fs->calls_cap, fs->ncalls + 1, sizeof(*fs->calls)) < 0)
		return NULL;
	memmove(fs->calls + lo + 1, fs->calls + lo, (fs->ncalls - lo) * sizeof(*fs->calls));
	c = &fs->calls[lo];
	c->offset = off;
	c->disc = disc;
	c->fs = fs_new(callee);
	if (!c->fs) {
		memmove(fs->calls + lo, fs->calls + lo + 1, (fs->ncalls - lo) * sizeof(*fs->calls));
		return NULL;
	}
	fs->ncalls++;
	return c->fs;
}

static int target_add(struct body *b, const char *name, uint64_t count)
{
	size_t i;

	for (i = 0; i < b->ntargets; i++) {
		if (!strcmp(b->targets[i].name, name)) {
			b->targets[i].count += count;
			return 0;
		}
	}
	if (grow((void **)&b->targets, &b->targets_cap, b->ntargets + 1, sizeof(*b->targets)) < 0)
		return -hae_nomem;
	b->targets[b->ntargets].name = strdup(name);
	if (!b->targets[b->ntargets].name)
		return -hae_nomem;
	b->targets[b->ntargets++].count = count;
	return 0;
}

/* LLVM keys lines by their offset from the function's line, in 16 bits. */
static uint32_t line_offset(uint32_t line, uint32_t decl_line)
{
	return (line - decl_line) & 0xffffu;
}

/*
 * The body entry of a location: walks (and makes) the inlined callsites
 * down to the innermost frame. *outer is the outermost function's samples.
 */
static struct body *location_body(struct hwt_afdo_samples *s, const struct hwt_afdo_location *loc,
				  struct fsamples **outer)
{
	struct fsamples *fs = top_get(s, loc->frames[0].function);
	uint32_t k;

	*outer = fs;
	for (k = 1; fs && k < loc->nframes; k++) {
		const struct hwt_afdo_frame *f = &loc->frames[k];

		fs = callsite_get(fs, line_offset(f->call_line, loc->frames[k - 1].decl_line),
				  hwt_afdo_base_discriminator(f->call_discriminator), f->function);
	}
	if (!fs)
		return NULL;
	return body_get(fs, line_offset(loc->line, loc->frames[loc->nframes - 1].decl_line),
			hwt_afdo_base_discriminator(loc->discriminator));
}

int hwt_afdo_samples_add_image(struct hwt_afdo_samples *samples,
			       const struct hwt_profile *profile, size_t image,
			       const struct hwt_afdo_debug *debug, const char *file,
			       struct hwt_afdo_image_stats *stats, int *profile_error)
{
	struct hwt_afdo_image_stats st = { 0 };
	struct hwt_profile_insn *insns = NULL;
	const struct hwt_profile_edge *edges = NULL;
	struct hwt_afdo_location loc;
	size_t n = 0, nedges = 0, i;
	int rc;

	if (!samples || !profile || !debug)
		return -hae_invalid;
	rc = hwt_profile_image_insns(profile, image, file, &insns, &n);
	if (rc < 0) {
		if (profile_error)
			*profile_error = rc;
		return -hae_profile;
	}
	for (i = 0; i < n; i++) {
		const struct hwt_profile_insn *in = &insns[i];
		struct fsamples *outer = NULL;
		struct body *b;
		uint64_t c;

		if (!in->count)
			continue;
		st.insns++;
		st.executed += in->count;
		if (!hwt_afdo_debug_lookup(debug, in->vaddr, &loc)) {
			st.unattributed += in->count;
			continue;
		}
		b = location_body(samples, &loc, &outer);
		if (!b) {
			rc = -hae_nomem;
			goto out;
		}
		if (in->vaddr == loc.entry)
			outer->head += in->count;
		c = in->count * hwt_afdo_duplication_factor(loc.discriminator);
		if (c > b->count)
			b->count = c;
	}
	/* Calls and tail calls within the image name their callees. */
	rc = hwt_profile_edges(profile, &edges, &nedges);
	if (rc < 0) {
		if (profile_error)
			*profile_error = rc;
		rc = -hae_profile;
		goto out;
	}
	for (i = 0; i < nedges; i++) {
		const struct hwt_profile_edge *e = &edges[i];
		const struct hwt_profile_insn *from, *to;
		struct fsamples *outer = NULL;
		const char *callee;
		struct body *b;

		if (e->from_image != image || e->to_image != image || !e->count)
			continue;
		if (e->kind != hwt_edge_call && e->kind != hwt_edge_indirect_call &&
		    e->kind != hwt_edge_jump && e->kind != hwt_edge_indirect_jump)
			continue;
		from = hwt_profile_insn_at(insns, n, e->from);
		to = hwt_profile_insn_at(insns, n, e->to);
		if (!from || !to)
			continue;
		callee = hwt_afdo_debug_function_at(debug, to->vaddr);
		if (!callee || !hwt_afdo_debug_lookup(debug, from->vaddr, &loc))
			continue;
		/* A jump to its own function's entry is a loop, not a call. */
		if ((e->kind == hwt_edge_jump || e->kind == hwt_edge_indirect_jump) &&
		    loc.entry == to->vaddr)
			continue;
		b = location_body(samples, &loc, &outer);
		if (!b || target_add(b, callee, e->count) < 0) {
			rc = -hae_nomem;
			goto out;
		}
		st.calls += e->count;
	}
	rc = 0;
out:
	free(insns);
	if (stats)
		*stats = st;
	return rc;
}

/* Totals, bottom up. */
static uint64_t fs_total(struct fsamples *fs)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < fs->nbody; i++)
		total += fs->body[i].count;
	for (i = 0; i < fs->ncalls; i++)
		total += fs_total(fs->calls[i].fs);
	fs->total = total;
	return total;
}

size_t hwt_afdo_samples_function_count(const struct hwt_afdo_samples *samples)
{
	size_t i, n = 0;

	for (i = 0; i < samples->ntop; i++)
		if (fs_total(samples->top[i]))
			n++;
	return n;
}

uint64_t hwt_afdo_samples_total(const struct hwt_afdo_samples *samples)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < samples->ntop; i++)
		total += fs_total(samples->top[i]);
	return total;
}

static int cmp_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void write_key(FILE *f, int depth, uint32_t off, uint32_t disc)
{
	fprintf(f, "%*s%" PRIu32, depth, "", off);
	if (disc)
		fprintf(f, ".%" PRIu32, disc);
	fputs(": ", f);
}

static void fs_write(const struct fsamples *fs, FILE *f, int depth)
{
	size_t i, j;

	for (i = 0; i < fs->nbody; i++) {
		struct body *b = &fs->body[i];

		write_key(f, depth, b->offset, b->disc);
		fprintf(f, "%" PRIu64, b->count);
		if (b->ntargets > 1)
			qsort(b->targets, b->ntargets, sizeof(*b->targets), cmp_target);
		for (j = 0; j < b->ntargets; j++)
			fprintf(f, " %s:%" PRIu64, b->targets[j].name, b->targets[j].count);
		fputc('\n', f);
	}
	for (i = 0; i < fs->ncalls; i++) {
		const struct fsamples *c = fs->calls[i].fs;

		if (!c->total)
			continue;
		write_key(f, depth, fs->calls[i].offset, fs->calls[i].disc);
		fprintf(f, "%s:%" PRIu64 "\n", c->name, c->total);
		fs_write(c, f, depth + 1);
	}
}

static int cmp_top(const void *a, const void *b)
{
	const struct fsamples *x = *(const struct fsamples *const *)a;
	const struct fsamples *y = *(const struct fsamples *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

int hwt_afdo_samples_write_text(const struct hwt_afdo_samples *samples, FILE *file)
{
	struct fsamples **order;
	size_t i;

	if (!samples || !file)
		return -hae_invalid;
	order = malloc((samples->ntop ? samples->ntop : 1) * sizeof(*order));
	if (!order)
		return -hae_nomem;
	for (i = 0; i < samples->ntop; i++) {
		order[i] = samples->top[i];
		fs_total(order[i]);
	}
	if (samples->ntop > 1)
		qsort(order, samples->ntop, sizeof(*order), cmp_top);
	for (i = 0; i < samples->ntop; i++) {
		if (!order[i]->total)
			continue;
		fprintf(file, "%s:%" PRIu64 ":%" PRIu64 "\n", order[i]->name, order[i]->total,
			order[i]->head);
		fs_write(order[i], file, 1);
	}
	free(order);
	if (fflush(file) != 0 || ferror(file))
		return -hae_io;
	return 0;
}
