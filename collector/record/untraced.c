/* Reports the processes of a recording that ran natively, and why, where that may surprise. */
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "record.h"
#include "tally.h"

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

size_t hwt_record_print_untraced(struct hwt_bundle *bundle, FILE *out, const char *prefix)
{
	struct hwt_tally tally = { 0 };
	struct hwt_sideband *sideband = hwt_sideband_alloc();
	size_t total = 0, i;

	if (!sideband)
		return 0;
	for (i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);
		struct hwt_sideband_record rec;

		if (!image->native || hwt_bundle_image_open(sideband, image) < 0 ||
		    hwt_sideband_next(sideband, &rec) < 0 || rec.hdr->type != HWT_RECORD_UNTRACED)
			continue;
		total++;
		if (!expected(rec.reason))
			hwt_tally_add(&tally, rec.path, rec.reason);
	}
	if (hwt_tally_print(&tally, out, prefix, "not traced", " ('hwt dump' lists them)"))
		fprintf(out, "%s: --trace GLOB selects more executables, --trace-all every process\n",
			prefix);
	hwt_sideband_free(sideband);
	return total;
}
