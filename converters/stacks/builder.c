/*
 * struct hwt_stacks: the stack builder. A consumer of the control flow
 * (hwt_flow.h) that keeps a shadow call stack per thread and counts every
 * block's instructions in the stack it ran in (docs/flame.md, "How stacks
 * are built").
 *
 * Per step, by how the block was entered:
 *  - call: a frame for the callee, expecting a return to the instruction
 *    after the call;
 *  - return: back to the innermost frame expecting that address (frames
 *    above it were left without returning); none expects it: the return
 *    goes below what the trace saw, so the stack starts again from an
 *    [unknown] root with the function returned to;
 *  - a jump (or anything else that continues) into another function: to
 *    its entry, a tail call (the frame is replaced; nested in callgrind's
 *    convention); into a function on the stack below, a longjmp or an
 *    exception landing (the frames above are cut); elsewhere, the frame
 *    goes on in that function;
 *  - signal: an [signal] frame on top of the interrupted stack, then the
 *    handler; sigreturn: back to below the innermost [signal];
 *  - start: the first block of a thread: the program's entry point is a
 *    stack of its own, anything else starts under [unknown]; after a gap
 *    (overflow, decode error) the stack is kept under a marker frame
 *    naming the gap, and returns that reach below it resynchronise.
 *
 * Each thread has its own tree of stacks (names are function ids), merged
 * into the caller's tree (names are strings) when its stream ends: so
 * streams decoded in parallel never share anything but the function table,
 * which a lock guards and a per-stream cache keeps off the hot path.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash_index.h"
#include "stacks_int.h"

/* Markers: function ids below FIRST_FUNCTION. */
enum marker {
	mark_unknown,     /* [unknown]: the stack below is not in the trace */
	mark_signal,      /* [signal]: a handler runs on top of the interrupted stack */
	mark_overflow,    /* [overflow]: trace was dropped here */
	mark_error,       /* [decode error]: trace could not be decoded here */
	mark_untraced,    /* [untraced]: the trace was off and came back here */
	mark_unreadable,  /* [unreadable code]: blocks whose code is not in the files */
	mark_trace_unit,  /* [trace unit]: the trace unit's own code (the preloaded library,
	                     a sigreturn trampoline): followed, its instructions not counted */
	mark_count
};

static const char *const marker_names[mark_count] = {
	"[unknown]", "[signal]", "[overflow]", "[decode error]", "[untraced]",
	"[unreadable code]", "[trace unit]",
};

#define FIRST_FUNCTION ((uint32_t)mark_count)
/* Function table kind of HWT_STACKS_BLOCKS frames (a marker in the tree). */
#define BLOCK_FRAME_KIND 100u
#define FUNC_CHUNK_BITS 12
#define FUNC_CHUNK ((size_t)1 << FUNC_CHUNK_BITS)
#define FUNC_CHUNKS 65536

/* Function ids: key {image, kind, entry or inlined name}. */
struct func {
	int32_t image;
	uint32_t key_kind;      /* its kind in the key: kind, or BLOCK_FRAME_KIND */
	uint32_t kind;          /* enum hwt_frame_kind */
	uint64_t key;           /* entry file offset, or the inlined name's pointer */
	char *name;             /* display name */
	uint32_t tree_name;     /* in the caller's tree, HWT_STACK_NONE: not yet */
	int named;              /* a symbol names it (not module+0xoffset) */
};

struct hwt_stacks {
	struct hwt_stacks_symbols *symbols;
	struct hwt_stack_tree *tree;
	struct hwt_stacks_options options;
	struct hwt_flow_consumer consumer;
	pthread_mutex_t lock;     /* making functions, tree, stats, nomem */
	/* Functions in chunks that never move: a stream reads the functions it
	   knows without the lock while another one makes new ones. */
	struct func *chunks[FUNC_CHUNKS];
	size_t func_count;
	struct hwt_hash_index func_index; /* functions by (image, kind, key) */
	struct hwt_stacks_stats stats;
	int nomem;
	/* HWT_STACKS_THREAD_ORDER: the threads' trees, named at the finish. */
	struct kept_thread *kept;
	size_t kept_count, kept_capacity;
};

/* A thread's tree kept for hwt_stacks_finish. */
struct kept_thread {
	char *command;            /* the root name's command (base name) */
	uint64_t pid, tid;
	struct hwt_stack_tree *tree;
};

/* What a block is, for the stack (cached per block). */
struct block_info {
	const struct hwt_flow_block *block; /* NULL: empty slot */
	uint32_t func;            /* its function (unnamed code: module+0x<block offset>) */
	uint32_t leaf;            /* inlined: the innermost inlined function's id, else func */
	uint8_t named;            /* a symbol covers it */
	uint8_t at_entry;         /* it starts at its function's entry */
	uint8_t program_entry;    /* it starts at the ELF entry point */
	uint8_t inlined;          /* count: inline names below func (ids in chain) */
	uint32_t chain[HWT_INLINE_MAX];
};

#define FRAME_TAIL 0x1u       /* callgrind's convention: entered by a jump, shares ret */
#define FRAME_CALL 0x2u       /* entered by a call (counted in the calls weight) */

struct frame {
	uint32_t func;
	uint32_t node;            /* in the thread's tree */
	uint32_t parent;          /* the node it hangs from */
	uint32_t flags;
	uint64_t ret;             /* the return address it expects, 0: none known */
};

/* Instructions run by a node since the last time event (weight time). */
struct pending {
	uint32_t node;
	uint64_t insns;
};

struct thread {
	struct hwt_stacks *st;
	const struct hwt_flow_stream *info;
	struct hwt_stack_tree *tree;   /* names are function ids */
	struct frame *frames;
	size_t depth, capacity;
	uint32_t *on_stack;            /* per function id: frames of it on the stack */
	size_t on_stack_count;
	struct block_info *blocks;     /* by hwt_flow_block.id; .block NULL: not yet */
	size_t block_capacity;
	uint32_t acc_node;             /* instructions counted in acc_node, not yet added */
	uint64_t acc_insns;
	const struct hwt_flow_block *last;
	uint32_t gap;                  /* the marker of the last gap event */
	uint64_t insns;                /* counted so far: the timeline's clock */
	uint64_t time, time_base;      /* the trace's clock, when it has timing */
	int have_time;
	struct pending *pending;
	size_t pending_count, pending_capacity;
	struct hwt_stacks_timeline *timeline;
	char *root;                    /* the process frame's name */
	struct hwt_stacks_stats stats;
	int nomem;
};

/* ----- Functions ----------------------------------------------------------- */

static struct func *func_at(const struct hwt_stacks *st, uint32_t id)
{
	return &st->chunks[id >> FUNC_CHUNK_BITS][id & (FUNC_CHUNK - 1)];
}

/* Room for function id st->func_count; -1 when out of memory or ids. */
static int func_room(struct hwt_stacks *st)
{
	size_t chunk = st->func_count >> FUNC_CHUNK_BITS;

	if (chunk >= FUNC_CHUNKS)
		return -1;
	if (!st->chunks[chunk]) {
		st->chunks[chunk] = calloc(FUNC_CHUNK, sizeof(struct func));
		if (!st->chunks[chunk])
			return -1;
	}
	return 0;
}

static uint64_t func_hash(int32_t image, uint32_t kind, uint64_t key)
{
	return hwt_hash_mix(key ^ ((uint64_t)(uint32_t)image << 40) ^ ((uint64_t)kind << 60));
}

/* The display name of a function: its symbol (demangled) or module+0xentry. */
static char *func_name(struct hwt_stacks *st, int32_t image, uint64_t entry, const char *symbol)
{
	char buf[64];
	const char *module;
	char *name;

	if (st->options.flags & HWT_STACKS_ADDRESSES) {
		const struct hwt_profile_image *img =
			hwt_profile_image_at(hwt_stacks_symbols_profile(st->symbols), (size_t)image);

		module = img && img->path ? img->path : "";
	} else if (symbol) {
		return hwt_stacks_demangle(symbol);
	} else {
		module = hwt_stacks_symbols_module(st->symbols, image);
	}
	snprintf(buf, sizeof(buf), "+0x%" PRIx64, entry);
	name = malloc(strlen(module) + strlen(buf) + 1);
	if (name) {
		strcpy(name, *module ? module : "[anonymous]");
		strcat(name, buf);
	}
	return name;
}

/* The id of a function (made when new); HWT_STACK_NONE when out of memory. */
static uint32_t func_id(struct hwt_stacks *st, int32_t image, uint32_t kind, uint64_t key,
			const char *symbol, int named)
{
	uint64_t h = func_hash(image, kind, key);
	struct hwt_hash_probe probe;
	uint32_t id = HWT_STACK_NONE;
	struct func *f;

	pthread_mutex_lock(&st->lock);
	for (long k = hwt_hash_index_find(&st->func_index, h, &probe); k >= 0;
	     k = hwt_hash_index_next(&st->func_index, &probe)) {
		f = func_at(st, (uint32_t)k);
		if (f->image == image && f->key_kind == kind && f->key == key) {
			id = (uint32_t)k;
			goto out;
		}
	}
	if (func_room(st) < 0)
		goto out;
	f = func_at(st, (uint32_t)st->func_count);
	f->image = image;
	f->key_kind = kind;
	f->kind = kind;
	f->key = key;
	f->named = named;
	f->tree_name = HWT_STACK_NONE;
	f->name = kind == BLOCK_FRAME_KIND    ? strdup(symbol)
		  : kind == hwt_frame_inlined ? hwt_stacks_demangle(symbol)
					      : func_name(st, image, key, symbol);
	if (kind == BLOCK_FRAME_KIND)
		f->kind = hwt_frame_marker;
	if (!f->name)
		goto out;
	if (hwt_hash_index_add(&st->func_index, h, st->func_count) < 0) {
		free(f->name);
		f->name = NULL;
		goto out;
	}
	id = (uint32_t)st->func_count++;
out:
	if (id == HWT_STACK_NONE)
		st->nomem = 1;
	pthread_mutex_unlock(&st->lock);
	return id;
}

/* ----- The builder's life -------------------------------------------------- */

static void *stacks_begin(void *consumer, const struct hwt_flow_stream *info);
static void stacks_steps(void *context, const struct hwt_flow_step *steps, size_t count);
static void stacks_event(void *context, const struct hwt_flow_event *event);
static int stacks_end(void *context);

struct hwt_stacks *hwt_stacks_alloc(struct hwt_stacks_symbols *symbols, struct hwt_stack_tree *tree,
				    const struct hwt_stacks_options *options)
{
	struct hwt_stacks *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->symbols = symbols;
	st->tree = tree;
	if (options)
		st->options = *options;
	else
		st->options.pid = st->options.tid = -1;
	st->consumer.begin = stacks_begin;
	st->consumer.steps = stacks_steps;
	st->consumer.event = stacks_event;
	st->consumer.end = stacks_end;
	st->consumer.consumer = st;
	if (st->options.timeline && hwt_timeline_weight(st->options.timeline) == hwt_weight_time)
		st->consumer.flags |= HWT_FLOW_WANT_TIME;
	st->consumer.flags |= HWT_FLOW_WANT_TIME; /* time weights in the tree (timed traces) */
	pthread_mutex_init(&st->lock, NULL);
	if (func_room(st) < 0) {
		hwt_stacks_free(st);
		return NULL;
	}
	st->func_count = FIRST_FUNCTION;
	for (uint32_t m = 0; m < mark_count; m++) {
		struct func *f = func_at(st, m);

		f->image = -1;
		f->key_kind = 1000 + m; /* never looked up */
		f->kind = hwt_frame_marker;
		f->named = 1;
		f->tree_name = HWT_STACK_NONE;
		f->name = strdup(marker_names[m]);
		if (!f->name) {
			hwt_stacks_free(st);
			return NULL;
		}
	}
	return st;
}

void hwt_stacks_free(struct hwt_stacks *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->func_count; i++)
		free(func_at(st, (uint32_t)i)->name);
	for (size_t c = 0; c < FUNC_CHUNKS && st->chunks[c]; c++)
		free(st->chunks[c]);
	hwt_hash_index_free(&st->func_index);
	for (size_t i = 0; i < st->kept_count; i++) {
		free(st->kept[i].command);
		hwt_stack_tree_free(st->kept[i].tree);
	}
	free(st->kept);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

const struct hwt_flow_consumer *hwt_stacks_consumer(struct hwt_stacks *st)
{
	return &st->consumer;
}

int hwt_stacks_status(const struct hwt_stacks *st)
{
	return st->nomem ? -hse_nomem : 0;
}

void hwt_stacks_get_stats(const struct hwt_stacks *st, struct hwt_stacks_stats *stats)
{
	*stats = st->stats;
}

/* ----- Blocks -------------------------------------------------------------- */

/* Room for block id in t->blocks. */
static int blocks_room(struct thread *t, uint32_t id)
{
	void *p = hwt_grow_array_zeroed(t->blocks, &t->block_capacity, (size_t)id + 1,
					sizeof(*t->blocks));

	if (!p)
		return -1;
	t->blocks = p;
	return 0;
}

/* The inline chain (function ids) at file offset of image; its length. */
static uint32_t inline_chain(struct thread *t, int32_t image, uint64_t offset, uint32_t *chain)
{
	const char *names[HWT_INLINE_MAX];
	size_t n = hwt_stacks_symbols_inline(t->st->symbols, image, offset, names, HWT_INLINE_MAX);
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = func_id(t->st, image, hwt_frame_inlined, (uint64_t)(uintptr_t)names[i],
				      names[i], 1);

		if (id != HWT_STACK_NONE)
			chain[k++] = id;
	}
	return k;
}

static const struct block_info *block_info(struct thread *t, const struct hwt_flow_block *b)
{
	struct block_info *bi;
	struct hwt_function_info fn;
	int named;

	if (b->id < t->block_capacity && t->blocks[b->id].block == b)
		return &t->blocks[b->id];
	if (blocks_room(t, b->id) < 0) {
		t->nomem = 1;
		return NULL;
	}
	bi = &t->blocks[b->id];
	memset(bi, 0, sizeof(*bi));
	bi->block = b;
	if (b->flags & HWT_FLOW_BLOCK_TRACE_UNIT) {
		bi->func = bi->leaf = mark_trace_unit;
		bi->named = 1;
	} else if (b->image < 0 || (b->flags & HWT_FLOW_BLOCK_UNREADABLE)) {
		bi->func = bi->leaf = mark_unreadable;
		bi->named = 1;
	} else {
		named = hwt_stacks_symbols_function(t->st->symbols, b->image, b->offset, &fn);
		bi->named = (uint8_t)named;
		bi->program_entry = (uint8_t)fn.program_entry;
		/* Valgrind leaves symbols without a size out (crtstuff's frame_dummy,
		   register_tm_clones): in callgrind's convention they are no entry. */
		bi->at_entry = (uint8_t)(!named || (fn.entry == b->offset &&
						    (fn.sized || !(t->st->options.flags &
								   HWT_STACKS_CALLGRIND))));
		bi->func = func_id(t->st, b->image, hwt_frame_function, named ? fn.entry : b->offset,
				   named ? fn.name : NULL, named);
		bi->leaf = bi->func;
		if (t->st->options.flags & HWT_STACKS_INLINE) {
			bi->inlined = (uint8_t)inline_chain(t, b->image, b->offset, bi->chain);
			if (bi->inlined)
				bi->leaf = bi->chain[bi->inlined - 1];
		}
		if (bi->func == HWT_STACK_NONE) {
			bi->func = bi->leaf = mark_unreadable;
			t->nomem = 1;
		}
	}
	return bi;
}

/* ----- The shadow stack ---------------------------------------------------- */

static uint32_t tree_child(struct thread *t, uint32_t parent, uint32_t func)
{
	uint32_t node = hwt_stack_tree_child(t->tree, parent, func);

	if (node == HWT_STACK_NONE) {
		t->nomem = 1;
		return parent;
	}
	return node;
}

/* The timeline's clock: instructions so far, or the trace's time. */
static uint64_t timeline_at(const struct thread *t)
{
	if (hwt_timeline_weight(t->timeline) == hwt_weight_time)
		return t->have_time ? t->time - t->time_base : 0;
	return t->insns;
}

/* Functions are read without the lock: one never changes once made. */
static void timeline_open(struct thread *t, uint32_t func)
{
	const struct func *f = func_at(t->st, func);

	if (t->timeline)
		hwt_timeline_open(t->timeline, f->name, (enum hwt_frame_kind)f->kind,
				  timeline_at(t));
}

static void timeline_close(struct thread *t, uint32_t func)
{
	const struct func *f = func_at(t->st, func);

	if (t->timeline)
		hwt_timeline_close(t->timeline, f->name, (enum hwt_frame_kind)f->kind,
				   timeline_at(t));
}

static void on_stack_add(struct thread *t, uint32_t func, int delta)
{
	void *p = hwt_grow_array_zeroed(t->on_stack, &t->on_stack_count, (size_t)func + 1,
					sizeof(*t->on_stack));

	if (!p) {
		t->nomem = 1;
		return;
	}
	t->on_stack = p;
	t->on_stack[func] += (uint32_t)delta;
}

static int is_on_stack(const struct thread *t, uint32_t func)
{
	return func < t->on_stack_count && t->on_stack[func];
}

/* Pushes a frame hanging from parent (a node of the thread's tree). */
static void push_at(struct thread *t, uint32_t parent, uint32_t func, uint64_t ret, uint32_t flags)
{
	struct frame *f = hwt_grow_array(t->frames, &t->capacity, t->depth + 1, sizeof(*t->frames));

	if (!f) {
		t->nomem = 1;
		return;
	}
	t->frames = f;
	f = &t->frames[t->depth++];
	f->func = func;
	f->parent = parent;
	f->node = tree_child(t, parent, func);
	f->ret = ret;
	f->flags = flags;
	if (flags & (FRAME_CALL | FRAME_TAIL))
		hwt_stack_tree_add(t->tree, f->node, hwt_weight_calls, 1);
	on_stack_add(t, func, 1);
	if (t->depth > t->stats.max_depth)
		t->stats.max_depth = t->depth;
	timeline_open(t, func);
}

/* The node a frame pushed now hangs from: the top's, past the inline
   chain at the instruction that made the call (--inline). */
static uint32_t call_parent(struct thread *t)
{
	uint32_t node;
	const struct hwt_flow_block *b = t->last;

	if (!t->depth)
		return HWT_STACK_ROOT;
	node = t->frames[t->depth - 1].node;
	if ((t->st->options.flags & HWT_STACKS_INLINE) && b && b->image >= 0 &&
	    !(b->flags & HWT_FLOW_BLOCK_UNREADABLE)) {
		uint32_t chain[HWT_INLINE_MAX];
		uint32_t n = inline_chain(t, b->image, b->end_offset, chain);

		for (uint32_t i = 0; i < n; i++)
			node = tree_child(t, node, chain[i]);
	}
	return node;
}

static void push(struct thread *t, uint32_t func, uint64_t ret, uint32_t flags)
{
	push_at(t, t->depth ? t->frames[t->depth - 1].node : HWT_STACK_ROOT, func, ret, flags);
}

static void pop_to(struct thread *t, size_t depth)
{
	while (t->depth > depth) {
		struct frame *f = &t->frames[--t->depth];

		on_stack_add(t, f->func, -1);
		timeline_close(t, f->func);
	}
}

/* The top frame goes on in another function: a tail call (a call) or a jump. */
static void replace_top(struct thread *t, uint32_t func, int call)
{
	struct frame *f = &t->frames[t->depth - 1];

	on_stack_add(t, f->func, -1);
	timeline_close(t, f->func);
	f->func = func;
	f->node = tree_child(t, f->parent, func);
	if (call)
		hwt_stack_tree_add(t->tree, f->node, hwt_weight_calls, 1);
	on_stack_add(t, func, 1);
	timeline_open(t, func);
}

/* Cuts the stack back to the innermost frame of func (which is on it). */
static void cut_back(struct thread *t, uint32_t func)
{
	size_t i = t->depth;

	while (i-- > 0)
		if (t->frames[i].func == func)
			break;
	pop_to(t, i + 1);
}

/*
 * A return below what the trace saw: the stack above the innermost marker
 * ([signal], a gap, [unknown]) starts again with func; without a marker,
 * from an [unknown] root.
 */
static void restart(struct thread *t, uint32_t func)
{
	size_t i = t->depth;

	while (i-- > 0)
		if (t->frames[i].func < FIRST_FUNCTION)
			break;
	pop_to(t, i + 1);
	if (!t->depth)
		push(t, mark_unknown, 0, 0);
	/* callgrind makes a call of a return that no frame expects. */
	push(t, func, 0, t->st->options.flags & HWT_STACKS_CALLGRIND ? FRAME_CALL : 0);
}

static int is_pseudo(const struct thread *t, uint32_t func)
{
	return func >= FIRST_FUNCTION && !func_at(t->st, func)->named;
}

/*
 * Execution goes on in bi's function without a call or return: the frame
 * goes on, becomes a tail call, or the stack is cut back to it.
 */
static void go_on(struct thread *t, const struct block_info *bi, int may_tail)
{
	const struct frame *top;

	if (!t->depth) {
		restart(t, bi->func);
		return;
	}
	top = &t->frames[t->depth - 1];
	if (top->func == bi->func) {
		/* A jump to the own entry: a recursive call in callgrind's view. */
		if (may_tail && bi->at_entry && bi->named && bi->block->offset != 0 &&
		    (t->st->options.flags & HWT_STACKS_CALLGRIND)) {
			t->stats.tail_calls++;
			push(t, bi->func, top->ret, FRAME_TAIL);
		}
		return;
	}
	/* Code without a symbol stays in the frame of code without one. */
	if (!bi->named && is_pseudo(t, top->func) &&
	    func_at(t->st, top->func)->image == bi->block->image)
		return;
	if (may_tail && bi->at_entry && bi->named) {
		t->stats.tail_calls++;
		if (t->st->options.flags & HWT_STACKS_CALLGRIND)
			push(t, bi->func, top->ret, FRAME_TAIL);
		else
			replace_top(t, bi->func, 1);
		return;
	}
	if (is_on_stack(t, bi->func)) {
		t->stats.unwinds++;
		cut_back(t, bi->func);
		return;
	}
	/* callgrind: a jump into unnamed code or into another object is a call. */
	if (may_tail && (t->st->options.flags & HWT_STACKS_CALLGRIND) &&
	    (bi->at_entry || func_at(t->st, top->func)->image != bi->block->image)) {
		push(t, bi->func, top->ret, FRAME_TAIL);
		return;
	}
	replace_top(t, bi->func, 0);
}

static void do_return(struct thread *t, const struct block_info *bi, uint64_t to)
{
	size_t i = t->depth;

	t->stats.returns++;
	while (i-- > 0)
		if (t->frames[i].ret == to)
			break;
	if (i != (size_t)-1) {
		while (i > 0 && (t->frames[i].flags & FRAME_TAIL))
			i--;
		pop_to(t, i);
		go_on(t, bi, 0);
		return;
	}
	t->stats.unmatched_returns++;
	if (is_on_stack(t, bi->func))
		cut_back(t, bi->func);
	else
		restart(t, bi->func);
}

/* A marker frame, then func above it. */
static void push_marked(struct thread *t, uint32_t marker, uint32_t func)
{
	push(t, marker, 0, 0);
	push(t, func, 0, 0);
}

/* HWT_STACKS_BLOCKS: the id of a block's own frame. */
static uint32_t block_frame(struct thread *t, const struct hwt_flow_block *b)
{
	const struct hwt_profile_image *img =
		hwt_profile_image_at(hwt_stacks_symbols_profile(t->st->symbols), (size_t)b->image);
	char name[4200];

	snprintf(name, sizeof(name), "[@%s+0x%" PRIx64 "-0x%" PRIx64 "]",
		 img && img->path ? img->path : "", b->offset, b->end_offset);
	return func_id(t->st, b->image, BLOCK_FRAME_KIND, b->offset, name, 1);
}

static void flush_insns(struct thread *t)
{
	if (t->acc_insns)
		hwt_stack_tree_add(t->tree, t->acc_node, hwt_weight_insns, t->acc_insns);
	t->acc_insns = 0;
}

/* Time stamps far apart: what ran since the last holds each stack once. */
#define PENDING_MAX 65536

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

static void pending_compact(struct thread *t)
{
	size_t n = 0;

	qsort(t->pending, t->pending_count, sizeof(*t->pending), pending_cmp);
	for (size_t i = 0; i < t->pending_count; i++) {
		if (n && t->pending[n - 1].node == t->pending[i].node)
			t->pending[n - 1].insns += t->pending[i].insns;
		else
			t->pending[n++] = t->pending[i];
	}
	t->pending_count = n;
}

/* Counts the block's instructions in the stack it ran in. */
static void count(struct thread *t, const struct block_info *bi)
{
	uint32_t node = t->frames[t->depth - 1].node;

	if (bi->block->flags & HWT_FLOW_BLOCK_TRACE_UNIT)
		return; /* not the program's: never reported */

	for (uint32_t i = 0; i < bi->inlined; i++)
		node = tree_child(t, node, bi->chain[i]);
	if ((t->st->options.flags & HWT_STACKS_BLOCKS) && bi->block->image >= 0) {
		uint32_t id = block_frame(t, bi->block);

		if (id != HWT_STACK_NONE)
			node = tree_child(t, node, id);
	}
	/* Added to the tree when the stack changes: a loop's blocks add up here. */
	if (node != t->acc_node) {
		flush_insns(t);
		t->acc_node = node;
	}
	t->acc_insns += bi->block->insns;
	t->insns += bi->block->insns;
	t->stats.insns += bi->block->insns;
	if (t->have_time) {
		struct pending *p = t->pending_count ? &t->pending[t->pending_count - 1] : NULL;

		if (p && p->node == node) {
			p->insns += bi->block->insns;
		} else {
			if (t->pending_count >= PENDING_MAX)
				pending_compact(t);
			void *q = hwt_grow_array(t->pending, &t->pending_capacity,
						 t->pending_count + 1, sizeof(*t->pending));

			if (!q) {
				t->nomem = 1;
				return;
			}
			t->pending = q;
			t->pending[t->pending_count++] = (struct pending){ node, bi->block->insns };
		}
	}
}

static void step(struct thread *t, const struct hwt_flow_step *s)
{
	const struct hwt_flow_block *b = s->block;
	const struct block_info *bi;
	size_t i;

	bi = block_info(t, b);
	if (!bi)
		return;
	t->stats.steps++;
	switch (s->kind) {
	case hwt_flow_call:
	case hwt_flow_indirect_call:
		t->stats.calls++;
		push_at(t, call_parent(t), bi->func, t->last ? t->last->vnext : 0, FRAME_CALL);
		break;
	case hwt_flow_return:
		do_return(t, bi, b->vaddr);
		break;
	case hwt_flow_start:
		if (!t->depth && bi->program_entry)
			push(t, bi->func, 0, 0);
		else if (!t->depth)
			push_marked(t, mark_unknown, bi->func);
		else
			push_marked(t, t->gap, bi->func);
		break;
	case hwt_flow_signal:
		t->stats.signals++;
		if (t->st->options.flags & HWT_STACKS_SIGNAL_ROOTS) {
			push_at(t, HWT_STACK_ROOT, mark_signal, 0, 0);
			push(t, bi->func, 0, 0);
		} else {
			push_marked(t, mark_signal, bi->func);
		}
		break;
	case hwt_flow_sigreturn:
		t->stats.sigreturns++;
		for (i = t->depth; i-- > 0;)
			if (t->frames[i].func == mark_signal)
				break;
		if (i != (size_t)-1)
			pop_to(t, i);
		go_on(t, bi, 0);
		break;
	case hwt_flow_enabled:
		if (is_on_stack(t, bi->func))
			cut_back(t, bi->func);
		else
			push_marked(t, mark_untraced, bi->func);
		break;
	case hwt_flow_syscall:
		go_on(t, bi, 0);
		break;
	default:
		/* Jumps, conditional branches, straight on, far transfers. */
		go_on(t, bi, 1);
		break;
	}
	if (!t->depth)
		return; /* out of memory */
	count(t, bi);
	t->last = b;
}

/* ----- Time ---------------------------------------------------------------- */

/* Spreads the ticks since the last time event over what ran since, by instructions. */
static void spend_time(struct thread *t, uint64_t ticks)
{
	uint64_t insns = 0, given = 0;

	for (size_t i = 0; i < t->pending_count; i++)
		insns += t->pending[i].insns;
	for (size_t i = 0; insns && i < t->pending_count; i++) {
		uint64_t share = i + 1 == t->pending_count
					 ? ticks - given
					 : (uint64_t)((unsigned __int128)ticks * t->pending[i].insns / insns);

		hwt_stack_tree_add(t->tree, t->pending[i].node, hwt_weight_time, share);
		given += share;
	}
	t->pending_count = 0;
}

/* ----- The consumer -------------------------------------------------------- */

/* A stream left out by pid/tid: everything it hands in is dropped. */
static int skipped_stream;

/* The base name of the stream's command: the root's name. */
static const char *command_name(const struct hwt_flow_stream *info)
{
	const char *cmd = info->command && *info->command ? info->command : NULL;
	const char *base = cmd ? strrchr(cmd, '/') : NULL;

	return base ? base + 1 : cmd ? cmd : "[process]";
}

static char *root_name(const struct hwt_stacks *st, const struct hwt_flow_stream *info)
{
	const char *base = command_name(info);
	char buf[32];
	char *name;

	if (st->options.flags & HWT_STACKS_MERGE)
		return strdup(base);
	snprintf(buf, sizeof(buf), "-%" PRIu32, info->stream->pid);
	name = malloc(strlen(base) + strlen(buf) + 1);
	if (name) {
		strcpy(name, base);
		strcat(name, buf);
	}
	return name;
}

static void *stacks_begin(void *consumer, const struct hwt_flow_stream *info)
{
	struct hwt_stacks *st = consumer;
	struct thread *t;

	if ((st->options.pid >= 0 && info->stream->pid != (uint64_t)st->options.pid) ||
	    (st->options.tid >= 0 && info->stream->tid != (uint64_t)st->options.tid))
		return &skipped_stream;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->st = st;
	t->info = info;
	t->gap = mark_unknown;
	t->tree = hwt_stack_tree_alloc();
	t->root = root_name(st, info);
	if (!t->tree || !t->root) {
		hwt_stack_tree_free(t->tree);
		free(t->root);
		free(t->blocks);
		free(t);
		return NULL;
	}
	t->timeline = st->options.timeline;
	if (t->timeline) {
		char name[64];

		snprintf(name, sizeof(name), " %" PRIu32 "/%" PRIu32, info->stream->pid,
			 info->stream->tid);
		{
			char *full = malloc(strlen(t->root) + strlen(name) + 1);

			if (full) {
				strcpy(full, t->root);
				strcat(full, name);
			}
			if (!full || hwt_timeline_thread_begin(t->timeline, info->stream->pid,
							       info->stream->tid, t->root, full) < 0)
				t->nomem = 1;
			free(full);
		}
	}
	return t;
}

static void stacks_steps(void *context, const struct hwt_flow_step *steps, size_t n)
{
	struct thread *t = context;

	if (context == &skipped_stream)
		return;
	for (size_t i = 0; i < n; i++)
		step(t, &steps[i]);
}

static void stacks_event(void *context, const struct hwt_flow_event *ev)
{
	struct thread *t = context;

	if (context == &skipped_stream)
		return;
	switch (ev->type) {
	case hwt_flow_ev_overflow:
		t->gap = mark_overflow;
		t->stats.gaps++;
		break;
	case hwt_flow_ev_error:
		t->gap = mark_error;
		t->stats.gaps++;
		break;
	case hwt_flow_ev_time:
		if (t->have_time && ev->time > t->time)
			spend_time(t, ev->time - t->time);
		else if (!t->have_time)
			t->time_base = ev->time;
		if (!t->have_time || ev->time > t->time)
			t->time = ev->time;
		t->have_time = 1;
		break;
	default:
		break;
	}
}

/* Adds a thread's tree to the caller's under a root frame of that name; lock held. */
static int merge_tree(struct hwt_stacks *st, const struct hwt_stack_tree *tree, const char *root_text)
{
	size_t n = hwt_stack_tree_count(tree);
	uint32_t *map = malloc((n + 1) * sizeof(*map));
	int64_t root_name;
	uint32_t root;

	if (!map)
		return -1;
	root_name = hwt_stack_tree_intern(st->tree, root_text, hwt_frame_root);
	root = root_name < 0 ? HWT_STACK_NONE
			     : hwt_stack_tree_child(st->tree, HWT_STACK_ROOT, (uint32_t)root_name);
	if (root == HWT_STACK_NONE) {
		free(map);
		return -1;
	}
	map[0] = root;
	for (size_t i = 1; i < n; i++) {
		const struct hwt_stack_node *x = hwt_stack_tree_node(tree, (uint32_t)i);
		struct func *f = func_at(st, x->name);

		if (f->tree_name == HWT_STACK_NONE) {
			int64_t name = hwt_stack_tree_intern(st->tree, f->name,
							     (enum hwt_frame_kind)f->kind);

			if (name < 0) {
				free(map);
				return -1;
			}
			f->tree_name = (uint32_t)name;
		}
		map[i] = hwt_stack_tree_child(st->tree, map[x->parent], f->tree_name);
		if (map[i] == HWT_STACK_NONE) {
			free(map);
			return -1;
		}
		for (int w = 0; w < hwt_weight_count; w++)
			hwt_stack_tree_add(st->tree, map[i], (enum hwt_stacks_weight)w, x->self[w]);
	}
	free(map);
	return 0;
}

/*
 * The thread's tree into the caller's under its process frame, or with
 * HWT_STACKS_THREAD_ORDER kept aside for hwt_stacks_finish; lock held.
 */
static int merge_thread(struct hwt_stacks *st, struct thread *t)
{
	struct kept_thread *k;

	if (!(st->options.flags & HWT_STACKS_THREAD_ORDER) || (st->options.flags & HWT_STACKS_MERGE))
		return merge_tree(st, t->tree, t->root);
	k = hwt_grow_array(st->kept, &st->kept_capacity, st->kept_count + 1, sizeof(*k));
	if (!k)
		return -1;
	st->kept = k;
	k = &st->kept[st->kept_count];
	k->command = strdup(command_name(t->info));
	if (!k->command)
		return -1;
	k->pid = t->info->stream->pid;
	k->tid = t->info->stream->tid;
	k->tree = t->tree;
	t->tree = NULL; /* the builder's now */
	st->kept_count++;
	return 0;
}

static int kept_cmp(const void *pa, const void *pb)
{
	const struct kept_thread *a = pa, *b = pb;
	int c = strcmp(a->command, b->command);

	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

int hwt_stacks_finish(struct hwt_stacks *st)
{
	size_t rank = 0;
	int status = 0;

	if (!st->kept_count)
		return st->nomem ? -hse_nomem : 0;
	pthread_mutex_lock(&st->lock);
	qsort(st->kept, st->kept_count, sizeof(*st->kept), kept_cmp);
	for (size_t i = 0; i < st->kept_count; i++) {
		const struct kept_thread *k = &st->kept[i];
		char *name;

		/* Streams of one thread (an exec keeps the tid) count once. */
		if (i && !strcmp(k[-1].command, k->command))
			rank += k[-1].pid != k->pid || k[-1].tid != k->tid;
		else
			rank = 1;
		if (rank == 1)
			name = strdup(k->command);
		else if (asprintf(&name, "%s#%zu", k->command, rank) < 0)
			name = NULL;
		if (!name || merge_tree(st, k->tree, name) < 0)
			st->nomem = 1;
		free(name);
	}
	for (size_t i = 0; i < st->kept_count; i++) {
		free(st->kept[i].command);
		hwt_stack_tree_free(st->kept[i].tree);
	}
	st->kept_count = 0;
	status = st->nomem ? -hse_nomem : 0;
	pthread_mutex_unlock(&st->lock);
	return status;
}

static void stats_add(struct hwt_stacks_stats *to, const struct hwt_stacks_stats *s)
{
	to->streams++;
	to->steps += s->steps;
	to->insns += s->insns;
	to->calls += s->calls;
	to->returns += s->returns;
	to->unmatched_returns += s->unmatched_returns;
	to->tail_calls += s->tail_calls;
	to->unwinds += s->unwinds;
	to->signals += s->signals;
	to->sigreturns += s->sigreturns;
	to->gaps += s->gaps;
	if (s->max_depth > to->max_depth)
		to->max_depth = s->max_depth;
}

static int stacks_end(void *context)
{
	struct thread *t = context;
	struct hwt_stacks *st;
	int status = 0;

	if (context == &skipped_stream)
		return 0;
	st = t->st;
	pop_to(t, 0);
	flush_insns(t);
	if (t->timeline)
		hwt_timeline_thread_end(t->timeline, timeline_at(t));
	pthread_mutex_lock(&st->lock);
	if (merge_thread(st, t) < 0 || t->nomem) {
		st->nomem = 1;
		status = -1;
	}
	stats_add(&st->stats, &t->stats);
	pthread_mutex_unlock(&st->lock);
	hwt_stack_tree_free(t->tree);
	free(t->frames);
	free(t->on_stack);
	free(t->blocks);
	free(t->pending);
	free(t->root);
	free(t);
	return status;
}
