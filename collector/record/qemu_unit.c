/*
 * The QEMU trace unit (collector/qemu): qemu-x86_64 (QEMU user mode, from
 * PATH) with hwt's TCG plugin lib/hwt/qemu/libhwt-qemu.so (or the one in
 * $HWT_QEMU_LIB), run as
 *
 *   qemu-x86_64 -plugin PLUGIN,bundle=DIR[,psb_period=N][,debug_blocks=on][,filter=GLOB]...
 *               [,select_filter=on][,spe=N]
 *               -0 ARGV0 -- PROGRAM ARGS...
 *
 * and aarch64 programs under qemu-aarch64 with the same plugin (it writes
 * ETMv4 for them):
 *
 *   qemu-aarch64 -L SYSROOT -U LD_PRELOAD -plugin PLUGIN,bundle=DIR... -0 ARGV0 -- ...
 *
 * The preloaded library adds what follows -plugin's argument (preload.c).
 * The plugin writes the bundle files the Valgrind tool writes and sees by
 * itself when a program is statically linked. Its address filter takes
 * whole images (--filter IMAGE), not functions.
 * unit_run.c runs it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_unit.h"

#define QEMU_EXE "qemu-x86_64"
#define QEMU_PLUGIN "libhwt-qemu.so"

static int qemu_prepare(struct hwt_unit_files *files, const struct hwt_unit_options *opts,
			const char *prefix, int quiet)
{
	for (size_t i = 0; opts->filters[i]; i++)
		if (strchr(opts->filters[i], ':')) {
			if (!quiet)
				fprintf(stderr, "%s: the qemu trace unit filters whole images "
					"(--filter IMAGE), not functions (use --unit valgrind)\n",
					prefix);
			return -1;
		}
	if (hwt_unit_find_in_path(QEMU_EXE, files->exe, sizeof(files->exe)) < 0) {
		if (!quiet)
			fprintf(stderr, "%s: cannot run " QEMU_EXE ": not found in PATH "
				"(install it: apt-get install qemu-user)\n", prefix);
		return -1;
	}
	return 0;
}

/* s with each ',' doubled: QEMU's option parser splits -plugin's argument at single ones. */
static char *escape_commas(const char *s)
{
	size_t n = strlen(s), commas = 0, i, k = 0;
	char *out;

	for (i = 0; i < n; i++)
		commas += s[i] == ',';
	out = malloc(n + commas + 1);
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		out[k++] = s[i];
		if (s[i] == ',')
			out[k++] = ',';
	}
	out[k] = '\0';
	return out;
}

/* -plugin and its argument. */
static int plugin_args(const struct hwt_unit_files *files, const char *bundle,
		       const struct hwt_unit_options *opts, struct hwt_unit_argv *out)
{
	char *lib = escape_commas(files->lib), *dir = escape_commas(bundle), psb[48] = "";
	char spe[48] = "";
	char *filters = NULL;
	size_t used = 0;
	int rc = -1;

	if (lib && dir) {
		if (opts->psb_period > 0)
			snprintf(psb, sizeof(psb), ",psb_period=%ld", opts->psb_period);
		if (opts->spe_interval > 0)
			snprintf(spe, sizeof(spe), ",spe=%ld%s", opts->spe_interval,
				 opts->no_etm ? ",etm=off" : "");
		/* filter=GLOB for each --filter IMAGE (16 at most, like the plugin). */
		for (size_t i = 0; i < 16 && opts->filters[i]; i++) {
			char *glob = escape_commas(opts->filters[i]);
			char *grown = glob ? realloc(filters, used + strlen(glob) + 9) : NULL;

			if (!grown) {
				free(glob);
				goto out;
			}
			filters = grown;
			used += (size_t)sprintf(filters + used, ",filter=%s", glob);
			free(glob);
		}
		rc = hwt_unit_arg(out, "-plugin") |
		     hwt_unit_argf(out, "%s/" QEMU_PLUGIN ",bundle=%s%s%s%s%s%s", lib, dir, psb,
				   opts->debug_blocks ? ",debug_blocks=on" : "",
				   filters ? filters : "",
				   hwt_unit_record_filter(&hwt_qemu_unit, opts) ?
					   ",select_filter=on" : "",
				   spe);
	}
out:
	free(filters);
	free(lib);
	free(dir);
	return rc ? -1 : 0;
}

static int qemu_argv_prefix(const struct hwt_unit_files *files, const char *bundle,
			    const struct hwt_unit_options *opts, struct hwt_unit_argv *out)
{
	if (hwt_unit_arg(out, files->exe) < 0)
		return -1;
	return plugin_args(files, bundle, opts, out);
}

static int qemu_argv_prefix_aarch64(const struct hwt_unit_files *files, const char *bundle,
				    const struct hwt_unit_options *opts, struct hwt_unit_argv *out)
{
	if (hwt_unit_aarch64_runner(out) < 0)
		return -1;
	return plugin_args(files, bundle, opts, out);
}

const struct hwt_unit hwt_qemu_unit = {
	.name = "qemu",
	.title = "QEMU",
	.lib_env = "HWT_QEMU_LIB",
	.lib_dir = "qemu",
	.lib_file = QEMU_PLUGIN,
	.prepare = qemu_prepare,
	.argv_prefix = qemu_argv_prefix,
	.child_env = NULL,
	.traces = "intel-pt,etmv4",
	.argv_prefix_aarch64 = qemu_argv_prefix_aarch64,
	.follows_children = 0,
	.record_filter = HWT_RECORD_FILTER_DEFAULT,
};
