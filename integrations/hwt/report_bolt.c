/*
 * hwt report bolt: llvm-bolt's profile (fdata, read with -data=FILE) of one
 * binary of a traced run, with its exact branch, fall-through and call
 * counts (converters/bolt, docs/pgo.md "BOLT").
 *
 * Reads trace bundles (decoded here; imported perf.data bundles too) and
 * hwt profiles, adding them up.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "hwt_bolt.h"
#include "hwt_command.h"
#include "hwt_decode.h"

#define PREFIX "hwt report bolt"

struct options {
	struct hwt_command_options common; /* -o, -v, -q, -j, --decoder */
	const char *binary;       /* --binary FILE */
	const char **inputs;
	size_t ninputs;
};

static void usage(FILE *out)
{
	fputs("usage: hwt report bolt [options] INPUT... -o PROG.fdata [--binary PROG]\n"
	      "\n"
	      "Writes the profile llvm-bolt reads (llvm-bolt PROG -data=PROG.fdata ...) of\n"
	      "one executable or library of a traced run: the exact count of every taken\n"
	      "branch, fall-through and call in its functions, named as BOLT names them.\n"
	      "INPUT is a trace bundle (of any trace unit, or imported from perf.data) or\n"
	      "an hwt profile; several are added up. Link PROG with -Wl,--emit-relocs for\n"
	      "BOLT to reorder it. docs/pgo.md has the flow.\n"
	      "\n"
	      "options:\n"
	      "  -o OUT          the file to write ('-': standard output)\n"
	      "  --binary FILE   the image to write (matched by path, else by name; its\n"
	      "                  build-id is checked) [the program that ran most]\n"
	      "  -v, --verbose   figures of what was written\n"
	      "  -q, --quiet     do not print the bundle's warnings\n"
	      "  -j, --jobs N    " HWT_JOBS_HELP "\n"
	      HWT_DECODER_HELP
	      HWT_TRACE_SOURCE_HELP
	      "  -h, --help      this text\n"
	      "\n"
	      "Exit status: 0 written, 1 written but an input had warnings (partial trace),\n"
	      "2 nothing written.\n",
	      out);
}

/* -1 (exit 2), 0, or 1 (help shown). */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "binary", required_argument, NULL, 'B' },
		HWT_OPTION_VERBOSE,
		HWT_OPTION_QUIET,
		HWT_OPTION_JOBS,
		HWT_OPTION_DECODER,
		HWT_OPTION_TRACE_SOURCE,
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	int opt, status;

	o->inputs = calloc((size_t)argc + 1, sizeof(*o->inputs));
	if (!o->inputs) {
		fprintf(stderr, PREFIX ": out of memory\n");
		return -1;
	}
	optind = 0; /* a fresh start (hwt-pgo runs several commands) */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:vqj:h", long_options, NULL)) != -1) {
		if (opt == 'B') {
			if (o->binary) {
				fprintf(stderr, PREFIX ": one --binary at a time\n");
				return -1;
			}
			o->binary = optarg;
			continue;
		}
		status = hwt_command_other_option(&o->common, opt, optarg, argv, usage, PREFIX);
		if (status >= 0)
			return status ? -1 : 1;
	}
	while (optind < argc)
		o->inputs[o->ninputs++] = argv[optind++];
	if (!o->ninputs || !o->common.output) {
		hwt_command_usage_error(usage, PREFIX, "%s",
					!o->ninputs ? "no input (a trace bundle or an hwt profile)"
						    : "no output file (-o OUT)");
		return -1;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int special_image(const struct hwt_profile_image *img)
{
	return (img->flags & (HWT_PROFILE_IMAGE_TRACE_UNIT | HWT_PROFILE_IMAGE_VDSO |
			      HWT_PROFILE_IMAGE_MISSING | HWT_PROFILE_IMAGE_REPLACED)) != 0;
}

/* Instructions executed in an image (sum of block count * insns). */
static uint64_t image_weight(const struct hwt_profile *profile, size_t image)
{
	const struct hwt_profile_block *blocks = NULL;
	size_t n = 0, i;
	uint64_t w = 0;

	if (hwt_profile_blocks(profile, image, &blocks, &n) < 0)
		return 0;
	for (i = 0; i < n; i++)
		w += blocks[i].count * blocks[i].insns;
	return w;
}

/*
 * The image to write: the one --binary names (by real path, else by file
 * name), else the program (not a library) that ran most; SIZE_MAX when none.
 */
static size_t pick_image(const struct options *o, const struct hwt_profile *profile)
{
	char want[PATH_MAX], have[PATH_MAX];
	size_t i, best = SIZE_MAX, by_name = SIZE_MAX;
	uint64_t best_weight = 0;
	int resolved = o->binary && realpath(o->binary, want);

	for (i = 0; i < hwt_profile_image_count(profile); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(profile, i);
		uint64_t w;

		if (special_image(img))
			continue;
		if (o->binary) {
			if (resolved && realpath(img->path, have) && !strcmp(want, have))
				return i;
			if (by_name == SIZE_MAX && !strcmp(base_name(o->binary), base_name(img->path)))
				by_name = i;
			continue;
		}
		w = image_weight(profile, i);
		if (w > best_weight && hwt_bolt_is_program(img->path)) {
			best = i;
			best_weight = w;
		}
	}
	return o->binary ? by_name : best;
}

int hwt_report_bolt_main(int argc, char **argv)
{
	struct options o = { 0 };
	struct hwt_profile *profile = NULL;
	struct hwt_bolt_stats st;
	const struct hwt_profile_image *img;
	size_t image;
	int status = HWT_EXIT_ERROR, warned, rc, perr = 0, to_stdout;
	FILE *f;

	rc = parse(argc, argv, &o);
	if (rc != 0) {
		status = rc > 0 ? HWT_EXIT_OK : HWT_EXIT_USAGE;
		goto out;
	}
	/* Before a decode that may be long: the output can be written. */
	if (hwt_command_check_output(o.common.output, PREFIX) < 0)
		goto out;
	profile = hwt_profile_alloc();
	if (!profile) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	warned = hwt_command_load_inputs(o.inputs, o.ninputs, profile, &o.common, PREFIX);
	if (warned < 0)
		goto out;
	image = pick_image(&o, profile);
	if (image == SIZE_MAX) {
		if (o.binary)
			fprintf(stderr, PREFIX ": error: %s did not run in the trace\n", o.binary);
		else
			fprintf(stderr, PREFIX ": error: no program ran in the trace (a library: "
				"--binary)\n");
		goto out;
	}
	img = hwt_profile_image_at(profile, image);
	if (!o.common.quiet && !o.binary)
		fprintf(stderr, PREFIX ": writing %s\n", img->path);
	to_stdout = !strcmp(o.common.output, "-");
	f = to_stdout ? stdout : fopen(o.common.output, "w");
	if (!f) {
		fprintf(stderr, PREFIX ": error: %s: %s\n", o.common.output, strerror(errno));
		goto out;
	}
	rc = hwt_bolt_write_fdata(profile, image, o.binary, f, &st, &perr);
	if (!to_stdout && fclose(f) != 0 && rc == 0)
		rc = -hboe_io;
	if (rc < 0) {
		const char *what = rc == -hboe_io ? o.common.output : o.binary ? o.binary : img->path;

		if (rc == -hboe_profile && perr == -hpe_mismatch)
			fprintf(stderr, PREFIX ": error: %s is not the binary that was traced "
				"(another build-id)\n", what);
		else
			fprintf(stderr, PREFIX ": error: %s: %s\n", what,
				rc == -hboe_profile ? hwt_profile_errstr(perr) : hwt_bolt_errstr(rc));
		if (!to_stdout)
			unlink(o.common.output);
		goto out;
	}
	if (o.common.verbose)
		fprintf(stderr,
			PREFIX ": %s: %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64
			" %s (%" PRIu64 " %s in all); %" PRIu64 " %s from or to code outside its "
			"functions left out\n",
			img->path, st.functions, hwt_noun(st.functions, "function", "functions"),
			st.branches, hwt_noun(st.branches, "branch", "branches"), st.fall_throughs,
			hwt_noun(st.fall_throughs, "fall-through", "fall-throughs"), st.calls,
			hwt_noun(st.calls, "call", "calls"), st.count,
			hwt_noun(st.count, "transfer", "transfers"), st.outside,
			hwt_noun(st.outside, "transfer", "transfers"));
	if (!st.functions)
		fprintf(stderr, PREFIX ": warning: %s: no branch of its functions ran: the "
			"profile is empty\n", img->path);
	status = warned ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
out:
	hwt_profile_free(profile);
	free(o.inputs);
	return status;
}
