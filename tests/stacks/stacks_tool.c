/*
 * A test driver for the stacks library and the decoder's control flow:
 *
 *   stacks_tool flow BUNDLE            every step and event of every stream
 *   stacks_tool stacks BUNDLE [opts]   folded stacks of the stack builder
 *   stacks_tool symbolize -            lines "PATH VADDR" (hex ELF virtual address) in,
 *                                      "PATH+0xENTRY" (file offset of the function's
 *                                      entry) or "-" (no symbol) out
 *
 * options: --weight insns|calls|time, --callgrind, --inline, --merge,
 * -j N, --max-depth N, --stats. Exit status 0, or 2 on a failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_decode.h"
#include "hwt_flow.h"
#include "elf_file.h"
#include "hwt_stacks.h"

struct dump {
	const struct hwt_flow_stream *info;
};

static void *dump_begin(void *consumer, const struct hwt_flow_stream *info)
{
	static struct dump d;

	(void)consumer;
	d.info = info;
	printf("stream %s command %s\n", info->stream->name, info->command);
	return &d;
}

static void dump_steps(void *context, const struct hwt_flow_step *steps, size_t n)
{
	(void)context;
	for (size_t i = 0; i < n; i++) {
		const struct hwt_flow_block *b = steps[i].block;

		printf("step %s 0x%" PRIx64 "-0x%" PRIx64 " image %d +0x%" PRIx64 " insns %" PRIu32
		       " flags %" PRIu32 " exit %" PRIu32 "\n",
		       hwt_flow_kind_name((enum hwt_flow_kind)steps[i].kind), b->vaddr, b->vend,
		       b->image, b->offset, b->insns, b->flags, b->exit);
	}
}

static void dump_event(void *context, const struct hwt_flow_event *e)
{
	(void)context;
	printf("event %s ip 0x%" PRIx64 " flags %" PRIu32 " offset 0x%" PRIx64 " bytes %" PRIu64
	       " time %" PRIu64 "\n",
	       hwt_flow_event_name((enum hwt_flow_event_type)e->type), e->ip, e->flags, e->offset,
	       e->bytes, e->time);
}

static int dump_end(void *context)
{
	(void)context;
	printf("end\n");
	return 0;
}

static const struct hwt_flow_consumer dumper = { dump_begin, dump_steps, dump_event, dump_end,
						 NULL, 0 };

/* The file offset of an ELF virtual address, or -1. */
static int64_t file_offset(const struct hwt_elf_file *elf, uint64_t vaddr)
{
	for (size_t i = 0; i < elf->load_count; i++) {
		const struct hwt_elf_load *l = &elf->loads[i];

		if (vaddr >= l->vaddr && vaddr < l->vaddr + l->filesz)
			return (int64_t)(vaddr - l->vaddr + l->offset);
	}
	return -1;
}

static int symbolize(void)
{
	struct hwt_profile *profile = hwt_profile_alloc();
	struct hwt_stacks_symbols *symbols = profile ? hwt_stacks_symbols_alloc(profile, ".", 0) : NULL;
	char path[4096];
	unsigned long long vaddr;

	if (!symbols)
		return 2;
	while (scanf("%4095s %llx", path, &vaddr) == 2) {
		struct hwt_elf_file elf;
		struct hwt_function_info fn;
		int image;
		int64_t off;

		if (hwt_elf_file_open(&elf, path) < 0) {
			printf("-\n");
			continue;
		}
		image = hwt_profile_image_add(profile, path, elf.build_id, elf.build_id_size, 0);
		off = file_offset(&elf, vaddr);
		hwt_elf_file_close(&elf);
		if (image < 0 || off < 0)
			printf("-\n");
		else if (!hwt_stacks_symbols_function(symbols, image, (uint64_t)off, &fn))
			printf("- %s+0x%" PRIx64 "\n", path, (uint64_t)off);
		else
			printf("%s+0x%" PRIx64 "\n", path, fn.entry);
		fflush(stdout);
	}
	hwt_stacks_symbols_free(symbols);
	hwt_profile_free(profile);
	return 0;
}

int main(int argc, char **argv)
{
	struct hwt_decode_options options = { 0 };
	struct hwt_stacks_options so = { 0 };
	const char *mode, *dir, *out = NULL;
	int weight = hwt_weight_insns, stats = 0, status;
	size_t max_depth = 0;
	struct hwt_profile *profile;
	struct hwt_stack_tree *tree = NULL;
	struct hwt_stacks_symbols *symbols = NULL;
	struct hwt_stacks *stacks = NULL;
	FILE *f = stdout;

	if (argc < 3) {
		fprintf(stderr, "usage: stacks_tool flow|stacks BUNDLE [options]\n");
		return 2;
	}
	mode = argv[1];
	dir = argv[2];
	if (!strcmp(mode, "symbolize"))
		return symbolize();
	so.pid = so.tid = -1;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--weight") && i + 1 < argc)
			weight = hwt_stacks_weight_parse(argv[++i]);
		else if (!strcmp(argv[i], "--callgrind"))
			so.flags |= HWT_STACKS_CALLGRIND;
		else if (!strcmp(argv[i], "--inline"))
			so.flags |= HWT_STACKS_INLINE;
		else if (!strcmp(argv[i], "--addresses"))
			so.flags |= HWT_STACKS_ADDRESSES;
		else if (!strcmp(argv[i], "--signal-roots"))
			so.flags |= HWT_STACKS_SIGNAL_ROOTS;
		else if (!strcmp(argv[i], "--blocks"))
			so.flags |= HWT_STACKS_BLOCKS;
		else if (!strcmp(argv[i], "--merge"))
			so.flags |= HWT_STACKS_MERGE;
		else if (!strcmp(argv[i], "-j") && i + 1 < argc)
			options.jobs = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--max-depth") && i + 1 < argc)
			max_depth = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--stats"))
			stats = 1;
		else {
			fprintf(stderr, "stacks_tool: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (weight < 0)
		return 2;
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 2;
	}
	profile = hwt_profile_alloc();
	if (!profile)
		return 2;
	if (!strcmp(mode, "flow")) {
		options.flow = &dumper;
		options.jobs = 1;
	} else {
		tree = hwt_stack_tree_alloc();
		symbols = hwt_stacks_symbols_alloc(profile, dir,
						   so.flags & HWT_STACKS_INLINE ? HWT_SYMBOLS_INLINE : 0);
		stacks = tree && symbols ? hwt_stacks_alloc(symbols, tree, &so) : NULL;
		if (!stacks)
			return 2;
		options.flow = hwt_stacks_consumer(stacks);
	}
	{
		struct hwt_bundle *bundle = hwt_bundle_alloc();

		status = bundle ? hwt_bundle_open(bundle, dir) : -hbe_nomem;
		if (status >= 0)
			status = hwt_decode(bundle, profile, &options);
		hwt_bundle_free(bundle);
	}
	if (status < 0) {
		fprintf(stderr, "stacks_tool: decode failed: %d\n", status);
		return 2;
	}
	if (stacks) {
		struct hwt_stacks_stats st;

		hwt_stacks_get_stats(stacks, &st);
		if (stats)
			fprintf(stderr,
				"streams %" PRIu64 " steps %" PRIu64 " insns %" PRIu64 " calls %" PRIu64
				" returns %" PRIu64 " unmatched %" PRIu64 " tail %" PRIu64
				" unwinds %" PRIu64 " signals %" PRIu64 " sigreturns %" PRIu64
				" gaps %" PRIu64 " depth %" PRIu64 "\n",
				st.streams, st.steps, st.insns, st.calls, st.returns,
				st.unmatched_returns, st.tail_calls, st.unwinds, st.signals,
				st.sigreturns, st.gaps, st.max_depth);
		if (hwt_stack_tree_write_folded(tree, (enum hwt_stacks_weight)weight, max_depth, f,
						NULL) < 0 ||
		    hwt_stacks_status(stacks) < 0)
			status = -1;
		hwt_stacks_free(stacks);
		hwt_stacks_symbols_free(symbols);
		hwt_stack_tree_free(tree);
	}
	hwt_profile_free(profile);
	if (f != stdout)
		fclose(f);
	return status < 0 ? 2 : 0;
}
