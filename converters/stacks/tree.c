/*
 * struct hwt_stack_tree: the calling context tree (one node per distinct
 * stack), its interned frame names, merging, and the folded form in and
 * out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hash_index.h"
#include "hwt_stacks.h"
#include "stacks_int.h"

struct name {
	char *text;
	uint32_t kind;     /* enum hwt_frame_kind */
	uint64_t hash;
};

struct hwt_stack_tree {
	struct hwt_stack_node *nodes;
	size_t count, capacity;
	struct hwt_hash_index children; /* nodes by (parent, name) */
	struct name *names;
	size_t name_count, name_capacity;
	struct hwt_hash_index by_text;  /* names by (text, kind) */
};

static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t pair_hash(uint32_t parent, uint32_t name)
{
	return hwt_hash_mix((uint64_t)parent << 32 | name);
}

struct hwt_stack_tree *hwt_stack_tree_alloc(void)
{
	struct hwt_stack_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nodes = malloc(64 * sizeof(*t->nodes));
	t->capacity = 64;
	if (!t->nodes) {
		hwt_stack_tree_free(t);
		return NULL;
	}
	/* The root: no frame. */
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nodes[0].parent = HWT_STACK_NONE;
	t->nodes[0].name = HWT_STACK_NONE;
	t->nodes[0].first_child = HWT_STACK_NONE;
	t->nodes[0].next_sibling = HWT_STACK_NONE;
	t->count = 1;
	return t;
}

void hwt_stack_tree_free(struct hwt_stack_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->name_count; i++)
		free(t->names[i].text);
	free(t->names);
	hwt_hash_index_free(&t->by_text);
	hwt_hash_index_free(&t->children);
	free(t->nodes);
	free(t);
}

int64_t hwt_stack_tree_intern(struct hwt_stack_tree *t, const char *text, enum hwt_frame_kind kind)
{
	uint64_t h = hwt_hash_mix(text_hash(text) ^ (uint64_t)kind);
	struct hwt_hash_probe probe;
	struct name *n;

	for (long k = hwt_hash_index_find(&t->by_text, h, &probe); k >= 0;
	     k = hwt_hash_index_next(&t->by_text, &probe)) {
		n = &t->names[k];
		if (n->hash == h && n->kind == (uint32_t)kind && !strcmp(n->text, text))
			return k;
	}
	if (t->name_count >= HWT_HASH_INDEX_MAX - 1)
		return -hse_nomem;
	{
		void *p = hwt_grow_array(t->names, &t->name_capacity, t->name_count + 1,
					 sizeof(*t->names));

		if (!p)
			return -hse_nomem;
		t->names = p;
	}
	n = &t->names[t->name_count];
	n->text = strdup(text);
	if (!n->text)
		return -hse_nomem;
	n->kind = (uint32_t)kind;
	n->hash = h;
	if (hwt_hash_index_add(&t->by_text, h, t->name_count) < 0) {
		free(n->text);
		return -hse_nomem;
	}
	return (int64_t)t->name_count++;
}

const char *hwt_stack_tree_name(const struct hwt_stack_tree *t, uint32_t name)
{
	return name < t->name_count ? t->names[name].text : "";
}

size_t hwt_stack_tree_name_count(const struct hwt_stack_tree *t)
{
	return t->name_count;
}

enum hwt_frame_kind hwt_stack_tree_name_kind(const struct hwt_stack_tree *t, uint32_t name)
{
	return name < t->name_count ? (enum hwt_frame_kind)t->names[name].kind : hwt_frame_marker;
}

/* The child of parent named name, or HWT_STACK_NONE when there is none. */
static uint32_t hwt_stack_tree_find(const struct hwt_stack_tree *t, uint32_t parent,
				    uint32_t name)
{
	struct hwt_hash_probe probe;

	for (long k = hwt_hash_index_find(&t->children, pair_hash(parent, name), &probe); k >= 0;
	     k = hwt_hash_index_next(&t->children, &probe)) {
		const struct hwt_stack_node *n = &t->nodes[k];

		if (n->parent == parent && n->name == name)
			return (uint32_t)k;
	}
	return HWT_STACK_NONE;
}

uint32_t hwt_stack_tree_child(struct hwt_stack_tree *t, uint32_t parent, uint32_t name)
{
	uint32_t index = hwt_stack_tree_find(t, parent, name);
	struct hwt_stack_node *n, *p;

	if (index != HWT_STACK_NONE)
		return index;
	if (t->count >= HWT_HASH_INDEX_MAX - 1)
		return HWT_STACK_NONE;
	{
		void *q = hwt_grow_array(t->nodes, &t->capacity, t->count + 1, sizeof(*t->nodes));

		if (!q)
			return HWT_STACK_NONE;
		t->nodes = q;
	}
	index = (uint32_t)t->count;
	if (hwt_hash_index_add(&t->children, pair_hash(parent, name), index) < 0)
		return HWT_STACK_NONE;
	t->count++;
	n = &t->nodes[index];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	n->first_child = HWT_STACK_NONE;
	n->next_sibling = HWT_STACK_NONE;
	/* Newest child first; the writers sort children by name. */
	p = &t->nodes[parent];
	n->next_sibling = p->first_child;
	p->first_child = index;
	return index;
}

size_t hwt_stack_tree_count(const struct hwt_stack_tree *t)
{
	return t->count;
}

const struct hwt_stack_node *hwt_stack_tree_node(const struct hwt_stack_tree *t, uint32_t node)
{
	return node < t->count ? &t->nodes[node] : NULL;
}

void hwt_stack_tree_add(struct hwt_stack_tree *t, uint32_t node, enum hwt_stacks_weight weight,
			uint64_t value)
{
	if (node < t->count && weight < hwt_weight_count)
		t->nodes[node].self[weight] += value;
}

uint64_t hwt_stack_tree_total(const struct hwt_stack_tree *t, uint32_t node,
			      enum hwt_stacks_weight weight)
{
	uint64_t sum = 0;

	/* Nodes are made after their parents: a node's descendants have
	   higher indexes, so one pass over them with a membership mark by
	   ancestry would do; the explicit walk below keeps no extra memory. */
	if (node >= t->count)
		return 0;
	for (uint32_t n = node;;) {
		const struct hwt_stack_node *x = &t->nodes[n];

		sum += x->self[weight];
		if (x->first_child != HWT_STACK_NONE) {
			n = x->first_child;
			continue;
		}
		while (n != node && t->nodes[n].next_sibling == HWT_STACK_NONE)
			n = t->nodes[n].parent;
		if (n == node)
			break;
		n = t->nodes[n].next_sibling;
	}
	return sum;
}

int hwt_stack_tree_merge(struct hwt_stack_tree *dst, const struct hwt_stack_tree *src)
{
	uint32_t *map = malloc((src->count + 1) * sizeof(*map));

	if (!map)
		return -hse_nomem;
	map[0] = HWT_STACK_ROOT;
	for (int w = 0; w < hwt_weight_count; w++)
		dst->nodes[0].self[w] += src->nodes[0].self[w];
	/* Parents come before children. */
	for (size_t i = 1; i < src->count; i++) {
		const struct hwt_stack_node *n = &src->nodes[i];
		const struct name *nm = &src->names[n->name];
		int64_t name = hwt_stack_tree_intern(dst, nm->text, (enum hwt_frame_kind)nm->kind);
		uint32_t d;

		if (name < 0) {
			free(map);
			return -hse_nomem;
		}
		d = hwt_stack_tree_child(dst, map[n->parent], (uint32_t)name);
		if (d == HWT_STACK_NONE) {
			free(map);
			return -hse_nomem;
		}
		map[i] = d;
		for (int w = 0; w < hwt_weight_count; w++)
			dst->nodes[d].self[w] += n->self[w];
	}
	free(map);
	return 0;
}

/* ----- Folded stacks ---------------------------------------------------- */

static const struct hwt_stack_tree *cmp_tree;

static int child_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct hwt_stack_tree *t = cmp_tree;
	int c = strcmp(t->names[t->nodes[x].name].text, t->names[t->nodes[y].name].text);

	if (c)
		return c;
	return (x > y) - (x < y);
}

/*
 * Per node its children sorted by name. Not thread-safe (qsort has no
 * context argument in C); the writers run on one thread.
 */
int hwt_sorted_tree_init(const struct hwt_stack_tree *t, struct hwt_sorted_tree *s)
{
	size_t at = 0;

	s->order = malloc((t->count + 1) * sizeof(*s->order));
	s->first = calloc(t->count + 1, sizeof(*s->first));
	s->count = calloc(t->count + 1, sizeof(*s->count));
	if (!s->order || !s->first || !s->count) {
		free(s->order);
		free(s->first);
		free(s->count);
		return -hse_nomem;
	}
	for (size_t i = 0; i < t->count; i++) {
		s->first[i] = (uint32_t)at;
		for (uint32_t c = t->nodes[i].first_child; c != HWT_STACK_NONE;
		     c = t->nodes[c].next_sibling)
			s->order[at++] = c;
		s->count[i] = (uint32_t)(at - s->first[i]);
		cmp_tree = t;
		qsort(&s->order[s->first[i]], s->count[i], sizeof(*s->order), child_cmp);
	}
	return 0;
}

void hwt_sorted_tree_fini(struct hwt_sorted_tree *s)
{
	free(s->order);
	free(s->first);
	free(s->count);
}

/* One folded line: the frames of path[1..depth), then extra (may be NULL). */
static void write_line(FILE *out, const struct hwt_stack_tree *t, const uint32_t *path,
		       size_t depth, const char *extra, uint64_t value)
{
	char number[24];

	for (size_t i = 1; i < depth; i++) {
		if (i > 1)
			fputc(';', out);
		fputs(t->names[t->nodes[path[i]].name].text, out);
	}
	if (extra) {
		fputc(';', out);
		fputs(extra, out);
	}
	fputc(' ', out);
	fputs(hwt_stacks_u64(number, value), out);
	fputc('\n', out);
}

int hwt_stack_tree_write_folded(const struct hwt_stack_tree *t, enum hwt_stacks_weight weight,
				size_t max_depth, FILE *out, uint64_t *cut)
{
	struct hwt_sorted_tree s;
	uint32_t *path = NULL, *next = NULL;
	size_t depth = 0, path_cap = 0, next_cap = 0;
	uint64_t cuts = 0;
	int status;

	if (cut)
		*cut = 0;
	if (weight >= hwt_weight_count)
		return -hse_invalid;
	status = hwt_sorted_tree_init(t, &s);
	if (status < 0)
		return status;
	/* Depth-first, children in name order; path[] holds the stack, next[]
	   the position in each level's child list. */
	path = hwt_grow_array(NULL, &path_cap, 16, sizeof(*path));
	next = hwt_grow_array(NULL, &next_cap, 16, sizeof(*next));
	if (!path || !next) {
		status = -hse_nomem;
		goto out;
	}
	path[0] = HWT_STACK_ROOT;
	next[0] = 0;
	depth = 1;
	while (depth) {
		uint32_t node = path[depth - 1];

		if (next[depth - 1] == 0 && node != HWT_STACK_ROOT) {
			/* First visit: the stack's own line; below a cut, one line for
			   everything deeper. */
			uint64_t self = t->nodes[node].self[weight];
			uint64_t deeper = 0;
			int at_cut = max_depth && depth - 1 == max_depth;

			if (at_cut)
				deeper = hwt_stack_tree_total(t, node, weight) - self;
			if (self)
				write_line(out, t, path, depth, NULL, self);
			if (deeper) {
				write_line(out, t, path, depth, "[deeper]", deeper);
				cuts++;
			}
			if (at_cut) {
				depth--;
				continue;
			}
		}
		if (next[depth - 1] < s.count[node]) {
			uint32_t child = s.order[s.first[node] + next[depth - 1]++];

			void *p = hwt_grow_array(path, &path_cap, depth + 1, sizeof(*path));
			void *q = p ? hwt_grow_array(next, &next_cap, depth + 1, sizeof(*next)) : NULL;

			if (p)
				path = p;
			if (!q) {
				status = -hse_nomem;
				goto out;
			}
			next = q;
			path[depth] = child;
			next[depth] = 0;
			depth++;
		} else {
			depth--;
		}
	}
	status = ferror(out) ? -hse_io : 0;
out:
	if (cut)
		*cut = cuts;
	free(path);
	free(next);
	hwt_sorted_tree_fini(&s);
	return status;
}

int hwt_stack_tree_read_folded(struct hwt_stack_tree *t, enum hwt_stacks_weight weight, FILE *in,
			       size_t *line_number)
{
	char *line = NULL;
	size_t size = 0, number = 0;
	ssize_t len;
	int status = 0;

	if (weight >= hwt_weight_count)
		return -hse_invalid;
	while ((len = getline(&line, &size, in)) >= 0) {
		char *space, *end, *frame;
		uint32_t node = HWT_STACK_ROOT;
		unsigned long long v;

		number++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		space = strrchr(line, ' ');
		if (!space || space == line)
			goto bad;
		errno = 0;
		v = strtoull(space + 1, &end, 10);
		if (errno || *end || end == space + 1)
			goto bad;
		*space = '\0';
		for (frame = line; frame;) {
			char *semi = strchr(frame, ';');
			int64_t name;

			if (semi)
				*semi = '\0';
			name = hwt_stack_tree_intern(t, frame, hwt_frame_function);
			if (name < 0) {
				status = (int)name;
				goto out;
			}
			node = hwt_stack_tree_child(t, node, (uint32_t)name);
			if (node == HWT_STACK_NONE) {
				status = -hse_nomem;
				goto out;
			}
			frame = semi ? semi + 1 : NULL;
		}
		t->nodes[node].self[weight] += v;
	}
	if (ferror(in))
		status = -hse_io;
	goto out;
bad:
	status = -hse_format;
	if (line_number)
		*line_number = number;
out:
	free(line);
	return status;
}
