/*
 * The options several commands share (hwt_command.h), parsed in one place:
 * -o, -j, -q, -v, --debug-dir and the trace unit's (--unit and the selection).
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_command.h"
#include "hwt_decode.h"
#include "trace_unit.h"

/* 0 .. 1024; 0: one per CPU. */
static int parse_jobs(const char *arg, unsigned *jobs)
{
	char *end;
	unsigned long v;

	if (!arg || *arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v > 1024)
		return -1;
	*jobs = (unsigned)v;
	return 0;
}

/* A size: digits, then nothing (bytes) or K, M, G (also KiB, MiB, GiB, k: powers
   of 1024) into *bytes; -1 when it is not one, is 0, or overflows. */
static int hwt_command_parse_size(const char *arg, unsigned long long *bytes)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{ "", 0 }, { "K", 10 }, { "KiB", 10 }, { "k", 10 }, { "M", 20 }, { "MiB", 20 },
		{ "G", 30 }, { "GiB", 30 },
	};
	unsigned long long v;
	char *end;

	if (!arg || *arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || v == 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (v > (~0ULL >> units[i].shift))
			return -1;
		*bytes = v << units[i].shift;
		return 0;
	}
	return -1;
}

int hwt_command_decoder(const char *name)
{
	static const char *const names[] = {
		[hwt_decoder_edge] = "edge",
		[hwt_decoder_libipt] = "libipt",
		[hwt_decoder_check] = "check",
	};

	for (int k = 0; name && k < (int)(sizeof(names) / sizeof(names[0])); k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

static int unit_option(struct hwt_unit_options *opts, int opt, const char *arg,
		       const char *prefix)
{
	/* The last list of each kind, reachable (not a leak) for as long as the process runs. */
	static char *kept[2];
	const char **list;
	char *joined, **keep;
	size_t n;

	switch (opt) {
	case HWT_UNIT_OPT_UNIT:
		if (!hwt_unit_known(arg)) {
			fprintf(stderr, "%s: unknown trace unit '%s' (known: perf, valgrind, qemu, "
				"kmod, auto)\n", prefix, arg);
			return -1;
		}
		opts->unit = arg;
		return 1;
	case HWT_UNIT_OPT_TRACE:
	case HWT_UNIT_OPT_NO_TRACE:
		if (!*arg || strchr(arg, '\n')) {
			fprintf(stderr, "%s: --%s wants a glob without newlines\n", prefix,
				opt == HWT_UNIT_OPT_TRACE ? "trace" : "no-trace");
			return -1;
		}
		list = opt == HWT_UNIT_OPT_TRACE ? &opts->trace : &opts->no_trace;
		keep = &kept[opt == HWT_UNIT_OPT_TRACE ? 0 : 1];
		if (asprintf(&joined, "%s%s%s", *list ? *list : "", *list ? "\n" : "", arg) < 0)
			return -1;
		if (*keep && *keep == *list)
			free(*keep);
		*list = *keep = joined;
		return 1;
	case HWT_UNIT_OPT_TRACE_ALL:
		opts->trace_all = 1;
		return 1;
	case HWT_UNIT_OPT_MAX_TRACE_SIZE:
		if (hwt_command_parse_size(arg, &opts->max_trace_size) < 0) {
			fprintf(stderr, "%s: --max-trace-size wants a size above 0 in bytes, or with "
				"K, M or G (KiB, MiB, GiB), not '%s'\n", prefix, arg);
			return -1;
		}
		return 1;
	case HWT_UNIT_OPT_NO_PRELOAD:
		opts->no_preload = 1;
		return 1;
	case HWT_UNIT_OPT_NO_RECORD_FILTER:
		opts->record_filter = 0;
		return 1;
	case HWT_UNIT_OPT_RECORD_FILTER:
		opts->record_filter = HWT_RECORD_FILTER_ALWAYS;
		return 1;
	case HWT_UNIT_OPT_ROOT:
		if (!*arg) {
			fprintf(stderr, "%s: --root wants a directory\n", prefix);
			return -1;
		}
		opts->root = arg;
		return 1;
	case HWT_UNIT_OPT_FILTER:
		for (n = 0; opts->filters[n]; n++)
			;
		if (n + 1 >= sizeof(opts->filters) / sizeof(opts->filters[0]) || !*arg ||
		    *arg == ':' || strchr(arg, '\n')) {
			fprintf(stderr, "%s: --filter wants IMAGE or IMAGE:FUNCTION (at most %zu)\n",
				prefix, sizeof(opts->filters) / sizeof(opts->filters[0]) - 1);
			return -1;
		}
		opts->filters[n] = arg;
		return 1;
	default:
		return 0;
	}
}

/* Adds a --debug-dir to o's NULL-terminated list; -1 when out of memory. */
static int debug_dir_option(struct hwt_command_options *o, const char *arg, const char *prefix)
{
	/* The last list, reachable (not a leak) for as long as the process runs. */
	static const char **kept;
	const char **dirs;
	size_t n = 0;

	if (!*arg) {
		fprintf(stderr, "%s: --debug-dir wants a directory\n", prefix);
		return -1;
	}
	while (o->debug_dirs && o->debug_dirs[n])
		n++;
	dirs = malloc((n + 2) * sizeof(*dirs));
	if (!dirs) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		return -1;
	}
	if (n)
		memcpy(dirs, o->debug_dirs, n * sizeof(*dirs));
	dirs[n] = arg;
	dirs[n + 1] = NULL;
	if (kept && (const char *const *)kept == o->debug_dirs)
		free(kept);
	o->debug_dirs = kept = dirs;
	return 1;
}

int hwt_command_option(struct hwt_command_options *o, int opt, const char *arg,
		       const char *prefix)
{
	switch (opt) {
	case HWT_OPT_DEBUG_DIR:
		return debug_dir_option(o, arg, prefix);
	case 'o':
		o->output = arg;
		return 1;
	case 'q':
		o->quiet = 1;
		return 1;
	case 'v':
		o->verbose = 1;
		return 1;
	case 'j':
		if (parse_jobs(arg, &o->jobs) < 0) {
			fprintf(stderr, "%s: bad -j value '%s'\n", prefix, arg);
			return -1;
		}
		o->jobs_arg = arg;
		return 1;
	case HWT_OPT_DECODER:
		if (hwt_command_decoder(arg) < 0) {
			fprintf(stderr, "%s: unknown decoder '%s' (known: edge, libipt, check)\n",
				prefix, arg);
			return -1;
		}
		o->decoder = arg;
		return 1;
	case HWT_OPT_TRACE_SOURCE:
		if (hwt_command_trace_check(arg, prefix) < 0)
			return -1;
		o->trace_source = arg;
		return 1;
	default:
		return unit_option(&o->unit, opt, arg, prefix);
	}
}

/*
 * The option getopt_long just refused ('?', or ':' for a missing value;
 * opterr 0), as the user wrote it: "--name", or "-x" of a cluster.
 */
static const char *hwt_command_bad_option(char *const argv[])
{
	static char letter[3] = "-?";
	const char *last = optind > 0 ? argv[optind - 1] : "";

	/* A long option is a word of its own; a short one may sit in a cluster (-xq). */
	if (!strncmp(last, "--", 2) || optopt <= 0 || optopt >= 0x80)
		return last;
	letter[1] = (char)optopt;
	return letter;
}

int hwt_command_version(const char *prefix)
{
	/* "hwt report lcov" is hwt's: the version is the project's. */
	printf("%.*s %s\n", (int)strcspn(prefix, " "), prefix, HWT_VERSION);
	return 0;
}

int hwt_command_usage_error(void (*usage)(FILE *), const char *prefix, const char *fmt, ...)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	va_list ap;

	fprintf(stderr, "%s: ", prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* The usage's first line, as the command's --help prints it. */
	if (mem) {
		usage(mem);
		fclose(mem);
	}
	if (text && *text)
		fprintf(stderr, "%.*s\n", (int)strcspn(text, "\n"), text);
	free(text);
	fprintf(stderr, "see '%s --help'\n", prefix);
	return 2;
}

int hwt_command_option_end(int opt, int taken, char *const argv[], void (*usage)(FILE *),
			   const char *prefix)
{
	if (taken)
		return taken > 0 ? -1 : HWT_EXIT_USAGE;
	if (opt == 'h') {
		hwt_command_help(usage, stdout);
		return HWT_EXIT_OK;
	}
	if (opt == HWT_OPT_VERSION)
		return hwt_command_version(prefix);
	return hwt_command_usage_error(usage, prefix, "%s '%s'",
				       opt == ':' ? "a value is missing for" : "unknown option",
				       hwt_command_bad_option(argv));
}

int hwt_command_other_option(struct hwt_command_options *o, int opt, const char *arg,
			     char *const argv[], void (*usage)(FILE *), const char *prefix)
{
	return hwt_command_option_end(opt, hwt_command_option(o, opt, arg, prefix), argv, usage,
				      prefix);
}
