/*
 * `hwt dump [options] BUNDLE`: its options, the bundle's warnings and the
 * exit status; the listing itself is converters/dump's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_dump.h"

static const char usage_text[] =
	"usage: hwt dump [options] BUNDLE\n"
	"\n"
	"Lists a trace bundle: its header and summary, per process image its\n"
	"sideband records (one per line: offset, time, pid/tid, type, fields),\n"
	"per thread stream its size and, with --packets, its packets (Intel PT, ETMv4).\n"
	"With --spe, only the Arm SPE records (hwt record --spe), a line each.\n"
	"\n"
	"options:\n"
	"  --pid N          only the images and streams of process N\n"
	"  --sideband-only  list no streams\n"
	"  --packets        decode and list every packet of every stream (libipt, OpenCSD)\n"
	"  --spe            list the SPE records of every thread instead: PC, operation,\n"
	"                   branch target, events, data address, latencies, context,\n"
	"                   timestamp\n"
	"  -h, --help       this text\n"
	"\n"
	"Warnings about the bundle go to stderr. Exit status: 0 clean, 1 the\n"
	"bundle had warnings but was read, 2 it could not be read (or bad usage).\n";

int hwt_dump(const char *dir, const struct hwt_dump_options *options, FILE *out, FILE *err)
{
	struct hwt_bundle *bundle = hwt_command_open_bundle(dir, err, "hwt dump");
	int status, result;

	if (!bundle)
		return HWT_DUMP_UNUSABLE;
	status = hwt_dump_bundle(out, bundle, options);
	fflush(out);
	if (status < 0) {
		fprintf(err, "hwt dump: %s\n", hwt_bundle_errstr(status));
		hwt_bundle_free(bundle);
		return HWT_DUMP_UNUSABLE;
	}
	hwt_command_print_diags(bundle, err, "hwt dump");
	result = hwt_bundle_warning_count(bundle) ? HWT_DUMP_WARNINGS : HWT_DUMP_OK;
	hwt_bundle_free(bundle);
	return result;
}

static int parse_pid(const char *s, int64_t *pid)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*pid = (int64_t)v;
	return 0;
}

static void usage(FILE *out)
{
	fputs(usage_text, out);
}

static int usage_error(const char *fmt, const char *arg)
{
	hwt_command_usage_error(usage, "hwt dump", fmt, arg);
	return HWT_DUMP_UNUSABLE;
}

int hwt_dump_main(int argc, char **argv)
{
	struct hwt_dump_options options = { .pid = -1 };
	const char *dir = NULL;
	int i, options_done = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options_done || a[0] != '-' || !a[1]) {
			if (dir)
				return usage_error("more than one bundle given: '%s'", a);
			dir = a;
		} else if (!strcmp(a, "--")) {
			options_done = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			hwt_command_help(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			return hwt_command_version("hwt dump");
		} else if (!strcmp(a, "--packets")) {
			options.packets = 1;
		} else if (!strcmp(a, "--spe")) {
			options.spe = 1;
		} else if (!strcmp(a, "--sideband-only")) {
			options.sideband_only = 1;
		} else if (!strcmp(a, "--pid") || !strncmp(a, "--pid=", 6)) {
			const char *value = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);

			if (!value)
				return usage_error("%s needs a process id", a);
			if (parse_pid(value, &options.pid))
				return usage_error("--pid: not a process id: '%s'", value);
		} else {
			return usage_error("unknown option '%s'", a);
		}
	}
	if (!dir)
		return usage_error("%s", "no bundle given");
	if (options.packets && options.sideband_only)
		return usage_error("%s", "--packets and --sideband-only exclude each other");
	if (options.spe && (options.packets || options.sideband_only))
		return usage_error("%s", "--spe lists only SPE records: not with --packets or "
				   "--sideband-only");
	return hwt_dump(dir, &options, stdout, stderr);
}
