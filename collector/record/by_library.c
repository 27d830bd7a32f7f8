/*
 * Reports the processes of a recording that were traced for a library they
 * load rather than for their executable (docs/select.md), so that a user
 * who sees a system tool's process in the bundle knows why.
 *
 * The sideband does not say why a process was selected; this judges again
 * with the same rule (collector/select): an image that was entered by an
 * exec, whose executable alone is not selected, and which mapped a selected
 * library, was traced for that library (the first one it mapped).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "record.h"
#include "select.h"
#include "tally.h"
#include "trace_unit.h"

/*
 * The first library that image mapped and that the rule selects, or NULL;
 * valid until the sideband is read again.
 */
static const char *selected_library(struct hwt_sideband *sideband, const struct hwt_select_config *cfg,
			      const char *exe)
{
	struct hwt_sideband_record rec;

	while (hwt_sideband_next(sideband, &rec) == 0) {
		if (!rec.known || rec.hdr->type != HWT_RECORD_MMAP || !rec.path || !rec.path[0] ||
		    (rec.hdr->flags & (HWT_MMAP_VDSO | HWT_MMAP_ANON | HWT_MMAP_TRACE_UNIT)) ||
		    strcmp(rec.path, exe) == 0)
			continue;
		if (hwt_select_library(cfg, rec.path, -1))
			return rec.path;
	}
	return NULL;
}

size_t hwt_record_print_by_library(struct hwt_bundle *bundle, const struct hwt_unit_options *unit,
				   FILE *out, const char *prefix)
{
	struct hwt_tally tally = { 0 };
	struct hwt_sideband *sideband;
	struct hwt_select_config cfg;
	char unit_lib[PATH_MAX], real[PATH_MAX];
	const char *lib = hwt_unit_lib_dir(hwt_bundle_key(bundle, "unit"), unit_lib);
	size_t total = 0, i;

	if (unit->trace_all || !(sideband = hwt_sideband_alloc()))
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.trace = unit->trace;
	cfg.no_trace = unit->no_trace;
	cfg.unit_lib = lib;
	cfg.executable_only = 1;
	cfg.root = hwt_bundle_key(bundle, "root"); /* the recording's, as it judged */
	for (i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);
		struct hwt_sideband_record rec;
		const char *reason;
		const char *found;
		int static_exe;

		if (image->native || hwt_bundle_image_open(sideband, image) < 0 ||
		    hwt_sideband_next(sideband, &rec) != 0 || !rec.known ||
		    rec.hdr->type != HWT_RECORD_PROCESS_START || !rec.path || !rec.path[0] ||
		    hwt_select_decide(&cfg, rec.path, NULL, real, &reason, &static_exe) !=
			    HWT_SELECT_NATIVE)
			continue;
		found = selected_library(sideband, &cfg, real);
		if (!found)
			continue;
		total++;
		hwt_tally_add(&tally, real, found);
	}
	hwt_tally_print(&tally, out, prefix, "traced for a library it loads", "");
	hwt_sideband_free(sideband);
	return total;
}
