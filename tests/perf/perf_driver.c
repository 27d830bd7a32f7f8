/*
 * Test driver of the perf.data export and import libraries, until the
 * commands are wired (and for modes the commands do not offer):
 *
 *   perf_driver export BUNDLE OUT [pipe] [compress] [one-cpu]
 *   perf_driver import PERF_DATA BUNDLE [--symfs DIR] [--buildid-dir DIR]
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hwt_bundle.h"
#include "hwt_perf_export.h"
#include "hwt_perf_import.h"

static void warn(void *context, const char *message)
{
	(void)context;
	fprintf(stderr, "perf_driver: warning: %s\n", message);
}

static int do_export(int argc, char **argv)
{
	struct hwt_bundle *b = hwt_bundle_alloc();
	struct hwt_perf_export_options o = { 0 };
	struct hwt_perf_export_stats st;
	int err;

	o.warn = warn;
	o.argv = (const char *const *)argv;
	o.argc = (size_t)argc;
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "pipe"))
			o.flags |= HWT_PERF_EXPORT_PIPE;
		else if (!strcmp(argv[i], "compress"))
			o.flags |= HWT_PERF_EXPORT_COMPRESS;
		else if (!strcmp(argv[i], "one-cpu"))
			o.flags |= HWT_PERF_EXPORT_ONE_CPU;
	}
	err = hwt_bundle_open(b, argv[2]);
	if (err) {
		hwt_bundle_diag_print(b, stderr, "perf_driver");
		hwt_bundle_free(b);
		return 1;
	}
	err = hwt_perf_export(b, argv[3], &o, &st);
	if (err) {
		fprintf(stderr, "perf_driver: export: %s\n", hwt_perf_export_errstr(err));
		hwt_bundle_free(b);
		return 1;
	}
	fprintf(stderr, "perf_driver: %" PRIu64 " images, %" PRIu64 " streams, %" PRIu64
		" trace bytes, %" PRIu64 " records (%" PRIu64 " hwt records not exported)\n",
		st.images, st.streams, st.trace_bytes, st.records, st.skipped_records);
	hwt_bundle_free(b);
	return 0;
}

static int do_import(int argc, char **argv)
{
	struct hwt_perf_import_options o = { 0 };
	struct hwt_perf_import_stats st;
	char error[512] = "";
	int err;

	o.warn = warn;
	o.error = error;
	o.error_size = sizeof(error);
	for (int i = 4; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--symfs"))
			o.symfs = argv[i + 1];
		else if (!strcmp(argv[i], "--buildid-dir"))
			o.buildid_dir = argv[i + 1];
	}
	err = hwt_perf_import(argv[2], argv[3], &o, &st);
	if (err) {
		fprintf(stderr, "perf_driver: import: %s (%s)\n", error, hwt_perf_import_errstr(err));
		return 1;
	}
	fprintf(stderr, "perf_driver: %" PRIu64 " records, %" PRIu64 " AUX buffers (%" PRIu64
		" bytes, %s), %" PRIu64 " images, %" PRIu64 " streams, %" PRIu64 " trace bytes, %"
		PRIu64 " kernel, %" PRIu64 " orphan, %" PRIu64 " damaged, %" PRIu64 " lost events, %"
		PRIu64 " binaries missing\n", st.records, st.aux_buffers, st.aux_bytes,
		st.per_cpu ? "per CPU" : "per thread", st.images, st.streams, st.trace_bytes,
		st.kernel_bytes, st.orphan_bytes, st.damaged_bytes, st.lost_events,
		st.missing_binaries);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "export"))
		return do_export(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "import"))
		return do_import(argc, argv);
	fprintf(stderr, "usage: perf_driver export BUNDLE OUT [pipe] [compress]\n"
		"       perf_driver import PERF_DATA BUNDLE [--symfs DIR] [--buildid-dir DIR]\n");
	return 2;
}
