/*
 * Timelines: every frame's opening and closing in execution order, written
 * as the streams are decoded (nothing but the frame names stays in memory).
 *
 *  - speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 *    one "evented" profile per thread, events {"type":"O"|"C","frame":i,"at":v};
 *    frame names in "shared.frames" (interned as a stack tree's names),
 *    written at the end (JSON objects are unordered, so the profiles can
 *    come first);
 *  - Chrome's trace event format (what chrome://tracing and Perfetto open):
 *    "B"/"E" slices per pid and tid, "M" events naming processes and
 *    threads.
 *
 * The clock ("at", "ts") is the thread's instruction count (weight insns)
 * or the trace's time (weight time).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "stacks_int.h"

struct hwt_stacks_timeline {
	enum hwt_timeline_format format;
	enum hwt_stacks_weight weight;
	FILE *out;
	char *name;
	struct hwt_stack_tree *frames; /* speedscope: shared frames, by name index */
	uint32_t *pids;            /* chrome: processes named so far */
	size_t pid_count, pid_capacity;
	int threads;               /* profiles (speedscope) or events (chrome) written */
	int in_thread;
	int first_event;
	uint32_t pid, tid;
	int nomem;
};

static void put_u64(FILE *out, uint64_t v)
{
	char b[24];

	fputs(hwt_stacks_u64(b, v), out);
}

struct hwt_stacks_timeline *hwt_stacks_timeline_alloc(enum hwt_timeline_format format, FILE *out,
						      enum hwt_stacks_weight weight, const char *name)
{
	struct hwt_stacks_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->format = format;
	tl->weight = weight;
	tl->out = out;
	tl->name = strdup(name ? name : "hwt");
	tl->frames = hwt_stack_tree_alloc();
	if (!tl->name || !tl->frames) {
		hwt_stacks_timeline_free(tl);
		return NULL;
	}
	if (format == hwt_timeline_speedscope) {
		fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		      "\"exporter\":\"hwt\",\"name\":\"", out);
		hwt_stacks_put_escaped(out, tl->name, 1);
		fputs("\",\"activeProfileIndex\":0,\"profiles\":[", out);
	} else {
		fputs("{\"traceEvents\":[", out);
	}
	return tl;
}

void hwt_stacks_timeline_free(struct hwt_stacks_timeline *tl)
{
	if (!tl)
		return;
	hwt_stack_tree_free(tl->frames);
	free(tl->pids);
	free(tl->name);
	free(tl);
}

enum hwt_stacks_weight hwt_timeline_weight(const struct hwt_stacks_timeline *tl)
{
	return tl ? tl->weight : hwt_weight_insns;
}

static void chrome_separator(struct hwt_stacks_timeline *tl)
{
	if (tl->threads++)
		fputc(',', tl->out);
	fputc('\n', tl->out);
}

static void chrome_ids(struct hwt_stacks_timeline *tl, int with_tid)
{
	fputs(",\"pid\":", tl->out);
	put_u64(tl->out, tl->pid);
	if (with_tid) {
		fputs(",\"tid\":", tl->out);
		put_u64(tl->out, tl->tid);
	}
}

static int pid_named(struct hwt_stacks_timeline *tl, uint32_t pid)
{
	void *p;

	for (size_t i = 0; i < tl->pid_count; i++)
		if (tl->pids[i] == pid)
			return 1;
	p = hwt_grow_array(tl->pids, &tl->pid_capacity, tl->pid_count + 1, sizeof(*tl->pids));
	if (p) {
		tl->pids = p;
		tl->pids[tl->pid_count++] = pid;
	} else {
		tl->nomem = 1;
	}
	return 0;
}

int hwt_timeline_thread_begin(struct hwt_stacks_timeline *tl, uint32_t pid, uint32_t tid,
			      const char *process, const char *name)
{
	tl->pid = pid;
	tl->tid = tid;
	tl->in_thread = 1;
	tl->first_event = 1;
	if (tl->format == hwt_timeline_speedscope) {
		if (tl->threads++)
			fputc(',', tl->out);
		fputs("\n{\"type\":\"evented\",\"name\":\"", tl->out);
		hwt_stacks_put_escaped(tl->out, name, 1);
		fputs("\",\"unit\":\"", tl->out);
		fputs(tl->weight == hwt_weight_time ? "none" : "none", tl->out);
		fputs("\",\"events\":[", tl->out);
		return 0;
	}
	if (!pid_named(tl, pid)) {
		chrome_separator(tl);
		fputs("{\"name\":\"process_name\",\"ph\":\"M\"", tl->out);
		chrome_ids(tl, 0);
		fputs(",\"args\":{\"name\":\"", tl->out);
		hwt_stacks_put_escaped(tl->out, process, 1);
		fputs("\"}}", tl->out);
	}
	chrome_separator(tl);
	fputs("{\"name\":\"thread_name\",\"ph\":\"M\"", tl->out);
	chrome_ids(tl, 1);
	fputs(",\"args\":{\"name\":\"", tl->out);
	hwt_stacks_put_escaped(tl->out, name, 1);
	fputs("\"}}", tl->out);
	return tl->nomem ? -1 : 0;
}

static void event(struct hwt_stacks_timeline *tl, const char *frame, enum hwt_frame_kind kind,
		  uint64_t at, int open)
{
	if (tl->format == hwt_timeline_speedscope) {
		int64_t index = hwt_stack_tree_intern(tl->frames, frame, kind);

		if (index < 0) {
			tl->nomem = 1;
			return;
		}
		if (!tl->first_event)
			fputc(',', tl->out);
		tl->first_event = 0;
		fputs(open ? "\n{\"type\":\"O\",\"frame\":" : "\n{\"type\":\"C\",\"frame\":", tl->out);
		put_u64(tl->out, (uint64_t)index);
		fputs(",\"at\":", tl->out);
		put_u64(tl->out, at);
		fputc('}', tl->out);
		return;
	}
	chrome_separator(tl);
	fputs("{\"name\":\"", tl->out);
	hwt_stacks_put_escaped(tl->out, frame, 1);
	fputs(open ? "\",\"ph\":\"B\"" : "\",\"ph\":\"E\"", tl->out);
	if (kind == hwt_frame_marker)
		fputs(",\"cat\":\"marker\"", tl->out);
	chrome_ids(tl, 1);
	fputs(",\"ts\":", tl->out);
	put_u64(tl->out, at);
	fputc('}', tl->out);
}

void hwt_timeline_open(struct hwt_stacks_timeline *tl, const char *frame, enum hwt_frame_kind kind,
		       uint64_t at)
{
	event(tl, frame, kind, at, 1);
}

void hwt_timeline_close(struct hwt_stacks_timeline *tl, const char *frame,
			enum hwt_frame_kind kind, uint64_t at)
{
	event(tl, frame, kind, at, 0);
}

void hwt_timeline_thread_end(struct hwt_stacks_timeline *tl, uint64_t at)
{
	if (!tl->in_thread)
		return;
	tl->in_thread = 0;
	if (tl->format == hwt_timeline_speedscope) {
		fputs("],\"startValue\":0,\"endValue\":", tl->out);
		put_u64(tl->out, at);
		fputc('}', tl->out);
	}
}

int hwt_stacks_timeline_finish(struct hwt_stacks_timeline *tl)
{
	if (tl->format == hwt_timeline_speedscope) {
		fputs("],\n\"shared\":{\"frames\":[", tl->out);
		for (size_t i = 0; i < hwt_stack_tree_name_count(tl->frames); i++) {
			fputs(i ? ",\n{\"name\":\"" : "\n{\"name\":\"", tl->out);
			hwt_stacks_put_escaped(tl->out, hwt_stack_tree_name(tl->frames, (uint32_t)i), 1);
			fputs("\"}", tl->out);
		}
		fputs("]}}\n", tl->out);
	} else {
		fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"hwt\",\"clock\":\"", tl->out);
		fputs(tl->weight == hwt_weight_time ? "trace time" : "instructions", tl->out);
		fputs("\",\"name\":\"", tl->out);
		hwt_stacks_put_escaped(tl->out, tl->name, 1);
		fputs("\"}}\n", tl->out);
	}
	if (tl->nomem)
		return -hse_nomem;
	return ferror(tl->out) ? -hse_io : 0;
}
