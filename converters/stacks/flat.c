/*
 * A flat tree from a profile's counts: no stacks, one frame per function
 * under one root, each weighed by the instructions counted in it. What a
 * sampled profile (SPE: one operation per record, no call stack) can be
 * drawn as (docs/flame.md, "SPE").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_int.h"

/* The frame of the function at offset of image: its symbol, else the
   module's unnamed code as one frame (without calls there are no entries
   to name each function by). */
static int64_t frame_name(struct hwt_stack_tree *tree, struct hwt_stacks_symbols *symbols,
			  size_t image, uint64_t offset)
{
	struct hwt_function_info fn;
	char *name;
	const char *module;
	int64_t id;

	if (hwt_stacks_symbols_function(symbols, (int32_t)image, offset, &fn) && fn.name) {
		name = hwt_stacks_demangle(fn.name);
	} else {
		module = hwt_stacks_symbols_module(symbols, (int32_t)image);
		name = malloc(strlen(module) + 32);
		if (name)
			sprintf(name, "%s [no symbol]", *module ? module : "[anonymous]");
	}
	if (!name)
		return -hse_nomem;
	id = hwt_stack_tree_intern(tree, name, hwt_frame_function);
	free(name);
	return id;
}

int hwt_stack_tree_add_flat(struct hwt_stack_tree *tree, struct hwt_stacks_symbols *symbols,
			    const char *root)
{
	const struct hwt_profile *profile = hwt_stacks_symbols_profile(symbols);
	int64_t root_name;
	uint32_t top;

	if (!tree || !symbols || !root)
		return -hse_invalid;
	root_name = hwt_stack_tree_intern(tree, root, hwt_frame_root);
	if (root_name < 0)
		return (int)root_name;
	top = hwt_stack_tree_child(tree, HWT_STACK_ROOT, (uint32_t)root_name);
	if (top == HWT_STACK_NONE)
		return -hse_nomem;
	for (size_t i = 0; i < hwt_profile_image_count(profile); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(profile, i);
		const struct hwt_profile_block *blocks;
		size_t n;

		if (img->flags & HWT_PROFILE_IMAGE_TRACE_UNIT ||
		    hwt_profile_blocks(profile, i, &blocks, &n) < 0)
			continue;
		for (size_t k = 0; k < n; k++) {
			int64_t name = frame_name(tree, symbols, i, blocks[k].begin);
			uint32_t node;

			if (name < 0)
				return (int)name;
			node = hwt_stack_tree_child(tree, top, (uint32_t)name);
			if (node == HWT_STACK_NONE)
				return -hse_nomem;
			hwt_stack_tree_add(tree, node, hwt_weight_insns,
					   blocks[k].count * blocks[k].insns);
		}
	}
	return 0;
}
