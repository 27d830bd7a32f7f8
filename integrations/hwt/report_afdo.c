/*
 * hwt report afdo:      an LLVM sample profile (text, or binary and
 *                       extbinary through llvm-profdata merge --sample);
 * hwt report afdo-text: create_llvm_prof's --profiler=text input.
 *
 * Both read trace bundles (decoded here) and hwt profiles, adding them up.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "hwt_afdo.h"
#include "hwt_command.h"
#include "hwt_decode.h"

struct options {
	const char *prefix;       /* "hwt report afdo" */
	struct hwt_command_options common; /* -o, -v, -q, -j */
	const char *format;       /* text, binary, extbinary */
	const char *profdata;     /* llvm-profdata to run, or NULL */
	const char **binaries;    /* --binary FILE... */
	size_t nbinaries;
	const char **inputs;
	size_t ninputs;
};

static void afdo_usage(FILE *out)
{
	fputs("usage: hwt report afdo [options] INPUT... -o OUT\n"
	      "\n"
	      "Writes an LLVM sample profile (clang -fprofile-sample-use=OUT) from the\n"
	      "exact execution counts of a traced run. INPUT is a trace bundle or an hwt\n"
	      "profile ('hwt report profile'); several inputs are added up. Every image\n"
	      "of the run with DWARF line tables contributes (build with -g, best with\n"
	      "-fdebug-info-for-profiling). docs/pgo.md has the flow and the counting\n"
	      "convention.\n"
	      "\n"
	      "options:\n"
	      "  -o OUT              the profile to write, required ('-': standard output, text only)\n"
	      "  --format FMT        text (default), extbinary or binary; the binary forms\n"
	      "                      are written by 'llvm-profdata merge --sample'\n"
	      "  --binary FILE       only the image that FILE is (matched by path or name,\n"
	      "                      build-id checked), read from FILE; repeatable\n"
	      "  --llvm-profdata P   the llvm-profdata to run [$HWT_LLVM_PROFDATA, else\n"
	      "                      llvm-profdata-19, else llvm-profdata]\n"
	      "  -v, --verbose       figures per image, and images left out\n"
	      "  --debug-dir DIR     where separate debug files are: gdb's\n"
	      "                      debug-file-directory, DIR/.build-id/ and DIR/ + the\n"
	      "                      image's directory for its .gnu_debuglink (repeatable;\n"
	      "                      replaces /usr/lib/debug: give it too to keep it)\n"
	      "  -q, --quiet         do not print the bundle's warnings\n"
	      "  -j, --jobs N        " HWT_JOBS_HELP "\n"
	      HWT_DECODER_HELP
	      HWT_TRACE_SOURCE_HELP
	      "  -h, --help          this text\n"
	      "\n"
	      "Exit status: 0 written, 1 written but an input had warnings (partial\n"
	      "trace), 2 nothing written.\n",
	      out);
}

static void text_usage(FILE *out)
{
	fputs("usage: hwt report afdo-text [options] INPUT... -o OUT\n"
	      "\n"
	      "Writes AutoFDO's intermediate text form (ranges, addresses, branches) of one\n"
	      "executable or library of a traced run, for Debian's autofdo package:\n"
	      "  create_llvm_prof --profiler=text --profile=OUT --binary=PROG --out=P.afdo\n"
	      "(create_llvm_prof 0.19 reads DWARF 4 only: build PROG with -gdwarf-4).\n"
	      "INPUT is a trace bundle or an hwt profile; several are added up.\n"
	      "\n"
	      "options:\n"
	      "  -o OUT          the file to write, required ('-': standard output)\n"
	      "  --binary FILE   the image to write (matched by path or name, build-id\n"
	      "                  checked) [the image with debug info that ran most]\n"
	      "  --debug-dir DIR  where separate debug files are, as for hwt report afdo\n"
	      "  -q, --quiet     do not print the bundle's warnings\n"
	      "  -j, --jobs N    " HWT_JOBS_HELP "\n"
	      HWT_DECODER_HELP
	      HWT_TRACE_SOURCE_HELP
	      "  -h, --help      this text\n"
	      "\n"
	      "Exit status: 0 written, 1 written but an input had warnings, 2 nothing written.\n",
	      out);
}

/* Parses the options both commands share; returns -1 (exit 2), 0, or 1 (help shown). */
static int parse(int argc, char **argv, struct options *o, int text)
{
	/* afdo-text: without the last two. */
	static const struct option afdo_options[] = {
		HWT_OPTION_OUTPUT,
		{ "binary", required_argument, NULL, 'B' },
		HWT_OPTION_VERBOSE,
		HWT_OPTION_QUIET,
		HWT_OPTION_JOBS,
		HWT_OPTION_DECODER,
		HWT_OPTION_TRACE_SOURCE,
		HWT_OPTION_DEBUG_DIR,
		HWT_OPTION_HELP,
		{ "format", required_argument, NULL, 'F' },
		{ "llvm-profdata", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct option text_options[sizeof(afdo_options) / sizeof(afdo_options[0]) - 2];
	int opt, status;

	o->binaries = calloc((size_t)argc + 1, sizeof(*o->binaries));
	o->inputs = calloc((size_t)argc + 1, sizeof(*o->inputs));
	if (!o->binaries || !o->inputs) {
		fprintf(stderr, "%s: out of memory\n", o->prefix);
		return -1;
	}
	memcpy(text_options, afdo_options, sizeof(text_options));
	text_options[sizeof(text_options) / sizeof(text_options[0]) - 1] =
		(struct option){ NULL, 0, NULL, 0 };
	/* Options and inputs in any order. */
	optind = 0; /* glibc: a fresh start (hwt-pgo runs several), with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:vqj:h", text ? text_options : afdo_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'B': o->binaries[o->nbinaries++] = optarg; break;
		case 'F': o->format = optarg; break;
		case 'P': o->profdata = optarg; break;
		default:
			/* 0 after -h, 2 on an error: parse's 1 and -1. */
			status = hwt_command_other_option(&o->common, opt, optarg, argv,
							  text ? text_usage : afdo_usage, o->prefix);
			if (status >= 0)
				return status ? -1 : 1;
		}
	}
	while (optind < argc)
		o->inputs[o->ninputs++] = argv[optind++];
	if (!o->ninputs || !o->common.output) {
		hwt_command_usage_error(text ? text_usage : afdo_usage, o->prefix, "%s",
					!o->ninputs ? "no input (a trace bundle or an hwt profile)"
						    : "no output file (-o OUT)");
		return -1;
	}
	if (!o->format)
		o->format = "text";
	if (strcmp(o->format, "text") && strcmp(o->format, "binary") &&
	    strcmp(o->format, "extbinary")) {
		fprintf(stderr, "%s: --format must be text, binary or extbinary, not '%s'\n",
			o->prefix, o->format);
		return -1;
	}
	if (strcmp(o->format, "text") && !strcmp(o->common.output, "-")) {
		fprintf(stderr, "%s: the %s format cannot go to standard output\n", o->prefix,
			o->format);
		return -1;
	}
	if (text && o->nbinaries > 1) {
		fprintf(stderr, "%s: one --binary at a time\n", o->prefix);
		return -1;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The --binary that names image (by real path, else by file name), or NULL. */
static const char *binary_for(const struct options *o, const struct hwt_profile_image *img)
{
	char a[PATH_MAX], b[PATH_MAX];
	size_t i;

	for (i = 0; i < o->nbinaries; i++) {
		if (realpath(o->binaries[i], a) && realpath(img->path, b) && !strcmp(a, b))
			return o->binaries[i];
	}
	for (i = 0; i < o->nbinaries; i++)
		if (!strcmp(base_name(o->binaries[i]), base_name(img->path)))
			return o->binaries[i];
	return NULL;
}

static int special_image(const struct hwt_profile_image *img)
{
	return (img->flags & (HWT_PROFILE_IMAGE_TRACE_UNIT | HWT_PROFILE_IMAGE_VDSO |
			      HWT_PROFILE_IMAGE_MISSING | HWT_PROFILE_IMAGE_REPLACED)) != 0;
}

static void print_error(const char *prefix, const char *file, int rc, int perr)
{
	if (rc == -hae_profile)
		fprintf(stderr, "%s: warning: %s: %s%s%s\n", prefix, file, hwt_profile_errstr(perr),
			perr == -hpe_io ? ": " : "", perr == -hpe_io ? strerror(errno) : "");
	else
		fprintf(stderr, "%s: warning: %s: %s%s%s\n", prefix, file, hwt_afdo_errstr(rc),
			rc == -hae_io ? ": " : "", rc == -hae_io ? strerror(errno) : "");
}

/* Runs llvm-profdata merge --sample --FORMAT in -o out; 0 or -1 (message printed). */
static int run_profdata(const struct options *o, const char *in, const char *out)
{
	const char *env = getenv("HWT_LLVM_PROFDATA");
	const char *candidates[3];
	char fmt[32];
	size_t n = 0, i;

	if (o->profdata)
		candidates[n++] = o->profdata;
	else if (env && *env)
		candidates[n++] = env;
	else {
		candidates[n++] = "llvm-profdata-19";
		candidates[n++] = "llvm-profdata";
	}
	snprintf(fmt, sizeof(fmt), "--%s", o->format);
	for (i = 0; i < n; i++) {
		char *argv[] = { (char *)candidates[i], "merge", "--sample", fmt, (char *)in,
				 "-o", (char *)out, NULL };
		int status = 0, err = hwt_command_run(argv, 0, &status);

		if (err == ENOENT)
			continue;
		if (err) {
			fprintf(stderr, "%s: error: cannot run %s\n", o->prefix, argv[0]);
			return -1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "%s: error: %s merge --sample %s failed\n", o->prefix,
				argv[0], fmt);
			return -1;
		}
		return 0;
	}
	fprintf(stderr,
		"%s: error: no llvm-profdata found (install llvm-19, or give --llvm-profdata "
		"or $HWT_LLVM_PROFDATA); the text format needs none\n",
		o->prefix);
	return -1;
}

static int write_samples(const struct options *o, const struct hwt_afdo_samples *samples)
{
	char tmp[PATH_MAX];
	FILE *f;
	int rc, fd;

	if (!strcmp(o->format, "text")) {
		f = strcmp(o->common.output, "-") ? fopen(o->common.output, "w") : stdout;
		if (!f) {
			fprintf(stderr, "%s: error: %s: %s\n", o->prefix, o->common.output, strerror(errno));
			return -1;
		}
		rc = hwt_afdo_samples_write_text(samples, f);
		if (f != stdout && fclose(f) != 0)
			rc = -hae_io;
		if (rc < 0) {
			fprintf(stderr, "%s: error: %s: %s\n", o->prefix, o->common.output,
				hwt_afdo_errstr(rc));
			return -1;
		}
		return 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.text.XXXXXX", o->common.output) >= (int)sizeof(tmp)) {
		fprintf(stderr, "%s: error: %s: path too long\n", o->prefix, o->common.output);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "%s: error: cannot make a temporary file beside %s: %s\n", o->prefix,
			o->common.output, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	rc = hwt_afdo_samples_write_text(samples, f);
	if (fclose(f) != 0)
		rc = -hae_io;
	if (rc < 0) {
		fprintf(stderr, "%s: error: %s: %s\n", o->prefix, tmp, hwt_afdo_errstr(rc));
		unlink(tmp);
		return -1;
	}
	rc = run_profdata(o, tmp, o->common.output);
	unlink(tmp);
	return rc;
}

/*
 * The start both commands share: the options, then every input added up
 * into *profile (the caller frees it). Returns the number of inputs that had
 * warnings, or -1 (exit status 2, said why), or -2 (help shown: exit 0).
 */
static int read_inputs(int argc, char **argv, struct options *o, int text,
		       struct hwt_profile **profile)
{
	int rc = parse(argc, argv, o, text);

	if (rc != 0)
		return rc > 0 ? -2 : -1;
	*profile = hwt_profile_alloc();
	if (!*profile) {
		fprintf(stderr, "%s: out of memory\n", o->prefix);
		return -1;
	}
	return hwt_command_load_inputs(o->inputs, o->ninputs, *profile, &o->common, o->prefix);
}

int hwt_report_afdo_main(int argc, char **argv)
{
	struct options o = { .prefix = "hwt report afdo" };
	struct hwt_profile *profile = NULL;
	struct hwt_afdo_samples *samples = NULL;
	size_t i, used = 0, nodebug = 0;
	int status = HWT_EXIT_ERROR, warned, rc;

	warned = read_inputs(argc, argv, &o, 0, &profile);
	if (warned < 0) {
		status = warned == -2 ? 0 : 2;
		goto out;
	}
	samples = hwt_afdo_samples_alloc();
	if (!samples) {
		fprintf(stderr, "%s: out of memory\n", o.prefix);
		goto out;
	}
	for (i = 0; i < hwt_profile_image_count(profile); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(profile, i);
		const char *file = o.nbinaries ? binary_for(&o, img) : NULL;
		struct hwt_afdo_image_stats st;
		struct hwt_afdo_debug *debug;
		int perr = 0;

		if (special_image(img) || (o.nbinaries && !file))
			continue;
		debug = hwt_afdo_debug_alloc();
		if (!debug) {
			fprintf(stderr, "%s: out of memory\n", o.prefix);
			goto out;
		}
		rc = hwt_afdo_debug_load_dirs(debug, file ? file : img->path,
					      o.common.debug_dirs);
		if (hwt_afdo_debug_crc_mismatch(debug))
			fprintf(stderr,
				"%s: warning: %s: its debug link names %s, whose CRC32 is not the "
				"link's (another build's debug information): not used\n",
				o.prefix, file ? file : img->path, hwt_afdo_debug_crc_mismatch(debug));
		if (rc == 0)
			rc = hwt_afdo_samples_add_image(samples, profile, i, debug, file, &st, &perr);
		hwt_afdo_debug_free(debug);
		if (rc == -hae_nomem) {
			fprintf(stderr, "%s: out of memory\n", o.prefix);
			goto out;
		}
		if (rc == -hae_no_debug && !file) {
			nodebug++;
			if (o.common.verbose)
				fprintf(stderr, "%s: %s: no DWARF, left out\n", o.prefix, img->path);
			continue;
		}
		if (rc < 0) {
			print_error(o.prefix, file ? file : img->path, rc, perr);
			warned++;
			continue;
		}
		used++;
		if (o.common.verbose)
			fprintf(stderr,
				"%s: %s: %" PRIu64 " instructions executed at %" PRIu64
				" addresses, %" PRIu64 " without a source line, %" PRIu64
				" calls named\n",
				o.prefix, img->path, st.executed, st.insns, st.unattributed, st.calls);
	}
	if (!used || !hwt_afdo_samples_function_count(samples)) {
		fprintf(stderr,
			"%s: error: no samples: %s (%zu image%s without DWARF left out; build with "
			"-g)\n",
			o.prefix,
			used ? "no executed code has a source line"
			: warned ? "no image could be read (see the warnings above)"
				 : "no image has DWARF",
			nodebug, nodebug == 1 ? "" : "s");
		goto out;
	}
	if (write_samples(&o, samples) < 0)
		goto out;
	if (o.common.verbose)
		fprintf(stderr, "%s: %zu %s, %" PRIu64 " %s, written to %s (%s)\n", o.prefix,
			hwt_afdo_samples_function_count(samples),
			hwt_noun(hwt_afdo_samples_function_count(samples), "function", "functions"),
			hwt_afdo_samples_total(samples),
			hwt_noun(hwt_afdo_samples_total(samples), "sample", "samples"), o.common.output,
			o.format);
	status = warned ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
out:
	hwt_afdo_samples_free(samples);
	hwt_profile_free(profile);
	free(o.binaries);
	free(o.inputs);
	return status;
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

int hwt_report_afdo_text_main(int argc, char **argv)
{
	struct options o = { .prefix = "hwt report afdo-text" };
	struct hwt_profile *profile = NULL;
	const char *file = NULL;
	size_t i, best = SIZE_MAX;
	uint64_t best_weight = 0;
	int status = HWT_EXIT_ERROR, warned, rc, perr = 0;
	FILE *f;

	warned = read_inputs(argc, argv, &o, 1, &profile);
	if (warned < 0) {
		status = warned == -2 ? 0 : 2;
		goto out;
	}
	for (i = 0; i < hwt_profile_image_count(profile); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(profile, i);
		const char *bin = o.nbinaries ? binary_for(&o, img) : NULL;
		uint64_t w;

		if (special_image(img) || (o.nbinaries && !bin))
			continue;
		w = image_weight(profile, i);
		if (!o.nbinaries) {
			struct hwt_afdo_debug *debug = hwt_afdo_debug_alloc();

			if (w <= best_weight || !debug ||
			    hwt_afdo_debug_load_dirs(debug, img->path, o.common.debug_dirs) < 0) {
				hwt_afdo_debug_free(debug);
				continue;
			}
			hwt_afdo_debug_free(debug);
		} else if (best != SIZE_MAX && w <= best_weight) {
			continue;
		}
		best = i;
		best_weight = w;
		file = bin;
	}
	if (best == SIZE_MAX) {
		if (o.nbinaries)
			fprintf(stderr, "%s: error: %s did not run in the trace\n", o.prefix,
				o.binaries[0]);
		else
			fprintf(stderr, "%s: error: no image with DWARF ran in the trace\n",
				o.prefix);
		goto out;
	}
	if (!o.common.quiet && !o.nbinaries)
		fprintf(stderr, "%s: writing %s\n", o.prefix,
			hwt_profile_image_at(profile, best)->path);
	f = strcmp(o.common.output, "-") ? fopen(o.common.output, "w") : stdout;
	if (!f) {
		fprintf(stderr, "%s: error: %s: %s\n", o.prefix, o.common.output, strerror(errno));
		goto out;
	}
	rc = hwt_afdo_write_autofdo_text(profile, best, file, f, &perr);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = -hae_io;
	if (rc < 0) {
		if (rc == -hae_profile)
			fprintf(stderr, "%s: error: %s: %s\n", o.prefix,
				file ? file : hwt_profile_image_at(profile, best)->path,
				hwt_profile_errstr(perr));
		else
			fprintf(stderr, "%s: error: %s: %s\n", o.prefix, o.common.output,
				hwt_afdo_errstr(rc));
		if (f != stdout)
			unlink(o.common.output);
		goto out;
	}
	status = warned ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
out:
	hwt_profile_free(profile);
	free(o.binaries);
	free(o.inputs);
	return status;
}
