/* Reports the processes of a recording that ran natively, and why, where that may surprise. */
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "record.h"

#define MAX_LINES 8

/*
 * Reasons that are the selection working as meant (system tools, scripts,
 * the user's own --no-trace): not worth a line each. The others (no debug
 * info, setuid, not followed below a static program) may be a surprise.
 */
static int expected(const char *reason)
{
	return !strcmp(reason, "system binary") || !strcmp(reason, "--no-trace") ||
	       !strncmp(reason, "not an x86-64 ELF", 17);
}

struct untraced_line {
	char *path;
	char *reason;
	size_t count;
};

size_t hwt_record_print_untraced(struct hwt_bundle *bundle, FILE *out, const char *prefix)
{
	struct untraced_line lines[MAX_LINES];
	struct hwt_sideband *sideband = hwt_sideband_alloc();
	size_t nlines = 0, total = 0, other = 0, i, k;

	if (!sideband)
		return 0;
	for (i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);
		struct hwt_sideband_record rec;

		if (!image->native || hwt_sideband_open(sideband, image->path) < 0 ||
		    hwt_sideband_next(sideband, &rec) < 0 || rec.hdr->type != HWT_RECORD_UNTRACED)
			continue;
		total++;
		if (expected(rec.reason))
			continue;
		for (k = 0; k < nlines; k++)
			if (!strcmp(lines[k].path, rec.path) && !strcmp(lines[k].reason, rec.reason))
				break;
		if (k < nlines) {
			lines[k].count++;
		} else if (nlines < MAX_LINES) {
			lines[nlines].path = strdup(rec.path);
			lines[nlines].reason = strdup(rec.reason);
			lines[nlines].count = 1;
			if (lines[nlines].path && lines[nlines].reason) {
				nlines++;
			} else {
				free(lines[nlines].path);
				free(lines[nlines].reason);
			}
		} else {
			other++;
		}
	}
	for (k = 0; k < nlines; k++) {
		fprintf(out, "%s: not traced: %s (%s)", prefix, lines[k].path, lines[k].reason);
		if (lines[k].count > 1)
			fprintf(out, ", %zu times", lines[k].count);
		fputc('\n', out);
		free(lines[k].path);
		free(lines[k].reason);
	}
	if (other)
		fprintf(out, "%s: not traced: %zu more processes ('hwt dump' lists them)\n", prefix,
			other);
	if (nlines)
		fprintf(out, "%s: --trace GLOB selects more executables, --trace-all every process\n",
			prefix);
	hwt_sideband_free(sideband);
	return total;
}
