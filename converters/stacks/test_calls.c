/*
 * struct hwt_test_calls: each call of a test function a test of its own
 * (hwt_test_calls.h).
 *
 * Per stream, the thread is outside every test function until a call step
 * enters one (a block at a test function's entry, entered by a call); it
 * is inside until a return step comes back to the address after that call
 * (the call's block's vnext). What runs meanwhile, callees included, is
 * the test's. Each block's class (a test function's entry, Unity's runner,
 * nothing) is looked up once per stream, by block id.
 *
 * The counting is the profile accumulator's (converters/decode/
 * flow_profile.c: runs of blocks joined by hwt_flow_next, a block per
 * distinct run, an edge per transfer between runs) with the test as one
 * more key, so that the profiles add up to the accumulator's. A transfer
 * into or out of a test (its call, its return) is counted with the block
 * it enters.
 */
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "grow.h"
#include "hwt_test_calls.h"
#include "profile.h"
#include "stacks_int.h"
#include "test_sources.h"

/* Block classes (stream.cls by block id); above CLS_TEST: test CLS_TEST + k. */
enum {
	CLS_UNKNOWN,          /* not looked up yet */
	CLS_NONE,             /* nothing */
	CLS_ENTRY,            /* a function's entry that is no test by itself */
	CLS_UNITY_RUNNER,     /* in UnityDefaultTestRun */
	CLS_CHECK_RUNNER,     /* in Check's tcase_run_tfun_fork, _nofork, srunner_run_tagged,
	                         or libcheck.so */
	CLS_CMOCKA_LIB,       /* in libcmocka.so */
	CLS_CUNIT_LIB,        /* in libcunit.so */
	CLS_GTEST_RUN,        /* the entry of testing::TestInfo::Run() */
	CLS_TEST,
};

struct test_fn {
	struct hwt_test_call call;
	int32_t image;                  /* in the decode's profile */
	uint64_t entry;                 /* file offset */
};

/* A function a framework's library called: its test, or -1 (a fixture). */
struct decided {
	int32_t image;
	uint64_t entry;
	int32_t test;
};

/* An image's DWARF and sources, read at the first look-up. */
struct image_dwarf {
	struct hwt_test_sources *sources; /* NULL: none (or not read yet) */
	int read;
};

struct hwt_test_calls {
	struct hwt_stacks_symbols *symbols;
	struct hwt_test_calls_options options;
	struct hwt_flow_consumer consumer;
	pthread_mutex_t lock;           /* everything below */
	struct test_fn *tests;
	size_t count, capacity;
	struct hwt_profile **profiles;  /* process tests, outside, then the test functions */
	size_t nprofiles;
	struct decided *decided;        /* what the frameworks' libraries called */
	size_t ndecided, decided_cap;
	struct image_dwarf *images;   /* by image */
	size_t nimages;
	int nomem;
};

struct entry {
	const struct hwt_flow_block *prev;  /* last of the run before; NULL: none */
	const struct hwt_flow_block *block; /* first of the run; NULL: empty slot */
	const struct hwt_flow_block *last;
	uint32_t kind, insns;
	uint32_t group;                     /* the profile (hwt_test_calls.profiles) */
	uint64_t count;
};

struct stream {
	struct hwt_test_calls *calls;
	const struct hwt_flow_stream *info;
	struct entry *table;
	size_t mask, used;
	struct entry run;                   /* the run being stepped; block NULL: none */
	uint32_t outside;                   /* the group outside every test function */
	uint32_t group;                     /* the group now */
	uint64_t ret;                       /* inside a test: where its call returns to */
	int32_t test;                       /* inside: the test function, else -1 */
	uint32_t *cls;                      /* by block id */
	size_t ncls;
	/* GoogleTest: a call of TestInfo::Run() is the test whose TestBody it
	   calls (its constructor, SetUp, TearDown and destructor included, as
	   --gtest_filter runs a test), known once TestBody is called: its
	   counts go to group PENDING + serial, resolved at the end. */
	int32_t *pending;                   /* by serial: the test, -1 none (yet) */
	size_t npending;
	int in_run;                         /* in a call of TestInfo::Run() */
	int nomem;
};

#define PENDING 0x80000000u

/* Catch2's test case functions: C_A_T_C_H_T_E_S_T_N (v2.13, Debian's),
   ____C_A_T_C_H____T_E_S_T____N (v2 before 2.13.5, v3). */
static int catch2_test(const char *name)
{
	return strstr(name, "C_A_T_C_H_T_E_S_T_") || strstr(name, "____C_A_T_C_H____T_E_S_T____");
}

/*
 * GoogleTest: "[ns::]Suite_Name_Test[<...>]::TestBody()" (demangled) ->
 * "Suite_Name" in a malloc'd string, else NULL.
 */
static char *gtest_class(const char *demangled)
{
	static const char body[] = "::TestBody()";
	size_t n = strlen(demangled), end, begin;
	int depth = 0;

	if (n <= sizeof(body) - 1 || strcmp(demangled + n - (sizeof(body) - 1), body))
		return NULL;
	end = n - (sizeof(body) - 1);
	/* Template arguments of a typed test: dropped. */
	if (end && demangled[end - 1] == '>') {
		while (end) {
			char c = demangled[--end];

			depth += c == '>' ? 1 : c == '<' ? -1 : 0;
			if (!depth)
				break;
		}
	}
	begin = end;
	while (begin && demangled[begin - 1] != ':')
		begin--;
	if (end - begin <= 5 || strncmp(demangled + end - 5, "_Test", 5))
		return NULL;
	return strndup(demangled + begin, end - 5 - begin);
}

/* C++ names demangled without their parameters; C names as they are. */
static char *plain_name(const char *name)
{
	char *d = hwt_stacks_demangle(name), *paren;

	if (d && name[0] == '_' && name[1] == 'Z' && (paren = strchr(d, '(')))
		*paren = 0;
	return d;
}

static int glob_matches(const char *const *globs, const char *name, const char *plain)
{
	for (size_t i = 0; globs && globs[i]; i++)
		if (!fnmatch(globs[i], plain, 0) || !fnmatch(globs[i], name, 0))
			return 1;
	return 0;
}

/* The framework that makes function name a test by itself, or -1. */
static int static_framework(const char *name, const char *plain, const char *const *globs,
			    char **test_name)
{
	char *d = hwt_stacks_demangle(name), *cls = d ? gtest_class(d) : NULL;

	free(d);
	*test_name = NULL;
	if (cls) {
		*test_name = cls;
		return hwt_test_gtest;
	}
	if (catch2_test(name))
		return hwt_test_catch2;
	if (glob_matches(globs, name, plain))
		return hwt_test_function;
	return -1;
}

/* The index of the test function at (image, entry), added when new: -1 when out of memory. */
static int32_t test_find(struct hwt_test_calls *c, int32_t image, uint64_t entry,
			 const char *function, const char *name, int framework)
{
	struct test_fn *t;

	for (size_t i = 0; i < c->count; i++)
		if (c->tests[i].image == image && c->tests[i].entry == entry)
			return (int32_t)i;
	t = hwt_grow_array(c->tests, &c->capacity, c->count + 1, sizeof(*c->tests));
	if (!t)
		return -1;
	c->tests = t;
	t = &c->tests[c->count];
	memset(t, 0, sizeof(*t));
	t->image = image;
	t->entry = entry;
	t->call.framework = (enum hwt_test_framework)framework;
	t->call.function = strdup(function);
	t->call.name = strdup(name);
	if (!t->call.function || !t->call.name) {
		free((char *)t->call.function);
		free((char *)t->call.name);
		return -1;
	}
	return (int32_t)c->count++;
}

/* The class of block b (CLS_*); call with the lock held. */
static uint32_t classify(struct hwt_test_calls *c, const struct hwt_flow_block *b)
{
	struct hwt_function_info fn;
	char *plain, *test_name;
	int framework;
	int32_t k;

	const char *module;
	int found;

	if (b->image < 0 || (b->flags & (HWT_FLOW_BLOCK_TRACE_UNIT | HWT_FLOW_BLOCK_UNREADABLE)))
		return CLS_NONE;
	found = hwt_stacks_symbols_function(c->symbols, b->image, b->offset, &fn);
	/* The frameworks' runners in (stripped) shared libraries. */
	module = hwt_stacks_symbols_module(c->symbols, b->image);
	if (!strncmp(module, "libcmocka.so", 12))
		return CLS_CMOCKA_LIB;
	if (!strncmp(module, "libcunit.so", 11))
		return CLS_CUNIT_LIB;
	if (!strncmp(module, "libcheck.so", 11))
		return CLS_CHECK_RUNNER;
	if (!found || !fn.name)
		return CLS_NONE;
	if (!strcmp(fn.name, "UnityDefaultTestRun"))
		return CLS_UNITY_RUNNER;
	/* Check's runner, linked in (Debian ships libcheck.a): the forking
	   one is inlined in srunner_run_tagged at -O2. The fixtures are
	   called from srunner_run_setup and _teardown. */
	if (!strcmp(fn.name, "tcase_run_tfun_fork") || !strcmp(fn.name, "tcase_run_tfun_nofork") ||
	    !strcmp(fn.name, "srunner_run_tagged"))
		return CLS_CHECK_RUNNER;
	if (fn.entry != b->offset)
		return CLS_NONE;
	if (!strcmp(fn.name, "_ZN7testing8TestInfo3RunEv"))
		return CLS_GTEST_RUN;
	plain = plain_name(fn.name);
	if (!plain)
		goto nomem;
	framework = static_framework(fn.name, plain, c->options.functions, &test_name);
	if (framework < 0) {
		free(plain);
		return CLS_ENTRY;
	}
	k = test_find(c, b->image, b->offset, fn.name, test_name ? test_name : plain, framework);
	free(plain);
	free(test_name);
	if (k < 0)
		goto nomem;
	return CLS_TEST + (uint32_t)k;
nomem:
	c->nomem = 1;
	return CLS_NONE;
}

/* The class of block b, looked up once per stream. */
static uint32_t block_class(struct stream *s, const struct hwt_flow_block *b)
{
	uint32_t *p = hwt_grow_array_zeroed(s->cls, &s->ncls, (size_t)b->id + 1, sizeof(*p));
	uint32_t cls;

	if (!p) {
		s->nomem = 1;
		return CLS_NONE;
	}
	s->cls = p;
	if (s->cls[b->id] != CLS_UNKNOWN)
		return s->cls[b->id];
	pthread_mutex_lock(&s->calls->lock);
	cls = classify(s->calls, b);
	pthread_mutex_unlock(&s->calls->lock);
	s->cls[b->id] = cls;
	return cls;
}

/* The test function Unity's runner calls at entry b (Unity names it by its function). */
static int32_t unity_test(struct stream *s, const struct hwt_flow_block *b)
{
	struct hwt_test_calls *c = s->calls;
	struct hwt_function_info fn;
	int32_t k = -1;
	char *plain;

	pthread_mutex_lock(&c->lock);
	if (hwt_stacks_symbols_function(c->symbols, b->image, b->offset, &fn) && fn.name) {
		plain = plain_name(fn.name);
		k = plain ? test_find(c, b->image, b->offset, fn.name, plain, hwt_test_unity) : -1;
		if (k < 0)
			c->nomem = 1;
		free(plain);
	}
	pthread_mutex_unlock(&c->lock);
	return k;
}

/* The DWARF and sources of image (read at the first call), or NULL; lock held. */
static struct hwt_test_sources *image_sources(struct hwt_test_calls *c, int32_t image)
{
	const struct hwt_profile_image *img =
		hwt_profile_image_at(hwt_stacks_symbols_profile(c->symbols), (size_t)image);
	struct image_dwarf *is = hwt_grow_array_zeroed(c->images, &c->nimages, (size_t)image + 1,
							 sizeof(*c->images));

	if (!is) {
		c->nomem = 1;
		return NULL;
	}
	c->images = is;
	is += image;
	if (!is->read) {
		is->read = 1;
		/* A kept bundle names its images by their absolute paths. */
		if (img && img->path && img->path[0] == '/' &&
		    hwt_test_sources_load(img->path, &is->sources) < 0)
			c->nomem = 1;
	}
	return is->sources;
}

/*
 * Whether the function at entry b, called through a pointer by the runner
 * of framework (cmocka, Check, CUnit), is a test (not a fixture): its index
 * (the test function, added when new), -1 when not; lock held.
 *  - Check: START_TEST(name) defines name_fn, named name; its fixtures are
 *    called from other functions of the runner, but a libcheck.so calls
 *    them all: the _fn tells.
 *  - cmocka: a test returns nothing, a fixture an int (the DWARF says);
 *    named as the function, or by its string when the sources write its
 *    struct CMUnitTest out.
 *  - CUnit: tests and the tests' set-up and tear-down are all void (void):
 *    a test is a function the sources register, named by its string.
 */
static int32_t framework_test(struct hwt_test_calls *c, const struct hwt_flow_block *b,
			      enum hwt_test_framework framework)
{
	struct hwt_function_info fn;
	struct hwt_test_sources *ts;
	const char *name = NULL;
	char *own = NULL;
	size_t n;
	int32_t k = -1;
	void *p;

	for (size_t i = 0; i < c->ndecided; i++)
		if (c->decided[i].image == b->image && c->decided[i].entry == b->offset)
			return c->decided[i].test;
	if (!hwt_stacks_symbols_function(c->symbols, b->image, b->offset, &fn) || !fn.name ||
	    fn.entry != b->offset)
		return -1;
	switch (framework) {
	case hwt_test_check:
		n = strlen(fn.name);
		if (n > 3 && !strcmp(fn.name + n - 3, "_fn") && (own = strndup(fn.name, n - 3)))
			name = own;
		else if (n > 3 && !strcmp(fn.name + n - 3, "_fn"))
			c->nomem = 1;
		break;
	case hwt_test_cmocka:
		ts = image_sources(c, b->image);
		if (hwt_test_sources_returns_value(ts, fn.name) == 0 &&
		    hwt_test_sources_registered(ts, HWT_TEST_SOURCES_CMOCKA, fn.name, &name) >= 0 &&
		    !name)
			name = fn.name;
		break;
	case hwt_test_cunit:
		ts = image_sources(c, b->image);
		if (hwt_test_sources_returns_value(ts, fn.name) == 0)
			hwt_test_sources_registered(ts, HWT_TEST_SOURCES_CUNIT, fn.name, &name);
		break;
	default:
		break;
	}
	if (name && (k = test_find(c, b->image, b->offset, fn.name, name, framework)) < 0)
		c->nomem = 1;
	free(own);
	p = hwt_grow_array(c->decided, &c->decided_cap, c->ndecided + 1, sizeof(*c->decided));
	if (!p) {
		c->nomem = 1;
		return k;
	}
	c->decided = p;
	c->decided[c->ndecided].image = b->image;
	c->decided[c->ndecided].entry = b->offset;
	c->decided[c->ndecided++].test = k;
	return k;
}

static size_t slot(const struct entry *e, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)e->block * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)e->prev * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)(uintptr_t)e->last * 0x165667b19e3779f9ull ^ e->kind ^
		     (uint64_t)e->group << 40;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int grow(struct stream *s)
{
	size_t size = s->mask ? (s->mask + 1) * 2 : 4096;
	struct entry *table = calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (size_t k = 0; s->table && k <= s->mask; k++) {
		size_t i;

		if (!s->table[k].block)
			continue;
		for (i = slot(&s->table[k], size - 1); table[i].block; i = (i + 1) & (size - 1))
			;
		table[i] = s->table[k];
	}
	free(s->table);
	s->table = table;
	s->mask = size - 1;
	return 0;
}

static void count_run(struct stream *s, const struct entry *run)
{
	for (size_t i = slot(run, s->mask);; i = (i + 1) & s->mask) {
		struct entry *e = &s->table[i];

		if (e->block == run->block && e->last == run->last && e->prev == run->prev &&
		    e->kind == run->kind && e->group == run->group) {
			e->count++;
			return;
		}
		if (!e->block) {
			*e = *run;
			e->count = 1;
			if (++s->used * 2 > s->mask && grow(s) < 0)
				s->nomem = 1;
			return;
		}
	}
}

static void *calls_begin(void *consumer, const struct hwt_flow_stream *info)
{
	struct hwt_test_calls *c = consumer;
	struct stream *s = calloc(1, sizeof(*s));
	int image = info->stream ? info->stream->image : -1;

	if (!s)
		return NULL;
	s->calls = c;
	s->info = info;
	s->outside = (uint32_t)c->options.process_tests;
	if (image >= 0 && (size_t)image < c->options.images && c->options.image_test[image] >= 0)
		s->outside = (uint32_t)c->options.image_test[image];
	s->group = s->outside;
	s->test = -1;
	if (grow(s) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Whether the step into block by kind enters or leaves a test function. */
static void follow(struct stream *s, const struct hwt_flow_block *block, uint32_t kind)
{
	const struct hwt_flow_block *from = s->run.block ? s->run.last : NULL;
	uint32_t cls;
	int32_t k = -1;

	if (s->test >= 0 || s->in_run) {
		if (kind == hwt_flow_return && block->vaddr == s->ret) {
			s->test = -1;
			s->in_run = 0;
			s->group = s->outside;
			return;
		}
		/* In TestInfo::Run(), its TestBody names the test. */
		if (!s->in_run || s->test >= 0 ||
		    (kind != hwt_flow_call && kind != hwt_flow_indirect_call))
			return;
		cls = block_class(s, block);
		if (cls < CLS_TEST)
			return;
		s->test = (int32_t)(cls - CLS_TEST);
		s->pending[s->npending - 1] = s->test;
		pthread_mutex_lock(&s->calls->lock);
		s->calls->tests[s->test].call.calls++;
		pthread_mutex_unlock(&s->calls->lock);
		return;
	}
	if ((kind != hwt_flow_call && kind != hwt_flow_indirect_call) || !from)
		return;
	cls = block_class(s, block);
	if (cls == CLS_GTEST_RUN) {
		int32_t *p = realloc(s->pending, (s->npending + 1) * sizeof(*p));

		if (!p) {
			s->nomem = 1;
			return;
		}
		s->pending = p;
		p[s->npending++] = -1;
		s->in_run = 1;
		s->ret = from->vnext;
		s->group = PENDING | (uint32_t)(s->npending - 1);
		return;
	}
	if (cls >= CLS_TEST)
		k = (int32_t)(cls - CLS_TEST);
	else if (cls == CLS_ENTRY && kind == hwt_flow_indirect_call) {
		uint32_t caller = block_class(s, from);
		int framework = caller == CLS_CHECK_RUNNER ? hwt_test_check
			      : caller == CLS_CMOCKA_LIB ? hwt_test_cmocka
			      : caller == CLS_CUNIT_LIB ? hwt_test_cunit : -1;

		if (caller == CLS_UNITY_RUNNER) {
			k = unity_test(s, block);
		} else if (framework >= 0) {
			pthread_mutex_lock(&s->calls->lock);
			k = framework_test(s->calls, block, (enum hwt_test_framework)framework);
			pthread_mutex_unlock(&s->calls->lock);
		}
	}
	if (k < 0)
		return;
	s->test = k;
	s->ret = from->vnext;
	s->group = (uint32_t)(s->calls->options.process_tests + 1 + (size_t)k);
	pthread_mutex_lock(&s->calls->lock);
	s->calls->tests[k].call.calls++;
	pthread_mutex_unlock(&s->calls->lock);
}

static int joins(const struct hwt_flow_block *last, const struct hwt_flow_block *block,
		 uint32_t kind)
{
	return kind == hwt_flow_next && last->exit == hwt_flow_exit_other &&
	       block->vaddr == last->vnext && block->image == last->image &&
	       block->flags == last->flags;
}

static void calls_steps(void *context, const struct hwt_flow_step *steps, size_t count)
{
	struct stream *s = context;
	struct entry *run = &s->run;

	for (size_t k = 0; k < count && !s->nomem; k++) {
		const struct hwt_flow_block *block = steps[k].block;
		uint32_t kind = steps[k].kind;

		if (run->block && joins(run->last, block, kind)) {
			run->last = block;
			run->insns += block->insns;
			continue;
		}
		follow(s, block, kind);
		if (run->block)
			count_run(s, run);
		run->prev = kind < hwt_flow_start ? run->last : NULL;
		run->block = run->last = block;
		run->kind = kind;
		run->insns = block->insns;
		run->group = s->group;
	}
}

static void calls_event(void *context, const struct hwt_flow_event *event)
{
	(void)context;
	(void)event;
}

/* The profile's edge kind of a step's kind, or -1 (as the profile accumulator has it). */
static int edge_kind(uint32_t kind)
{
	switch (kind) {
	case hwt_flow_cond_taken: return hwt_edge_cond_taken;
	case hwt_flow_cond_not_taken: return hwt_edge_cond_not_taken;
	case hwt_flow_jump: return hwt_edge_jump;
	case hwt_flow_call: return hwt_edge_call;
	case hwt_flow_return: return hwt_edge_return;
	case hwt_flow_indirect_jump: return hwt_edge_indirect_jump;
	case hwt_flow_indirect_call: return hwt_edge_indirect_call;
	case hwt_flow_far: return hwt_edge_far;
	default: return -1;
	}
}

static int reported(const struct hwt_flow_block *b)
{
	return b && b->image >= 0 &&
	       !(b->flags & (HWT_FLOW_BLOCK_TRACE_UNIT | HWT_FLOW_BLOCK_UNREADABLE));
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->block != b->block)
		return (uintptr_t)a->block < (uintptr_t)b->block ? -1 : 1;
	if (a->last != b->last)
		return (uintptr_t)a->last < (uintptr_t)b->last ? -1 : 1;
	return 0;
}

/* The profile of group g (made when new), its image for the stream's image; lock held. */
static struct hwt_profile *group_profile(struct hwt_test_calls *c, uint32_t g)
{
	void *p = hwt_grow_array_zeroed(c->profiles, &c->nprofiles, (size_t)g + 1,
					sizeof(*c->profiles));

	if (!p)
		return NULL;
	c->profiles = p;
	if (!c->profiles[g])
		c->profiles[g] = hwt_profile_alloc();
	return c->profiles[g];
}

static int image_in(struct hwt_profile *to, const struct hwt_profile *from, int32_t image)
{
	const struct hwt_profile_image *img = hwt_profile_image_at(from, (size_t)image);

	if (!img)
		return -1;
	return hwt_profile_image_add(to, img->path, img->build_id, img->build_id_size,
				     img->flags & ~(HWT_PROFILE_IMAGE_MISSING |
						    HWT_PROFILE_IMAGE_REPLACED));
}

/* Adds the stream's counts; lock held. */
static int add_counts(struct stream *s, struct entry *table, size_t n)
{
	struct hwt_test_calls *c = s->calls;
	const struct hwt_profile *from = s->info->profile;

	for (size_t k = 0; k < n;) {
		const struct entry *run = &table[k];
		const struct hwt_flow_block *b = run->block;
		struct hwt_profile *to = group_profile(c, run->group);
		uint64_t total = 0;
		int image = -1;
		size_t j;

		if (!to)
			return -1;
		for (j = k; j < n && table[j].group == run->group && table[j].block == b &&
			    table[j].last == run->last; j++)
			total += table[j].count;
		if (reported(b)) {
			image = image_in(to, from, b->image);
			if (image < 0 || hwt_profile_add_block(to, (size_t)image, b->offset,
							       run->last->end_offset, run->insns,
							       total) == -hpe_nomem)
				return -1;
		}
		for (; k < j; k++) {
			const struct entry *e = &table[k];
			struct hwt_profile_edge edge;
			int kind = edge_kind(e->kind), from_image;

			if (kind < 0 || !reported(e->prev) || image < 0)
				continue;
			from_image = image_in(to, from, e->prev->image);
			if (from_image < 0)
				return -1;
			edge.from_image = (uint32_t)from_image;
			edge.to_image = (uint32_t)image;
			edge.from = e->prev->end_offset;
			edge.to = b->offset;
			edge.kind = (uint32_t)kind;
			edge.count = e->count;
			if (hwt_profile_add_edge(to, &edge) == -hpe_nomem)
				return -1;
		}
	}
	return 0;
}

static int calls_end(void *context)
{
	struct stream *s = context;
	struct hwt_test_calls *c = s->calls;
	size_t n = 0;
	int nomem;

	if (s->run.block && !s->nomem)
		count_run(s, &s->run);
	nomem = s->nomem;
	for (size_t k = 0; k <= s->mask; k++)
		if (s->table[k].block)
			s->table[n++] = s->table[k];
	/* TestInfo::Run() calls: their tests' (the outside's when none was called). */
	for (size_t k = 0; k < n; k++)
		if (s->table[k].group & PENDING) {
			int32_t t = s->pending[s->table[k].group & ~PENDING];

			s->table[k].group = t < 0 ? s->outside
					   : (uint32_t)(c->options.process_tests + 1 + (size_t)t);
		}
	qsort(s->table, n, sizeof(*s->table), entry_cmp);
	pthread_mutex_lock(&c->lock);
	if (add_counts(s, s->table, n) < 0)
		nomem = 1;
	if (nomem)
		c->nomem = 1;
	pthread_mutex_unlock(&c->lock);
	free(s->table);
	free(s->cls);
	free(s->pending);
	free(s);
	return nomem ? -1 : 0;
}

struct hwt_test_calls *hwt_test_calls_alloc(struct hwt_stacks_symbols *symbols,
					    const struct hwt_test_calls_options *options)
{
	struct hwt_test_calls *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->symbols = symbols;
	if (options)
		c->options = *options;
	pthread_mutex_init(&c->lock, NULL);
	c->consumer.begin = calls_begin;
	c->consumer.steps = calls_steps;
	c->consumer.event = calls_event;
	c->consumer.end = calls_end;
	c->consumer.consumer = c;
	return c;
}

void hwt_test_calls_free(struct hwt_test_calls *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++) {
		free((char *)c->tests[i].call.function);
		free((char *)c->tests[i].call.name);
	}
	for (size_t i = 0; i < c->nprofiles; i++)
		hwt_profile_free(c->profiles[i]);
	free(c->profiles);
	free(c->tests);
	free(c->decided);
	for (size_t i = 0; i < c->nimages; i++)
		hwt_test_sources_free(c->images[i].sources);
	free(c->images);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

const struct hwt_flow_consumer *hwt_test_calls_consumer(struct hwt_test_calls *c)
{
	return &c->consumer;
}

size_t hwt_test_calls_count(const struct hwt_test_calls *c)
{
	return c->count;
}

const struct hwt_test_call *hwt_test_calls_at(const struct hwt_test_calls *c, size_t i)
{
	return i < c->count ? &c->tests[i].call : NULL;
}

struct hwt_profile *hwt_test_calls_profile(const struct hwt_test_calls *c, size_t i)
{
	return i < c->nprofiles ? c->profiles[i] : NULL;
}

int hwt_test_calls_status(const struct hwt_test_calls *c)
{
	return c->nomem ? -hse_nomem : 0;
}

int hwt_test_calls_in_file(const char *path, const char *const *functions)
{
	struct hwt_elf_file f;
	const struct hwt_elf_symbol *syms;
	size_t n;
	int found = 0;

	if (hwt_elf_file_open(&f, path) < 0)
		return 0;
	if (f.is_elf && hwt_elf_file_symbols(&f, &syms, &n) == 0) {
		for (size_t i = 0; i < n && !found; i++) {
			const char *name = syms[i].name;

			found = (strstr(name, "8TestBodyEv") && strstr(name, "_Test")) ||
				catch2_test(name) || !strcmp(name, "UnityDefaultTestRun") ||
				!strcmp(name, "srunner_run_tagged");
			if (!found && functions) {
				char *plain = plain_name(name);

				found = plain && glob_matches(functions, name, plain);
				free(plain);
			}
		}
	}
	/* A program that needs a framework's library: its dynamic string
	   table names it. */
	for (size_t i = 0; f.is_elf && f.data && !found && i < 3; i++) {
		static const char *const libs[] = { "libcmocka.so", "libcheck.so", "libcunit.so" };

		found = memmem(f.data, f.size, libs[i], strlen(libs[i])) != NULL;
	}
	hwt_elf_file_close(&f);
	return found;
}
