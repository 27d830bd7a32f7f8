/*
 * hwt's own section of a perf.data that hwt export wrote (the format is in
 * converters/perf/note.c and docs/perf.md): what perf.data cannot say about
 * the bundle it came from, read back so that the import gives that bundle
 * again.
 */
#include "import_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Undoes the percent-escaping of the section, in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		unsigned v;

		if (*s == '%' && sscanf(s + 1, "%2x", &v) == 1 && s[1] && s[2]) {
			*out++ = (char)v;
			s += 2;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static int note_line(struct import *im, struct inote *n, char *line)
{
	char word[16];
	int used = 0;

	if (sscanf(line, "%15s %n", word, &used) < 1)
		return 0;
	line += used;
	if (!strcmp(word, "bundle") || !strcmp(word, "summary")) {
		/* Summary keys are kept as summary.KEY. */
		char *kv = malloc(strlen(line) + 9);

		if (!kv)
			return -1;
		sprintf(kv, "%s%s", word[0] == 's' ? "summary." : "", line);
		{
			char **p = realloc(n->keys, (n->nkeys + 1) * sizeof(*p));

			if (!p) {
				free(kv);
				return -1;
			}
			n->keys = p;
		}
		unescape(kv);
		n->keys[n->nkeys++] = kv;
	} else if (!strcmp(word, "mmap")) {
		struct inote_mmap m = { 0 };
		unsigned flags;
		int at = 0;

		if (sscanf(line, "%" SCNu32 " %" SCNu64 " %" SCNx64 " %x %n", &m.pid, &m.time,
			   &m.addr, &flags, &at) < 4)
			return 1;
		m.flags = (uint16_t)flags;
		m.time = hwt_import_tsc(im, m.time);
		m.path = strdup(line + at);
		if (!m.path)
			return -1;
		unescape(m.path);
		{
			void *p = realloc(n->mmaps, (n->nmmaps + 1) * sizeof(*n->mmaps));

			if (!p) {
				free(m.path);
				return -1;
			}
			n->mmaps = p;
		}
		n->mmaps[n->nmmaps++] = m;
	} else if (!strcmp(word, "munmap")) {
		struct hwt_record_munmap u = { 0 };

		if (sscanf(line, "%" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNx64 " %" SCNx64, &u.hdr.pid,
			   &u.hdr.tid, &u.hdr.time, &u.addr, &u.len) < 5)
			return 1;
		u.hdr.time = hwt_import_tsc(im, u.hdr.time);
		{
			void *p = realloc(n->munmaps, (n->nmunmaps + 1) * sizeof(*n->munmaps));

			if (!p)
				return -1;
			n->munmaps = p;
		}
		n->munmaps[n->nmunmaps++] = u;
	} else if (!strcmp(word, "exit")) {
		uint32_t pid;
		uint64_t time;
		int32_t status;

		if (sscanf(line, "%" SCNu32 " %" SCNu64 " %" SCNd32, &pid, &time, &status) < 3)
			return 1;
		{
			void *p = realloc(n->exits, (n->nexits + 1) * sizeof(*n->exits));

			if (!p)
				return -1;
			n->exits = p;
		}
		n->exits[n->nexits].pid = pid;
		n->exits[n->nexits].time = hwt_import_tsc(im, time);
		n->exits[n->nexits].status = status;
		n->nexits++;
	} else if (!strcmp(word, "process")) {
		uint32_t pid, ppid;
		uint64_t time;
		int at = 0;
		char *path;

		if (sscanf(line, "%" SCNu32 " %" SCNu64 " %" SCNu32 " %n", &pid, &time, &ppid, &at) < 3)
			return 1;
		path = strdup(line + at);
		if (!path)
			return -1;
		unescape(path);
		{
			void *p = realloc(n->procs, (n->nprocs + 1) * sizeof(*n->procs));

			if (!p) {
				free(path);
				return -1;
			}
			n->procs = p;
		}
		n->procs[n->nprocs].pid = pid;
		n->procs[n->nprocs].ppid = ppid;
		n->procs[n->nprocs].time = hwt_import_tsc(im, time);
		n->procs[n->nprocs].path = path;
		n->nprocs++;
	} else {
		return 1;
	}
	return 0;
}

int hwt_import_note_read(struct import *im)
{
	const void *data;
	uint64_t size;
	char *text, *line, *save = NULL;
	unsigned bad = 0;

	if (hwt_perf_feature(im->reader, HWT_PERF_FEAT_HWT, &data, &size))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return -hie_nomem;
	memcpy(text, data, size);
	text[size] = '\0';
	if (strncmp(text, "hwt-perf 1\n", 11)) {
		hwt_import_warn(im, "%s: hwt's section is not version 1: ignored", im->perf_path);
		free(text);
		return 0;
	}
	im->note.present = 1;
	for (line = strtok_r(text + 11, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int r = note_line(im, &im->note, line);

		if (r < 0) {
			free(text);
			return -hie_nomem;
		}
		bad += (unsigned)r;
	}
	if (bad)
		hwt_import_warn(im, "%s: %u lines of hwt's section do not parse: ignored",
				im->perf_path, bad);
	free(text);
	return 0;
}

void hwt_import_note_free(struct inote *n)
{
	for (size_t i = 0; i < n->nkeys; i++)
		free(n->keys[i]);
	free(n->keys);
	for (size_t i = 0; i < n->nmmaps; i++)
		free(n->mmaps[i].path);
	free(n->mmaps);
	free(n->munmaps);
	free(n->exits);
	for (size_t i = 0; i < n->nprocs; i++)
		free(n->procs[i].path);
	free(n->procs);
	memset(n, 0, sizeof(*n));
}

const struct inote_mmap *hwt_import_note_mmap(const struct import *im, uint32_t pid,
					      uint64_t time, uint64_t addr)
{
	for (size_t i = 0; i < im->note.nmmaps; i++) {
		const struct inote_mmap *m = &im->note.mmaps[i];

		if (m->pid == pid && m->time == time && m->addr == addr)
			return m;
	}
	return NULL;
}
