/* A bundle as the commands open it, and its diagnostics as they print them. */
#include <stdio.h>
#include <string.h>

#include "hwt_bundle.h"
#include "hwt_command.h"

/*
 * Says that the trace of the bundle stopped at --max-trace-size (header
 * max_trace_size_reached, docs/bundle.md) as a warning that does not make
 * the result partial. 1 when said.
 */
static int hwt_command_print_trace_cap(const struct hwt_bundle *bundle, FILE *file,
				       const char *prefix)
{
	const char *cap = hwt_bundle_key(bundle, "max_trace_size");
	const char *reached = hwt_bundle_key(bundle, "max_trace_size_reached");

	if (!cap || !reached || strcmp(reached, "1") != 0)
		return 0;
	/* Asked for: a warning, not a partial result (docs/exit-status.md). */
	fprintf(file, "%s%swarning: the trace stopped at --max-trace-size (%s bytes): what ran "
		"after it is not counted; processes started after it were not traced\n",
		prefix ? prefix : "", prefix ? ": " : "", cap);
	return 1;
}

void hwt_command_print_diags(const struct hwt_bundle *bundle, FILE *file, const char *prefix)
{
	size_t i;

	if (!bundle || !file)
		return;
	for (i = 0; i < hwt_bundle_diag_count(bundle); i++) {
		const struct hwt_bundle_diag *diag = hwt_bundle_diag_at(bundle, i);

		int fatal = diag->kind == hwt_diag_fatal;

		fprintf(file, "%s%s%s%s:%s %s\n", prefix ? prefix : "", prefix ? ": " : "",
			hwt_color(fatal ? hwt_color_error : hwt_color_warning),
			fatal ? "error" : "warning", hwt_color(hwt_color_reset), diag->message);
	}
	hwt_command_print_trace_cap(bundle, file, prefix);
}

struct hwt_bundle *hwt_command_open_bundle(const char *dir, FILE *err, const char *prefix)
{
	struct hwt_bundle *bundle = hwt_bundle_alloc();
	int status;

	if (!bundle) {
		fprintf(err, "%s: out of memory\n", prefix);
		return NULL;
	}
	status = hwt_bundle_open(bundle, dir);
	if (status == 0)
		return bundle;
	if (hwt_bundle_diag_count(bundle))
		hwt_command_print_diags(bundle, err, prefix);
	else
		fprintf(err, "%s: %serror:%s %s: %s\n", prefix, hwt_color(hwt_color_error),
			hwt_color(hwt_color_reset), dir, hwt_bundle_errstr(status));
	hwt_bundle_free(bundle);
	return NULL;
}
