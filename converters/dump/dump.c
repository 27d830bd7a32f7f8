/* hwt dump: the command, its options and the listing of a bundle. */
#include "hwt_dump.h"
#include "hwt_bundle.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: hwt dump [options] BUNDLE\n"
	"\n"
	"Lists a trace bundle: its header and summary, per process image its\n"
	"sideband records (one per line: offset, time, pid/tid, type, fields),\n"
	"per thread stream its size and, with --packets, its packets (Intel PT, ETMv4).\n"
	"\n"
	"options:\n"
	"  --pid N          only the images and streams of process N\n"
	"  --sideband-only  list no streams\n"
	"  --packets        decode and list every packet of every stream (libipt, OpenCSD)\n"
	"  -h, --help       this text\n"
	"\n"
	"Warnings about the bundle go to stderr. Exit status: 0 clean, 1 the\n"
	"bundle had warnings but was read, 2 it could not be read (or bad usage).\n";

static int matches(const struct hwt_dump_options *o, uint32_t pid)
{
	return o->pid < 0 || (uint64_t)o->pid == pid;
}

static void dump_header(FILE *out, const struct hwt_bundle *bundle)
{
	const char *key, *value;
	size_t i;

	fprintf(out, "bundle %s\n", hwt_bundle_dir(bundle));
	fprintf(out, "  version=%d\n", HWT_BUNDLE_VERSION);
	for (i = 0; i < hwt_bundle_key_count(bundle); i++)
		if (!hwt_bundle_key_at(bundle, i, &key, &value))
			fprintf(out, "  %s=%s\n", key, value);
	if (!hwt_bundle_has_summary(bundle)) {
		fputs("summary none (recording not finished)\n", out);
		return;
	}
	fputs("summary\n", out);
	for (i = 0; i < hwt_bundle_summary_count(bundle); i++)
		if (!hwt_bundle_summary_at(bundle, i, &key, &value))
			fprintf(out, "  %s=%s\n", key, value);
}

static void dump_image(FILE *out, const struct hwt_bundle_image *image,
		       struct hwt_sideband *sb)
{
	struct hwt_sideband_record rec;
	int status;

	if (image->shared)
		fprintf(out, "image %s sideband/untraced.sb@%" PRIu64 " %" PRIu64 " bytes\n",
			image->name, image->offset, image->size);
	else
		fprintf(out, "image %s sideband/%s.sb %" PRIu64 " bytes\n", image->name, image->name,
			image->size);
	status = hwt_bundle_image_open(sb, image);
	if (status < 0) {
		fprintf(out, "  end: cannot read: %s\n", hwt_sideband_error(sb));
		return;
	}
	while ((status = hwt_sideband_next(sb, &rec)) == 0) {
		fputs("  ", out);
		hwt_dump_record(out, &rec);
		fputc('\n', out);
	}
	if (status == -hbe_eos)
		fprintf(out, "  end: %" PRIu64 " records\n", hwt_sideband_count(sb));
	else
		fprintf(out, "  end: %" PRIu64 " records, then %s\n", hwt_sideband_count(sb),
			hwt_sideband_error(sb));
}

static int dump_stream(FILE *out, struct hwt_bundle *bundle,
		       const struct hwt_bundle_stream *stream, int packets)
{
	const char *ext = stream->trace == hwt_trace_etmv4 ? "etm" : "pt";

	fprintf(out, "stream %s streams/%s.%s %" PRIu64 " bytes%s\n", stream->name, stream->name,
		ext, stream->size, stream->image < 0 ? " (no sideband)" : "");
	if (!packets)
		return 0;
	return stream->trace == hwt_trace_etmv4 ? hwt_dump_etm_packets(out, bundle, stream) :
						  hwt_dump_packets(out, bundle, stream);
}

int hwt_dump(const char *dir, const struct hwt_dump_options *options, FILE *out, FILE *err)
{
	struct hwt_bundle *bundle;
	struct hwt_sideband *sb;
	size_t i, j;
	int status, result;

	bundle = hwt_bundle_alloc();
	sb = hwt_sideband_alloc();
	if (!bundle || !sb) {
		fprintf(err, "hwt dump: out of memory\n");
		hwt_bundle_free(bundle);
		hwt_sideband_free(sb);
		return HWT_DUMP_UNUSABLE;
	}
	status = hwt_bundle_open(bundle, dir);
	if (status < 0) {
		if (!hwt_bundle_diag_count(bundle))
			fprintf(err, "hwt dump: %s: %s\n", dir, hwt_bundle_errstr(status));
		hwt_bundle_diag_print(bundle, err, "hwt dump");
		hwt_bundle_free(bundle);
		hwt_sideband_free(sb);
		return HWT_DUMP_UNUSABLE;
	}

	dump_header(out, bundle);
	for (i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);

		if (!matches(options, image->pid))
			continue;
		fputc('\n', out);
		dump_image(out, image, sb);
		if (options->sideband_only)
			continue;
		for (j = 0; j < image->streams; j++)
			dump_stream(out, bundle, hwt_bundle_stream_at(bundle, image->first_stream + j),
				    options->packets);
	}
	if (!options->sideband_only) {
		int first = 1;

		for (i = 0; i < hwt_bundle_stream_count(bundle); i++) {
			const struct hwt_bundle_stream *stream = hwt_bundle_stream_at(bundle, i);

			if (stream->image >= 0 || !matches(options, stream->pid))
				continue;
			if (first)
				fputc('\n', out);
			first = 0;
			dump_stream(out, bundle, stream, options->packets);
		}
	}
	fflush(out);

	hwt_bundle_diag_print(bundle, err, "hwt dump");
	result = hwt_bundle_warning_count(bundle) ? HWT_DUMP_WARNINGS : HWT_DUMP_OK;
	hwt_bundle_free(bundle);
	hwt_sideband_free(sb);
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

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hwt dump: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n(see 'hwt dump --help')\n", stderr);
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
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(a, "--packets")) {
			options.packets = 1;
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
	return hwt_dump(dir, &options, stdout, stderr);
}
