/*
 * hwt-pgo [options] -o PROG -- SOURCES-AND-FLAGS...
 *
 * Sample-profile-guided optimisation from a traced training run, in one
 * command (docs/pgo.md):
 *   1. build WORK/train with CC -O2 -g -fdebug-info-for-profiling;
 *   2. run it on the training arguments under the trace unit (as hwt
 *      record does), decoding each process as it ends (as hwt-cov does);
 *   3. write the LLVM sample profile (hwt report afdo) of that binary;
 *   4. rebuild PROG with -fprofile-sample-use=PROFILE;
 *   5. with --measure, also build a plain -O2 PROG and time both, runs
 *      interleaved, and report the speedup.
 *
 * With --bolt, BOLT instead (docs/pgo.md, "BOLT"): build with
 * -Wl,--emit-relocs, train under the trace, write the BOLT profile (hwt
 * report bolt), run llvm-bolt with it and the usual layout options. With
 * --bolt --sample, the sample PGO build (steps 1 to 4, linked with
 * --emit-relocs) is what BOLT trains and optimises. Every step is said and
 * timed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_decode.h"
#include "trace_unit.h"

#define PREFIX "hwt-pgo"

static void usage(FILE *out)
{
	fputs("usage: hwt-pgo [options] -o PROG -- SOURCES-AND-FLAGS...\n"
	      "\n"
	      "Builds PROG with sample-profile-guided optimisation from a traced training\n"
	      "run: builds DIR/train (CC -O2 -g -fdebug-info-for-profiling), runs it on the\n"
	      "training arguments under a trace unit (as 'hwt record'; each process is\n"
	      "decoded as soon as it ends, as hwt-cov does), writes its LLVM sample\n"
	      "profile and rebuilds PROG with -fprofile-sample-use. SOURCES-AND-FLAGS go to\n"
	      "every compile (source files, -I, -D, -l ...). docs/pgo.md describes each step.\n"
	      "\n"
	      "  -o, --output PROG     the optimised program to build (required)\n"
	      "      --train ARGS      arguments of the training run, split at blanks\n"
	      "                        (no quoting) [none]; its output shows unless -q\n"
	      "      --cc CC           the compiler [clang-19, else clang]\n"
	      "      --cflags FLAGS    optimisation flags of every build, split at blanks [-O2]\n"
	      "      --profile FILE    where the sample profile goes [PROG.afdo]\n"
	      "      --work DIR        where the training binary goes (DIR/train), and its\n"
	      "                        trace and counts while they are read [PROG.hwt-pgo]\n"
	      "      --keep BUNDLE     keep the trace bundle in BUNDLE (must not exist), as\n"
	      "                        hwt-cov and hwt flame do\n"
	      "      --bolt            optimise with BOLT instead: build with -Wl,--emit-relocs,\n"
	      "                        train under the trace, write the BOLT profile PROG.fdata\n"
	      "                        ('hwt report bolt') and run llvm-bolt with it\n"
	      "      --sample          with --bolt: sample PGO first (the steps above), then\n"
	      "                        BOLT on the PGO build (a second training run)\n"
	      "      --llvm-bolt P     the llvm-bolt to run [$HWT_LLVM_BOLT, else\n"
	      "                        llvm-bolt-19, else llvm-bolt]\n"
	      "      --measure ARGS    also build PROG.O2 (the same flags, no profile) and time\n"
	      "                        PROG.O2 and PROG on ARGS, interleaved; print the medians\n"
	      "      --runs N          timed runs of each program with --measure [11]\n"
	      "  -j, --jobs N          decode the trace with N threads (default: one per\n"
	      "                        CPU, at most 16)\n"
	      HWT_UNIT_USAGE
	      HWT_UNIT_RECORD_FILTER_USAGE
	      "      --debug-dir DIR   where separate debug files are (as for hwt report\n"
	      "                        afdo; DIR/train has its DWARF in itself)\n"
	      "  -v, --verbose         also say how many processes were decoded while the\n"
	      "                        training ran, and the training step's time\n"
	      "  -q, --quiet           print only errors and the result; the training run's\n"
	      "                        standard output goes to /dev/null\n"
	      "  -h, --help            this text\n"
	      "      --version         hwt-pgo's version\n"
	      "\n"
	      "Each step is said with the time it took.\n"
	      "\n"
	      "Exit status (docs/exit-status.md): 0 PROG built, 1 the training run failed\n"
	      "(non-zero exit or killed; the profile is still used), 2 an error (a bad\n"
	      "option, an output that cannot be written, a build, the trace or the profile\n"
	      "failed), 127 or 126 the compiler cannot be found or run.\n",
	      out);
}

struct argv_list {
	char **v;
	size_t n, cap;
};

static int push(struct argv_list *l, const char *s)
{
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (!l->v[l->n])
		return -1;
	l->v[++l->n] = NULL;
	return 0;
}

static int push_words(struct argv_list *l, const char *s)
{
	char *copy = strdup(s), *save = NULL, *w;
	int rc = 0;

	if (!copy)
		return -1;
	for (w = strtok_r(copy, " \t\n", &save); w && rc == 0; w = strtok_r(NULL, " \t\n", &save))
		rc = push(l, w);
	free(copy);
	return rc;
}

static void clear(struct argv_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static void print_command_line(const char *head, char *const *argv)
{
	size_t i;

	fputs(head, stderr);
	for (i = 0; argv[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
	fputc('\n', stderr);
}

/*
 * Runs argv (stdout to /dev/null when quiet_out); returns its exit code,
 * or -1 when it could not be started (message printed; *not_run, when not
 * NULL, gets the exit status a shell would give: 127 or 126).
 */
static int run_status(char *const *argv, int quiet_out, int *not_run)
{
	int status = 0, err = hwt_command_run(argv, quiet_out, &status);

	if (err) {
		fprintf(stderr, PREFIX ": error: cannot run %s: %s\n", argv[0],
			err == ENOENT ? "command not found" : strerror(err));
		if (not_run)
			*not_run = hwt_command_exec_status(err);
		return -1;
	}
	return hwt_exit_code(status);
}

static int run(char *const *argv, int quiet_out)
{
	return run_status(argv, quiet_out, NULL);
}

static int compile(const char *cc, const struct argv_list *cflags, const char *extra1,
		   const char *extra2, const struct argv_list *inputs, const char *out,
		   int quiet)
{
	struct argv_list a = { 0 };
	size_t i;
	int rc = 0, not_run;

	rc |= push(&a, cc);
	for (i = 0; i < cflags->n; i++)
		rc |= push(&a, cflags->v[i]);
	if (extra1)
		rc |= push_words(&a, extra1);
	if (extra2)
		rc |= push(&a, extra2);
	for (i = 0; i < inputs->n; i++)
		rc |= push(&a, inputs->v[i]);
	rc |= push(&a, "-o");
	rc |= push(&a, out);
	if (rc) {
		fprintf(stderr, PREFIX ": out of memory\n");
		clear(&a);
		return HWT_EXIT_ERROR;
	}
	if (!quiet)
		print_command_line(PREFIX ": ", a.v);
	not_run = HWT_EXIT_ERROR;
	rc = run_status(a.v, 0, &not_run);
	if (rc != 0 && rc != -1)
		fprintf(stderr, PREFIX ": error: the compiler failed (exit status %d) building %s\n",
			rc, out);
	clear(&a);
	/* A compiler that cannot be run: 127 or 126, as a shell says it. */
	return rc == 0 ? 0 : rc == -1 ? not_run : HWT_EXIT_ERROR;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Times base and opt on args, interleaved; prints medians and the speedup. */
static int measure(const char *base, const char *opt, const char *args, int runs,
		   const char *what)
{
	struct argv_list a = { 0 }, b = { 0 };
	double *tb = calloc((size_t)runs, sizeof(double));
	double *to = calloc((size_t)runs, sizeof(double));
	int i, rc = -1;

	if (!tb || !to || push(&a, base) || push_words(&a, args) || push(&b, opt) ||
	    push_words(&b, args)) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	for (i = 0; i < runs; i++) {
		/* Alternate which goes first, so that neither always runs warm. */
		int k;

		for (k = 0; k < 2; k++) {
			int which = (i + k) % 2;
			double t0 = now();
			int status = run(which ? b.v : a.v, 1);

			if (status != 0) {
				fprintf(stderr, PREFIX ": error: %s exited with status %d on %s\n",
					which ? opt : base, status, args);
				goto out;
			}
			(which ? to : tb)[i] = now() - t0;
		}
	}
	qsort(tb, (size_t)runs, sizeof(double), cmp_double);
	qsort(to, (size_t)runs, sizeof(double), cmp_double);
	printf("%s: %-24s median %.4f s (min %.4f, max %.4f)\n", PREFIX, base, tb[runs / 2], tb[0],
	       tb[runs - 1]);
	printf("%s: %-24s median %.4f s (min %.4f, max %.4f)\n", PREFIX, opt, to[runs / 2], to[0],
	       to[runs - 1]);
	printf("%s: speedup of %s over plain: %.3fx (%d interleaved %s each)\n", PREFIX, what,
	       tb[runs / 2] / to[runs / 2], runs, hwt_noun((uint64_t)runs, "run", "runs"));
	rc = 0;
out:
	clear(&a);
	clear(&b);
	free(tb);
	free(to);
	return rc;
}

static char *concat(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);

	if (s) {
		strcpy(s, a);
		strcat(s, b);
	}
	return s;
}

/* Wall and CPU seconds so far (this process and the children it waited for). */
static void clocks(double *wall, double *cpu)
{
	struct rusage self, children;

	*wall = now();
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	*cpu = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
			children.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
			children.ru_stime.tv_usec) * 1e-6;
}

/*
 * The training run (argv) recorded into bundle and decoded, each process
 * as it ends (hwt-cov's decode while recording), the rest once it has
 * exited: the counts saved in the hwt profile counts. *train_status is the
 * run's exit status. 0, or -1 (said why).
 */
static int train_step(const struct hwt_command_options *o, const char *step, const char *bundle,
		      const char *keep, char *const *argv, const char *counts, int *train_status)
{
	struct hwt_record_live live = { hwt_decode_live_alloc(bundle), NULL, NULL };
	struct hwt_command_decode_options how = {
		.prefix = PREFIX,
		.progress = hwt_progress_tty,
		.quiet = o->quiet,
		.jobs = o->jobs,
	};
	struct hwt_profile *profile = NULL;
	double wall0, cpu0, wall1, cpu1, decode;
	int wait_status = 0, rc = -1, err;

	clocks(&wall0, &cpu0);
	if (!o->quiet) {
		char head[96];

		snprintf(head, sizeof(head), PREFIX ": %s train (traced; its output follows): ", step);
		print_command_line(head, argv);
	}
	/* Our own bundle of an earlier run is replaced. */
	if (!keep)
		(void)hwt_bundle_remove(bundle);
	{
		/*
		 * The training run's output passes through, so that a failing run
		 * shows why; with -q its standard output goes to /dev/null.
		 */
		int saved = o->quiet ? dup(1) : -1;
		int null = o->quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;

		fflush(stdout);
		if (saved >= 0 && null >= 0)
			dup2(null, 1);
		err = hwt_record_run_live(bundle, &o->unit, argv, &wait_status, PREFIX, &live);
		if (saved >= 0) {
			dup2(saved, 1);
			close(saved);
		}
		if (null >= 0)
			close(null);
	}
	if (err < 0)
		goto out;
	*train_status = hwt_exit_code(wait_status);
	if (!o->quiet)
		hwt_command_print_untraced(bundle, &o->unit, PREFIX);
	if (*train_status != 0)
		fprintf(stderr, PREFIX ": warning: the training run exited with status %d\n",
			*train_status);
	profile = hwt_profile_alloc();
	if (!profile) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	how.live = live.live;
	decode = now();
	if (hwt_command_decode(bundle, profile, &how) < 0)
		goto out;
	decode = now() - decode;
	err = hwt_profile_save(profile, counts);
	if (err < 0) {
		fprintf(stderr, PREFIX ": error: cannot write %s: %s\n", counts,
			hwt_profile_errstr(err));
		goto out;
	}
	rc = 0;
	if (o->verbose) {
		hwt_command_live_say(live.live, PREFIX);
		clocks(&wall1, &cpu1);
		fprintf(stderr,
			PREFIX ": the training step (record and decode) took %.3f s, %.3f s of CPU; "
			"%.3f s of it decoding after the run\n",
			wall1 - wall0, cpu1 - cpu0, decode);
	}
out:
	hwt_profile_free(profile);
	hwt_decode_live_free(live.live);
	return rc;
}

/* Says how long a step took (it began at t0). */
static void step_done(int quiet, double t0)
{
	if (!quiet)
		fprintf(stderr, PREFIX ":      (%.2f s)\n", now() - t0);
}

/* BOLT's layout options: ext-tsp block order, function order, hot/cold splitting. */
static const char *const bolt_layout[] = {
	"-reorder-blocks=ext-tsp", "-reorder-functions=hfsort", "-split-functions",
	"-split-all-cold", "-split-eh",
};

/*
 * Runs llvm-bolt on in with the profile fdata, writing out. The BOLT
 * named by --llvm-bolt or $HWT_LLVM_BOLT, else llvm-bolt-19, else
 * llvm-bolt. 0, or -1 (said why).
 */
static int run_bolt(const char *bolt, const char *in, const char *fdata, const char *out,
		    int quiet)
{
	const char *env = getenv("HWT_LLVM_BOLT");
	const char *candidates[2];
	size_t n = 0, i, k;

	if (bolt)
		candidates[n++] = bolt;
	else if (env && *env)
		candidates[n++] = env;
	else {
		candidates[n++] = "llvm-bolt-19";
		candidates[n++] = "llvm-bolt";
	}
	for (i = 0; i < n; i++) {
		struct argv_list a = { 0 };
		char *data = concat("-data=", fdata);
		int rc = 0, status = 0, err;

		rc |= !data || push(&a, candidates[i]) || push(&a, in) || push(&a, data) ||
		      push(&a, "-o") || push(&a, out);
		for (k = 0; k < sizeof(bolt_layout) / sizeof(bolt_layout[0]); k++)
			rc |= push(&a, bolt_layout[k]);
		free(data);
		if (rc) {
			clear(&a);
			fprintf(stderr, PREFIX ": out of memory\n");
			return -1;
		}
		if (!quiet)
			print_command_line(PREFIX ": ", a.v);
		err = hwt_command_run(a.v, quiet, &status);
		clear(&a);
		if (err == ENOENT)
			continue;
		if (err) {
			fprintf(stderr, PREFIX ": error: cannot run %s: %s\n", candidates[i],
				strerror(err));
			return -1;
		}
		if (hwt_exit_code(status) != 0) {
			fprintf(stderr, PREFIX ": error: %s failed (exit status %d) on %s\n",
				candidates[i], hwt_exit_code(status), in);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, PREFIX ": error: no llvm-bolt found (install bolt-19, or give "
		"--llvm-bolt or $HWT_LLVM_BOLT)\n");
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "train", required_argument, NULL, 't' },
		{ "cc", required_argument, NULL, 'c' },
		{ "cflags", required_argument, NULL, 'f' },
		{ "profile", required_argument, NULL, 'p' },
		{ "work", required_argument, NULL, 'w' },
		{ "keep", required_argument, NULL, 'k' },
		{ "measure", required_argument, NULL, 'm' },
		{ "runs", required_argument, NULL, 'r' },
		{ "bolt", no_argument, NULL, 'b' },
		{ "sample", no_argument, NULL, 's' },
		{ "llvm-bolt", required_argument, NULL, 'L' },
		HWT_OPTION_QUIET,
		HWT_OPTION_VERBOSE,
		HWT_OPTION_JOBS,
		HWT_OPTION_DEBUG_DIR,
		HWT_OPTION_HELP,
		HWT_UNIT_LONG_OPTION,
		HWT_UNIT_RECORD_FILTER_LONG_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_command_options o = { 0 };
	const char *output, *train = "", *cc = NULL, *cflags_s = "-O2", *profile = NULL;
	const char *work = NULL, *measure_args = NULL, *keep = NULL, *bolt_tool = NULL;
	char *fdata = NULL, *pre_bin = NULL, *bolt_bundle = NULL, *bolt_counts = NULL;
	int bolt = 0, sample = 0;
	double t0;
	char *own_output = NULL, *own_profile = NULL, *own_work = NULL, *train_bin = NULL, *bundle = NULL,
	     *base_bin = NULL, *use_flag = NULL, *counts = NULL;
	struct argv_list inputs = { 0 }, cflags = { 0 }, rec = { 0 };
	int opt, runs = 11, quiet, status = 2, exit_status, train_status = 0, i, total_steps;
	char label[16];
	char *end;

	/* Its profile is the trained binary's: the trace of the selected images alone. */
	o.unit.record_filter = 1;
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, "+:o:qvj:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 't': train = optarg; break;
		case 'c': cc = optarg; break;
		case 'f': cflags_s = optarg; break;
		case 'p': profile = optarg; break;
		case 'w': work = optarg; break;
		case 'k': keep = optarg; break;
		case 'm': measure_args = optarg; break;
		case 'b': bolt = 1; break;
		case 's': sample = 1; break;
		case 'L': bolt_tool = optarg; break;
		case 'r':
			errno = 0;
			runs = (int)strtol(optarg, &end, 10);
			if (errno || *end || runs < 1 || runs > 10000) {
				fprintf(stderr, PREFIX ": --runs wants a number from 1 to 10000\n");
				return 2;
			}
			break;
		default:
			/* -o, -q, -v, -j, --unit, --no-record-filter and --record-filter (checked here,
			   passed on). */
			exit_status = hwt_command_other_option(&o, opt, optarg, argv, usage, PREFIX);
			if (exit_status >= 0)
				return exit_status;
		}
	}
	output = o.output;
	quiet = o.quiet;
	o.unit.quiet = quiet;
	if (sample && !bolt) {
		fprintf(stderr, PREFIX ": --sample goes with --bolt (sample PGO alone is the "
			"default)\n");
		return 2;
	}
	if (!output) {
		return hwt_command_usage_error(usage, PREFIX, "no program to build (-o PROG)");
	}
	/* Programs are run by path, never looked up in $PATH. */
	if (!strchr(output, '/'))
		output = own_output = concat("./", output);
	if (!output)
		goto nomem;
	if (optind >= argc) {
		return hwt_command_usage_error(usage, PREFIX, "no sources (after --)");
	}
	for (i = optind; i < argc; i++)
		if (push(&inputs, argv[i]))
			goto nomem;
	if (push_words(&cflags, cflags_s))
		goto nomem;
	if (!cc) {
		struct argv_list probe = { 0 };

		int probe_status;

		cc = "clang-19";
		if (push(&probe, "clang-19") || push(&probe, "--version"))
			goto nomem;
		if (hwt_command_run(probe.v, 1, &probe_status) != 0)
			cc = "clang";
		clear(&probe);
	}
	if (!work)
		work = own_work = concat(output, ".hwt-pgo");
	if (!profile)
		profile = own_profile = concat(output, ".afdo");
	if (!work || !profile)
		goto nomem;
	if (mkdir(work, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, PREFIX ": error: cannot make %s: %s\n", work, strerror(errno));
		goto out;
	}
	train_bin = concat(work, "/train");
	bundle = keep ? strdup(keep) : concat(work, "/train.hwt");
	use_flag = concat("-fprofile-sample-use=", profile);
	counts = concat(work, "/train.prof");
	if (!train_bin || !bundle || !use_flag || !counts)
		goto nomem;
	if (keep && file_exists(keep)) {
		fprintf(stderr, PREFIX ": error: %s exists (--keep wants a new directory)\n", keep);
		goto out;
	}
	/* Before anything is built or run: the outputs can be written. */
	if (hwt_command_check_output(output, PREFIX) < 0 ||
	    hwt_command_check_output(profile, PREFIX) < 0)
		goto out;

	/* With --bolt, the binary BOLT trains and rewrites; the BOLT profile. */
	if (bolt) {
		pre_bin = concat(work, sample ? "/pgo" : "/pre-bolt");
		fdata = concat(output, ".fdata");
		bolt_bundle = concat(work, "/bolt.hwt");
		bolt_counts = concat(work, "/bolt.prof");
		if (!pre_bin || !fdata || !bolt_bundle || !bolt_counts)
			goto nomem;
		if (hwt_command_check_output(fdata, PREFIX) < 0)
			goto out;
	}
	total_steps = bolt ? (sample ? 7 : 4) : 4;

	if (!bolt || sample) {
		/* 1. The training build. */
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": 1/%d build the training binary\n", total_steps);
		exit_status = compile(cc, &cflags, "-g -fdebug-info-for-profiling", NULL, &inputs,
				      train_bin, quiet);
		if (exit_status) {
			status = exit_status;
			goto out;
		}
		step_done(quiet, t0);

		/* 2 and 3: the training step. */
		t0 = now();
		if (push(&rec, train_bin) || push_words(&rec, train))
			goto nomem;
		snprintf(label, sizeof(label), "2/%d", total_steps);
		if (train_step(&o, label, bundle, keep, rec.v, counts, &train_status) < 0)
			goto out;
		step_done(quiet, t0);
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": 3/%d write the sample profile %s\n", total_steps,
				profile);
		{
			char *fixed[] = { "afdo", counts, "--binary", train_bin, "-o", (char *)profile,
					  quiet ? "-q" : "-v" };
			size_t ndirs = 0, n = 0;
			char **av;
			int rc;

			while (o.debug_dirs && o.debug_dirs[ndirs])
				ndirs++;
			av = calloc(7 + 2 * ndirs + 1, sizeof(*av));
			if (!av)
				goto nomem;
			for (size_t k = 0; k < 7; k++)
				av[n++] = fixed[k];
			/* --debug-dir passed on: where the training binary's DWARF is, if not in it. */
			for (size_t k = 0; k < ndirs; k++) {
				av[n++] = "--debug-dir";
				av[n++] = (char *)o.debug_dirs[k];
			}
			rc = hwt_report_afdo_main((int)n, av);
			free(av);
			(void)unlink(counts);
			if (rc == HWT_EXIT_ERROR) {
				/* The training run is not lost: its trace stays for another try. */
				fprintf(stderr, PREFIX ": the trace is kept in %s; 'hwt report afdo %s "
					"--binary %s -o FILE' writes the profile from it\n", bundle, bundle,
					train_bin);
				goto out;
			}
		}
		if (!keep)
			(void)hwt_bundle_remove(bundle);
		step_done(quiet, t0);

		/* 4. The optimised build (for BOLT: linked with its relocations). */
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": 4/%d build %s with the profile\n", total_steps,
				bolt ? pre_bin : output);
		exit_status = compile(cc, &cflags,
				      bolt ? "-g -fdebug-info-for-profiling -Wl,--emit-relocs"
					   : "-g -fdebug-info-for-profiling",
				      use_flag, &inputs, bolt ? pre_bin : output, quiet);
		if (exit_status) {
			status = exit_status;
			goto out;
		}
		step_done(quiet, t0);
	} else {
		/* 1. The build BOLT will rewrite: relocations kept in it. */
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": 1/%d build %s for BOLT\n", total_steps, pre_bin);
		exit_status = compile(cc, &cflags, "-g -Wl,--emit-relocs", NULL, &inputs, pre_bin,
				      quiet);
		if (exit_status) {
			status = exit_status;
			goto out;
		}
		step_done(quiet, t0);
	}
	if (bolt) {
		int first = sample ? 5 : 2;
		int bolt_train_status = 0;
		const char *bolt_trace = sample ? bolt_bundle : bundle;

		/* Train the binary BOLT rewrites, under the trace. */
		t0 = now();
		clear(&rec);
		if (push(&rec, pre_bin) || push_words(&rec, train))
			goto nomem;
		snprintf(label, sizeof(label), "%d/%d", first, total_steps);
		if (train_step(&o, label, bolt_trace, sample ? NULL : keep, rec.v, bolt_counts,
			       &bolt_train_status) < 0)
			goto out;
		if (bolt_train_status != 0)
			train_status = bolt_train_status;
		step_done(quiet, t0);

		/* Its BOLT profile. */
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": %d/%d write the BOLT profile %s\n", first + 1,
				total_steps, fdata);
		{
			char *av[] = { "bolt", bolt_counts, "--binary", pre_bin, "-o", fdata,
				       quiet ? "-q" : "-v", NULL };
			int rc = hwt_report_bolt_main(7, av);

			(void)unlink(bolt_counts);
			if (rc == HWT_EXIT_ERROR) {
				/* The training run is not lost: its trace stays for another try. */
				fprintf(stderr, PREFIX ": the trace is kept in %s; 'hwt report bolt %s "
					"--binary %s -o FILE' writes the profile from it\n", bolt_trace,
					bolt_trace, pre_bin);
				goto out;
			}
		}
		if (sample || !keep)
			(void)hwt_bundle_remove(bolt_trace);
		step_done(quiet, t0);

		/* llvm-bolt: the optimised layout. */
		t0 = now();
		if (!quiet)
			fprintf(stderr, PREFIX ": %d/%d optimise with BOLT into %s\n", first + 2,
				total_steps, output);
		if (run_bolt(bolt_tool, pre_bin, fdata, output, quiet) < 0)
			goto out;
		step_done(quiet, t0);
	}
	/* Built from a training run that failed: a partial result. */
	status = train_status != 0 ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;

	if (measure_args) {
		base_bin = concat(output, ".O2");
		if (!base_bin)
			goto nomem;
		/* The same flags, debug info included (clang does not always
		   generate the same code with and without -g): only the profile
		   differs. */
		if (compile(cc, &cflags, bolt && !sample ? "-g" : "-g -fdebug-info-for-profiling",
			    NULL, &inputs, base_bin, quiet) ||
		    measure(base_bin, output, measure_args, runs,
			    bolt ? (sample ? "sample PGO then BOLT" : "BOLT") : "sample PGO") < 0)
			status = 2;
	}
	goto out;
nomem:
	fprintf(stderr, PREFIX ": out of memory\n");
	status = 2;
out:
	clear(&inputs);
	clear(&cflags);
	clear(&rec);
	free(own_profile);
	free(own_output);
	free(own_work);
	free(train_bin);
	free(bundle);
	free(base_bin);
	free(use_flag);
	free(counts);
	free(fdata);
	free(pre_bin);
	free(bolt_bundle);
	free(bolt_counts);
	return status;
}
