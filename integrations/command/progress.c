/*
 * Progress as the commands show it on a terminal: one line on stderr,
 * redrawn in place and cleared at the end, never in a log (stderr not a
 * terminal). The decode's (a percentage of the trace) and the recording's
 * (processes traced so far, trace size, the unit), which a thread reads
 * from the bundle as the trace unit writes it: the units are not asked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwt_command.h"

/*
 * text (at most a line) from column 0, the rest of an older, longer text
 * erased, then the cursor back at column 0: output of the traced command
 * that comes meanwhile writes over the line rather than after it.
 */
static void show_line(const char *text)
{
	/* --progress into a file: no escapes, each line over the last for a pager */
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r%s\033[K\r", text);
	else
		fprintf(stderr, "\r%s", text);
	fflush(stderr);
}

static void clear_line(void)
{
	fputs(isatty(STDERR_FILENO) ? "\r\033[K" : "\n", stderr);
	fflush(stderr);
}

static int shown(enum hwt_progress_mode mode)
{
	return mode == hwt_progress_always || (mode == hwt_progress_tty && isatty(STDERR_FILENO));
}

void hwt_progress_init(struct hwt_progress *progress, enum hwt_progress_mode mode)
{
	progress->shown = shown(mode);
	progress->last = 0;
	progress->printed = 0;
	progress->prefix = "hwt";
}

void hwt_progress_print(uint64_t done, uint64_t total, void *context)
{
	struct hwt_progress *progress = context;
	char line[160], a[32], b[32];

	if (!progress->shown || !total)
		return;
	/* Every percent, and the end. */
	if (done != total && progress->printed && done - progress->last < total / 100)
		return;
	progress->last = done;
	snprintf(line, sizeof(line), "%s: decoding %3u%% (%s of %s)", progress->prefix,
		 (unsigned)(done * 100 / total), hwt_format_size(a, sizeof(a), done),
		 hwt_format_size(b, sizeof(b), total));
	show_line(line);
	progress->printed = 1;
}

void hwt_progress_end(struct hwt_progress *progress)
{
	if (progress->printed)
		clear_line();
	progress->printed = 0;
}

/* ----- the recording's progress ----- */

struct hwt_record_progress {
	int printed;
	char *dir, *prefix, *unit;
	struct timespec start;
};

/* The process images traced so far and the bytes of their trace, as the bundle in dir has them. */
static void count_bundle(const char *dir, uint64_t *images, uint64_t *bytes)
{
	char path[4096];
	struct dirent *e;
	struct stat st;
	DIR *d;

	*images = *bytes = 0;
	/* sideband/<pid>.<gen>.sb: one a process image (untraced.sb: the natives, in one) */
	snprintf(path, sizeof(path), "%s/sideband", dir);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 3 && !strcmp(e->d_name + n - 3, ".sb") && strcmp(e->d_name, "untraced.sb"))
			(*images)++;
	}
	if (d)
		closedir(d);
	/* streams/<pid>.<gen>-<tid>.pt or .etm: the trace */
	snprintf(path, sizeof(path), "%s/streams", dir);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_size;
	if (d)
		closedir(d);
	/* A unit that writes files of its own first (perf: perf.data) */
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".data") &&
		    fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
}

static void record_line(struct hwt_record_progress *p)
{
	struct timespec now;
	uint64_t images, bytes;
	char line[256], size[32];

	clock_gettime(CLOCK_MONOTONIC, &now);
	count_bundle(p->dir, &images, &bytes);
	snprintf(line, sizeof(line), "%s: recording (the %s unit), %lds: %llu %s traced, %s of trace",
		 p->prefix, p->unit, (long)(now.tv_sec - p->start.tv_sec),
		 (unsigned long long)images, hwt_noun(images, "process", "processes"),
		 hwt_format_size(size, sizeof(size), bytes));
	show_line(line);
	p->printed = 1;
}

static void record_free(struct hwt_record_progress *p)
{
	free(p->dir);
	free(p->prefix);
	free(p->unit);
	free(p);
}

struct hwt_record_progress *hwt_record_progress_new(const char *dir, const char *unit,
						    const char *prefix, enum hwt_progress_mode mode)
{
	struct hwt_record_progress *p;

	if (!shown(mode))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->dir = strdup(dir);
	p->prefix = strdup(prefix);
	p->unit = strdup(unit);
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	/* Out of memory: no progress, the recording goes on without it. */
	if (!p->dir || !p->prefix || !p->unit) {
		record_free(p);
		return NULL;
	}
	return p;
}

void hwt_record_progress_show(struct hwt_record_progress *p)
{
	if (p)
		record_line(p);
}

void hwt_record_progress_clear(struct hwt_record_progress *p)
{
	if (p && p->printed)
		clear_line();
	if (p)
		p->printed = 0;
}

void hwt_record_progress_free(struct hwt_record_progress *p)
{
	if (!p)
		return;
	hwt_record_progress_clear(p);
	record_free(p);
}
