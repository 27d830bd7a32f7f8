/*
 * Flame graphs and call timelines from a trace: `hwt report flame|folded|
 * speedscope|chrome [options] BUNDLE` and `hwt flame [options] -- CMD`
 * (record, then the same report; the flame graph and folded stacks are
 * decoded while the command runs, as hwt-cov does). docs/flame.md has the
 * details.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "record.h"
#include "hwt_decode.h"
#include "hwt_spe_profile.h"
#include "hwt_stacks.h"

enum format { fmt_flame, fmt_folded, fmt_speedscope, fmt_chrome, fmt_count };

static const char *const format_names[fmt_count] = { "flame", "folded", "speedscope", "chrome" };

struct flame_options {
	enum format format;
	/* -o (NULL: standard output, "-" too), -j, -q; hwt flame: the unit's. */
	struct hwt_command_options common;
	enum hwt_stacks_weight weight;
	struct hwt_flame_options svg;
	struct hwt_stacks_options stacks;
	size_t max_depth;
	int max_depth_set;
	int stats;
	int progress;
	const char *diff_before;      /* --diff A B: A */
	/* Filled by build when the counts are SPE samples (what they are,
	   for the subtitle); left empty for an exact trace. */
	char *sampled;
};

enum {
	OPT_WEIGHT = 0x2000, OPT_TITLE, OPT_WIDTH, OPT_MIN_WIDTH, OPT_INVERTED, OPT_COLORS,
	OPT_INLINE, OPT_MERGE, OPT_PID, OPT_TID, OPT_MAX_DEPTH, OPT_DIFF, OPT_PROGRESS,
	OPT_STATS, OPT_FORMAT, OPT_KEEP, OPT_CALLGRIND, OPT_THREAD_ORDER,
};

#define COMMON_LONG_OPTIONS                                              \
	HWT_OPTION_OUTPUT,                                               \
	{ "weight", required_argument, NULL, OPT_WEIGHT },               \
	{ "title", required_argument, NULL, OPT_TITLE },                 \
	{ "width", required_argument, NULL, OPT_WIDTH },                 \
	{ "min-width", required_argument, NULL, OPT_MIN_WIDTH },         \
	{ "inverted", no_argument, NULL, OPT_INVERTED },                 \
	{ "colors", required_argument, NULL, OPT_COLORS },               \
	{ "inline", no_argument, NULL, OPT_INLINE },                     \
	{ "merge", no_argument, NULL, OPT_MERGE },                       \
	{ "thread-order", no_argument, NULL, OPT_THREAD_ORDER },         \
	{ "pid", required_argument, NULL, OPT_PID },                     \
	{ "tid", required_argument, NULL, OPT_TID },                     \
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },         \
	{ "callgrind", no_argument, NULL, OPT_CALLGRIND },               \
	{ "progress", no_argument, NULL, OPT_PROGRESS },                 \
	{ "stats", no_argument, NULL, OPT_STATS },                       \
	HWT_OPTION_QUIET,                                                \
	HWT_OPTION_JOBS,                                                 \
	HWT_OPTION_DEBUG_DIR,                                            \
	HWT_OPTION_HELP

#define COMMON_USAGE                                                                              \
	"      --weight W        insns (instructions, exact; the default), calls (times each\n"     \
	"                        frame was called) or time (trace time; traces with timing)\n"     \
	"      --inline          frames for inlined functions too (DWARF inline chains)\n"          \
	"      --merge           processes of the same command as one (no pid in the root)\n"       \
	"      --thread-order    roots by command and thread order (COMMAND, COMMAND#2, ...),\n"  \
	"                        not pid, as --diff matches them: folded stacks to diff later\n"  \
	"      --pid PID, --tid TID   only this process, or thread\n"                              \
	"      --max-depth N     folded and flame: cut stacks deeper than N frames into a\n"        \
	"                        [deeper] frame (default 2048; 0: never)\n"                         \
	"      --callgrind       callgrind's convention: a tail call nests a frame instead of\n"   \
	"                        replacing the caller's (to compare with callgrind)\n"              \
	"      --debug-dir DIR   where separate debug files are, as gdb's debug-file-directory:\n" \
	"                        DIR/.build-id/, and DIR/ + the image's directory for its\n"      \
	"                        .gnu_debuglink (repeatable; replaces /usr/lib/debug: give it\n"  \
	"                        too to keep it)\n"                                                \
	"flame graph (SVG) options:\n"                                                             \
	"      --title TEXT      the title [Flame Graph]\n"                                         \
	"      --width PIXELS    the width [1200]\n"                                                \
	"      --min-width PX    leave out frames narrower than this [0.1]\n"                       \
	"      --inverted        an icicle graph: roots at the top\n"                               \
	"      --colors SCHEME   hot (the default), mem, io, kind (functions, inlined frames,\n"    \
	"                        markers apart)\n"                                                  \
	"  -j, --jobs N          " HWT_JOBS_HELP "\n"                                         \
	"      --progress        show progress on stderr even when it is not a terminal\n"          \
	"      --stats           print what the stack builder saw on stderr\n"                      \
	"  -q, --quiet           do not print the bundle's warnings\n"                              \
	"  -h, --help            this text\n"

static void report_usage(FILE *out)
{
	fputs("usage: hwt report flame|folded|speedscope|chrome [options] BUNDLE\n"
		"       hwt report flame --diff BEFORE AFTER   (bundles or folded files)\n"
		"\n"
		"Exact call stacks of every thread of BUNDLE, from its branch trace, as:\n"
		"  flame       an interactive SVG flame graph (click to zoom, search)\n"
		"  folded      folded stacks (flamegraph.pl, inferno, speedscope read them)\n"
		"  speedscope  a speedscope file: a timeline of every call per thread\n"
		"  chrome      Chrome trace events (chrome://tracing, Perfetto)\n"
		"\n"
		"  -o, --output FILE     where to write ('-': standard output) [standard output]\n"
		"      --trace SOURCE    etm (the branch trace) or spe (Arm SPE samples: flat,\n"
		"                        below) [the branch trace when there is one]\n"
		COMMON_USAGE
		"\n"
		"--diff matches the stacks of the two runs by command and thread order (roots\n"
		"COMMAND for a command's first thread, COMMAND#2 for its second, ...), not by\n"
		"pid; with --merge, every process of a command is one root.\n"
		"\n"
		"--trace spe (the default for a bundle of Arm SPE samples and no branch\n"
		"trace; --trace etm the branch trace): SPE samples have no stacks, so flame\n"
		"and folded are flat (one frame per function under one root, weighed by the\n"
		"sampled instructions times the interval: estimates, --weight insns only);\n"
		"speedscope and chrome, timelines of calls, are not made from them.\n"
		"\n"
		"Exit status: 0 clean, 1 written but the bundle had warnings (a partial\n"
		"graph: gaps show as marked frames), 2 nothing was written or a bad option\n"
		"(docs/exit-status.md).\n",
		out);
}

static void flame_usage(FILE *out)
{
	fputs("usage: hwt flame [options] [--] COMMAND [ARGS...]\n"
	      "\n"
	      "Runs COMMAND (and everything it starts) under a branch trace, as hwt record\n"
	      "does, and writes a flame graph of its exact call stacks. Exits with\n"
	      "COMMAND's exit status when it fails (128+N when signal N killed it; 127 not\n"
	      "found, 126 not runnable), else 2 when nothing could be written, 1 a partial\n"
	      "graph, 0 (docs/exit-status.md).\n"
	      "\n"
	      "      --format F        flame (an SVG, the default), folded, speedscope, chrome\n"
	      "  -o, --output FILE     where to write ('-': standard output) [flame.svg,\n"
	      "                        flame.folded, flame.speedscope.json, flame.trace.json]\n"
	      "      --keep BUNDLE     keep the trace bundle in BUNDLE (must not exist)\n"
	      "  -v, --verbose         also say how many processes were decoded while COMMAND\n"
	      "                        ran (flame and folded: each process is decoded as it\n"
	      "                        ends, as hwt-cov does)\n"
	      COMMON_USAGE HWT_UNIT_USAGE
	      "Which processes are traced, as for `hwt record`:\n" HWT_UNIT_ROOT_USAGE HWT_UNIT_SELECT_USAGE,
	      out);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

/*
 * One common option (with the commands' shared ones: -o, -j, -q and, for
 * hwt flame, the unit's); 1 taken, 0 not one of them, -1 bad (message
 * printed).
 */
static int common_option(struct flame_options *o, int opt, const char *arg, const char *prefix)
{
	uint64_t v;
	char *end;
	int w;

	switch (opt) {
	case OPT_WEIGHT:
		w = hwt_stacks_weight_parse(arg);
		if (w < 0) {
			fprintf(stderr, "%s: --weight is insns, calls or time, not '%s'\n", prefix, arg);
			return -1;
		}
		o->weight = (enum hwt_stacks_weight)w;
		return 1;
	case OPT_TITLE:
		o->svg.title = arg;
		return 1;
	case OPT_WIDTH:
		if (parse_u64(arg, &v) < 0 || v < 100 || v > 100000) {
			fprintf(stderr, "%s: --width is 100 to 100000 pixels, not '%s'\n", prefix, arg);
			return -1;
		}
		o->svg.width = (unsigned)v;
		return 1;
	case OPT_MIN_WIDTH:
		errno = 0;
		o->svg.min_width = strtod(arg, &end);
		if (errno || *end || end == arg || o->svg.min_width < 0) {
			fprintf(stderr, "%s: --min-width is a number of pixels, not '%s'\n", prefix, arg);
			return -1;
		}
		return 1;
	case OPT_INVERTED:
		o->svg.inverted = 1;
		return 1;
	case OPT_COLORS:
		w = hwt_flame_colors_parse(arg);
		if (w < 0 || w == hwt_colors_diff) {
			fprintf(stderr, "%s: --colors is hot, mem, io or kind, not '%s'\n", prefix, arg);
			return -1;
		}
		o->svg.colors = (enum hwt_flame_colors)w;
		return 1;
	case OPT_INLINE:
		o->stacks.flags |= HWT_STACKS_INLINE;
		return 1;
	case OPT_MERGE:
		o->stacks.flags |= HWT_STACKS_MERGE;
		return 1;
	case OPT_THREAD_ORDER:
		o->stacks.flags |= HWT_STACKS_THREAD_ORDER;
		return 1;
	case OPT_CALLGRIND:
		o->stacks.flags |= HWT_STACKS_CALLGRIND;
		return 1;
	case OPT_PID:
	case OPT_TID:
		if (parse_u64(arg, &v) < 0 || v > INT32_MAX) {
			fprintf(stderr, "%s: bad %s '%s'\n", prefix, opt == OPT_PID ? "--pid" : "--tid",
				arg);
			return -1;
		}
		if (opt == OPT_PID)
			o->stacks.pid = (int64_t)v;
		else
			o->stacks.tid = (int64_t)v;
		return 1;
	case OPT_MAX_DEPTH:
		if (parse_u64(arg, &v) < 0) {
			fprintf(stderr, "%s: bad --max-depth '%s'\n", prefix, arg);
			return -1;
		}
		o->max_depth = (size_t)v;
		o->max_depth_set = 1;
		return 1;
	case OPT_PROGRESS:
		o->progress = 1;
		return 1;
	case OPT_STATS:
		o->stats = 1;
		return 1;
	default:
		return hwt_command_option(&o->common, opt, arg, prefix);
	}
}

static void options_init(struct flame_options *o)
{
	memset(o, 0, sizeof(*o));
	o->stacks.pid = o->stacks.tid = -1;
	o->svg.min_width = -1;
	o->max_depth = 2048;
}

/* An open output file (stdout for NULL or "-"); NULL with a message on error. */
static FILE *open_output(const char *path, const char *prefix)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: error: cannot write %s: %s\n", prefix, path, strerror(errno));
	return f;
}

static int close_output(FILE *f, const char *path, const char *prefix)
{
	int bad = ferror(f);

	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "%s: error: writing %s failed\n", prefix, path ? path : "standard output");
	return bad ? -1 : 0;
}

static void print_stats(const struct hwt_stacks *stacks, const char *prefix)
{
	struct hwt_stacks_stats st;

	hwt_stacks_get_stats(stacks, &st);
#define N(n, one, many) (n), hwt_noun((n), one, many)
	fprintf(stderr,
		"%s: %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s (%" PRIu64
		" to no frame), %" PRIu64 " %s, %" PRIu64 " %s (longjmp, exceptions), %" PRIu64
		" %s, %" PRIu64 " %s; deepest stack %" PRIu64 " %s\n",
		prefix, N(st.streams, "thread", "threads"), N(st.insns, "instruction", "instructions"),
		N(st.calls, "call", "calls"), N(st.returns, "return", "returns"),
		st.unmatched_returns, N(st.tail_calls, "tail call", "tail calls"),
		N(st.unwinds, "unwind", "unwinds"), N(st.signals, "signal", "signals"),
		N(st.gaps, "gap", "gaps"), N(st.max_depth, "frame", "frames"));
#undef N
}

/*
 * hwt flame's decode while recording: a stack builder of its own, whose
 * symbols are those of the thread's profile (its blocks name those
 * images). When the finish keeps the thread's work, the whole decode is in
 * it; else in build's own builder.
 */
struct flame_live {
	struct hwt_decode_live *live;  /* NULL: none */
	struct hwt_stacks_symbols *symbols;
	struct hwt_stack_tree *tree;
	struct hwt_stacks *stacks;
};

static void flame_live_free(struct flame_live *l)
{
	hwt_decode_live_free(l->live);
	hwt_stacks_free(l->stacks);
	hwt_stack_tree_free(l->tree);
	hwt_stacks_symbols_free(l->symbols);
	memset(l, 0, sizeof(*l));
}

/* Ready to start once the command runs; without memory, l->live is NULL. */
static void flame_live_alloc(struct flame_live *l, const char *dir, const struct flame_options *o)
{
	memset(l, 0, sizeof(*l));
	l->live = hwt_decode_live_alloc(dir);
	if (l->live)
		l->symbols = hwt_stacks_symbols_alloc(hwt_decode_live_profile(l->live), dir,
						      o->stacks.flags & HWT_STACKS_INLINE
							      ? HWT_SYMBOLS_INLINE
							      : 0);
	if (l->symbols)
		hwt_stacks_symbols_set_debug_dirs(l->symbols, o->common.debug_dirs);
	l->tree = hwt_stack_tree_alloc();
	if (l->symbols && l->tree)
		l->stacks = hwt_stacks_alloc(l->symbols, l->tree, &o->stacks);
	if (!l->stacks)
		flame_live_free(l);
}

/*
 * Decodes the bundle at dir into tree (and the timeline when given),
 * finishing live's decode when not NULL. Returns 0 clean, 1 with
 * warnings, 2 failed (message printed). *command (may be NULL) gets the
 * bundle's command line (malloc'd).
 */
/*
 * The flat tree of an open bundle's SPE samples (no stacks: a frame per
 * function); timeline: a timeline was asked for, which samples cannot give.
 * Status as build's.
 */
static int build_flat(struct hwt_bundle *bundle, struct hwt_profile *profile,
		      const struct flame_options *o, struct hwt_stack_tree *tree, int timeline,
		      const char *prefix)
{
	struct hwt_spe_profile_stats stats;
	struct hwt_stacks_symbols *symbols = NULL;
	const char *command = hwt_bundle_key(bundle, "command");
	char source[128], root[600];
	int s, status = 2;

	if (timeline || o->weight != hwt_weight_insns) {
		fprintf(stderr, "%s: error: %s: SPE samples have no calls and no order, only the "
			"operations sampled: flame and folded with --weight insns (flat) only\n",
			prefix, hwt_bundle_dir(bundle));
		return 2;
	}
	s = hwt_spe_profile(bundle, profile, 0, &stats);
	if (s < 0) {
		fprintf(stderr, "%s: error: %s: %s\n", prefix, hwt_bundle_dir(bundle),
			hwt_spe_profile_errstr(s));
		return 2;
	}
	hwt_command_spe_source(source, sizeof(source), &stats);
	symbols = hwt_stacks_symbols_alloc(profile, hwt_bundle_dir(bundle), 0);
	if (!symbols) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		return 2;
	}
	hwt_stacks_symbols_set_debug_dirs(symbols, o->common.debug_dirs);
	snprintf(root, sizeof(root), "%.480s [SPE samples]", command ? command : "");
	s = hwt_stack_tree_add_flat(tree, symbols, root);
	if (!o->common.quiet)
		hwt_command_print_diags(bundle, stderr, prefix);
	if (s < 0) {
		fprintf(stderr, "%s: error: %s\n", prefix, hwt_stacks_errstr(s));
	} else {
		fprintf(stderr, "%s: flat (no stacks): sampled counts from %s\n", prefix, source);
		if (o->sampled)
			snprintf(o->sampled, 128, "%s", source);
		status = hwt_bundle_warning_count(bundle) ? 1 : 0;
	}
	hwt_stacks_symbols_free(symbols);
	return status;
}

static int build(const char *dir, const struct flame_options *o, struct hwt_stack_tree *tree,
		 struct hwt_stacks_timeline *timeline, struct flame_live *live, char **command,
		 const char *prefix)
{
	struct hwt_decode_options dopt = { 0 };
	struct hwt_stacks_options so = o->stacks;
	struct hwt_profile *profile = hwt_profile_alloc();
	struct hwt_bundle *bundle = NULL;
	struct hwt_stacks_symbols *symbols = NULL;
	struct hwt_stacks *stacks = NULL, *result;
	struct hwt_stacks_symbols *result_symbols;
	struct hwt_progress progress;
	const char *clock;
	int status = 2, s;

	if (command)
		*command = NULL;
	if (!profile) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		goto out;
	}
	bundle = hwt_command_open_bundle(dir, stderr, prefix);
	if (!bundle)
		goto out;
	clock = hwt_bundle_key(bundle, "clock");
	if (o->weight == hwt_weight_time && (!clock || strcmp(clock, "tsc"))) {
		fprintf(stderr,
			"%s: error: %s has no timing (its clock is '%s', an order of events, not a "
			"time): --weight time needs a trace with time stamps (hardware)\n",
			prefix, dir, clock ? clock : "unknown");
		goto out;
	}
	if (command && hwt_bundle_key(bundle, "command"))
		*command = strdup(hwt_bundle_key(bundle, "command"));
	if ((o->common.trace_source && !strcmp(o->common.trace_source, "spe")) ||
	    (!o->common.trace_source && !hwt_bundle_stream_count(bundle) &&
	     hwt_bundle_spe_count(bundle))) {
		status = build_flat(bundle, profile, o, tree, timeline || live, prefix);
		goto out;
	}
	symbols = hwt_stacks_symbols_alloc(profile, dir,
					   so.flags & HWT_STACKS_INLINE ? HWT_SYMBOLS_INLINE : 0);
	if (symbols)
		hwt_stacks_symbols_set_debug_dirs(symbols, o->common.debug_dirs);
	so.timeline = timeline;
	stacks = symbols ? hwt_stacks_alloc(symbols, tree, &so) : NULL;
	if (!stacks) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		goto out;
	}
	result_symbols = symbols;
	result = stacks;
	hwt_progress_init(&progress, o->progress ? hwt_progress_always : hwt_progress_tty);
	dopt.progress = hwt_progress_print;
	dopt.progress_context = &progress;
	dopt.flow = hwt_stacks_consumer(stacks);
	/* A timeline is written in stream order: one stream at a time. */
	dopt.jobs = timeline ? 1 : o->common.jobs;
	hwt_command_decode_heap();
	if (live && live->live)
		s = hwt_decode_live_finish(live->live, bundle, profile, &dopt);
	else
		s = hwt_decode(bundle, profile, &dopt);
	hwt_progress_end(&progress);
	if (live && hwt_decode_live_kept(live->live)) {
		/* The whole decode went to the thread's builder (ours got nothing). */
		result_symbols = live->symbols;
		result = live->stacks;
	}
	/* Threads kept aside (--diff: roots by thread order) go in now. */
	if (s >= 0 && hwt_stacks_finish(result) < 0)
		s = -hbe_nomem;
	if (result != stacks && s >= 0 && hwt_stack_tree_merge(tree, live->tree) < 0)
		s = -hbe_nomem;
	if (hwt_stacks_symbols_failures(result_symbols))
		hwt_bundle_diag_add(bundle, hwt_diag_stream, NULL, -1,
				    "%zu %s for function names: their frames are named "
				    "module+0xoffset",
				    hwt_stacks_symbols_failures(result_symbols),
				    hwt_noun(hwt_stacks_symbols_failures(result_symbols),
					     "image could not be read", "images could not be read"));
	if (hwt_stacks_symbols_crc_mismatches(result_symbols))
		hwt_bundle_diag_add(bundle, hwt_diag_stream, NULL, -1,
				    "%zu separate debug files were not used: their CRC32 is not the "
				    "one their image's debug link records (another build's)",
				    hwt_stacks_symbols_crc_mismatches(result_symbols));
	if (!o->common.quiet) {
		hwt_command_print_diags(bundle, stderr, prefix);
		/* A bundle hwt-cov kept: its [untraced] frames are the filter's. */
		hwt_record_print_filter(bundle, stderr, prefix);
	}
	if (s < 0 || hwt_stacks_status(result) < 0) {
		fprintf(stderr, "%s: error: %s\n", prefix,
			s < 0 ? hwt_bundle_errstr(s) : hwt_stacks_errstr(hwt_stacks_status(result)));
		goto out;
	}
	if (o->stats)
		print_stats(result, prefix);
	status = hwt_bundle_warning_count(bundle) ? 1 : 0;
out:
	hwt_stacks_free(stacks);
	hwt_stacks_symbols_free(symbols);
	hwt_bundle_free(bundle);
	hwt_profile_free(profile);
	return status;
}

/* A bundle (a directory) or a folded file into tree; status as build's. */
static int load(const char *path, const struct flame_options *o, struct hwt_stack_tree *tree,
		const char *prefix)
{
	struct stat st;
	size_t line = 0;
	FILE *f;
	int s;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: error: %s: %s\n", prefix, path, strerror(errno));
		return 2;
	}
	if (S_ISDIR(st.st_mode))
		return build(path, o, tree, NULL, NULL, NULL, prefix);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: error: %s: %s\n", prefix, path, strerror(errno));
		return 2;
	}
	s = hwt_stack_tree_read_folded(tree, o->weight, f, &line);
	fclose(f);
	if (s < 0) {
		if (s == -hse_format)
			fprintf(stderr, "%s: error: %s:%zu: not a folded stack line\n", prefix, path,
				line);
		else
			fprintf(stderr, "%s: error: %s: %s\n", prefix, path, hwt_stacks_errstr(s));
		return 2;
	}
	return 0;
}

static const char *unit_of(enum hwt_stacks_weight w)
{
	return w == hwt_weight_calls ? "calls" : w == hwt_weight_time ? "ticks" : "instructions";
}

/* The report of a decoded or loaded tree; returns 0, or 2 on failure. */
static int write_tree(const struct hwt_stack_tree *tree, const struct flame_options *o,
		      const char *command, const char *prefix)
{
	struct hwt_flame_options svg = o->svg;
	FILE *out = open_output(o->common.output, prefix);
	char title[512], subtitle[128];
	uint64_t cut = 0, total;
	int s;

	if (!out)
		return 2;
	total = hwt_stack_tree_total(tree, HWT_STACK_ROOT, o->weight);
	if (o->format == fmt_folded) {
		s = hwt_stack_tree_write_folded(tree, o->weight, o->max_depth, out, &cut);
	} else {
		if (!svg.title) {
			snprintf(title, sizeof(title), "Flame Graph%s%.480s", command ? ": " : "",
				 command ? command : "");
			svg.title = title;
		}
		if (o->sampled && o->sampled[0])
			snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " %s, estimated: flat, %.60s",
				 total, unit_of(o->weight), o->sampled);
		else
			snprintf(subtitle, sizeof(subtitle), "%" PRIu64 " %s, exact (hwt)", total,
				 unit_of(o->weight));
		svg.subtitle = subtitle;
		svg.weight = o->weight;
		svg.max_depth = o->max_depth;
		s = hwt_flame_write_svg(tree, &svg, out);
	}
	if (close_output(out, o->common.output, prefix) < 0)
		return 2;
	if (s < 0) {
		fprintf(stderr, "%s: error: %s\n", prefix, hwt_stacks_errstr(s));
		return 2;
	}
	if (cut)
		fprintf(stderr,
			"%s: warning: %" PRIu64 " %s deeper than %zu frames %s in a [deeper] "
			"frame (--max-depth 0 writes them whole)\n",
			prefix, cut, hwt_noun(cut, "stack", "stacks"), o->max_depth,
			hwt_noun(cut, "ends", "end"));
	return 0;
}

/* The whole report from a bundle (or, --diff, two; live: hwt flame's); exit status. */
static int report(const char *dir, const struct flame_options *o, struct flame_live *live,
		  const char *prefix)
{
	struct hwt_stack_tree *tree = hwt_stack_tree_alloc();
	struct hwt_stack_tree *before = NULL;
	struct hwt_stacks_timeline *timeline = NULL;
	char *command = NULL;
	FILE *out = NULL;
	int status = 2, s;

	if (!tree) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		return 2;
	}
	if (o->format == fmt_speedscope || o->format == fmt_chrome) {
		out = open_output(o->common.output, prefix);
		if (!out)
			goto out;
		timeline = hwt_stacks_timeline_alloc(o->format == fmt_speedscope
							     ? hwt_timeline_speedscope
							     : hwt_timeline_chrome,
						     out, o->weight, dir);
		if (!timeline) {
			fprintf(stderr, "%s: out of memory\n", prefix);
			goto out;
		}
		status = build(dir, o, tree, timeline, NULL, NULL, prefix);
		s = hwt_stacks_timeline_finish(timeline);
		if (close_output(out, o->common.output, prefix) < 0 || s < 0) {
			out = NULL;
			status = 2;
			goto out;
		}
		out = NULL;
		goto out;
	}
	if (o->diff_before) {
		struct flame_options ob = *o;
		struct flame_options oa = *o;

		/* Stacks line up by command and thread order: pids differ from run to run. */
		ob.stacks.flags |= HWT_STACKS_THREAD_ORDER;
		oa.stacks.flags |= HWT_STACKS_THREAD_ORDER;
		before = hwt_stack_tree_alloc();
		if (!before) {
			fprintf(stderr, "%s: out of memory\n", prefix);
			goto out;
		}
		s = load(o->diff_before, &ob, before, prefix);
		if (s == 2)
			goto out;
		status = load(dir, &oa, tree, prefix);
		if (status == 2)
			goto out;
		status = status || s;
		{
			struct flame_options od = *o;

			od.svg.before = before;
			od.svg.colors = hwt_colors_diff;
			if (!od.svg.title)
				od.svg.title = "Differential Flame Graph (red: grew, blue: shrank)";
			if (write_tree(tree, &od, NULL, prefix))
				status = 2;
		}
		goto out;
	}
	status = build(dir, o, tree, NULL, live, &command, prefix);
	if (status != 2 && write_tree(tree, o, command, prefix))
		status = 2;
out:
	if (out && out != stdout)
		fclose(out);
	hwt_stacks_timeline_free(timeline);
	hwt_stack_tree_free(before);
	hwt_stack_tree_free(tree);
	free(command);
	return status;
}

int hwt_report_flame_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		COMMON_LONG_OPTIONS,
		{ "diff", required_argument, NULL, OPT_DIFF },
		HWT_OPTION_TRACE_SOURCE,
		{ NULL, 0, NULL, 0 },
	};
	struct flame_options o;
	char sampled[128] = "";
	char prefix[64];
	const char *dir = NULL;
	int opt, status, f;

	options_init(&o);
	for (f = 0; f < fmt_count; f++)
		if (!strcmp(argv[0], format_names[f]))
			break;
	if (f == fmt_count)
		f = fmt_flame;
	o.format = (enum format)f;
	o.sampled = sampled;
	snprintf(prefix, sizeof(prefix), "hwt report %s", format_names[f]);
	optind = 0; /* glibc: a fresh start, with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:qj:h", long_options, NULL)) != -1) {
		if (opt == OPT_DIFF && o.format == fmt_flame) {
			o.diff_before = optarg;
			continue;
		}
		status = hwt_command_option_end(opt, common_option(&o, opt, optarg, prefix), argv,
						report_usage, prefix);
		if (status >= 0)
			return status;
	}
	if (optind + 1 != argc) {
		if (optind >= argc)
			return hwt_command_usage_error(report_usage, prefix, "which bundle?");
		return hwt_command_usage_error(report_usage, prefix, "one bundle at a time ('%s')",
					       argv[optind + 1]);
	}
	dir = argv[optind];
	if (o.format == fmt_chrome || o.format == fmt_speedscope) {
		if (o.stacks.flags & HWT_STACKS_INLINE) {
			/* Inlined frames are drawn in the tree only. */
			fprintf(stderr, "%s: --inline is for folded and flame\n", prefix);
			return 2;
		}
	}
	return report(dir, &o, NULL, prefix);
}

int hwt_flame_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		COMMON_LONG_OPTIONS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "keep", required_argument, NULL, OPT_KEEP },
		HWT_OPTION_VERBOSE,
		HWT_UNIT_SELECT_LONG_OPTIONS,
		HWT_UNIT_ROOT_LONG_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	static const char *const defaults[fmt_count] = { "flame.svg", "flame.folded",
							 "flame.speedscope.json", "flame.trace.json" };
	const char *prefix = "hwt flame";
	struct flame_options o;
	struct flame_live live = { 0 };
	struct hwt_record_live rec = { 0 };
	const char *keep = NULL;
	char tmp[PATH_MAX];
	const char *dir;
	int opt, code, status, wait_status = 0, f;

	options_init(&o);
	optind = 0; /* glibc: a fresh start, with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	/* '+': options end at COMMAND, whose own options are left alone. */
	while ((opt = getopt_long(argc, argv, "+:o:qvj:h", long_options, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			for (f = 0; f < fmt_count; f++)
				if (!strcmp(optarg, format_names[f]))
					break;
			if (f == fmt_count) {
				fprintf(stderr, "%s: --format is flame, folded, speedscope or chrome\n",
					prefix);
				return 2;
			}
			o.format = (enum format)f;
			break;
		case OPT_KEEP:
			keep = optarg;
			break;
		default:
			status = hwt_command_option_end(opt, common_option(&o, opt, optarg, prefix),
							argv, flame_usage, prefix);
			if (status >= 0)
				return status;
		}
	}
	if (optind >= argc) {
		return hwt_command_usage_error(flame_usage, prefix, "which command?");
	}
	if (!o.common.output)
		o.common.output = defaults[o.format];
	/* Before anything runs: an output that could not be written, a command not found. */
	if (hwt_command_check_output(o.common.output, prefix) < 0)
		return HWT_EXIT_ERROR;
	code = hwt_command_check_runnable(argv[optind], prefix);
	if (code)
		return code;
	if (keep) {
		dir = keep;
	} else {
		const char *base = getenv("TMPDIR");

		snprintf(tmp, sizeof(tmp), "%s/hwt-flame.XXXXXX", base && *base ? base : "/tmp");
		if (!mkdtemp(tmp)) {
			fprintf(stderr, "%s: error: cannot make a temporary directory: %s\n", prefix,
				strerror(errno));
			return 2;
		}
		/* hwt_record_run creates the bundle directory itself. */
		rmdir(tmp);
		dir = tmp;
	}
	/* A timeline is written in stream order, after the run. */
	if (o.format == fmt_flame || o.format == fmt_folded)
		flame_live_alloc(&live, dir, &o);
	rec.live = live.live;
	rec.flow = live.stacks ? hwt_stacks_consumer(live.stacks) : NULL;
	o.common.unit.quiet = o.common.quiet;
	if (hwt_record_run_live(dir, &o.common.unit, argv + optind, &wait_status, prefix, &rec) < 0) {
		flame_live_free(&live);
		if (!keep)
			(void)hwt_bundle_remove(dir);
		return 2;
	}
	code = hwt_exit_code(wait_status);
	status = report(dir, &o, &live, prefix);
	if (o.common.verbose && live.live)
		hwt_command_live_say(live.live, prefix);
	flame_live_free(&live);
	if (status == HWT_EXIT_ERROR)
		/* The run is not lost: its trace stays for another try. */
		fprintf(stderr, "%s: the trace is kept in %s; 'hwt report %s %s -o FILE' writes "
			"the graph from it\n", prefix, dir, format_names[o.format], dir);
	else if (!keep && hwt_bundle_remove(dir) < 0)
		fprintf(stderr, "%s: warning: cannot remove the temporary bundle %s\n", prefix, dir);
	if (status != HWT_EXIT_ERROR && !o.common.quiet && o.common.output &&
	    strcmp(o.common.output, "-"))
		fprintf(stderr, "%s: wrote %s\n", prefix, o.common.output);
	/* The command's failure first; then no graph (2) or a partial one (1), as hwt-cov. */
	return code ? code : status;
}
