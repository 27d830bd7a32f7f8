/*
 * hwt_lcov_report, shared by `hwt report lcov` and hwt-cov: decode the
 * bundle into a profile, add every image's executed instructions to the
 * coverage (converters/lcov), write the lcov file, run genhtml, print the
 * warnings and a summary.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwt_command.h"
#include "hwt_decode.h"
#include "hwt_lcov.h"
#include "profile.h"

/* Runs genhtml on the lcov file; returns its exit status (127: not run), or -1. */
static int run_genhtml(const char *info, const char *dir, const char *prefix)
{
	char *argv[] = { "genhtml", "--quiet", "--branch-coverage", "--function-coverage",
			 "-o", (char *)dir, (char *)info, NULL };
	int status, err = hwt_command_run(argv, 0, &status);

	if (err) {
		fprintf(stderr, "%s: cannot run genhtml: %s\n", prefix, strerror(err));
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double percent(uint64_t hit, uint64_t found)
{
	return found ? 100.0 * (double)hit / (double)found : 0.0;
}

int hwt_lcov_report(const char *bundle_dir, const struct hwt_lcov_report_options *options)
{
	const char *prefix = options->prefix ? options->prefix : "hwt report lcov";
	struct hwt_command_decode_options how = { 0 };
	struct hwt_lcov_profile_options images;
	struct hwt_lcov_totals totals;
	struct hwt_profile *profile;
	struct hwt_coverage *cov;
	char *tmp = NULL;
	struct stat st;
	FILE *out;
	size_t i, failed;
	int rc, ret = 0, direct;

	profile = hwt_profile_alloc();
	cov = hwt_coverage_alloc();
	if (!profile || !cov) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		ret = 2;
		goto done;
	}
	how.prefix = prefix;
	how.progress = options->common.quiet ? hwt_progress_none : hwt_progress_tty;
	how.jobs = options->common.jobs;
	how.decoder = options->common.decoder;
	how.live = options->live;
	if (hwt_command_decode(bundle_dir, profile, &how) < 0) {
		ret = 2;
		goto done;
	}
	images.system = options->system;
	images.verbose = options->common.verbose;
	rc = hwt_coverage_add_profile(cov, profile, &images, &failed);
	if (rc < 0) {
		if (failed != SIZE_MAX)
			fprintf(stderr, "%s: %s: %s\n", prefix,
				hwt_profile_image_at(profile, failed)->path, hwt_lcov_errstr(rc));
		else
			fprintf(stderr, "%s: %s\n", prefix, hwt_lcov_errstr(rc));
		ret = 2;
		goto done;
	}
	hwt_coverage_drop_unreadable(cov, &options->filter);
	for (i = 0; i < hwt_coverage_warning_count(cov); i++)
		fprintf(stderr, "%s: warning: %s\n", prefix, hwt_coverage_warning_at(cov, i));
	/*
	 * Written beside the target, then renamed: no half-written report. Not
	 * so for a device or a pipe (-o /dev/null, -o /dev/stdout): renaming
	 * over one would replace it with a regular file.
	 */
	direct = stat(options->common.output, &st) == 0 && !S_ISREG(st.st_mode);
	if (!direct && asprintf(&tmp, "%s.tmp%ld", options->common.output, (long)getpid()) < 0) {
		ret = 2;
		goto done;
	}
	out = fopen(direct ? options->common.output : tmp, "w");
	if (!out) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, options->common.output, strerror(errno));
		ret = 2;
		goto done;
	}
	rc = hwt_coverage_write_lcov(cov, out, NULL, &options->filter, &totals);
	if (fclose(out) != 0 || rc < 0 || (!direct && rename(tmp, options->common.output) != 0)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, options->common.output, strerror(errno));
		if (!direct)
			unlink(tmp);
		ret = 2;
		goto done;
	}
	if (totals.files == 0)
		fprintf(stderr, "%s: warning: no source file with debug info%s ran: %s is empty\n",
			prefix, options->filter.includes || options->filter.excludes ?
			" passed the filters" : "", options->common.output);
	if (!options->common.quiet) {
		fprintf(stderr, "%s: lines......: %.1f%% (%llu of %llu lines)\n", prefix,
			percent(totals.lines_hit, totals.lines_found),
			(unsigned long long)totals.lines_hit, (unsigned long long)totals.lines_found);
		fprintf(stderr, "%s: functions..: %.1f%% (%llu of %llu functions)\n", prefix,
			percent(totals.functions_hit, totals.functions_found),
			(unsigned long long)totals.functions_hit,
			(unsigned long long)totals.functions_found);
		fprintf(stderr, "%s: branches...: %.1f%% (%llu of %llu branches)\n", prefix,
			percent(totals.branches_hit, totals.branches_found),
			(unsigned long long)totals.branches_hit,
			(unsigned long long)totals.branches_found);
		fprintf(stderr, "%s: wrote %s (%llu source file%s)\n", prefix, options->common.output,
			(unsigned long long)totals.files, totals.files == 1 ? "" : "s");
	}
	if (options->html && totals.files) {
		rc = run_genhtml(options->common.output, options->html, prefix);
		if (rc != 0) {
			fprintf(stderr, "%s: genhtml failed (status %d): no HTML report in %s\n", prefix,
				rc, options->html);
			ret = 2;
		} else if (!options->common.quiet) {
			fprintf(stderr, "%s: HTML report in %s/index.html\n", prefix, options->html);
		}
	}
done:
	free(tmp);
	hwt_coverage_free(cov);
	hwt_profile_free(profile);
	return ret;
}


int hwt_lcov_report_options_init(struct hwt_lcov_report_options *options, int argc,
				 const char *prefix)
{
	const char **include = calloc((size_t)argc + 1, sizeof(*include));
	const char **exclude = calloc((size_t)argc + 1, sizeof(*exclude));

	memset(options, 0, sizeof(*options));
	options->common.output = HWT_LCOV_REPORT_DEFAULT_OUTPUT;
	options->prefix = prefix;
	options->filter.include = include;
	options->filter.exclude = exclude;
	if (!include || !exclude) {
		hwt_lcov_report_options_fini(options);
		return -1;
	}
	return 0;
}

void hwt_lcov_report_options_fini(struct hwt_lcov_report_options *options)
{
	free((void *)options->filter.include);
	free((void *)options->filter.exclude);
	options->filter.include = options->filter.exclude = NULL;
}

int hwt_lcov_report_option(struct hwt_lcov_report_options *options, int opt, const char *arg)
{
	/* The filters have room for one per argument. */
	const char **include = (const char **)options->filter.include;
	const char **exclude = (const char **)options->filter.exclude;

	switch (opt) {
	case 'H': options->html = arg; return 1;
	case 'i': include[options->filter.includes++] = arg; return 1;
	case 'x': exclude[options->filter.excludes++] = arg; return 1;
	case 'S': options->system = 1; return 1;
	default: return hwt_command_option(&options->common, opt, arg, options->prefix);
	}
}
