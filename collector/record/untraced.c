/* Reports the processes of a recording that ran natively, and why, where that may surprise. */
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "hwt_select_rule.h"
#include "select.h"
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
	size_t total = 0, capped = 0, i;
	int outside = 0, other = 0;

	if (!sideband)
		return 0;
	for (i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);
		struct hwt_sideband_record rec;

		if (!image->native || hwt_bundle_image_open(sideband, image) < 0 ||
		    hwt_sideband_next(sideband, &rec) < 0 || rec.hdr->type != HWT_RECORD_UNTRACED)
			continue;
		total++;
		if (expected(rec.reason))
			continue;
		/* The cap's: one line for all (the selection would have traced them). */
		if (!strcmp(rec.reason, HWT_SELECT_WHY_CAPPED)) {
			capped++;
			continue;
		}
		hwt_tally_add(&tally, rec.path, rec.reason);
		/* Set-ID programs run natively whatever the options: no hint for them. */
		if (!strcmp(rec.reason, HWT_RULE_WHY_OUTSIDE) ||
		    !strcmp(rec.reason, HWT_RULE_WHY_UNREADABLE))
			outside = 1;
		else if (strcmp(rec.reason, HWT_RULE_WHY_SET_ID) != 0)
			other = 1;
	}
	if (hwt_tally_print(&tally, out, prefix, "not traced", " ('hwt dump' lists them)")) {
		if (outside)
			fprintf(out, "%s: programs that are not the project's: --trace GLOB traces "
				"them, --root DIR sets the root\n", prefix);
		if (other)
			fprintf(out, "%s: --trace GLOB selects more executables, --trace-all every "
				"process\n", prefix);
	}
	if (capped)
		fprintf(out, "%s: not traced: %zu process%s started after the trace reached "
			"--max-trace-size ('hwt dump' lists them)\n", prefix, capped,
			capped == 1 ? "" : "es");
	hwt_sideband_free(sideband);
	return total;
}
