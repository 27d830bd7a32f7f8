/*
 * Which test each process image of a bundle ran for (hwt-cov --per-test):
 * a process belongs to the test of its parent (the image before it of the
 * same pid after an exec, else the latest image of its parent pid); a
 * process that belongs to none starts a test when
 *  - it is a child of the recorded ctest: the CTest test whose command it
 *    runs (its arguments; a native process, whose arguments are not
 *    recorded, by its program), the first of the list not yet taken;
 *  - with --test-name REGEX: its command line matches REGEX, the test
 *    named by the match (its first group when it has one);
 *  - without: it is traced and its parent ran natively (the driver) or is
 *    not in the bundle, the test named by its command line.
 * Tests of one name are one test.
 */
#include <libgen.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_record.h"

struct process {
	uint32_t pid, ppid;
	uint64_t time;
	int native;
	int known;            /* its first record was read */
	char *command;        /* the command line (native: the program), malloc'd */
	char **argv;          /* traced: argc arguments, malloc'd */
	uint32_t argc;
	char *path;           /* the executable */
};

/* Reads the first record of image into p. */
static void read_process(const struct hwt_bundle_image *image, struct hwt_sideband *sb,
			 struct process *p)
{
	struct hwt_sideband_record rec;
	size_t len = 0;

	p->pid = image->pid;
	p->native = image->native;
	if (hwt_bundle_image_open(sb, image) < 0 || hwt_sideband_next(sb, &rec) < 0 || !rec.known)
		return;
	p->time = rec.hdr->time;
	if (rec.hdr->type == HWT_RECORD_UNTRACED) {
		p->ppid = rec.u.untraced->ppid;
		p->path = strdup(rec.path ? rec.path : "");
		p->command = strdup(p->path ? p->path : "");
		p->known = p->path && p->command;
		return;
	}
	if (rec.hdr->type != HWT_RECORD_PROCESS_START)
		return;
	p->ppid = rec.u.process->ppid;
	p->path = strdup(rec.path ? rec.path : "");
	p->argv = calloc(rec.argc + 1, sizeof(*p->argv));
	if (!p->path || !p->argv)
		return;
	for (uint32_t i = 0; i < rec.argc; i++) {
		p->argv[i] = strdup(rec.argv[i]);
		if (!p->argv[i])
			return;
		p->argc = i + 1;
		len += strlen(rec.argv[i]) + 1;
	}
	p->command = malloc(len + 1);
	if (!p->command)
		return;
	p->command[0] = 0;
	for (uint32_t i = 0; i < p->argc; i++) {
		if (i)
			strcat(p->command, " ");
		strcat(p->command, p->argv[i]);
	}
	p->known = 1;
}

static int same_program(const char *a, const char *b)
{
	char *x = realpath(a, NULL), *y = realpath(b, NULL);
	int same = x && y ? !strcmp(x, y) : !strcmp(a, b);

	free(x);
	free(y);
	return same;
}

/* Whether process p runs CTest test t. */
static int runs_test(const struct process *p, const struct hwt_ctest_test *t)
{
	if (!t->argc)
		return 0;
	if (p->native)
		return same_program(p->path, t->argv[0]);
	if (p->argc != t->argc)
		return 0;
	for (size_t i = 1; i < t->argc; i++)
		if (strcmp(p->argv[i], t->argv[i]))
			return 0;
	return !strcmp(p->argv[0], t->argv[0]) || same_program(p->path, t->argv[0]);
}

int32_t hwt_test_split_name(struct hwt_test_split *split, const char *name, size_t len)
{
	char **names;

	for (size_t i = 0; i < split->count; i++)
		if (strlen(split->names[i]) == len && !strncmp(split->names[i], name, len))
			return (int32_t)i;
	names = realloc(split->names, (split->count + 1) * sizeof(*names));
	if (!names)
		return -1;
	split->names = names;
	names[split->count] = strndup(name, len);
	if (!names[split->count])
		return -1;
	return (int32_t)split->count++;
}

static int by_time(const void *a, const void *b, void *context)
{
	const struct process *procs = context;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (procs[x].time != procs[y].time)
		return procs[x].time < procs[y].time ? -1 : 1;
	return (x > y) - (x < y);
}

/* pid -> the latest image of it met so far (the images go in time order). */
struct latest {
	uint32_t *pid;
	int64_t *image;              /* -1: empty slot */
	size_t mask;
};

static int64_t *latest_slot(struct latest *l, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & l->mask;

	while (l->image[i] >= 0 && l->pid[i] != pid)
		i = (i + 1) & l->mask;
	l->pid[i] = pid;
	return &l->image[i];
}

static int is_ctest(const struct process *p)
{
	const char *slash = p->path ? strrchr(p->path, '/') : NULL;
	const char *base = slash ? slash + 1 : p->path;

	return base && !strcmp(base, "ctest");
}

int hwt_test_split_find(struct hwt_test_split *split, struct hwt_bundle *bundle,
			const struct hwt_ctest_list *ctest, const regex_t *name)
{
	size_t n = hwt_bundle_image_count(bundle), *order = NULL;
	struct process *procs = calloc(n + 1, sizeof(*procs));
	unsigned char *taken = ctest ? calloc(ctest->count + 1, 1) : NULL;
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct latest latest = { NULL, NULL, 0 };
	size_t slots = 16;
	uint32_t ctest_pid = 0;
	int have_ctest = 0, rc = -1;

	memset(split, 0, sizeof(*split));
	split->images = n;
	split->image_test = malloc((n + 1) * sizeof(*split->image_test));
	order = malloc((n + 1) * sizeof(*order));
	while (slots < 2 * n)
		slots *= 2;
	latest.mask = slots - 1;
	latest.pid = calloc(slots, sizeof(*latest.pid));
	latest.image = malloc(slots * sizeof(*latest.image));
	if (latest.image)
		memset(latest.image, 0xff, slots * sizeof(*latest.image));
	if (!procs || !sb || !split->image_test || !order || !latest.pid || !latest.image ||
	    (ctest && !taken))
		goto out;
	for (size_t i = 0; i < n; i++) {
		read_process(hwt_bundle_image_at(bundle, i), sb, &procs[i]);
		order[i] = i;
		split->image_test[i] = -1;
	}
	/* The programs traced (where test functions may be). */
	for (size_t i = 0; i < n; i++) {
		const struct process *p = &procs[i];
		size_t k = 0;
		char **programs;

		if (!p->known || p->native || !p->path || !*p->path)
			continue;
		while (k < split->nprograms && strcmp(split->programs[k], p->path))
			k++;
		if (k < split->nprograms)
			continue;
		programs = realloc(split->programs, (k + 1) * sizeof(*programs));
		if (!programs)
			goto out;
		split->programs = programs;
		programs[k] = strdup(p->path);
		if (!programs[k])
			goto out;
		split->nprograms++;
	}
	qsort_r(order, n, sizeof(*order), by_time, procs);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		struct process *p = &procs[i];
		int64_t parent = -1;
		int32_t test = -1;
		regmatch_t m[2];

		/* The parent: the latest image of the same pid, else of the parent pid. */
		int64_t *same = latest_slot(&latest, p->pid);

		parent = *same;
		*same = (int64_t)i;
		if (parent < 0 && p->known && p->ppid != p->pid)
			parent = *latest_slot(&latest, p->ppid);
		if (!have_ctest && ctest && parent < 0 && p->known && is_ctest(p)) {
			have_ctest = 1;
			ctest_pid = p->pid;
			continue;
		}
		if (parent >= 0)
			test = split->image_test[parent];
		if (test < 0 && p->known && have_ctest && p->ppid == ctest_pid && p->pid != ctest_pid) {
			for (size_t t = 0; t < ctest->count && test < 0; t++)
				if (!taken[t] && runs_test(p, &ctest->tests[t])) {
					taken[t] = 1;
					test = hwt_test_split_name(split, ctest->tests[t].name,
							  strlen(ctest->tests[t].name));
					if (test < 0)
						goto out;
				}
		}
		if (test < 0 && p->known && name && (parent < 0 || split->image_test[parent] < 0) &&
		    regexec(name, p->command, 2, m, 0) == 0) {
			size_t g = m[1].rm_so >= 0 ? 1 : 0;

			test = hwt_test_split_name(split, p->command + m[g].rm_so,
					  (size_t)(m[g].rm_eo - m[g].rm_so));
			if (test < 0)
				goto out;
		}
		if (test < 0 && p->known && !name && !p->native &&
		    (parent < 0 || procs[parent].native)) {
			test = hwt_test_split_name(split, p->command, strlen(p->command));
			if (test < 0)
				goto out;
		}
		split->image_test[i] = test;
	}
	rc = 0;
out:
	for (size_t i = 0; procs && i < n; i++) {
		for (uint32_t k = 0; k < procs[i].argc; k++)
			free(procs[i].argv[k]);
		free(procs[i].argv);
		free(procs[i].path);
		free(procs[i].command);
	}
	free(procs);
	free(order);
	free(latest.pid);
	free(latest.image);
	free(taken);
	hwt_sideband_free(sb);
	if (rc < 0)
		hwt_test_split_fini(split);
	return rc;
}

void hwt_test_split_fini(struct hwt_test_split *split)
{
	for (size_t i = 0; i < split->count; i++)
		free(split->names[i]);
	free(split->names);
	for (size_t i = 0; i < split->nprograms; i++)
		free(split->programs[i]);
	free(split->programs);
	free(split->image_test);
	memset(split, 0, sizeof(*split));
}
