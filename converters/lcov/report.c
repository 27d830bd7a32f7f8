/*
 * `hwt report lcov BUNDLE -o cov.info [--html DIR] [--include G] [--exclude G]`
 * and hwt_lcov_report, which hwt-cov shares: decode the bundle into a
 * profile, add every image's executed instructions to the coverage with its
 * DWARF, write the lcov file, run genhtml, print a summary.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwt_decode.h"
#include "hwt_lcov.h"
#include "profile.h"

#define DEFAULT_OUTPUT "hwt-cov.info"

/* Code that ships with the system: libc, the loader, ... (also of the
   aarch64 sysroot that aarch64 programs run with under qemu-aarch64). */
static int system_image(const char *path)
{
	static const char *const prefixes[] = {
		"/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/",
		"/usr/libexec/", "/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/",
		"/usr/aarch64-linux-gnu/",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static void hex(char *out, size_t size, const uint8_t *id, size_t n)
{
	size_t i;

	if (n == 0) {
		snprintf(out, size, "none");
		return;
	}
	for (i = 0; i < n && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, size - 2 * i, "%02x", id[i]);
}

static int cmp_cov_insn(const void *a, const void *b)
{
	const struct hwt_cov_insn *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Adds one profile image to the coverage, or warns why it cannot. */
static int add_image(struct hwt_coverage *cov, const struct hwt_profile *profile, size_t index,
		     const struct hwt_lcov_report_options *options)
{
	const struct hwt_profile_image *image = hwt_profile_image_at(profile, index);
	struct hwt_profile_insn *pinsns = NULL;
	struct hwt_cov_insn *insns = NULL;
	struct hwt_debuginfo *info = NULL;
	const uint8_t *file_id;
	size_t n = 0, i, file_id_size;
	char id[2 * HWT_PROFILE_BUILD_ID_MAX + 1];
	int rc, quiet;

	if (image->flags & (HWT_PROFILE_IMAGE_TRACE_UNIT | HWT_PROFILE_IMAGE_VDSO))
		return 0;
	hex(id, sizeof(id), image->build_id, image->build_id_size);
	if (system_image(image->path) && !options->system) {
		/* Like gcovr's root and lcov's --no-external: the system's own
		   libraries are not the project's code, even with debug info. */
		if (options->verbose)
			hwt_coverage_warn(cov, "%s: a system library: not in the report (--system includes it)",
					  image->path);
		return 0;
	}
	quiet = system_image(image->path) && !options->verbose;
	if (image->flags & HWT_PROFILE_IMAGE_MISSING) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): deleted or unreadable since the run: not in the report",
					  image->path, id);
		return 0;
	}
	if (image->flags & HWT_PROFILE_IMAGE_REPLACED) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): replaced since the run: not in the report",
					  image->path, id);
		return 0;
	}
	info = hwt_debuginfo_alloc();
	if (!info)
		return -hle_nomem;
	rc = hwt_debuginfo_load(info, image->path);
	if (rc == -hle_io) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): %s since the run: not in the report",
					  image->path, id, errno == ENOENT ? "deleted" : strerror(errno));
		rc = 0;
		goto out;
	}
	if (rc == -hle_not_elf || rc == -hle_dwarf) {
		hwt_coverage_warn(cov, "%s (build-id %s): %s: not in the report", image->path, id,
				  hwt_lcov_errstr(rc));
		rc = 0;
		goto out;
	}
	file_id = hwt_debuginfo_build_id(info, &file_id_size);
	if (image->build_id_size &&
	    (file_id_size != image->build_id_size ||
	     memcmp(file_id, image->build_id, file_id_size) != 0)) {
		char now[2 * HWT_DEBUGINFO_BUILD_ID_MAX + 1];

		hex(now, sizeof(now), file_id, file_id_size);
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): replaced since the run (the file now has build-id %s): not in the report",
					  image->path, id, now);
		rc = 0;
		goto out;
	}
	if (rc == -hle_no_debug) {
		if (!quiet)
			hwt_coverage_warn(cov, "no debug info: %s (build-id %s%s): not in the report",
					  image->path, id,
					  hwt_debuginfo_has_symtab(info) ? "" : ", stripped");
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	{
		const struct hwt_profile_block *blocks;
		size_t nblocks = 0;

		/* Nothing ran in it (all its trace was lost): lines, functions
		   and branches are still listed, all at zero. */
		if (hwt_profile_blocks(profile, index, &blocks, &nblocks) < 0)
			nblocks = 0;
		rc = nblocks ? hwt_profile_image_insns(profile, index, NULL, &pinsns, &n) : 0;
	}
	if (rc < 0) {
		hwt_coverage_warn(cov, "%s (build-id %s): executed code cannot be read: %s: not in the report",
				  image->path, id, hwt_profile_errstr(rc));
		rc = 0;
		goto out;
	}
	insns = malloc((n ? n : 1) * sizeof(*insns));
	if (!insns) {
		rc = -hle_nomem;
		goto out;
	}
	for (i = 0; i < n; i++) {
		insns[i].vaddr = pinsns[i].vaddr;
		insns[i].count = pinsns[i].count;
		insns[i].taken = pinsns[i].taken;
		insns[i].not_taken = pinsns[i].not_taken;
	}
	if (n)
		qsort(insns, n, sizeof(*insns), cmp_cov_insn);
	rc = hwt_coverage_add(cov, info, insns, n);
	if (rc == 0 && image->undecoded)
		hwt_coverage_warn(cov, "%s: %llu piece%s of trace could not be decoded: counts may be low",
				  image->path, (unsigned long long)image->undecoded,
				  image->undecoded == 1 ? "" : "s");
out:
	free(insns);
	free(pinsns);
	hwt_debuginfo_free(info);
	return rc;
}

/*
 * Source files that cannot be read (deleted, or named relative to a build
 * directory that is gone) would stop genhtml: they are left out, each with
 * a warning naming it and its lines.
 */
static void drop_unreadable_sources(struct hwt_coverage *cov, const struct hwt_lcov_filter *filter)
{
	size_t i, n = hwt_coverage_source_count(cov), dropped = 0;
	uint64_t lines, total = 0;

	for (i = 0; i < n; i++) {
		const char *path = hwt_coverage_source_path(cov, i);

		if (!hwt_lcov_filter_match(filter, path) || access(path, R_OK) == 0)
			continue;
		hwt_coverage_source_lines(cov, i, &lines);
		hwt_coverage_source_drop(cov, i);
		if (++dropped <= 10)
			hwt_coverage_warn(cov, "source file not found: %s: its %llu line%s left out",
					  path, (unsigned long long)lines, lines == 1 ? "" : "s");
		else
			total += lines;
	}
	if (dropped > 10)
		hwt_coverage_warn(cov, "and %zu more source files not found (%llu lines): left out",
				  dropped - 10, (unsigned long long)total);
}

/* Runs genhtml on the lcov file; returns its exit status (or -1). */
static int run_genhtml(const char *info, const char *dir, const char *prefix)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		fprintf(stderr, "%s: cannot run genhtml: %s\n", prefix, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execlp("genhtml", "genhtml", "--quiet", "--branch-coverage", "--function-coverage",
		       "-o", dir, info, (char *)NULL);
		fprintf(stderr, "%s: cannot run genhtml: %s\n", prefix, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double percent(uint64_t hit, uint64_t found)
{
	return found ? 100.0 * (double)hit / (double)found : 0.0;
}

static int image_path_cmp(const void *a, const void *b, void *profile)
{
	const struct hwt_profile_image *x = hwt_profile_image_at(profile, *(const size_t *)a);
	const struct hwt_profile_image *y = hwt_profile_image_at(profile, *(const size_t *)b);
	uint32_t n = x->build_id_size < y->build_id_size ? x->build_id_size : y->build_id_size;
	int c = strcmp(x->path, y->path);

	if (!c)
		c = memcmp(x->build_id, y->build_id, n);
	if (!c)
		c = (x->build_id_size > y->build_id_size) - (x->build_id_size < y->build_id_size);
	return c;
}

/*
 * The profile's images by path and build-id: the order of the warnings
 * about them does not depend on the order the decode met them in (a decode
 * while recording meets them as processes end).
 */
static size_t *images_by_path(const struct hwt_profile *profile)
{
	size_t n = hwt_profile_image_count(profile);
	size_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), image_path_cmp, (void *)profile);
	return order;
}

int hwt_lcov_report(const char *bundle_dir, const struct hwt_lcov_report_options *options)
{
	const char *prefix = options->prefix ? options->prefix : "hwt report lcov";
	struct hwt_decode_options dopts = { 0 };
	struct hwt_lcov_totals totals;
	struct hwt_profile *profile;
	struct hwt_coverage *cov;
	char *tmp = NULL;
	size_t *order = NULL;
	struct stat st;
	FILE *out;
	size_t i;
	int rc, ret = 0, direct;

	profile = hwt_profile_alloc();
	cov = hwt_coverage_alloc();
	if (!profile || !cov) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		ret = 2;
		goto done;
	}
	dopts.flags = options->quiet ? 0 : HWT_DECODE_PROGRESS_TTY;
	dopts.jobs = options->jobs;
	dopts.live = options->live;
	dopts.diag_prefix = prefix;
	rc = hwt_decode_bundle(bundle_dir, profile, &dopts);
	if (rc < 0) {
		/* hwt_decode_bundle said why. */
		ret = 2;
		goto done;
	}
	order = images_by_path(profile);
	if (!order) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		ret = 2;
		goto done;
	}
	for (i = 0; i < hwt_profile_image_count(profile); i++) {
		rc = add_image(cov, profile, order[i], options);
		if (rc < 0) {
			fprintf(stderr, "%s: %s: %s\n", prefix,
				hwt_profile_image_at(profile, order[i])->path, hwt_lcov_errstr(rc));
			ret = 2;
			goto done;
		}
	}
	drop_unreadable_sources(cov, &options->filter);
	for (i = 0; i < hwt_coverage_warning_count(cov); i++)
		fprintf(stderr, "%s: warning: %s\n", prefix, hwt_coverage_warning_at(cov, i));
	/*
	 * Written beside the target, then renamed: no half-written report. Not
	 * so for a device or a pipe (-o /dev/null, -o /dev/stdout): renaming
	 * over one would replace it with a regular file.
	 */
	direct = stat(options->output, &st) == 0 && !S_ISREG(st.st_mode);
	if (!direct && asprintf(&tmp, "%s.tmp%ld", options->output, (long)getpid()) < 0) {
		ret = 2;
		goto done;
	}
	out = fopen(direct ? options->output : tmp, "w");
	if (!out) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, options->output, strerror(errno));
		ret = 2;
		goto done;
	}
	rc = hwt_coverage_write_lcov(cov, out, NULL, &options->filter, &totals);
	if (fclose(out) != 0 || rc < 0 || (!direct && rename(tmp, options->output) != 0)) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, options->output, strerror(errno));
		if (!direct)
			unlink(tmp);
		ret = 2;
		goto done;
	}
	if (totals.files == 0)
		fprintf(stderr, "%s: warning: no source file with debug info%s ran: %s is empty\n",
			prefix, options->filter.includes || options->filter.excludes ?
			" passed the filters" : "", options->output);
	if (!options->quiet) {
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
		fprintf(stderr, "%s: wrote %s (%llu source file%s)\n", prefix, options->output,
			(unsigned long long)totals.files, totals.files == 1 ? "" : "s");
	}
	if (options->html && totals.files) {
		rc = run_genhtml(options->output, options->html, prefix);
		if (rc != 0) {
			fprintf(stderr, "%s: genhtml failed (status %d): no HTML report in %s\n", prefix,
				rc, options->html);
			ret = 2;
		} else if (!options->quiet) {
			fprintf(stderr, "%s: HTML report in %s/index.html\n", prefix, options->html);
		}
	}
done:
	free(order);
	free(tmp);
	hwt_coverage_free(cov);
	hwt_profile_free(profile);
	return ret;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwt report lcov [options] BUNDLE\n"
		"\n"
		"Writes the line, function and branch coverage of a recorded run as an lcov\n"
		"tracefile, from the DWARF of every executed binary and library.\n"
		"\n"
		"  -o, --output FILE   the lcov file to write [" DEFAULT_OUTPUT "]\n"
		"      --html DIR      also write a genhtml report into DIR\n"
		"      --include GLOB  only source files matching GLOB (repeatable; '*'\n"
		"                      matches across '/')\n"
		"      --exclude GLOB  leave out source files matching GLOB (repeatable)\n"
		"      --system        also report system libraries (libc, ...) that have\n"
		"                      debug info (left out by default)\n"
		"  -v, --verbose       also say which system libraries were left out\n"
		"  -q, --quiet         no progress and no summary\n"
		"  -j, --jobs N        " HWT_DECODE_JOBS_HELP "\n"
		"  -h, --help          this text\n");
}

int hwt_report_lcov_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "html", required_argument, NULL, 'H' },
		{ "include", required_argument, NULL, 'i' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "system", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_lcov_report_options opts = { 0 };
	const char **inc = calloc((size_t)argc + 1, sizeof(*inc));
	const char **exc = calloc((size_t)argc + 1, sizeof(*exc));
	int opt, rc;

	if (!inc || !exc) {
		free(inc);
		free(exc);
		return 2;
	}
	opts.output = DEFAULT_OUTPUT;
	opts.prefix = "hwt report lcov";
	opts.filter.include = inc;
	opts.filter.exclude = exc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:vqj:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'o': opts.output = optarg; break;
		case 'H': opts.html = optarg; break;
		case 'i': inc[opts.filter.includes++] = optarg; break;
		case 'x': exc[opts.filter.excludes++] = optarg; break;
		case 'v': opts.verbose = 1; break;
		case 'S': opts.system = 1; break;
		case 'q': opts.quiet = 1; break;
		case 'j':
			if (hwt_decode_parse_jobs(optarg, &opts.jobs) < 0) {
				fprintf(stderr, "hwt report lcov: bad -j value '%s'\n", optarg);
				free(inc);
				free(exc);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			free(inc);
			free(exc);
			return 0;
		default:
			usage(stderr);
			free(inc);
			free(exc);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "hwt report lcov: %s\n",
			optind >= argc ? "which bundle?" : "one bundle at a time");
		usage(stderr);
		free(inc);
		free(exc);
		return 2;
	}
	rc = hwt_lcov_report(argv[optind], &opts);
	free(inc);
	free(exc);
	return rc;
}
