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
#include <stdarg.h>
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
#include "grow.h"
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
	char **v = hwt_grow_array(l->v, &l->cap, l->n + 2, sizeof(*v));

	if (!v)
		return -1;
	l->v = v;
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

/* One run of hwt-pgo: its options, then the files its steps make. */
struct pgo {
	struct hwt_command_options o;
	const char *output, *train, *cc, *cflags_s, *profile, *work, *measure_args, *keep;
	const char *bolt_tool;
	int bolt, sample, runs, quiet;
	int total_steps;
	int train_status;            /* the training runs' exit status: the last non-zero one */
	struct argv_list inputs, cflags;
	char *own_output, *own_profile, *own_work;
	char *train_bin, *bundle, *use_flag, *counts;              /* sample PGO */
	char *pre_bin, *fdata, *bolt_bundle, *bolt_counts;         /* BOLT */
};

static int nomem(void)
{
	fprintf(stderr, PREFIX ": out of memory\n");
	return HWT_EXIT_ERROR;
}

/* The options: -1 to go on, else the exit status (--help, a bad option). */
static int parse_options(struct pgo *p, int argc, char **argv)
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
	int opt, exit_status;
	char *end;

	/* Its profile is the trained binary's: the trace of the selected images alone. */
	p->o.unit.record_filter = HWT_RECORD_FILTER_DEFAULT;
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, "+:o:qvj:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 't': p->train = optarg; break;
		case 'c': p->cc = optarg; break;
		case 'f': p->cflags_s = optarg; break;
		case 'p': p->profile = optarg; break;
		case 'w': p->work = optarg; break;
		case 'k': p->keep = optarg; break;
		case 'm': p->measure_args = optarg; break;
		case 'b': p->bolt = 1; break;
		case 's': p->sample = 1; break;
		case 'L': p->bolt_tool = optarg; break;
		case 'r':
			errno = 0;
			p->runs = (int)strtol(optarg, &end, 10);
			if (errno || *end || p->runs < 1 || p->runs > 10000) {
				fprintf(stderr, PREFIX ": --runs wants a number from 1 to 10000\n");
				return 2;
			}
			break;
		default:
			/* -o, -q, -v, -j, --unit, --no-record-filter and --record-filter (checked here,
			   passed on). */
			exit_status = hwt_command_other_option(&p->o, opt, optarg, argv, usage, PREFIX);
			if (exit_status >= 0)
				return exit_status;
		}
	}
	p->output = p->o.output;
	p->quiet = p->o.quiet;
	p->o.unit.quiet = p->quiet;
	if (p->sample && !p->bolt) {
		fprintf(stderr, PREFIX ": --sample goes with --bolt (sample PGO alone is the "
			"default)\n");
		return 2;
	}
	if (!p->output)
		return hwt_command_usage_error(usage, PREFIX, "no program to build (-o PROG)");
	if (optind >= argc)
		return hwt_command_usage_error(usage, PREFIX, "no sources (after --)");
	for (int i = optind; i < argc; i++)
		if (push(&p->inputs, argv[i]))
			return nomem();
	if (push_words(&p->cflags, p->cflags_s))
		return nomem();
	return -1;
}

/* clang-19 when it runs, else clang. */
static int find_cc(struct pgo *p)
{
	struct argv_list probe = { 0 };
	int probe_status;

	p->cc = "clang-19";
	if (push(&probe, "clang-19") || push(&probe, "--version")) {
		clear(&probe);
		return nomem();
	}
	if (hwt_command_run(probe.v, 1, &probe_status) != 0)
		p->cc = "clang";
	clear(&probe);
	return 0;
}

/*
 * The names of what the steps make, the work directory made, and checks
 * that the outputs can be written, before anything is built or run:
 * 0 or the exit status.
 */
static int plan_files(struct pgo *p)
{
	int rc;

	/* Programs are run by path, never looked up in $PATH. */
	if (!strchr(p->output, '/') && !(p->output = p->own_output = concat("./", p->output)))
		return nomem();
	if (!p->cc && (rc = find_cc(p)) != 0)
		return rc;
	if (!p->work)
		p->work = p->own_work = concat(p->output, ".hwt-pgo");
	if (!p->profile)
		p->profile = p->own_profile = concat(p->output, ".afdo");
	if (!p->work || !p->profile)
		return nomem();
	if (mkdir(p->work, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, PREFIX ": error: cannot make %s: %s\n", p->work, strerror(errno));
		return HWT_EXIT_ERROR;
	}
	p->train_bin = concat(p->work, "/train");
	p->bundle = p->keep ? strdup(p->keep) : concat(p->work, "/train.hwt");
	p->use_flag = concat("-fprofile-sample-use=", p->profile);
	p->counts = concat(p->work, "/train.prof");
	if (!p->train_bin || !p->bundle || !p->use_flag || !p->counts)
		return nomem();
	if (p->keep && file_exists(p->keep)) {
		fprintf(stderr, PREFIX ": error: %s exists (--keep wants a new directory)\n",
			p->keep);
		return HWT_EXIT_ERROR;
	}
	if (hwt_command_check_output(p->output, PREFIX) < 0 ||
	    hwt_command_check_output(p->profile, PREFIX) < 0)
		return HWT_EXIT_ERROR;
	/* With --bolt, the binary BOLT trains and rewrites; the BOLT profile. */
	if (p->bolt) {
		p->pre_bin = concat(p->work, p->sample ? "/pgo" : "/pre-bolt");
		p->fdata = concat(p->output, ".fdata");
		p->bolt_bundle = concat(p->work, "/bolt.hwt");
		p->bolt_counts = concat(p->work, "/bolt.prof");
		if (!p->pre_bin || !p->fdata || !p->bolt_bundle || !p->bolt_counts)
			return nomem();
		if (hwt_command_check_output(p->fdata, PREFIX) < 0)
			return HWT_EXIT_ERROR;
	}
	p->total_steps = p->bolt ? (p->sample ? 7 : 4) : 4;
	return 0;
}

/* Says step n (of the total) and what it does; returns the time it begins. */
static double step_begin(const struct pgo *p, int n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static double step_begin(const struct pgo *p, int n, const char *fmt, ...)
{
	double t0 = now();
	va_list ap;

	if (!p->quiet) {
		fprintf(stderr, PREFIX ": %d/%d ", n, p->total_steps);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return t0;
}

/*
 * Builds bin with extra flags and the profile's use_flag (or NULL), for the
 * step begun at t0: 0, or the exit status.
 */
static int build_step(const struct pgo *p, double t0, const char *extra, const char *use_flag,
		      const char *bin)
{
	int rc = compile(p->cc, &p->cflags, extra, use_flag, &p->inputs, bin, p->quiet);

	if (rc == 0)
		step_done(p->quiet, t0);
	return rc;
}

/* The training run of bin as step n, timed: its counts in counts. 0, or the exit status. */
static int run_train_step(struct pgo *p, int n, const char *bin, const char *bundle,
			  const char *keep, const char *counts)
{
	struct argv_list rec = { 0 };
	double t0 = now();
	int status = 0, rc;
	char label[16];

	if (push(&rec, bin) || push_words(&rec, p->train)) {
		clear(&rec);
		return nomem();
	}
	snprintf(label, sizeof(label), "%d/%d", n, p->total_steps);
	rc = train_step(&p->o, label, bundle, keep, rec.v, counts, &status);
	clear(&rec);
	if (rc < 0)
		return HWT_EXIT_ERROR;
	if (status != 0)
		p->train_status = status;
	step_done(p->quiet, t0);
	return 0;
}

/* Step 3: the LLVM sample profile of the training binary (hwt report afdo). */
static int afdo_step(struct pgo *p)
{
	char *fixed[] = { "afdo", p->counts, "--binary", p->train_bin, "-o", (char *)p->profile,
			  p->quiet ? "-q" : "-v" };
	double t0 = step_begin(p, 3, "write the sample profile %s", p->profile);
	size_t ndirs = 0, n = 0;
	char **av;
	int rc;

	while (p->o.debug_dirs && p->o.debug_dirs[ndirs])
		ndirs++;
	av = calloc(7 + 2 * ndirs + 1, sizeof(*av));
	if (!av)
		return nomem();
	for (size_t k = 0; k < 7; k++)
		av[n++] = fixed[k];
	/* --debug-dir passed on: where the training binary's DWARF is, if not in it. */
	for (size_t k = 0; k < ndirs; k++) {
		av[n++] = "--debug-dir";
		av[n++] = (char *)p->o.debug_dirs[k];
	}
	rc = hwt_report_afdo_main((int)n, av);
	free(av);
	(void)unlink(p->counts);
	if (rc == HWT_EXIT_ERROR) {
		/* The training run is not lost: its trace stays for another try. */
		fprintf(stderr, PREFIX ": the trace is kept in %s; 'hwt report afdo %s "
			"--binary %s -o FILE' writes the profile from it\n", p->bundle, p->bundle,
			p->train_bin);
		return HWT_EXIT_ERROR;
	}
	if (!p->keep)
		(void)hwt_bundle_remove(p->bundle);
	step_done(p->quiet, t0);
	return 0;
}

/* Steps 1 to 4: sample PGO (for BOLT after it: linked with its relocations). 0, or the exit status. */
static int sample_pgo_steps(struct pgo *p)
{
	const char *bin = p->bolt ? p->pre_bin : p->output;
	int rc;

	rc = build_step(p, step_begin(p, 1, "build the training binary"),
			"-g -fdebug-info-for-profiling", NULL, p->train_bin);
	if (rc == 0)
		rc = run_train_step(p, 2, p->train_bin, p->bundle, p->keep, p->counts);
	if (rc == 0)
		rc = afdo_step(p);
	if (rc == 0)
		rc = build_step(p, step_begin(p, 4, "build %s with the profile", bin),
				p->bolt ? "-g -fdebug-info-for-profiling -Wl,--emit-relocs"
					: "-g -fdebug-info-for-profiling",
				p->use_flag, bin);
	return rc;
}

/* The BOLT profile of the binary BOLT trains (hwt report bolt), as step n. */
static int fdata_step(struct pgo *p, int n, const char *trace)
{
	char *av[] = { "bolt", p->bolt_counts, "--binary", p->pre_bin, "-o", p->fdata,
		       p->quiet ? "-q" : "-v", NULL };
	double t0 = step_begin(p, n, "write the BOLT profile %s", p->fdata);
	int rc;

	rc = hwt_report_bolt_main(7, av);
	(void)unlink(p->bolt_counts);
	if (rc == HWT_EXIT_ERROR) {
		/* The training run is not lost: its trace stays for another try. */
		fprintf(stderr, PREFIX ": the trace is kept in %s; 'hwt report bolt %s "
			"--binary %s -o FILE' writes the profile from it\n", trace, trace,
			p->pre_bin);
		return HWT_EXIT_ERROR;
	}
	if (p->sample || !p->keep)
		(void)hwt_bundle_remove(trace);
	step_done(p->quiet, t0);
	return 0;
}

/* BOLT's steps on pre_bin (built already): train it, its profile, llvm-bolt. */
static int bolt_steps(struct pgo *p)
{
	int first = p->sample ? 5 : 2;
	const char *trace = p->sample ? p->bolt_bundle : p->bundle;
	double t0;
	int rc;

	rc = run_train_step(p, first, p->pre_bin, trace, p->sample ? NULL : p->keep,
			    p->bolt_counts);
	if (rc == 0)
		rc = fdata_step(p, first + 1, trace);
	if (rc)
		return rc;
	t0 = step_begin(p, first + 2, "optimise with BOLT into %s", p->output);
	if (run_bolt(p->bolt_tool, p->pre_bin, p->fdata, p->output, p->quiet) < 0)
		return HWT_EXIT_ERROR;
	step_done(p->quiet, t0);
	return 0;
}

/* --measure: PROG.O2, the same build without the profile, timed against PROG. */
static int measure_step(const struct pgo *p)
{
	char *base_bin = concat(p->output, ".O2");
	int rc;

	if (!base_bin)
		return nomem();
	/* The same flags, debug info included (clang does not always
	   generate the same code with and without -g): only the profile
	   differs. */
	rc = compile(p->cc, &p->cflags, p->bolt && !p->sample ? "-g" : "-g -fdebug-info-for-profiling",
		     NULL, &p->inputs, base_bin, p->quiet) ||
	     measure(base_bin, p->output, p->measure_args, p->runs,
		     p->bolt ? (p->sample ? "sample PGO then BOLT" : "BOLT") : "sample PGO") < 0;
	free(base_bin);
	return rc ? HWT_EXIT_ERROR : 0;
}

static void pgo_fini(struct pgo *p)
{
	clear(&p->inputs);
	clear(&p->cflags);
	free(p->own_profile);
	free(p->own_output);
	free(p->own_work);
	free(p->train_bin);
	free(p->bundle);
	free(p->use_flag);
	free(p->counts);
	free(p->fdata);
	free(p->pre_bin);
	free(p->bolt_bundle);
	free(p->bolt_counts);
}

int main(int argc, char **argv)
{
	struct pgo p = { .train = "", .cflags_s = "-O2", .runs = 11 };
	int rc;

	rc = parse_options(&p, argc, argv);
	if (rc < 0)
		rc = plan_files(&p);
	else
		goto out; /* --help, --version or a bad option */
	if (rc == 0 && (!p.bolt || p.sample))
		rc = sample_pgo_steps(&p);
	else if (rc == 0)
		/* The build BOLT will rewrite: relocations kept in it. */
		rc = build_step(&p, step_begin(&p, 1, "build %s for BOLT", p.pre_bin),
				"-g -Wl,--emit-relocs", NULL, p.pre_bin);
	if (rc == 0 && p.bolt)
		rc = bolt_steps(&p);
	if (rc == 0) {
		/* Built from a training run that failed: a partial result. */
		rc = p.train_status != 0 ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
		if (p.measure_args && measure_step(&p))
			rc = HWT_EXIT_ERROR;
	}
out:
	pgo_fini(&p);
	return rc;
}
