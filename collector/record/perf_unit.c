/*
 * The perf unit: Intel PT hardware through Linux perf (docs/perf.md). The
 * command runs under
 *
 *   perf record -q -e intel_pt/tsc=1,mtc=1,mtc_period=3,noretcomp=1,branch=1/u
 *               --switch-events -o WORK/perf.data [--filter ...] -- CMD ARGS...
 *
 * which follows every child (perf's inherited per-CPU events), then
 * hwt import makes the bundle from WORK/perf.data (collector/perf). Return
 * compression is off (noretcomp=1): the import splits each CPU's trace into
 * its threads, and a compressed return refers to calls the CPU made, which
 * need not be the same thread's. $HWT_PERF_EVENT replaces the event.
 *
 * Selection (--trace, --no-trace and the default rule, docs/select.md)
 * happens at the import: perf traces the whole tree, the bundle keeps the
 * process images the rule selects and lists the others as untraced.
 * --filter IMAGE:FUNCTION becomes perf's address filter (--filter 'filter
 * FUNCTION @ IMAGE'), which the hardware applies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_perf_import.h"
#include "select.h"
#include "trace_unit.h"

#define PERF_EXE "perf"
#define PERF_EVENT "intel_pt/tsc=1,mtc=1,mtc_period=3,noretcomp=1,branch=1/u"
#define PERF_DATA "perf.data"
/* Where the kernel lists its PMUs ($HWT_EVENT_SOURCES replaces it, for tests). */
#define EVENT_SOURCES "/sys/bus/event_source/devices"

extern char **environ;

static int perf_prepare(struct hwt_unit_files *files, const struct hwt_unit_options *opts,
			const char *prefix, int quiet)
{
	const char *sources = getenv("HWT_EVENT_SOURCES");
	const char *exe = getenv("HWT_PERF");
	char pmu[PATH_MAX];
	struct stat st;

	snprintf(pmu, sizeof(pmu), "%s/intel_pt", sources && *sources ? sources : EVENT_SOURCES);
	if (stat(pmu, &st) < 0) {
		if (!quiet)
			fprintf(stderr, "%s: no Intel PT on this machine (no %s): the perf unit needs "
				"an Intel CPU with Intel PT, outside a virtual machine (docs/perf.md); "
				"--unit valgrind or qemu trace in software\n", prefix, pmu);
		return -1;
	}
	for (size_t i = 0; opts->filters[i]; i++)
		if (!strchr(opts->filters[i], ':')) {
			if (!quiet)
				fprintf(stderr, "%s: the perf unit takes --filter IMAGE:FUNCTION "
					"(perf's address filters); for whole programs use --trace\n",
					prefix);
			return -1;
		}
	if (exe && *exe) {
		if (access(exe, X_OK) < 0 || !realpath(exe, files->exe)) {
			if (!quiet)
				fprintf(stderr, "%s: HWT_PERF=%s: %s\n", prefix, exe, strerror(errno));
			return -1;
		}
	} else if (hwt_unit_find_in_path(PERF_EXE, files->exe, sizeof(files->exe)) < 0) {
		if (!quiet)
			fprintf(stderr, "%s: cannot run " PERF_EXE ": not found in PATH "
				"(install it: apt-get install linux-perf)\n", prefix);
		return -1;
	}
	return 0;
}

/* perf's psb_period: a PSB every 2^(k+11) bytes; the k for about n. */
static unsigned psb_exponent(long n)
{
	unsigned k = 0;

	while (k < 15 && (1L << (k + 11)) < n)
		k++;
	return k;
}

static int perf_argv_prefix(const struct hwt_unit_files *files, const char *work,
			    const struct hwt_unit_options *opts, struct hwt_unit_argv *out)
{
	const char *event = getenv("HWT_PERF_EVENT");
	int rc = hwt_unit_arg(out, files->exe) | hwt_unit_arg(out, "record") |
		 hwt_unit_arg(out, "-q") | hwt_unit_arg(out, "-e");

	if (event && *event)
		rc |= hwt_unit_arg(out, event);
	else if (opts->psb_period > 0)
		rc |= hwt_unit_argf(out, "intel_pt/tsc=1,mtc=1,mtc_period=3,noretcomp=1,branch=1,"
				    "psb_period=%u/u", psb_exponent(opts->psb_period));
	else
		rc |= hwt_unit_arg(out, PERF_EVENT);
	rc |= hwt_unit_arg(out, "--switch-events") | hwt_unit_arg(out, "-o") |
	      hwt_unit_argf(out, "%s/" PERF_DATA, work);
	if (opts->filters[0]) {
		char *filter = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&filter, &len);

		if (!f)
			return -1;
		for (size_t i = 0; opts->filters[i]; i++) {
			const char *colon = strrchr(opts->filters[i], ':');

			fprintf(f, "%sfilter %s @ %.*s", i ? "," : "", colon + 1,
				(int)(colon - opts->filters[i]), opts->filters[i]);
		}
		fclose(f);
		rc |= hwt_unit_arg(out, "--filter") | hwt_unit_argf(out, "%s", filter);
		free(filter);
	}
	return rc ? -1 : 0;
}

struct finish_context {
	const char *prefix;
	int quiet;
	struct hwt_select_config select;
};

static void warn(void *context, const char *message)
{
	const struct finish_context *c = context;

	fprintf(stderr, "%s: warning: %s\n", c->prefix, message);
}

static int select_image(void *context, const char *path, const char **reason)
{
	const struct finish_context *c = context;
	char real[PATH_MAX];
	int static_exe = 0;

	return hwt_select_decide(&c->select, path, environ, real, reason, &static_exe) !=
	       HWT_SELECT_NATIVE;
}

static int perf_finish(const struct hwt_unit_files *files, const char *work, const char *bundle,
		       const struct hwt_unit_options *opts, const char *prefix, int quiet)
{
	struct finish_context c = { prefix, quiet, { 0 } };
	struct hwt_perf_import_options o = { 0 };
	struct hwt_perf_import_stats st;
	char data[PATH_MAX + 16], error[512] = "";
	int err;

	(void)files;
	snprintf(data, sizeof(data), "%s/" PERF_DATA, work);
	hwt_select_config_init(&c.select, opts->trace, opts->no_trace, NULL, NULL);
	c.select.root = opts->project_root;
	o.warn.fn = warn;
	o.warn.context = &c;
	if (!opts->trace_all) {
		o.select = select_image;
		o.select_context = &c;
	}
	o.error = error;
	o.error_size = sizeof(error);
	err = hwt_perf_import(data, bundle, &o, &st);
	if (err) {
		fprintf(stderr, "%s: cannot import what perf recorded: %s (%s); it is kept in %s\n",
			prefix, error[0] ? error : hwt_perf_import_errstr(err),
			hwt_perf_import_errstr(err), data);
		return -1;
	}
	if (!quiet && st.kernel_bytes)
		fprintf(stderr, "%s: %" PRIu64 " bytes of kernel-mode trace skipped\n", prefix,
			st.kernel_bytes);
	if (unlink(data) < 0 || rmdir(work) < 0)
		fprintf(stderr, "%s: warning: cannot remove %s: %s\n", prefix, work, strerror(errno));
	return 0;
}

const struct hwt_unit hwt_perf_unit = {
	.name = "perf",
	.title = "perf (Intel PT)",
	.lib_env = NULL,
	.lib_dir = NULL,
	.lib_file = NULL,
	.prepare = perf_prepare,
	.argv_prefix = perf_argv_prefix,
	.child_env = NULL,
	.follows_children = 1,
	.finish = perf_finish,
};
