/* The listing of a bundle (hwt_dump.h). */
#include "hwt_dump.h"
#include "hwt_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The packets of stream, as its trace format's lister reads them from the mapped file. */
static int dump_packets(FILE *out, struct hwt_bundle *bundle,
			const struct hwt_bundle_stream *stream)
{
	struct stat st;
	uint8_t *map;
	int fd, problems;

	fd = open(stream->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		hwt_bundle_diag_add(bundle, hwt_diag_io, stream->path, -1, "cannot read: %s",
				    strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		fprintf(out, "  (empty)\n");
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		hwt_bundle_diag_add(bundle, hwt_diag_io, stream->path, -1, "cannot map: %s",
				    strerror(errno));
		return -1;
	}
	problems = stream->trace == hwt_trace_etmv4 ?
		hwt_dump_etm_packets(out, bundle, stream->path, map, (size_t)st.st_size) :
		hwt_dump_packets(out, bundle, stream->path, map, (size_t)st.st_size);
	munmap(map, (size_t)st.st_size);
	return problems;
}

static int dump_stream(FILE *out, struct hwt_bundle *bundle,
		       const struct hwt_bundle_stream *stream, int packets)
{
	const char *ext = stream->trace == hwt_trace_etmv4 ? "etm" : "pt";

	fprintf(out, "stream %s streams/%s.%s %" PRIu64 " bytes%s\n", stream->name, stream->name,
		ext, stream->size, stream->image < 0 ? " (no sideband)" : "");
	if (!packets)
		return 0;
	return dump_packets(out, bundle, stream);
}

int hwt_dump_bundle(FILE *out, struct hwt_bundle *bundle, const struct hwt_dump_options *options)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	size_t i, j;

	if (!sb)
		return -hbe_nomem;
	if (options->spe) {
		hwt_sideband_free(sb);
		hwt_dump_spe(out, bundle, options->pid);
		return 0;
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
	if (!options->sideband_only && hwt_bundle_spe_count(bundle)) {
		fputc('\n', out);
		for (i = 0; i < hwt_bundle_spe_count(bundle); i++) {
			const struct hwt_bundle_stream *s = hwt_bundle_spe_at(bundle, i);

			if (matches(options, s->pid))
				fprintf(out, "spe %s spe/%s.spe %" PRIu64 " bytes (hwt dump --spe lists "
					"its records)\n", s->name, s->name, s->size);
		}
	}
	hwt_sideband_free(sb);
	return 0;
}
